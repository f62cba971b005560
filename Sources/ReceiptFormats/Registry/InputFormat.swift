import ReceiptModel

/// How sure a format is that a document is its own.
public enum Recognition: Int, Comparable, Sendable {
  case no
  /// The shape fits, but so might another format's (a JSON object of unknown keys).
  case possible
  /// A mark only this format has (a key, a magic number).
  case certain

  /// Whether one recognition is less sure than another.
  /// - Parameters:
  ///   - a: One recognition.
  ///   - b: The other.
  /// - Returns: True when `a` is less sure.
  public static func < (a: Recognition, b: Recognition) -> Bool { a.rawValue < b.rawValue }
}

/// The first bytes of a document, which formats recognise themselves by without reading the rest.
public struct DocumentSniff: Sendable {
  /// How many bytes a format may look at.
  public static let length = 4096

  /// Up to `length` bytes from the start, after a UTF-8 byte order mark: a copy for a sniff that borrows them.
  public var prefix: ArraySlice<UInt8> {
    if let borrowed { return ArraySlice(borrowed) }
    return owned
  }
  /// The prefix, when the sniff holds it.
  private let owned: ArraySlice<UInt8>
  /// The prefix in the caller's bytes, for a sniff made for one call (`FormatRegistry.decode(contentsOf:)`): every
  /// document's first 4 KB were copied into an array only to be looked at. Read only during that call.
  nonisolated(unsafe) private let borrowed: UnsafeBufferPointer<UInt8>?
  /// The first byte that is not JSON whitespace, if any.
  public let firstSignificantByte: UInt8?

  /// - Parameter bytes: the whole document.
  public init(_ bytes: [UInt8]) {
    self.init(prefixOf: bytes[...])
  }

  /// - Parameter bytes: the document's first bytes (at least `length` + 3 of them, or all).
  public init(prefixOf bytes: ArraySlice<UInt8>) {
    let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.startIndex + 3 : bytes.startIndex
    owned = bytes[start..<min(bytes.endIndex, start + Self.length)]
    borrowed = nil
    firstSignificantByte = owned.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
  }

  /// A sniff of the document in `bytes` that reads them where they lie: give it only to calls that return before
  /// `bytes` goes (a format's `recognition(of:)` keeps nothing).
  /// - Parameter bytes: the document's first bytes (at least `length` + 3 of them, or all).
  init(borrowingPrefixOf bytes: UnsafeBufferPointer<UInt8>) {
    let start = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
    let prefix = UnsafeBufferPointer(rebasing: bytes[start..<min(bytes.count, start + Self.length)])
    owned = []
    borrowed = prefix
    firstSignificantByte = prefix.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
  }

  /// Calls `body` with the prefix where it lies, borrowed or held.
  func withPrefix<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
    if let borrowed { return body(borrowed) }
    return owned.withUnsafeBufferPointer(body)
  }

  /// The names the registry's formats ask about, found in one walk of the prefix (`FormatRegistry.format(for:)`
  /// makes it for a document that opens a JSON object); nil otherwise, and a format then walks for its own.
  var names: QuotedNameFinds?

  /// Whether `"key"` followed by a colon appears in the prefix: a cheap test for a JSON key, decided on the key as
  /// JSON reads it (`"\u0073tatus"` is `status`). A key holding a quote is never found.
  public func containsKey(_ key: String) -> Bool {
    let name = Array(key.utf8)
    if let facts = names?.facts(of: name) { return !facts.isDisjoint(with: [.plainKey, .escapedKey]) }
    let own = QuotedNameSet([key])
    return withPrefix { bytes in
      own.walk(bytes) { _, _, end in QuotedNameFinds.colonFollows(bytes, from: end) }
    }
  }
}

/// One input format: a name, a recognition from the first bytes, and a decoder into the format-neutral
/// purchase history. Adding a format is one type conforming to this, plus one entry in `FormatRegistry.standard`.
public protocol InputFormat: Sendable {
  /// A short name for messages and documentation (`verifyReceipt JSON`).
  var name: String { get }
  /// - Parameter sniff: the document's first bytes.
  /// - Returns: how sure this format is that the document is its own.
  func recognition(of sniff: DocumentSniff) -> Recognition
  /// The quoted names (JSON keys, as JSON reads them) `recognition(of:)` asks about: the registry finds those of all
  /// its formats in one walk of a document's first bytes, and each format reads its own from `DocumentSniff.names`.
  var sniffNames: [String] { get }
  /// Reads a whole document.
  /// - Parameters:
  ///   - bytes: the document.
  ///   - source: the input's name for messages (a file name, `<stdin>`, `batch.ndjson:12`).
  ///   - options: what the caller allows.
  /// - Returns: the purchase history the document describes.
  /// - Throws: `ReceiptError` naming the source, the path or byte offset, and the value.
  func decode(_ bytes: [UInt8], source: String, options: DecodeOptions) throws(ReceiptError) -> PurchaseHistory
  /// Reads a whole document in place (a mapped file), which must stay valid until this returns.
  /// Formats that do not read in place get a copy (the default).
  func decode(
    contentsOf buffer: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions
  ) throws(ReceiptError) -> PurchaseHistory
}

