import Testing

@testable import ReceiptCrypto

// Known answers: the FIPS 180-4 example messages (NIST "Examples with Intermediate Values" and FIPS 180-2
// Appendix C's one million 'a'), digests as NIST publishes them.
private struct KnownAnswer: Sendable, CustomStringConvertible {
  let name: String
  let message: [UInt8]
  let sha1: String
  let sha256: String
  let sha384: String
  let sha512: String

  var description: String { name }

  func expected(_ algorithm: DigestAlgorithm) -> String {
    switch algorithm {
    case .sha1: sha1
    case .sha256: sha256
    case .sha384: sha384
    case .sha512: sha512
    }
  }
}

private let knownAnswers: [KnownAnswer] = [
  KnownAnswer(
    name: "empty", message: [],
    sha1: "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    sha384: "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
    sha512: "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
      + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"),
  KnownAnswer(
    name: "abc", message: Array("abc".utf8),
    sha1: "a9993e364706816aba3e25717850c26c9cd0d89d",
    sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    sha384: "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
    sha512: "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
      + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
  KnownAnswer(
    name: "448 bits", message: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
    sha1: "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
    sha256: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    sha384: "3391fdddfc8dc7393707a65b1b4709397cf8b1d162af05abfe8f450de5f36bc6b0455a8520bc4e6f5fe95b1fe3c8452b",
    sha512: "204a8fc6dda82f0a0ced7beb8e08a41657c16ef468b228a8279be331a703c335"
      + "96fd15c13b1b07f9aa1d3bea57789ca031ad85c7a71dd70354ec631238ca3445"),
  KnownAnswer(
    name: "896 bits",
    message: Array(
      ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
        + "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8),
    sha1: "a49b2446a02c645bf419f995b67091253a04a259",
    sha256: "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    sha384: "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
    sha512: "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
      + "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909"),
  KnownAnswer(
    name: "one million a", message: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000),
    sha1: "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
    sha256: "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    sha384: "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985",
    sha512: "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
      + "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"),
]

@Suite struct DigestTests {
  @Test(arguments: knownAnswers)
  fileprivate func fipsKnownAnswers(_ answer: KnownAnswer) {
    for algorithm in DigestAlgorithm.allCases {
      let digest = algorithm.digest(answer.message)
      #expect(digest.count == algorithm.digestByteCount)
      #expect(Hex.string(digest) == answer.expected(algorithm), "\(algorithm.name) of \(answer.name)")
    }
  }

  @Test fileprivate func typesAgreeWithTheEnum() {
    let message = knownAnswers[1].message
    #expect(InsecureSHA1.hash(message) == DigestAlgorithm.sha1.digest(message))
    #expect(SHA256.hash(message) == DigestAlgorithm.sha256.digest(message))
    #expect(SHA384.hash(message) == DigestAlgorithm.sha384.digest(message))
    #expect(SHA512.hash(message) == DigestAlgorithm.sha512.digest(message))
    #expect(Hex.string(SHA256.hash(message)) == knownAnswers[1].sha256)
  }

  /// Streaming: the buffer path (partial blocks) must give the same digest as one call, at every split point
  /// of a message longer than two SHA-512 blocks, and when fed a byte at a time.
  @Test(arguments: DigestAlgorithm.allCases)
  func updateSplitAtEveryOffsetEqualsOneShot(_ algorithm: DigestAlgorithm) {
    let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    let oneShot = algorithm.digest(message)
    for split in 0...message.count {
      #expect(streamed(algorithm, [Array(message[..<split]), Array(message[split...])]) == oneShot, "split \(split)")
    }
    #expect(streamed(algorithm, message.map { [$0] }) == oneShot, "byte at a time")
    let thirds = [Array(message[..<100]), Array(message[100..<101]), [], Array(message[101...])]
    #expect(streamed(algorithm, thirds) == oneShot, "three pieces and an empty one")
  }

  /// Every message length around the padding boundaries (55/56 and 111/112 bytes): one-shot equals a stream in
  /// 13-byte chunks; and the known digests of 55, 56, 111 and 112 bytes, which hold the padding itself (both ways
  /// of hashing share it).
  @Test(arguments: DigestAlgorithm.allCases)
  func lengthsAroundThePaddingBoundary(_ algorithm: DigestAlgorithm) {
    for length in 50...135 {
      let message = [UInt8](repeating: 0x61, count: length)
      let oneShot = algorithm.digest(message)
      let chunks = stride(from: 0, to: length, by: 13).map { Array(message[$0..<min($0 + 13, length)]) }
      #expect(streamed(algorithm, chunks) == oneShot, "length \(length)")
    }
    // Bytes of 'a' (values from Python's hashlib): 55 and 111 are the longest messages whose 0x80 and length fit the
    // last block (of SHA-1 and SHA-256, of SHA-384 and SHA-512), 56 and 112 the shortest that need another.
    let expected: [DigestAlgorithm: [Int: String]] = [
      .sha1: [
        55: "c1c8bbdc22796e28c0e15163d20899b65621d65a",
        56: "c2db330f6083854c99d4b5bfb6e8f29f201be699",
        111: "ac877859d427d9192054eea8feb3b8a403ef83a5",
        112: "689993727ba37386bb032495e9dbdfb4dd1ba744",
      ],
      .sha256: [
        55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
        56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
        111: "6374f73208854473827f6f6a3f43b1f53eaa3b82c21c1a6d69a2110b2a79baad",
        112: "f54353008a2553262ecdc4a34749563ba0950e8b0fc8652780b0a614b99683c1",
      ],
      .sha384: [
        55: "5d91ac7e74e62b5c728904b40f10784d66b7af9cb6302123e48c92f0432ceb8d2a92c02de77dcb29ed75c4b42bde46f4",
        56: "8a8d9649ea04e993a6ca7135af7e3392cc5fca84f8531cac7aa3feed4eb98f55dcbe0f3284b61c6f35f98b02cc644b4c",
        111: "3c37955051cb5c3026f94d551d5b5e2ac38d572ae4e07172085fed81f8466b8f90dc23a8ffcdea0b8d8e58e8fdacc80a",
        112: "187d4e07cb306103c69967bf544d0dfbe9042577599c73c330abc0cb64c61236d5ed565ee19119d8c31779a38f791fcd",
      ],
      .sha512: [
        55: "b0220c772cbf6c1822e2cb38a437d0e1d58772417a4bbb21c961364f8b6143e0"
          + "5aa6316dca8d1d7b19e16448419076395f6086cb55101fbd6d5497b148e1745f",
        56: "962b64aae357d2a4fee3ded8b539bdc9d325081822b0bfc55583133aab44f18b"
          + "afe11d72a7ae16c79ce2ba620ae2242d5144809161945f1367f41b3972e26e04",
        111: "fa9121c7b32b9e01733d034cfc78cbf67f926c7ed83e82200ef8681819692176"
          + "0b4beff48404df811b953828274461673c68d04e297b0eb7b2b4d60fc6b566a2",
        112: "c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32"
          + "bd05f0f1ba33e568b88fd2d970929b719ecbb152f58f130a407c8830604b70ca",
      ],
    ]
    #expect(expected[algorithm]?.count == 4)
    for (length, digest) in expected[algorithm] ?? [:] {
      #expect(Hex.string(algorithm.digest([UInt8](repeating: 0x61, count: length))) == digest, "length \(length)")
    }
  }

  private func streamed(_ algorithm: DigestAlgorithm, _ pieces: [[UInt8]]) -> [UInt8] {
    switch algorithm {
    case .sha1: stream(InsecureSHA1(), pieces)
    case .sha256: stream(SHA256(), pieces)
    case .sha384: stream(SHA384(), pieces)
    case .sha512: stream(SHA512(), pieces)
    }
  }

  private func stream<H: HashFunction>(_ start: H, _ pieces: [[UInt8]]) -> [UInt8] {
    var hasher = start
    for piece in pieces { piece.withUnsafeBytes { hasher.update($0) } }
    return hasher.finalize()
  }
}
