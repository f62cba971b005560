import ReceiptModel

/// Why signed data could not be read: what is wrong and where, on one line, never quoting a token.
///
/// `path` names the place from the document down: JSON keys joined by `.`, and ` > header` /
/// ` > payload` where a JWS is opened, e.g. `signedTransactions[3] > payload > expiresDate`.
/// `line`/`column` are inside the innermost JSON text: the decoded payload or header when the path
/// goes through one, otherwise the document.
public struct SignedDataError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What sort of problem it is.
  public enum Category: String, Sendable, Hashable {
    /// Nothing here is signed data (no JWS, no App Store Server shape).
    case notSignedData
    /// A JWS without exactly three `.`-separated segments.
    case segmentCount
    /// A JWS segment that is not strict base64url.
    case base64url
    /// A header that is not a JSON object, or has mistyped `alg`/`kid`/`x5c`.
    case header
    /// A payload that is not JSON.
    case payloadJSON
    /// A payload whose fields say no known kind, or two kinds at once.
    case unknownKind
    /// An object that holds no purchase data: an API request, an error, or fields of no kind the tool reads.
    case notPurchaseData
    /// A payload of another kind than its place requires (a renewal where a transaction belongs).
    case kindMismatch
    /// A field of the wrong JSON type, or a value out of range.
    case field
    /// The document is JSON but its shape is broken (syntax error, wrong container types).
    case document
    /// Over a size or count limit.
    case tooLarge
  }

  /// What sort of problem it is.
  public var category: Category
  /// Where, from the document down (`signedTransactions[3] > payload > expiresDate`).
  public var path: String
  /// What is wrong, never quoting a token.
  public var detail: String
  /// Line in the innermost JSON text, from 1, when known.
  public var line: Int?
  /// Column in the innermost JSON text, from 1, when known.
  public var column: Int?

  /// Makes an error.
  /// - Parameters:
  ///   - category: What sort of problem.
  ///   - path: Where, from the document down.
  ///   - detail: What is wrong.
  ///   - line: Line in the innermost JSON text, when known.
  ///   - column: Column in the innermost JSON text, when known.
  public init(_ category: Category, path: String, detail: String, line: Int? = nil, column: Int? = nil) {
    self.category = category
    self.path = path
    self.detail = detail
    self.line = line
    self.column = column
  }

  /// `signedTransactions[3] > payload > expiresDate (1:210): expected a number, found a string`.
  public var description: String {
    var place = path.isEmpty ? "(document)" : path
    if let line, let column { place += " (\(line):\(column))" }
    return (place + ": " + detail).onOneLine
  }
}

/// Path building for messages.
enum SignedDataPath {
  /// `a` then `b`: JSON steps join with `.` (or nothing before `[`), JWS steps (` > `) are kept as written.
  static func join(_ a: String, _ b: String) -> String {
    if a.isEmpty { return b }
    if b.isEmpty { return a }
    if b.hasPrefix(" > ") || b.hasPrefix("[") { return a + b }
    if a.hasSuffix(" > header") || a.hasSuffix(" > payload") || a == "header" || a == "payload" { return a + " > " + b }
    return a + "." + b
  }

  /// The path into a JWS's payload or header.
  static func into(_ a: String, _ part: String) -> String { a.isEmpty ? part : a + " > " + part }
}

/// A message path made only when a message needs it: `parent`, then `[index]`, then ` > part`.
struct LazyPath: Sendable {
  var parent: String
  var index: Int?
  var part: String?

  init(_ parent: String, index: Int? = nil, part: String? = nil) {
    self.parent = parent
    self.index = index
    self.part = part
  }

  /// The path as messages write it.
  var text: String {
    var s = parent
    if let index { s += "[\(index)]" }
    if let part { s = SignedDataPath.into(s, part) }
    return s
  }

  /// The path into the JWS's `part` (header or payload).
  func into(_ part: String) -> LazyPath {
    self.part == nil ? LazyPath(parent, index: index, part: part) : LazyPath(text, part: part)
  }
}
