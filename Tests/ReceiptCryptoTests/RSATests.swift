import Foundation
import Testing

@testable import ReceiptCrypto

/// One line of Fixtures/rsa-known-answers.txt: a key made with the OpenSSL command line and a message signed
/// with it (make-rsa-fixtures.sh); only public data is committed.
private struct RSAKnownAnswer: CustomStringConvertible {
  let bits: Int
  let algorithm: DigestAlgorithm
  let modulus, exponent, message, signature: [UInt8]
  var description: String { "RSA-\(bits) \(algorithm.name)" }

  init?(line: Substring) {
    let fields = line.split(separator: " ").map(String.init)
    guard fields.count == 6, let bits = Int(fields[0]),
      let modulus = Hex.bytes(fields[2]), let exponent = Hex.bytes(fields[3]),
      let message = Hex.bytes(fields[4]), let signature = Hex.bytes(fields[5])
    else { return nil }
    switch fields[1] {
    case "sha1": algorithm = .sha1
    case "sha256": algorithm = .sha256
    default: return nil
    }
    (self.bits, self.modulus, self.exponent, self.message, self.signature) = (
      bits, modulus, exponent, message, signature
    )
  }
}

private func rsaKnownAnswers() throws -> [RSAKnownAnswer] {
  let url = CryptoTestPaths.fixtures.appendingPathComponent("rsa-known-answers.txt")
  let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
  return try lines.map { line in try #require(RSAKnownAnswer(line: line), "\(line.prefix(20))") }
}

@Suite struct RSATests {
  @Test func openSSLSignaturesVerifyAndForgeriesDoNot() throws {
    let answers = try rsaKnownAnswers()
    #expect(
      Set(answers.map(\.description)) == ["RSA-2048 SHA-1", "RSA-2048 SHA-256", "RSA-4096 SHA-1", "RSA-4096 SHA-256"])
    for answer in answers {
      let key = try RSAPublicKey(modulus: answer.modulus, publicExponent: answer.exponent)
      #expect(key.modulusBitCount == answer.bits)
      #expect(key.modulusByteCount == answer.bits / 8)
      let digest = answer.algorithm.digest(answer.message)
      #expect(key.isValidPKCS1v15Signature(answer.signature, digest: digest, algorithm: answer.algorithm), "\(answer)")

      // A flipped bit anywhere in the signature (first, middle, last byte) or in the message.
      for index in [0, answer.signature.count / 2, answer.signature.count - 1] {
        var flipped = answer.signature
        flipped[index] ^= 0x01
        #expect(!key.isValidPKCS1v15Signature(flipped, digest: digest, algorithm: answer.algorithm), "sig[\(index)]")
      }
      var message = answer.message
      message[0] ^= 0x20
      let otherDigest = answer.algorithm.digest(message)
      #expect(!key.isValidPKCS1v15Signature(answer.signature, digest: otherDigest, algorithm: answer.algorithm))

      // The right digest claimed under another algorithm, and another algorithm's digest of the message.
      for other in DigestAlgorithm.allCases where other != answer.algorithm {
        #expect(
          !key.isValidPKCS1v15Signature(answer.signature, digest: digest, algorithm: other), "\(other.name) label")
        let otherDigest = other.digest(answer.message)
        #expect(!key.isValidPKCS1v15Signature(answer.signature, digest: otherDigest, algorithm: other), "\(other.name)")
      }

      // Wrong lengths: a leading zero byte added, a byte dropped, an empty signature, a truncated digest.
      #expect(!key.isValidPKCS1v15Signature([0] + answer.signature, digest: digest, algorithm: answer.algorithm))
      #expect(
        !key.isValidPKCS1v15Signature(Array(answer.signature.dropFirst()), digest: digest, algorithm: answer.algorithm))
      #expect(!key.isValidPKCS1v15Signature([], digest: digest, algorithm: answer.algorithm))
      #expect(
        !key.isValidPKCS1v15Signature(answer.signature, digest: Array(digest.dropLast()), algorithm: answer.algorithm))

      // s ≥ n is refused rather than reduced: s + n has the same value mod n, when it still fits in k bytes.
      let n = BigUInt(bigEndianBytes: answer.modulus)
      #expect(!key.isValidPKCS1v15Signature(answer.modulus, digest: digest, algorithm: answer.algorithm), "s == n")
      let sum = add(BigUInt(bigEndianBytes: answer.signature), n)
      if let widened = sum.bigEndianBytes(count: answer.signature.count) {
        #expect(!key.isValidPKCS1v15Signature(widened, digest: digest, algorithm: answer.algorithm), "s + n")
      }
    }
  }

  @Test func theEncodedMessageIsTheRFC8017Layout() throws {
    let digest = [UInt8](repeating: 0xab, count: 32)
    let encoded = try #require(PKCS1v15.encodedMessage(digest: digest, algorithm: .sha256, byteCount: 256))
    #expect(encoded.count == 256)
    #expect(Array(encoded.prefix(2)) == [0x00, 0x01])
    let digestInfoHex = "3031300d060960864801650304020105000420"
    #expect(Hex.string(encoded.suffix(51)) == digestInfoHex + String(repeating: "ab", count: 32))
    #expect(encoded[256 - 52] == 0x00)
    #expect(encoded[2..<(256 - 52)].allSatisfy { $0 == 0xff })
    // RFC 8017 §9.2 note 1, written out there byte by byte.
    #expect(Hex.string(PKCS1v15.digestInfoPrefix(.sha1)) == "3021300906052b0e03021a05000414")
    #expect(Hex.string(PKCS1v15.digestInfoPrefix(.sha384)) == "3041300d060960864801650304020205000430")
    #expect(Hex.string(PKCS1v15.digestInfoPrefix(.sha512)) == "3051300d060960864801650304020305000440")
    // Fewer than 8 bytes of padding is no encoding at all.
    #expect(PKCS1v15.encodedMessage(digest: digest, algorithm: .sha256, byteCount: 51 + 3 + 7) == nil)
    #expect(PKCS1v15.encodedMessage(digest: digest, algorithm: .sha256, byteCount: 51 + 3 + 8) != nil)
  }

  @Test func keysOutsideTheAcceptedShapeAreRefused() throws {
    let answer = try #require(try rsaKnownAnswers().first)
    let e: [UInt8] = [0x01, 0x00, 0x01]
    #expect(throws: CryptoKeyError.rsaModulusSize(bits: 2047)) {
      try RSAPublicKey(modulus: [0x7f] + [UInt8](repeating: 0xff, count: 255), publicExponent: e)
    }
    #expect(throws: CryptoKeyError.rsaModulusSize(bits: 4104)) {
      try RSAPublicKey(modulus: [0x80] + [UInt8](repeating: 0xff, count: 512), publicExponent: e)
    }
    var even = answer.modulus
    even[even.count - 1] &= 0xfe
    #expect(throws: CryptoKeyError.rsaModulusEven) { try RSAPublicKey(modulus: even, publicExponent: e) }
    #expect(throws: CryptoKeyError.rsaExponent(65536)) {
      try RSAPublicKey(modulus: answer.modulus, publicExponent: [1, 0, 0])
    }
    #expect(throws: CryptoKeyError.rsaExponent(1)) { try RSAPublicKey(modulus: answer.modulus, publicExponent: [1]) }
    #expect(throws: CryptoKeyError.rsaExponent(0)) { try RSAPublicKey(modulus: answer.modulus, publicExponent: []) }
    #expect(throws: CryptoKeyError.rsaExponent(0x8000_0001)) {
      try RSAPublicKey(modulus: answer.modulus, publicExponent: [0x80, 0, 0, 1])
    }
    #expect(throws: CryptoKeyError.rsaExponent(nil)) {
      try RSAPublicKey(modulus: answer.modulus, publicExponent: [1] + [UInt8](repeating: 0, count: 8))
    }
    // A DER INTEGER's leading zero is not part of the value; the key keeps the minimal bytes.
    let padded = try RSAPublicKey(modulus: [0] + answer.modulus, publicExponent: [0] + e)
    #expect(padded == (try RSAPublicKey(modulus: answer.modulus, publicExponent: e)))
    #expect(padded.modulus == answer.modulus)
    #expect(padded.publicExponent == 65537)
    #expect(
      try RSAPublicKey(modulus: answer.modulus, publicExponent: [0x7f, 0xff, 0xff, 0xff]).publicExponent == 0x7fff_ffff)
    #expect(try RSAPublicKey(modulus: answer.modulus, publicExponent: [3]).publicExponent == 3)
    for error in [CryptoKeyError.rsaModulusSize(bits: 1024), .rsaModulusEven, .rsaExponent(2), .rsaExponent(nil)] {
      #expect(!error.description.contains("\n") && !error.description.isEmpty)
    }
  }

  private func add(_ a: BigUInt, _ b: BigUInt) -> BigUInt {
    var limbs: [UInt64] = []
    var carry: UInt64 = 0
    for index in 0..<max(a.limbs.count, b.limbs.count) {
      let x = index < a.limbs.count ? a.limbs[index] : 0
      let y = index < b.limbs.count ? b.limbs[index] : 0
      let (s1, c1) = x.addingReportingOverflow(y)
      let (s2, c2) = s1.addingReportingOverflow(carry)
      limbs.append(s2)
      carry = (c1 ? 1 : 0) + (c2 ? 1 : 0)
    }
    limbs.append(carry)
    return BigUInt(limbs: limbs)
  }
}
