import Testing

@testable import ReceiptCrypto

/// The unrolled SHA-256 compressor (and `BlockHasher`'s buffering and padding around it) held to the plain
/// reference in ReferenceSHA256.swift: random messages of every length that reaches the padding's edge cases,
/// and long ones, each hashed in one `update` and in random pieces.
@Suite struct FastSHA256Tests {
  /// Whether the reference is still SHA-256: the FIPS 180-4 digests of "abc" and of the 448-bit message.
  @Test func theReferenceGivesTheFIPSDigests() {
    #expect(
      Hex.string(referenceSHA256(Array("abc".utf8)))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    #expect(
      Hex.string(referenceSHA256(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
        == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }

  /// Lengths 0...300 (up to four blocks and every place the padding can fall), three random messages each.
  @Test func everyLengthTo300GivesTheReferenceDigest() {
    var random = SplitMix64(state: 42)
    for length in 0...300 {
      for _ in 0..<3 {
        let message = Self.randomBytes(length, &random)
        let expected = referenceSHA256(message)
        #expect(SHA256.hash(message) == expected, "length \(length), one update")
        #expect(Self.hashInPieces(message, &random) == expected, "length \(length), in pieces")
      }
    }
  }

  /// Long messages (many blocks in one `compress` call, the state carried in locals across them), up to 20 KB.
  @Test func longMessagesGiveTheReferenceDigest() {
    var random = SplitMix64(state: 4_096)
    var lengths = [1_000, 4_095, 4_096, 4_097, 8_191, 20_480]
    for _ in 0..<6 { lengths.append(301 + Int(random.next() % 20_180)) }
    for length in lengths {
      let message = Self.randomBytes(length, &random)
      let expected = referenceSHA256(message)
      #expect(SHA256.hash(message) == expected, "length \(length), one update")
      for _ in 0..<4 {
        #expect(Self.hashInPieces(message, &random) == expected, "length \(length), in pieces")
      }
    }
  }

  /// Every bit of a two-block message flipped in turn: each digest is the reference's, so no round, rotation or
  /// schedule word can be wrong for some bit and right for the random messages above.
  @Test func everyFlippedBitOfTwoBlocksGivesTheReferenceDigest() {
    var random = SplitMix64(state: 7)
    let message = Self.randomBytes(128, &random)
    for bit in 0..<(message.count * 8) {
      var flipped = message
      flipped[bit / 8] ^= 1 << UInt8(bit % 8)
      #expect(SHA256.hash(flipped) == referenceSHA256(flipped), "bit \(bit)")
    }
  }

  private static func randomBytes(_ count: Int, _ random: inout SplitMix64) -> [UInt8] {
    (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
  }

  /// `message` fed to one hasher in random pieces: empty ones, single bytes, pieces across block edges.
  private static func hashInPieces(_ message: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
    var hasher = SHA256()
    var start = 0
    while start < message.count {
      let longest = random.next() % 4 == 0 ? 3 : 200
      let end = min(message.count, start + Int(random.next() % UInt64(longest)))
      message[start..<end].withUnsafeBytes { hasher.update($0) }
      start = end
    }
    return hasher.finalize()
  }
}
