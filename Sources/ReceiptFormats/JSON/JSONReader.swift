import ReceiptModel

/// A JSON syntax error with the place it was found.
public struct JSONSyntaxError: Error, Equatable, Sendable {
  public var message: String
  /// Byte offset of the offending byte.
  public var offset: Int
  /// 1-based line.
  public var line: Int
  /// 1-based column, counted in characters (UTF-8 sequences).
  public var column: Int
}

/// The kind of the next value in a `JSONReader`.
public enum JSONKind: Sendable, Equatable {
  case object, array, string, number, bool, null

  /// How error messages name a JSON value of this kind.
  public var noun: String {
    switch self {
    case .object: "an object"
    case .array: "an array"
    case .string: "a string"
    case .number: "a number"
    case .bool: "a boolean"
    case .null: "null"
    }
  }
}

/// A string token: where its content lies in the input, before unescaping.
public struct JSONStringToken: Sendable {
  public var start: Int
  public var end: Int
  public var hasEscapes: Bool
}

/// A pull reader over UTF-8 JSON text (RFC 8259).
///
/// It validates as it goes and never builds a tree: callers ask for the next
/// key, element or scalar and skip what they do not need. Nesting is limited
/// to `maxDepth` levels, checked before descending, so no input can exhaust
/// the stack. Integers are handed out as text, so ids and millisecond
/// timestamps never pass through `Double`.
public struct JSONReader {
  /// The nesting limit Foundation also uses.
  public static let defaultMaxDepth = 512

  @usableFromInline let buf: UnsafeBufferPointer<UInt8>
  @usableFromInline var pos: Int
  @usableFromInline let end: Int
  @usableFromInline var depth = 0
  @usableFromInline var afterOpen = false
  public let maxDepth: Int

  /// Byte offset of the next unread byte.
  public var offset: Int { pos }

  init(_ buf: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
    self.buf = buf
    self.pos = 0
    self.end = buf.count
    self.maxDepth = maxDepth
  }

  /// Runs `body` with a reader over `bytes`.
  ///
  /// A leading UTF-8 byte order mark is skipped (RFC 8259 §8.1 allows it);
  /// UTF-16 and UTF-32 input is rejected with a message saying so.
  public static func withReader<R>(
    _ bytes: [UInt8], maxDepth: Int = defaultMaxDepth,
    _ body: (inout JSONReader) throws -> R
  ) throws -> R {
    try bytes.withUnsafeBufferPointer { try withReader(buffer: $0, maxDepth: maxDepth, body) }
  }

  /// Runs `body` with a reader over `buffer` (a mapped file, read in place), which must stay valid
  /// and unchanged until `body` returns.
  public static func withReader<R>(
    buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int = defaultMaxDepth,
    _ body: (inout JSONReader) throws -> R
  ) throws -> R {
    var reader = JSONReader(buffer, maxDepth: maxDepth)
    try reader.checkEncoding()
    return try body(&reader)
  }

  mutating func checkEncoding() throws {
    if end >= 2, (buf[0] == 0xFE && buf[1] == 0xFF) || (buf[0] == 0xFF && buf[1] == 0xFE) {
      throw error(
        "input is UTF-16 (it starts with a UTF-16 byte order mark); convert it to UTF-8, e.g. iconv -f UTF-16 -t UTF-8",
        at: 0)
    }
    if end >= 2, buf[0] == 0 || buf[1] == 0, buf[0] != 0 || buf[1] != 0 {
      throw error(
        "input looks like UTF-16 or UTF-32 (NUL bytes among the first characters); convert it to UTF-8", at: 0)
    }
    if end >= 3, buf[0] == 0xEF, buf[1] == 0xBB, buf[2] == 0xBF {
      pos = 3
    }
  }

  // MARK: Errors

  /// An error positioned at byte `offset`, with line and column worked out from the input.
  public func error(_ message: String, at offset: Int) -> JSONSyntaxError {
    let clamped = max(0, min(offset, end))
    var line = 1
    var column = 1
    var i = 0
    while i < clamped {
      let b = buf[i]
      if b == 0x0A {
        line += 1
        column = 1
      } else if b & 0xC0 != 0x80 {
        column += 1
      }
      i += 1
    }
    return JSONSyntaxError(message: message, offset: clamped, line: line, column: column)
  }

  func unexpected(at offset: Int, expecting: String) -> JSONSyntaxError {
    guard offset < end else {
      return error("unexpected end of input; expected \(expecting)", at: offset)
    }
    return error("unexpected \(Self.describe(byte: buf[offset])); expected \(expecting)", at: offset)
  }

