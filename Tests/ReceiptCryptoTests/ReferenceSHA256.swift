@testable import ReceiptCrypto

// The plain SHA-256 the fast compressor is held to (`FastSHA256Tests`): the compressor as it was before it was
// unrolled, one round per loop pass over a 64-word schedule filled first, and the padding written out whole, so
// neither the fast rounds nor `BlockHasher`'s buffering and padding are checked against themselves.

/// SHA-256 of `message` in one piece: the message, 0x80, zeros to 56 bytes mod 64, the bit length, compressed.
func referenceSHA256(_ message: [UInt8]) -> [UInt8] {
  var padded = message
  padded.append(0x80)
  while padded.count % 64 != 56 { padded.append(0) }
  let bitLength = UInt64(message.count) &* 8
  for shift in stride(from: 56, through: 0, by: -8) {
    padded.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
  }
  var compressor = ReferenceSHA256Compressor()
  padded.withUnsafeBytes { bytes in
    guard let base = bytes.baseAddress else { return }
    compressor.compress(base, blockCount: bytes.count / 64)
  }
  return compressor.stateBytes()
}

struct ReferenceSHA256Compressor: BlockCompressor, Sendable {
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

  mutating func compress(_ blocks: UnsafeRawPointer, blockCount: Int) {
    referenceSHA256RoundConstants.withUnsafeBufferPointer { k in
      withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
        var block = blocks
        for _ in 0..<blockCount {
          for t in 0..<16 { w[t] = loadBigEndianUInt32(block, t &* 4) }
          for t in 16..<64 {
            let x = w[t &- 15]
            let y = w[t &- 2]
            let sigma0 = x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x >> 3)
            let sigma1 = y.rotatedRight(17) ^ y.rotatedRight(19) ^ (y >> 10)
            w[t] = sigma1 &+ w[t &- 7] &+ sigma0 &+ w[t &- 16]
          }
          var a = h0
          var b = h1
          var c = h2
          var d = h3
          var e = h4
          var f = h5
          var g = h6
          var h = h7
          for t in 0..<64 {
            let bigSigma1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choose = (e & f) ^ (~e & g)
            let t1 = h &+ bigSigma1 &+ choose &+ k[t] &+ w[t]
            let bigSigma0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let t2 = bigSigma0 &+ majority
            h = g
            g = f
            f = e
            e = d &+ t1
            d = c
            c = b
            b = a
            a = t1 &+ t2
          }
          h0 = h0 &+ a
          h1 = h1 &+ b
          h2 = h2 &+ c
          h3 = h3 &+ d
          h4 = h4 &+ e
          h5 = h5 &+ f
          h6 = h6 &+ g
          h7 = h7 &+ h
          block += 64
        }
      }
    }
  }
}

private let referenceSHA256RoundConstants: [UInt32] = [
  0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
  0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
  0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
  0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
  0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
  0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
  0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
  0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
]
