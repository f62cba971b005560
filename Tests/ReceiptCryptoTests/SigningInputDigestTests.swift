import Testing

@testable import ReceiptCrypto

/// `SigningInputDigest` resumes SHA-256 from the state after a remembered header's whole blocks: every input's
/// digest is still SHA-256 of the whole input, in any sequence of inputs.
@Suite struct SigningInputDigestTests {
  /// Runs of tokens sharing a header, headers of every length around a block edge, headers one byte apart at the
  /// first, a middle and the last remembered byte, inputs shorter than the remembered prefix, without a dot, and
  /// with the dot first.
  @Test func everyDigestIsTheWholeInputsSHA256() {
    var random = SplitMix64(state: 2_026)
    var memo = SigningInputDigest()
    var inputs: [[UInt8]] = []
    func bytes(_ count: Int) -> [UInt8] {
      (0..<count).map { _ in UInt8(ascii: "A") + UInt8(truncatingIfNeeded: random.next() % 26) }
    }
    let dot = UInt8(ascii: ".")
    for headerLength in [0, 1, 63, 64, 65, 127, 128, 129, 3_300] {
      let header = bytes(headerLength)
      for _ in 0..<4 { inputs.append(header + [dot] + bytes(Int(random.next() % 1_500))) }
      for flip in [0, headerLength / 2, headerLength / 64 * 64 - 1] where flip >= 0 && flip < headerLength {
        var other = header
        other[flip] ^= 0x20
        inputs.append(other + [dot] + bytes(40))
        inputs.append(header + [dot] + bytes(40))
      }
      inputs.append(Array(header.prefix(headerLength / 2)))
      inputs.append(header)
      inputs.append(header + [dot])
    }
    inputs += [[], [dot], [dot] + bytes(300), bytes(200) + [dot, dot] + bytes(10)]
    for input in inputs {
      #expect(input.withUnsafeBytes { memo.digest($0) } == DigestAlgorithm.sha256.digest(input), "\(input.count)")
    }
    #expect(memo.resumed > 20, "the inputs resume from a remembered header")
  }
}