  static func describe(byte b: UInt8) -> String {
    switch b {
    case 0x20..<0x7F: return "character '\(Character(Unicode.Scalar(b)))'"
    case 0: return "NUL byte"
    default:
      let hex = String(b, radix: 16, uppercase: true)
      return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }
  }

  // MARK: Structure

  @inlinable @inline(__always)
  mutating func skipWhitespace() {
    while pos < end {
      let b = buf[pos]
      guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
      pos &+= 1
    }
  }

  /// The kind of the next value, without consuming it.
  public mutating func peek() throws -> JSONKind {
    skipWhitespace()
    guard pos < end else { throw unexpected(at: pos, expecting: "a value") }
    switch buf[pos] {
    case UInt8(ascii: "{"): return .object
    case UInt8(ascii: "["): return .array
    case UInt8(ascii: "\""): return .string
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
    case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
    case UInt8(ascii: "n"): return .null
    default: throw unexpected(at: pos, expecting: "a value")
    }
  }

  mutating func enter(_ open: UInt8, _ name: String) throws {
    skipWhitespace()
    guard pos < end, buf[pos] == open else { throw unexpected(at: pos, expecting: name) }
    guard depth < maxDepth else {
      throw error("nesting deeper than \(maxDepth) levels", at: pos)
    }
    depth &+= 1
    pos &+= 1
    afterOpen = true
  }

  /// Consumes `{`. Follow with `nextKey()` until it returns nil.
  public mutating func beginObject() throws { try enter(UInt8(ascii: "{"), "'{'") }

  /// Consumes `[`. Follow with `nextElement()` until it returns false.
  public mutating func beginArray() throws { try enter(UInt8(ascii: "["), "'['") }

  /// The next member's key, with its `:` consumed; nil after the closing `}`.
  /// The caller must then read or skip the member's value.
  public mutating func nextKey() throws -> JSONStringToken? {
    guard try beginKey() else { return nil }
    let key = try scanString()
    try endKey()
    return key
  }

  /// Steps to the next member's key, its opening quote; false after the closing `}`. Follow with `scanString()`
  /// or `skipKey(ifItIs:count:)`, then `endKey()`.
  @inline(__always)
  mutating func beginKey() throws -> Bool {
    skipWhitespace()
    if afterOpen {
      afterOpen = false
      if pos < end, buf[pos] == UInt8(ascii: "}") {
        pos &+= 1
        depth &-= 1
        return false
      }
    } else {
      guard pos < end else { throw unexpected(at: pos, expecting: "',' or '}'") }
      if buf[pos] == UInt8(ascii: "}") {
        pos &+= 1
        depth &-= 1
        return false
      }
      guard buf[pos] == UInt8(ascii: ",") else {
        throw unexpected(at: pos, expecting: "',' or '}' after an object member")
      }
      pos &+= 1
      skipWhitespace()
    }
    guard pos < end, buf[pos] == UInt8(ascii: "\"") else {
      throw unexpected(at: pos, expecting: "a string key")
    }
    return true
  }

  /// Consumes the `:` after a key.
  @inline(__always)
  mutating func endKey() throws {
    skipWhitespace()
    guard pos < end, buf[pos] == UInt8(ascii: ":") else {
      throw unexpected(at: pos, expecting: "':' after an object key")
    }
    pos &+= 1
  }

  /// At a key's opening quote: when the key is exactly the `count` bytes at `name`, which hold no quote, backslash,
  /// control or non-ASCII byte (so `scanString` would give the same token, without escapes), steps past its
  /// closing quote and returns true; else moves nothing.
  @inline(__always)
  mutating func skipKey(ifItIs name: UnsafePointer<UInt8>, count: Int) -> Bool {
    guard end &- pos > count &+ 1, buf[pos &+ 1 &+ count] == UInt8(ascii: "\""), let base = buf.baseAddress,
      bytesEqual(base + (pos &+ 1), name, count: count)
    else { return false }
    pos &+= count &+ 2
    return true
  }

  /// Where a member may begin (after `{` or a value): when the next bytes are, with no whitespace, `"` + the
  /// `nameCount` bytes of a name + `":`, after a value with a `,` before them (`member` holds `,"name":`; the name
  /// holds no quote, backslash, control or non-ASCII byte), steps past the `:` and returns where the key's quote
  /// is: what `beginKey`, `skipKey(ifItIs:count:)` and `endKey` do. Else nil, nothing moved.
  @inline(__always)
  mutating func skipMember(ifItIs member: UnsafePointer<UInt8>, nameCount: Int) -> Int? {
    let skip = afterOpen ? 1 : 0
    let count = nameCount &+ 4 &- skip
    guard end &- pos >= count, let base = buf.baseAddress, bytesEqual(base + pos, member + skip, count: count) else {
      return nil
    }
    let quote = pos &+ 1 &- skip
    pos &+= count
    afterOpen = false
    return quote
  }

