import ReceiptModel

/// Reads what no format recognises. Input that starts like JSON goes to verifyReceipt JSON, whose errors
/// give the line and column of the fault; anything else is named for what it looks like (plain text, XML,
/// a ZIP archive, binary data), never answered with "unexpected character".
public struct UnrecognisedInputFormat: InputFormat {
  public init() {}

  public var name: String { "unrecognised input" }

  public func recognition(of sniff: DocumentSniff) -> Recognition { .no }

  public func decode(_ bytes: [UInt8], source: String, options: DecodeOptions) throws(ReceiptError) -> PurchaseHistory {
    if let error = Self.notAReceipt(DocumentSniff(bytes), source: source) { throw error }
    return try VerifyReceiptFormat().decode(bytes, source: source, options: options)
  }

  public func decode(
    contentsOf buffer: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions
  ) throws(ReceiptError) -> PurchaseHistory {
    if let error = Self.notAReceipt(
      DocumentSniff(prefixOf: ArraySlice(buffer.prefix(DocumentSniff.length + 3))), source: source)
    {
      throw error
    }
    return try VerifyReceiptFormat().decode(contentsOf: buffer, source: source, options: options)
  }

  /// The formats receipt-tool reads, for the end of the message.
  static let formatsRead =
    "receipt-tool reads verifyReceipt JSON, App Store notification bodies, StoreKit 2 signed data (JWS) and "
    + "app receipts (PKCS#7, DER or base64)"

  /// The error for input that is no format's and does not start like JSON; nil when it starts like JSON
  /// (or like UTF-16, which the JSON reader names), so that the JSON reader says where it goes wrong.
  /// - Parameters:
  ///   - sniff: the document's first bytes.
  ///   - source: the input's name for messages.
  /// - Returns: an error naming what the input looks like, or nil.
  static func notAReceipt(_ sniff: DocumentSniff, source: String) -> ReceiptError? {
    guard let looks = looksLike(sniff) else { return nil }
    let start = sniff.prefix.firstIndex { $0 == sniff.firstSignificantByte } ?? sniff.prefix.startIndex
    let before = sniff.prefix[sniff.prefix.startIndex..<start]
    let line = before.count { $0 == 0x0A } + 1
    let column = before.count - (before.lastIndex(of: 0x0A).map { $0 - sniff.prefix.startIndex + 1 } ?? 0) + 1
    return ReceiptError(
      .malformed, source: source, position: .lineColumn(line: line, column: column),
      message: "not a receipt: the input is \(looks); \(formatsRead)")
  }

  /// What the input looks like, or nil when it starts like JSON (or is empty, or UTF-16/32).
  static func looksLike(_ sniff: DocumentSniff) -> String? {
    guard let first = sniff.firstSignificantByte else { return nil }
    let p = sniff.prefix
    // UTF-16 and UTF-32 (NUL bytes or a byte order mark near the start): the JSON reader names them.
    if p.prefix(4).contains(0) || p.starts(with: [0xFF, 0xFE]) || p.starts(with: [0xFE, 0xFF]) { return nil }
    let text = p.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    func starts(_ s: String) -> Bool { text.starts(with: Array(s.utf8)) }
    func startsIgnoringCase(_ s: String) -> Bool {
      text.count >= s.utf8.count && zip(text, s.utf8).allSatisfy { a, b in lowercased(a) == b }
    }
    if starts("bplist") { return "a binary property list" }
    if starts("PK\u{3}\u{4}") { return "a ZIP archive" }
    if starts("%PDF") { return "a PDF document" }
    if text.starts(with: [0x1F, 0x8B]) { return "gzip-compressed data" }
    if starts("-----BEGIN ") { return "a PEM block (\(quotedLine(text)))" }
    if startsIgnoringCase("<!doctype html") || startsIgnoringCase("<html") { return "an HTML page" }
    if first == UInt8(ascii: "<") {
      return containsBytes(p, "<plist") ? "an XML property list" : "XML or HTML markup (\(quotedLine(text)))"
    }
    // Anything a JSON value can start with: the JSON reader reports its own faults with a position.
    let jsonStarts: [UInt8] = Array("{[\"-0123456789".utf8)
    if jsonStarts.contains(first) || starts("null") || starts("true") || starts("false") { return nil }
    guard isText(p) else {
      let hex = text.prefix(8).map { hexByte($0) }.joined(separator: " ")
      return "binary data beginning \(hex), neither JSON nor a PKCS#7 receipt"
    }
    return "plain text beginning \(quotedLine(text))"
  }

  private static func lowercased(_ b: UInt8) -> UInt8 { (0x41...0x5A).contains(b) ? b + 0x20 : b }

  private static func containsBytes(_ haystack: ArraySlice<UInt8>, _ needle: String) -> Bool {
    let n = Array(needle.utf8)
    guard haystack.count >= n.count else { return false }
    var i = haystack.startIndex
    while i <= haystack.endIndex - n.count {
      if haystack[i..<(i + n.count)].elementsEqual(n) { return true }
      i += 1
    }
    return false
  }

  /// Valid UTF-8 without control characters other than tab, line feed and carriage return.
  private static func isText(_ bytes: ArraySlice<UInt8>) -> Bool {
    if bytes.contains(where: { ($0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D) || $0 == 0x7F }) { return false }
    // The prefix may end inside a multi-byte character: up to three bytes of one may be cut.
    return (0...3).contains { cut in
      cut <= bytes.count && String(validating: bytes.dropLast(cut), as: UTF8.self) != nil
    }
  }

  /// The first line, up to 40 characters, quoted with controls escaped.
  private static func quotedLine(_ text: ArraySlice<UInt8>) -> String {
    let line = text.prefix { $0 != 0x0A && $0 != 0x0D }
    let decoded = String(decoding: line, as: UTF8.self)
    let cut = decoded.count > 40 ? String(decoded.prefix(40)) + "…" : decoded
    return Excerpt.quoted(cut)
  }

  private static func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 0x0F)]])
  }
}
