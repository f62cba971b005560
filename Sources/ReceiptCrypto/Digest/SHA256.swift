/// SHA-256 (FIPS 180-4 §6.2).
public struct SHA256: HashFunction, Sendable {
  public static let digestByteCount = 32
  private var hasher = BlockHasher(SHA256Compressor())

  public init() {}

  public mutating func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bytes) }

  public mutating func finalize() -> [UInt8] { hasher.finalize(digestByteCount: Self.digestByteCount) }
}

struct SHA256Compressor: BlockCompressor, Sendable {
  static let blockByteCount = 64
  static let lengthByteCount = 8

  private var h0: UInt32 = 0x6a09_e667
  private var h1: UInt32 = 0xbb67_ae85
  private var h2: UInt32 = 0x3c6e_f372
  private var h3: UInt32 = 0xa54f_f53a
  private var h4: UInt32 = 0x510e_527f
  private var h5: UInt32 = 0x9b05_688c
  private var h6: UInt32 = 0x1f83_d9ab
  private var h7: UInt32 = 0x5be0_cd19

  func stateBytes() -> [UInt8] { bigEndianBytes([h0, h1, h2, h3, h4, h5, h6, h7]) }

  // The 64 rounds written out with the working variables renamed per round instead of shifted (`sha256Round`),
  // the round constants as literals (immediates, so no register holds a table), the schedule a rolling window of
  // 16 words in locals, and the state in locals for the whole call. The loop it replaces (ReferenceSHA256.swift,
  // which FastSHA256Tests holds this one to) kept a 64-word schedule in memory and moved eight values a round.
  mutating func compress(_ blocks: UnsafeRawPointer, blockCount: Int) {
    var (h0, h1, h2, h3, h4, h5, h6, h7) = (self.h0, self.h1, self.h2, self.h3, self.h4, self.h5, self.h6, self.h7)
    var block = blocks
    for _ in 0..<blockCount {
      var w0 = loadBigEndianUInt32(block, 0)
      var w1 = loadBigEndianUInt32(block, 4)
      var w2 = loadBigEndianUInt32(block, 8)
      var w3 = loadBigEndianUInt32(block, 12)
      var w4 = loadBigEndianUInt32(block, 16)
      var w5 = loadBigEndianUInt32(block, 20)
      var w6 = loadBigEndianUInt32(block, 24)
      var w7 = loadBigEndianUInt32(block, 28)
      var w8 = loadBigEndianUInt32(block, 32)
      var w9 = loadBigEndianUInt32(block, 36)
      var w10 = loadBigEndianUInt32(block, 40)
      var w11 = loadBigEndianUInt32(block, 44)
      var w12 = loadBigEndianUInt32(block, 48)
      var w13 = loadBigEndianUInt32(block, 52)
      var w14 = loadBigEndianUInt32(block, 56)
      var w15 = loadBigEndianUInt32(block, 60)
      var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
      var bXorC = b ^ c
      sha256Round(a, b, &d, e, f, g, &h, 0x428a_2f98 &+ w0, &bXorC)
      sha256Round(h, a, &c, d, e, f, &g, 0x7137_4491 &+ w1, &bXorC)
      sha256Round(g, h, &b, c, d, e, &f, 0xb5c0_fbcf &+ w2, &bXorC)
      sha256Round(f, g, &a, b, c, d, &e, 0xe9b5_dba5 &+ w3, &bXorC)
      sha256Round(e, f, &h, a, b, c, &d, 0x3956_c25b &+ w4, &bXorC)
      sha256Round(d, e, &g, h, a, b, &c, 0x59f1_11f1 &+ w5, &bXorC)
      sha256Round(c, d, &f, g, h, a, &b, 0x923f_82a4 &+ w6, &bXorC)
      sha256Round(b, c, &e, f, g, h, &a, 0xab1c_5ed5 &+ w7, &bXorC)
      sha256Round(a, b, &d, e, f, g, &h, 0xd807_aa98 &+ w8, &bXorC)
      sha256Round(h, a, &c, d, e, f, &g, 0x1283_5b01 &+ w9, &bXorC)
      sha256Round(g, h, &b, c, d, e, &f, 0x2431_85be &+ w10, &bXorC)
      sha256Round(f, g, &a, b, c, d, &e, 0x550c_7dc3 &+ w11, &bXorC)
      sha256Round(e, f, &h, a, b, c, &d, 0x72be_5d74 &+ w12, &bXorC)
      sha256Round(d, e, &g, h, a, b, &c, 0x80de_b1fe &+ w13, &bXorC)
      sha256Round(c, d, &f, g, h, a, &b, 0x9bdc_06a7 &+ w14, &bXorC)
      sha256Round(b, c, &e, f, g, h, &a, 0xc19b_f174 &+ w15, &bXorC)
      // From round 16 each round first puts the schedule's next word in place of the window's oldest.
      sha256Round(a, b, &d, e, f, g, &h, 0xe49b_69c1 &+ scheduled(&w0, w1, w9, w14), &bXorC)
      sha256Round(h, a, &c, d, e, f, &g, 0xefbe_4786 &+ scheduled(&w1, w2, w10, w15), &bXorC)
      sha256Round(g, h, &b, c, d, e, &f, 0x0fc1_9dc6 &+ scheduled(&w2, w3, w11, w0), &bXorC)
      sha256Round(f, g, &a, b, c, d, &e, 0x240c_a1cc &+ scheduled(&w3, w4, w12, w1), &bXorC)
      sha256Round(e, f, &h, a, b, c, &d, 0x2de9_2c6f &+ scheduled(&w4, w5, w13, w2), &bXorC)
      sha256Round(d, e, &g, h, a, b, &c, 0x4a74_84aa &+ scheduled(&w5, w6, w14, w3), &bXorC)
      sha256Round(c, d, &f, g, h, a, &b, 0x5cb0_a9dc &+ scheduled(&w6, w7, w15, w4), &bXorC)
      sha256Round(b, c, &e, f, g, h, &a, 0x76f9_88da &+ scheduled(&w7, w8, w0, w5), &bXorC)
      sha256Round(a, b, &d, e, f, g, &h, 0x983e_5152 &+ scheduled(&w8, w9, w1, w6), &bXorC)
      sha256Round(h, a, &c, d, e, f, &g, 0xa831_c66d &+ scheduled(&w9, w10, w2, w7), &bXorC)
      sha256Round(g, h, &b, c, d, e, &f, 0xb003_27c8 &+ scheduled(&w10, w11, w3, w8), &bXorC)
      sha256Round(f, g, &a, b, c, d, &e, 0xbf59_7fc7 &+ scheduled(&w11, w12, w4, w9), &bXorC)
      sha256Round(e, f, &h, a, b, c, &d, 0xc6e0_0bf3 &+ scheduled(&w12, w13, w5, w10), &bXorC)
      sha256Round(d, e, &g, h, a, b, &c, 0xd5a7_9147 &+ scheduled(&w13, w14, w6, w11), &bXorC)
      sha256Round(c, d, &f, g, h, a, &b, 0x06ca_6351 &+ scheduled(&w14, w15, w7, w12), &bXorC)
      sha256Round(b, c, &e, f, g, h, &a, 0x1429_2967 &+ scheduled(&w15, w0, w8, w13), &bXorC)
      sha256Round(a, b, &d, e, f, g, &h, 0x27b7_0a85 &+ scheduled(&w0, w1, w9, w14), &bXorC)
      sha256Round(h, a, &c, d, e, f, &g, 0x2e1b_2138 &+ scheduled(&w1, w2, w10, w15), &bXorC)
      sha256Round(g, h, &b, c, d, e, &f, 0x4d2c_6dfc &+ scheduled(&w2, w3, w11, w0), &bXorC)
      sha256Round(f, g, &a, b, c, d, &e, 0x5338_0d13 &+ scheduled(&w3, w4, w12, w1), &bXorC)
      sha256Round(e, f, &h, a, b, c, &d, 0x650a_7354 &+ scheduled(&w4, w5, w13, w2), &bXorC)
      sha256Round(d, e, &g, h, a, b, &c, 0x766a_0abb &+ scheduled(&w5, w6, w14, w3), &bXorC)
      sha256Round(c, d, &f, g, h, a, &b, 0x81c2_c92e &+ scheduled(&w6, w7, w15, w4), &bXorC)
      sha256Round(b, c, &e, f, g, h, &a, 0x9272_2c85 &+ scheduled(&w7, w8, w0, w5), &bXorC)
      sha256Round(a, b, &d, e, f, g, &h, 0xa2bf_e8a1 &+ scheduled(&w8, w9, w1, w6), &bXorC)
      sha256Round(h, a, &c, d, e, f, &g, 0xa81a_664b &+ scheduled(&w9, w10, w2, w7), &bXorC)
      sha256Round(g, h, &b, c, d, e, &f, 0xc24b_8b70 &+ scheduled(&w10, w11, w3, w8), &bXorC)
      sha256Round(f, g, &a, b, c, d, &e, 0xc76c_51a3 &+ scheduled(&w11, w12, w4, w9), &bXorC)
      sha256Round(e, f, &h, a, b, c, &d, 0xd192_e819 &+ scheduled(&w12, w13, w5, w10), &bXorC)
      sha256Round(d, e, &g, h, a, b, &c, 0xd699_0624 &+ scheduled(&w13, w14, w6, w11), &bXorC)
      sha256Round(c, d, &f, g, h, a, &b, 0xf40e_3585 &+ scheduled(&w14, w15, w7, w12), &bXorC)
      sha256Round(b, c, &e, f, g, h, &a, 0x106a_a070 &+ scheduled(&w15, w0, w8, w13), &bXorC)
      sha256Round(a, b, &d, e, f, g, &h, 0x19a4_c116 &+ scheduled(&w0, w1, w9, w14), &bXorC)
      sha256Round(h, a, &c, d, e, f, &g, 0x1e37_6c08 &+ scheduled(&w1, w2, w10, w15), &bXorC)
      sha256Round(g, h, &b, c, d, e, &f, 0x2748_774c &+ scheduled(&w2, w3, w11, w0), &bXorC)
      sha256Round(f, g, &a, b, c, d, &e, 0x34b0_bcb5 &+ scheduled(&w3, w4, w12, w1), &bXorC)
      sha256Round(e, f, &h, a, b, c, &d, 0x391c_0cb3 &+ scheduled(&w4, w5, w13, w2), &bXorC)
      sha256Round(d, e, &g, h, a, b, &c, 0x4ed8_aa4a &+ scheduled(&w5, w6, w14, w3), &bXorC)
      sha256Round(c, d, &f, g, h, a, &b, 0x5b9c_ca4f &+ scheduled(&w6, w7, w15, w4), &bXorC)
      sha256Round(b, c, &e, f, g, h, &a, 0x682e_6ff3 &+ scheduled(&w7, w8, w0, w5), &bXorC)
      sha256Round(a, b, &d, e, f, g, &h, 0x748f_82ee &+ scheduled(&w8, w9, w1, w6), &bXorC)
      sha256Round(h, a, &c, d, e, f, &g, 0x78a5_636f &+ scheduled(&w9, w10, w2, w7), &bXorC)
      sha256Round(g, h, &b, c, d, e, &f, 0x84c8_7814 &+ scheduled(&w10, w11, w3, w8), &bXorC)
      sha256Round(f, g, &a, b, c, d, &e, 0x8cc7_0208 &+ scheduled(&w11, w12, w4, w9), &bXorC)
      sha256Round(e, f, &h, a, b, c, &d, 0x90be_fffa &+ scheduled(&w12, w13, w5, w10), &bXorC)
      sha256Round(d, e, &g, h, a, b, &c, 0xa450_6ceb &+ scheduled(&w13, w14, w6, w11), &bXorC)
      sha256Round(c, d, &f, g, h, a, &b, 0xbef9_a3f7 &+ scheduled(&w14, w15, w7, w12), &bXorC)
      sha256Round(b, c, &e, f, g, h, &a, 0xc671_78f2 &+ scheduled(&w15, w0, w8, w13), &bXorC)
      h0 &+= a
      h1 &+= b
      h2 &+= c
      h3 &+= d
      h4 &+= e
      h5 &+= f
      h6 &+= g
      h7 &+= h
      block += 64
    }
    (self.h0, self.h1, self.h2, self.h3, self.h4, self.h5, self.h6, self.h7) = (h0, h1, h2, h3, h4, h5, h6, h7)
  }
}

