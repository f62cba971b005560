import ReceiptModel

/// Strings of a known plain shape read at the reader's place without scanning them (`ValueReading`'s row fields):
/// what each finds, `scanString` would find (a token without escapes ending at the same quote), since every byte
/// it accepts is printable ASCII other than a quote or a backslash. None moves the reader unless it says so.
extension JSONReader {
  /// The content of the string value at the reader when it is 1 to `limit` ASCII digits followed by its closing
  /// quote; nil otherwise. Whitespace before the value is skipped.
  @inline(__always)
  mutating func plainDigitString(limit: Int) -> JSONStringToken? {
    skipWhitespace()
    guard pos < end, buf[pos] == 0x22 else { return nil }
    let start = pos &+ 1
    // The closing quote may stand `limit` bytes after the content's start, no further.
    let stop = Swift.min(end, start &+ Swift.max(0, limit) &+ 1)
    guard let base = buf.baseAddress else { return nil }
    var i = WordScan.skip(base, from: start, to: stop) { WordScan.nonDigit($0) }
    while i < stop, buf[i] &- 0x30 < 10 { i &+= 1 }
    guard i > start, i < stop, buf[i] == 0x22 else { return nil }
    return JSONStringToken(start: start, end: i, hasEscapes: false)
  }

  /// The string value at the reader as Apple writes a date, `YYYY-MM-DD HH:MM:SS Etc/GMT`
  /// (`Timestamp.parseAppleUTC`), then its closing quote: the date, the reader moved past the quote; else nil.
  @inline(__always)
  mutating func appleDateString() -> Timestamp? {
    skipWhitespace()
    guard pos < end, buf[pos] == 0x22, end &- pos > 28, buf[pos &+ 28] == 0x22,
      let t = Timestamp.parseAppleUTC(UnsafeBufferPointer(rebasing: buf[(pos &+ 1)..<(pos &+ 28)]))
    else { return nil }
    pos &+= 29
    return t
  }

  /// `appleDateString`'s check, the date's fields read but its time not worked out (`Timestamp.AppleUTCFields`).
  @inline(__always)
  mutating func appleDateFields() -> Timestamp.AppleUTCFields? {
    skipWhitespace()
    guard pos < end, buf[pos] == 0x22, end &- pos > 28, buf[pos &+ 28] == 0x22,
      let fields = Timestamp.appleUTCFields(UnsafeBufferPointer(rebasing: buf[(pos &+ 1)..<(pos &+ 28)]))
    else { return nil }
    pos &+= 29
    return fields
  }

  /// Whether the value at the reader is the string `literal` (its quotes included in `quoted`, plain printable
  /// ASCII without a quote or backslash between them); if so the reader is moved past it.
  @inline(__always)
  mutating func plainString(_ quoted: StaticString) -> Bool {
    skipWhitespace()
    let n = quoted.utf8CodeUnitCount
    guard end &- pos >= n, let base = buf.baseAddress else { return false }
    let p = quoted.utf8Start
    var i = 0
    while i < n {
      guard base[pos &+ i] == p[i] else { return false }
      i &+= 1
    }
    pos &+= n
    return true
  }

  /// Skips the string value at the reader when its content is exactly `length` (8 or more) bytes of printable
  /// ASCII other than a quote or backslash, checked a word at a time (the last word overlapping the one before),
  /// then its closing quote; false, nothing moved, otherwise (`skipValue` reads it).
  @inline(__always)
  mutating func skipPlainString(length: Int) -> Bool {
    skipWhitespace()
    guard length >= 8, pos < end, buf[pos] == 0x22, end &- pos > length &+ 1, buf[pos &+ 1 &+ length] == 0x22,
      let base = buf.baseAddress
    else { return false }
    let start = pos &+ 1
    func plain(_ at: Int) -> Bool {
      let v = UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self))
      return WordScan.equal(v, 0x22) | WordScan.equal(v, 0x5C) | WordScan.below(v, 0x20) | WordScan.nonASCII(v)
        | WordScan.equal(v, 0x7F) == 0
    }
    var i = start
    while length &- (i &- start) >= 8 {
      guard plain(i) else { return false }
      i &+= 8
    }
    guard i == start &+ length || plain(start &+ length &- 8) else { return false }
    pos = start &+ length &+ 1
    return true
  }

  /// Moves the reader past the closing quote of `token`, a string token at its place.
  @inline(__always)
  mutating func step(past token: JSONStringToken) { pos = token.end &+ 1 }
}