extension InputFormat {
  /// No names: the format decides by other marks (a first byte, a line).
  public var sniffNames: [String] { [] }

  /// Copies `buffer` and decodes the copy.
  public func decode(
    contentsOf buffer: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions
  ) throws(ReceiptError) -> PurchaseHistory {
    try decode(Array(buffer), source: source, options: options)
  }
}

/// The input formats receipt-tool reads, and which one reads a document.
public struct FormatRegistry: Sendable {
  /// The formats, in the order ties are broken.
  public var formats: [any InputFormat] {
    didSet { sniffNames = QuotedNameSet(formats.flatMap { $0.sniffNames }) }
  }
  /// The names the formats ask about, looked for in one walk of each document.
  private var sniffNames: QuotedNameSet
  /// Reads what no format recognises, so that its error says why it is not that format.
  public var fallback: any InputFormat

  /// - Parameters:
  ///   - formats: the formats, in the order ties are broken.
  ///   - fallback: the format that reads a document no format recognises.
  public init(formats: [any InputFormat], fallback: any InputFormat) {
    self.formats = formats
    self.fallback = fallback
    sniffNames = QuotedNameSet(formats.flatMap { $0.sniffNames })
  }

  /// Every format receipt-tool ships.
  public static let standard = FormatRegistry(
    formats: [SignedDataFormat(), AppReceiptFormat(), VerifyReceiptFormat()],
    fallback: UnrecognisedInputFormat())

  /// The format that reads `bytes`: the first that is certain, else the first that finds it possible,
  /// else the fallback.
  /// - Parameter bytes: the whole document.
  /// - Returns: the format to decode it with.
  public func format(for bytes: [UInt8]) -> any InputFormat {
    format(for: DocumentSniff(bytes))
  }

  /// The format that reads a document with these first bytes.
  /// - Parameter sniff: the document's first bytes.
  /// - Returns: the format to decode it with.
  public func format(for sniff: DocumentSniff) -> any InputFormat {
    let sniff = withNames(sniff)
    var possible: (any InputFormat)?
    for format in formats {
      switch format.recognition(of: sniff) {
      case .certain: return format
      case .possible: if possible == nil { possible = format }
      case .no: continue
      }
    }
    return possible ?? fallback
  }

  /// `sniff` with the names the formats ask about, found in one walk. Names are JSON keys: only a document that
  /// opens an object is walked for them (a format asking about another walks for its own).
  func withNames(_ sniff: DocumentSniff) -> DocumentSniff {
    var sniff = sniff
    sniff.names = nil
    if sniff.firstSignificantByte == UInt8(ascii: "{"), !sniffNames.names.isEmpty {
      sniff.names = sniff.withPrefix { sniffNames.finds(in: $0) }
    }
    return sniff
  }

  /// Decodes a document with the format that recognises it.
  /// - Parameters:
  ///   - bytes: the document.
  ///   - source: the input's name for messages.
  ///   - options: what the caller allows.
  /// - Returns: the purchase history the document describes.
  /// - Throws: the format's `ReceiptError`.
  public func decode(
    _ bytes: [UInt8], source: String, options: DecodeOptions = DecodeOptions()
  ) throws(ReceiptError) -> PurchaseHistory {
    try format(for: bytes).decode(bytes, source: source, options: options)
  }

  /// Decodes a document in place (a mapped file) with the format that recognises it.
  /// - Parameters:
  ///   - buffer: the document, valid until this returns.
  ///   - source: the input's name for messages.
  ///   - options: what the caller allows.
  /// - Returns: the purchase history the document describes.
  /// - Throws: the format's `ReceiptError`.
  public func decode(
    contentsOf buffer: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions = DecodeOptions()
  ) throws(ReceiptError) -> PurchaseHistory {
    try format(forDocumentAt: buffer).decode(contentsOf: buffer, source: source, options: options)
  }

  /// The format that reads the document in `buffer`, its first bytes read where they lie (not copied).
  /// - Parameter buffer: the document, valid until this returns.
  /// - Returns: the format to decode it with.
  func format(forDocumentAt buffer: UnsafeBufferPointer<UInt8>) -> any InputFormat {
    format(for: DocumentSniff(borrowingPrefixOf: buffer))
  }
}