  /// True when another element follows (the caller must read or skip it); false after `]`.
  public mutating func nextElement() throws -> Bool {
    skipWhitespace()
    guard pos < end else { throw unexpected(at: pos, expecting: afterOpen ? "a value or ']'" : "',' or ']'") }
    if buf[pos] == UInt8(ascii: "]") {
      // `[1,]` cannot get here: after a comma the caller reads a value first.
      pos &+= 1
      depth &-= 1
      afterOpen = false
      return false
    }
    if afterOpen {
      afterOpen = false
      return true
    }
    guard buf[pos] == UInt8(ascii: ",") else {
      throw unexpected(at: pos, expecting: "',' or ']' after an array element")
    }
    pos &+= 1
    return true
  }

  /// Calls `body` with the whole input, for scanning ahead of the reader.
  func withInput<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { body(buf) }

  /// Continues inside the array that starts at the reader's position, at the element starting at `offset`.
  mutating func resume(inArrayAt offset: Int) {
    pos = offset
    depth &+= 1
    afterOpen = false
  }

  /// Continues in the current array at the element starting at `offset`, the elements before it read elsewhere.
  mutating func skipAhead(toElementAt offset: Int) {
    pos = offset
    afterOpen = false
  }

  /// How deep the reader is: the arrays and objects it is inside.
  var nesting: Int { depth }

  /// Continues at `offset`, past the value that starts at the reader's position: the same bytes as a value read
  /// before (so well formed), which the caller knows to stay within `maxDepth` here too.
  mutating func pass(toOffset offset: Int) {
    pos = offset
    afterOpen = false
  }

  /// Continues after the current array, whose remaining elements were read elsewhere, at `offset` (past its `]`).
  mutating func closeArray(resumingAt offset: Int) {
    pos = offset
    depth &-= 1
    afterOpen = false
  }

  /// Checks that nothing but whitespace follows the top-level value.
  public mutating func finish() throws {
    skipWhitespace()
    guard pos == end else {
      throw error("unexpected \(Self.describe(byte: buf[pos])) after the end of the JSON value", at: pos)
    }
  }

  /// True when only whitespace is left.
  public mutating func atEnd() -> Bool {
    skipWhitespace()
    return pos == end
  }

  // MARK: Scalars

  /// Reads a string value and returns its token (content range, before unescaping).
  public mutating func readStringToken() throws -> JSONStringToken {
    skipWhitespace()
    guard pos < end, buf[pos] == UInt8(ascii: "\"") else { throw unexpected(at: pos, expecting: "a string") }
    return try scanString()
  }

  /// Reads a string value.
  public mutating func readString() throws -> String {
    string(try readStringToken())
  }

  /// The text of a number, as written. Validated against the RFC 8259 grammar.
  public struct NumberToken: Sendable {
    public var start: Int
    public var end: Int
    public var isInteger: Bool
  }

