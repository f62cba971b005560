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
}
