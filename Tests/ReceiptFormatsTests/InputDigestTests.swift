import Testing

@testable import ReceiptFormats

@Suite struct InputDigestTests {
  /// FNV-1a over the length as 8 little-endian bytes, then the bytes: worked out by hand (Python) for "abc".
  @Test func aMappedBufferDigestsLikeTheBytes() {
    let bytes: [UInt8] = Array("abc".utf8)
    var fromBytes = InputDigest()
    fromBytes.add(bytes, count: bytes.count)
    var fromBuffer = InputDigest()
    bytes.withUnsafeBufferPointer { fromBuffer.add(buffer: $0) }
    #expect(fromBytes.value == 0xc11a_b6d2_519b_c2b2)
    #expect(fromBuffer.value == fromBytes.value)
  }
}
