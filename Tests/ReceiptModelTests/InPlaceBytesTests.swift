import Testing

@testable import ReceiptModel

/// `bytesEqual` (eight bytes at a time, the last word overlapping) against comparing byte by byte.
struct InPlaceBytesTests {
  /// Every length from 0 to 40, equal, and with one byte changed at every place (by its lowest and highest bit).
  @Test func bytesEqualIsByteByByteEquality() {
    for count in 0...40 {
      let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
      var changes: [[UInt8]] = [a]
      for place in 0..<count {
        for bit: UInt8 in [0x01, 0x80] {
          var b = a
          b[place] ^= bit
          changes.append(b)
        }
      }
      for b in changes {
        let equal = a.withUnsafeBufferPointer { x in
          b.withUnsafeBufferPointer { y in
            guard let p = x.baseAddress, let q = y.baseAddress else { return true }
            return bytesEqual(p, q, count: count)
          }
        }
        #expect(equal == (a == b), "\(count) bytes: \(a) against \(b)")
      }
    }
  }

  /// `sameBytes`, the shortcut before a lookup, says yes only for the same UTF-8 bytes: equal texts made apart
  /// (one object or two, short and long, eight bytes and a tail), and never for texts that differ in a byte or a
  /// length, nor for canonically equal texts of other bytes (those are left to the lookup's `==`).
  @Test func sameBytesIsByteEquality() {
    let texts = [
      "", "a", "USD", "1000000123456789", "10000001234567890", "com.example.pro.monthly", "com.example.pro.yearly",
      "com.example.pro.monthlz", "caf\u{E9}", "cafe\u{301}", String(repeating: "x", count: 40),
      String(repeating: "x", count: 39) + "y",
    ]
    for a in texts {
      for b in texts {
        let apart = String(decoding: Array(b.utf8), as: UTF8.self)
        #expect(sameBytes(a, b) == (Array(a.utf8) == Array(b.utf8)), "\(a) \(b)")
        #expect(sameBytes(a, apart) == (Array(a.utf8) == Array(b.utf8)), "\(a) \(b) made apart")
      }
    }
    #expect("caf\u{E9}" == "cafe\u{301}")
    #expect(!sameBytes("caf\u{E9}", "cafe\u{301}"))
  }

  /// The small arrays made by growing a reserved one, and the large ones, are what `init(repeating:count:)` makes.
  /// `mayHoldLineBreak` says what a byte search of the string's UTF-8 says, and `onOneLine` then makes each break
  /// one space: random texts of breaks, their lead bytes' other characters (é, €, ¢) and ASCII, at every length to 40.
  @Test func mayHoldLineBreakIsTheByteSearch() {
    let pieces: [String] = [
      "a", "Z", " ", "\n", "\r", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}", "é", "€", "¢", "\t",
    ]
    var generator = SystemRandomNumberGenerator()
    for length in 0...40 {
      for _ in 0..<25 {
        let text = (0..<length).map { _ in pieces.randomElement(using: &generator) ?? "a" }.joined()
        let reference = text.utf8.contains { (0x0A...0x0D).contains($0) || $0 == 0xC2 || $0 == 0xE2 }
        let oneLine = text.onOneLine
        let spaced = String(text.map { $0.isNewline ? " " : $0 })
        #expect(mayHoldLineBreak(text) == reference, "\(Array(text.utf8))")
        #expect(oneLine == spaced, "\(Array(text.utf8))")
      }
    }
  }

  @Test func fillingIsRepeating() {
    for count in [0, 1, 2, 7, 64, 255, 256, 257, 1_000] {
      #expect([Int](filling: -1, count: count) == [Int](repeating: -1, count: count))
      #expect([Bool](filling: true, count: count) == [Bool](repeating: true, count: count))
      #expect([String?](filling: "x", count: count) == [String?](repeating: "x", count: count))
      #expect([Int32](filling: 7, count: count).count == count)
    }
  }
}
