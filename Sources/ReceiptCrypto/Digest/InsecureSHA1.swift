/// SHA-1 (FIPS 180-4 §6.1). Broken for collision resistance; kept only to verify receipts Apple signed with it
/// before 2023, hence the name.
public struct InsecureSHA1: HashFunction, Sendable {
  public static let digestByteCount = 20
  private var hasher = BlockHasher(SHA1Compressor())

  public init() {}

  public mutating func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bytes) }

  public mutating func finalize() -> [UInt8] { hasher.finalize(digestByteCount: Self.digestByteCount) }
}

struct SHA1Compressor: BlockCompressor, Sendable {
  static let blockByteCount = 64
  static let lengthByteCount = 8

  private var h0: UInt32 = 0x6745_2301
  private var h1: UInt32 = 0xefcd_ab89
  private var h2: UInt32 = 0x98ba_dcfe
  private var h3: UInt32 = 0x1032_5476
  private var h4: UInt32 = 0xc3d2_e1f0

  func stateBytes() -> [UInt8] { bigEndianBytes([h0, h1, h2, h3, h4]) }

  mutating func compress(_ blocks: UnsafeRawPointer, blockCount: Int) {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 80) { w in
      var block = blocks
      for _ in 0..<blockCount {
        for t in 0..<16 { w[t] = loadBigEndianUInt32(block, t &* 4) }
        for t in 16..<80 { w[t] = (w[t &- 3] ^ w[t &- 8] ^ w[t &- 14] ^ w[t &- 16]).rotatedLeft(1) }
        var a = h0
        var b = h1
        var c = h2
        var d = h3
        var e = h4
        // Four loops of 20 rather than one switch: the round function stays out of the inner loop.
        for t in 0..<20 {
          let temp = a.rotatedLeft(5) &+ ((b & c) | (~b & d)) &+ e &+ 0x5a82_7999 &+ w[t]
          (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, temp)
        }
        for t in 20..<40 {
          let temp = a.rotatedLeft(5) &+ (b ^ c ^ d) &+ e &+ 0x6ed9_eba1 &+ w[t]
          (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, temp)
        }
        for t in 40..<60 {
          let temp = a.rotatedLeft(5) &+ ((b & c) | (b & d) | (c & d)) &+ e &+ 0x8f1b_bcdc &+ w[t]
          (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, temp)
        }
        for t in 60..<80 {
          let temp = a.rotatedLeft(5) &+ (b ^ c ^ d) &+ e &+ 0xca62_c1d6 &+ w[t]
          (e, d, c, b, a) = (d, c, b.rotatedLeft(30), a, temp)
        }
        h0 = h0 &+ a
        h1 = h1 &+ b
        h2 = h2 &+ c
        h3 = h3 &+ d
        h4 = h4 &+ e
        block += 64
      }
    }
  }
}