  /// Reads a number value without converting it.
  public mutating func readNumberToken() throws -> NumberToken {
    skipWhitespace()
    let start = pos
    var isInteger = true
    if pos < end, buf[pos] == UInt8(ascii: "-") { pos &+= 1 }
    guard pos < end, isDigit(buf[pos]) else {
      throw unexpected(at: pos, expecting: "a digit")
    }
    if buf[pos] == UInt8(ascii: "0") {
      pos &+= 1
      if pos < end, isDigit(buf[pos]) {
        throw error("leading zero in a number", at: pos &- 1)
      }
    } else {
      while pos < end, isDigit(buf[pos]) { pos &+= 1 }
    }
    if pos < end, buf[pos] == UInt8(ascii: ".") {
      isInteger = false
      pos &+= 1
      guard pos < end, isDigit(buf[pos]) else { throw unexpected(at: pos, expecting: "a digit after '.'") }
      while pos < end, isDigit(buf[pos]) { pos &+= 1 }
    }
    if pos < end, buf[pos] | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      pos &+= 1
      if pos < end, buf[pos] == UInt8(ascii: "+") || buf[pos] == UInt8(ascii: "-") { pos &+= 1 }
      guard pos < end, isDigit(buf[pos]) else { throw unexpected(at: pos, expecting: "a digit in the exponent") }
      while pos < end, isDigit(buf[pos]) { pos &+= 1 }
    }
    return NumberToken(start: start, end: pos, isInteger: isInteger)
  }

  /// Reads `true` or `false`.
  public mutating func readBool() throws -> Bool {
    skipWhitespace()
    if matchLiteral("true") { return true }
    if matchLiteral("false") { return false }
    throw invalidLiteral()
  }

  /// Reads `null`.
  public mutating func readNull() throws {
    skipWhitespace()
    guard matchLiteral("null") else { throw invalidLiteral() }
  }

  func invalidLiteral() -> JSONSyntaxError {
    pos < end && (buf[pos] == UInt8(ascii: "t") || buf[pos] == UInt8(ascii: "f") || buf[pos] == UInt8(ascii: "n"))
      ? error("invalid literal; expected true, false or null", at: pos)
      : unexpected(at: pos, expecting: "a value")
  }

  mutating func matchLiteral(_ word: StaticString) -> Bool {
    let n = word.utf8CodeUnitCount
    guard end - pos >= n else { return false }
    let p = word.utf8Start
    for i in 0..<n where buf[pos + i] != p[i] { return false }
    pos &+= n
    return true
  }

  /// Skips one value of any kind, validating it.
  public mutating func skipValue() throws {
    switch try peek() {
    case .object:
      try beginObject()
      while try nextKey() != nil { try skipValue() }
    case .array:
      try beginArray()
      while try nextElement() { try skipValue() }
    case .string: _ = try readStringToken()
    case .number: _ = try readNumberToken()
    case .bool: _ = try readBool()
    case .null: try readNull()
    }
  }

  /// The raw bytes of a token range, for excerpts in messages.
  public func text(_ start: Int, _ stop: Int) -> String {
    let lo = max(0, min(start, end))
    let hi = max(lo, min(stop, end))
    return String(decoding: UnsafeBufferPointer(rebasing: buf[lo..<hi]), as: UTF8.self)
  }

  /// Calls `body` with the bytes of a number token.
  public func withBytes<R>(_ token: NumberToken, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    try body(UnsafeBufferPointer(rebasing: buf[token.start..<token.end]))
  }

  /// Calls `body` with the raw (still escaped) content bytes of a string token.
  public func withBytes<R>(_ token: JSONStringToken, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    try body(UnsafeBufferPointer(rebasing: buf[token.start..<token.end]))
  }

  // MARK: Strings

  @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

  /// Scans a string starting at the opening quote; validates escapes and UTF-8.
  mutating func scanString() throws -> JSONStringToken {
    pos &+= 1
    let start = pos
    var hasEscapes = false
    while pos < end {
      // Sixteen bytes at a time, then eight, while none is '"', '\\', a control character or non-ASCII.
      if let base = buf.baseAddress {
        pos = WordScan.skipPlainStringBlocks(base, from: pos, to: end)
        pos = WordScan.skip(base, from: pos, to: end) { v in
          WordScan.equal(v, 0x22) | WordScan.equal(v, 0x5C) | WordScan.below(v, 0x20) | WordScan.nonASCII(v)
        }
      }
      guard pos < end else { break }
      let b = buf[pos]
      // The common case: printable ASCII other than '"' and '\'.
      if b >= 0x20 && b < 0x80 && b != 0x22 && b != 0x5C {
        pos &+= 1
        continue
      }
      if b == 0x22 {
        let token = JSONStringToken(start: start, end: pos, hasEscapes: hasEscapes)
        pos &+= 1
        return token
      }
      if b == 0x5C {
        hasEscapes = true
        try scanEscape()
      } else if b < 0x20 {
        throw error("unescaped control character (\(Self.describe(byte: b))) in a string", at: pos)
      } else {
        try scanUTF8Sequence()
      }
    }
    throw error("unterminated string", at: start &- 1)
  }

  mutating func scanEscape() throws {
    let at = pos
    pos &+= 1
    guard pos < end else { throw error("unterminated escape sequence", at: at) }
    switch buf[pos] {
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
      UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
      pos &+= 1
    case UInt8(ascii: "u"):
      pos &+= 1
      guard end - pos >= 4 else { throw error("incomplete \\u escape", at: at) }
      for _ in 0..<4 {
        guard hexValue(buf[pos]) != nil else { throw error("invalid hex digit in \\u escape", at: pos) }
        pos &+= 1
      }
    default:
      throw error("invalid escape sequence '\\\(Self.printable(buf[pos]))'", at: at)
    }
  }

  static func printable(_ b: UInt8) -> String {
    b >= 0x20 && b < 0x7F ? String(Character(Unicode.Scalar(b))) : "\\x" + String(b, radix: 16)
  }

  @inline(__always) func hexValue(_ b: UInt8) -> UInt32? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(b &- 0x30)
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(b &- 0x57)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(b &- 0x37)
    default: return nil
    }
  }

  /// Validates one multi-byte UTF-8 sequence (Unicode 15, table 3-7) and steps over it.
  mutating func scanUTF8Sequence() throws {
    let b0 = buf[pos]
    var need: Int
    var lo: UInt8 = 0x80
    var hi: UInt8 = 0xBF
    switch b0 {
    case 0xC2...0xDF: need = 1
    case 0xE0:
      need = 2
      lo = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: need = 2
    case 0xED:
      need = 2
      hi = 0x9F
    case 0xF0:
      need = 3
      lo = 0x90
    case 0xF1...0xF3: need = 3
    case 0xF4:
      need = 3
      hi = 0x8F
    default: throw error("invalid UTF-8 (\(Self.describe(byte: b0)))", at: pos)
    }
    guard end - pos > need else { throw error("truncated UTF-8 sequence", at: pos) }
    let b1 = buf[pos + 1]
    guard b1 >= lo && b1 <= hi else { throw error("invalid UTF-8 sequence", at: pos) }
    var i = 2
    while i <= need {
      guard buf[pos + i] & 0xC0 == 0x80 else { throw error("invalid UTF-8 sequence", at: pos) }
      i += 1
    }
    pos &+= need &+ 1
  }

  /// The unescaped value of a string token. Lone surrogates become U+FFFD.
  public func string(_ token: JSONStringToken) -> String {
    let raw = UnsafeBufferPointer(rebasing: buf[token.start..<token.end])
    guard token.hasEscapes else { return String(decoding: raw, as: UTF8.self) }
    var out = [UInt8]()
    out.reserveCapacity(raw.count)
    var i = 0
    var pendingHigh: UInt32? = nil
    func flushHigh() {
      if pendingHigh != nil {
        out.append(contentsOf: [0xEF, 0xBF, 0xBD])
        pendingHigh = nil
      }
    }
    while i < raw.count {
      let b = raw[i]
      guard b == 0x5C, i + 1 < raw.count else {
        flushHigh()
        out.append(b)
        i += 1
        continue
      }
      let e = raw[i + 1]
      i += 2
      var scalar: UInt32
      switch e {
      case UInt8(ascii: "b"): scalar = 0x08
      case UInt8(ascii: "f"): scalar = 0x0C
      case UInt8(ascii: "n"): scalar = 0x0A
      case UInt8(ascii: "r"): scalar = 0x0D
      case UInt8(ascii: "t"): scalar = 0x09
      case UInt8(ascii: "u"):
        var v: UInt32 = 0
        var k = 0
        while k < 4, i < raw.count, let h = hexValue(raw[i]) {
          v = v << 4 | h
          i += 1
          k += 1
        }
        scalar = v
      default: scalar = UInt32(e)
      }
      if (0xD800...0xDBFF).contains(scalar) {
        flushHigh()
        pendingHigh = scalar
        continue
      }
      if (0xDC00...0xDFFF).contains(scalar) {
        if let high = pendingHigh {
          scalar = 0x10000 + ((high - 0xD800) << 10) + (scalar - 0xDC00)
          pendingHigh = nil
        } else {
          scalar = 0xFFFD
        }
      } else {
        flushHigh()
      }
      let unicode = Unicode.Scalar(scalar) ?? "\u{FFFD}"
      out.append(contentsOf: UTF8.encode(unicode) ?? [0xEF, 0xBF, 0xBD])
    }
    flushHigh()
    return String(decoding: out, as: UTF8.self)
  }

  /// True when the string token's unescaped value equals `literal` (an ASCII key).
  public func stringEquals(_ token: JSONStringToken, _ literal: StaticString) -> Bool {
    if token.hasEscapes { return string(token) == literal.description }
    let n = literal.utf8CodeUnitCount
    guard token.end - token.start == n else { return false }
    let p = literal.utf8Start
    var i = 0
    while i < n {
      if buf[token.start + i] != p[i] { return false }
      i += 1
    }
    return true
  }

  /// True when the string token's content is empty.
  public func isEmpty(_ token: JSONStringToken) -> Bool { token.start == token.end }
}

extension UTF8 {
  fileprivate static func encode(_ scalar: Unicode.Scalar) -> [UInt8]? {
    var bytes = [UInt8]()
    UTF8.encode(scalar) { bytes.append($0) }
    return bytes
  }
}

extension ReceiptError {
  /// A JSON syntax error in `source`, at its line and column.
  public static func syntax(source: String, _ error: JSONSyntaxError) -> ReceiptError {
    ReceiptError(
      .malformed, source: source, position: .lineColumn(line: error.line, column: error.column), message: error.message)
  }
}