/// One round, given the working variables in the order this round names them: it changes only d (which becomes
/// the next round's e) and h (the next round's a), so the caller rotates the names instead of moving eight values.
/// c is not passed: Maj(a, b, c) is b ^ ((a ^ b) & (b ^ c)), and this round's a ^ b is the next round's b ^ c, so
/// `bXorC` carries it from round to round.
@inline(__always)
private func sha256Round(
  _ a: UInt32, _ b: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32,
  _ constantPlusWord: UInt32, _ bXorC: inout UInt32
) {
  // Σ1 and Σ0 as nested rotations: ror(ror(ror(e, 14) ^ e, 5) ^ e, 6) is ror 25 ^ ror 11 ^ ror 6 with one copy
  // of e where the three separate rotations each need their own.
  let bigSigma1 = ((e.rotatedRight(14) ^ e).rotatedRight(5) ^ e).rotatedRight(6)
  // Ch in one operation fewer than FIPS 180-4 writes it, with the same truth table.
  let choose = g ^ (e & (f ^ g))
  let t1 = h &+ bigSigma1 &+ choose &+ constantPlusWord
  let bigSigma0 = ((a.rotatedRight(9) ^ a).rotatedRight(11) ^ a).rotatedRight(2)
  let aXorB = a ^ b
  let majority = b ^ (aXorB & bXorC)
  bXorC = aXorB
  d &+= t1
  h = t1 &+ bigSigma0 &+ majority
}

/// The schedule's next word (FIPS 180-4 §6.2.2 step 1) from the words 16, 15, 7 and 2 before it, stored in place of
/// the oldest, `w16`, which the window no longer needs.
@inline(__always)
private func scheduled(_ w16: inout UInt32, _ w15: UInt32, _ w7: UInt32, _ w2: UInt32) -> UInt32 {
  // Nested rotations as in `sha256Round`: ror(ror(x, 11) ^ x, 7) is ror 18 ^ ror 7.
  let sigma0 = (w15.rotatedRight(11) ^ w15).rotatedRight(7) ^ (w15 >> 3)
  let sigma1 = (w2.rotatedRight(2) ^ w2).rotatedRight(17) ^ (w2 >> 10)
  w16 = sigma1 &+ w7 &+ sigma0 &+ w16
  return w16
}

extension UInt32 {
  @inline(__always)
  func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 &- count)) }
  @inline(__always)
  func rotatedLeft(_ count: UInt32) -> UInt32 { (self << count) | (self >> (32 &- count)) }
}

extension UInt64 {
  @inline(__always)
  func rotatedRight(_ count: UInt64) -> UInt64 { (self >> count) | (self << (64 &- count)) }
}
