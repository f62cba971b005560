/// Where in an input document a problem lies.
public enum InputPosition: Hashable, Sendable {
  /// A text position, both counted from 1 (JSON documents).
  case lineColumn(line: Int, column: Int)
  /// A byte offset from the start of the decoded bytes (binary formats such as DER).
  case byteOffset(Int)
}

/// A problem with input data, a catalog or a computation over them, found below the command line.
///
/// It says what went wrong and where (source, path, position), and nothing about exit statuses:
/// only the command line maps `kind` to one.
public struct ReceiptError: Error, Hashable, Sendable {
  /// What sort of problem it is.
  public enum Kind: Hashable, Sendable {
    /// The bytes are not in the format at all (not JSON, not DER, a broken JWS).
    case malformed
    /// The format is right, but a value the tool reads cannot be interpreted.
    case invalidValue
    /// Well-formed, but not what the command needs (not a receipt, a failed receipt status).
    case unusable
    /// An input file that cannot be opened.
    case noInput
    /// Reading or writing failed part way.
    case io
    /// A bug in receipt-tool.
    case internalFailure
  }

  /// What sort of problem it is; the command line maps it to an exit status.
  public var kind: Kind
  /// The input's name as the user gave it (a file name, `<stdin>`), when one is known.
  public var source: String?
  /// The path of the value inside the document (`receipt.in_app[3].expires_date_ms`).
  public var path: String?
  /// Where in the document, as a line and column or a byte offset, when known.
  public var position: InputPosition?
  /// What is wrong, in a sentence a support person can read out.
  public var message: String

  /// - Parameters:
  ///   - kind: what sort of problem it is.
  ///   - source: the input's name, when known.
  ///   - path: the value's path inside the document.
  ///   - position: where in the document.
  ///   - message: what is wrong, in a sentence a support person can read out.
  public init(
    _ kind: Kind, source: String? = nil, path: String? = nil, position: InputPosition? = nil, message: String
  ) {
    self.kind = kind
    self.source = source
    self.path = path
    self.position = position
    self.message = message
  }

  /// A value that cannot be interpreted, at a path and (when known) a line and column.
  public static func field(source: String, path: String, message: String, line: Int?, column: Int?) -> ReceiptError {
    let position = line.flatMap { line in column.map { InputPosition.lineColumn(line: line, column: $0) } }
    return ReceiptError(.invalidValue, source: source, path: path, position: position, message: message)
  }

  /// A document that is well-formed but not usable for what was asked.
  public static func data(source: String?, message: String) -> ReceiptError {
    ReceiptError(.unusable, source: source, message: message)
  }

  /// This error placed in an input, when it has no source yet.
  public func inSource(_ name: String) -> ReceiptError {
    guard source == nil else { return self }
    var copy = self
    copy.source = name
    return copy
  }

  /// The one-line message: `source:line:column: path: message`, or `source: byte N (path): message`.
  public var description: String {
    var text = ""
    if let source {
      text += source
      if case .lineColumn(let line, let column) = position { text += ":\(line):\(column)" }
      text += ": "
    }
    if case .byteOffset(let offset) = position {
      text += "byte \(offset)" + (path.map { " (\($0))" } ?? "") + ": "
    } else if let path {
      text += path + ": "
    }
    if kind == .internalFailure { text += "internal error: " }
    text += message
    // One line, whatever the input held.
    return text.onOneLine
  }
}

extension String {
  /// This text with each line break (`\n`, `\r`, `\r\n`, and Unicode's others) made one space: an error message is
  /// one line whatever the input held. Read by Character only when a byte could begin a break (10-13, or the lead
  /// byte of U+0085, U+2028, U+2029): grapheme breaking costs more than the rest.
  package var onOneLine: String {
    guard mayHoldLineBreak(self) else { return self }
    return String(map { $0.isNewline ? " " : $0 })
  }
}
