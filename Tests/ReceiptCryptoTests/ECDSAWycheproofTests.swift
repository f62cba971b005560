import Foundation
import Testing

@testable import ReceiptCrypto

// Wycheproof ECDSA vectors from ../shared/reference/signatures/wycheproof (C2SP v1 files, and the google v0
// webcrypto file with JWK keys and r‖s signatures). Every valid and invalid vector must agree; "acceptable"
// vectors are decided by `acceptablePolicy`; vectors on curves this target does not support are counted, and the
// vectors run plus those counted must equal the file's numberOfTests, so nothing is skipped silently. Each vector
// is verified by the key as given and by its precomputed form (`ECPublicKey.precomputed()`), which must agree.

/// Our answer for Wycheproof's "acceptable" vectors, flag by flag (as Go's wycheproof.ShouldPass). A vector with a
/// flag missing from this table fails the test.
private let acceptablePolicy: [String: Bool] = [
  // The hash is weaker than the curve (SHA-256 on P-384, SHA-256/384 on P-521). Accepted: a digest of any length
  // is used by value, truncated to the order's bit length (SEC 1 4.1.4), as with Apple's test CA, whose P-256 keys
  // sign with SHA-384.
  "WeakHash": true,
  // r‖s shorter than twice the order's byte length. Refused: P1363 and JWS ES256/ES384 fix the length.
  "SigSize": false,
]

/// Curves in the files that ECDSA here does not support, with the number of vectors each file holds for them.
/// Only the webcrypto file has any: P-521 (98 vectors) and secp256k1 (22), neither used by Apple's signatures.
private let unsupportedVectorCounts: [String: Int] = [
  "ecdsa_secp256r1_sha256_test.json": 0,
  "ecdsa_secp256r1_sha256_p1363_test.json": 0,
  "ecdsa_secp384r1_sha384_test.json": 0,
  "ecdsa_secp256r1_sha512_test.json": 0,
  "ecdsa_webcrypto_test.google-v0.json": 98 + 22,
]

private struct WycheproofFile: Decodable {
  let algorithm: String
  let numberOfTests: Int
  let testGroups: [Group]

  struct Group: Decodable {
    let type: String
    let publicKey: Key?  // v1
    let key: Key?  // v0 (webcrypto)
    let jwk: JWK?  // v0 (webcrypto): the key the test must use
    let sha: String
    let tests: [Vector]
  }

  struct Key: Decodable {
    let curve: String
    let uncompressed: String
  }

  struct JWK: Decodable {
    let crv: String
    let x: String
    let y: String
  }

  struct Vector: Decodable {
    let tcId: Int
    let comment: String
    let msg: String
    let sig: String
    let result: String
    let flags: [String]
  }
}

@Suite("ECDSA Wycheproof")
struct ECDSAWycheproofTests {
  @Test(arguments: unsupportedVectorCounts.keys.sorted())
  func vectorsAgree(file: String) throws {
    guard let signatures = CryptoTestPaths.signatures else {
      CryptoTestPaths.noteSharedMissing("Wycheproof \(file)")
      return
    }
    let data = try Data(contentsOf: signatures.appendingPathComponent("wycheproof/\(file)"))
    let wycheproof = try JSONDecoder().decode(WycheproofFile.self, from: data)
    #expect(wycheproof.algorithm == "ECDSA")
    var run = 0
    var unsupported = 0
    var accepted = 0
    for group in wycheproof.testGroups {
      guard let keyInfo = group.publicKey ?? group.key, let curve = curve(named: keyInfo.curve) else {
        unsupported += group.tests.count
        continue
      }
      let raw: Bool
      switch group.type {
      case "EcdsaVerify": raw = false
      case "EcdsaP1363Verify": raw = true
      default:
        Issue.record("\(file): unknown group type \(group.type)")
        continue
      }
      guard let algorithm = digestAlgorithm(named: group.sha) else {
        Issue.record("\(file): unknown hash \(group.sha)")
        continue
      }
      let keyBytes = try publicKeyBytes(group)
      let key = try? ECPublicKey(curve: curve, x963Representation: keyBytes)
      let precomputed = key?.precomputed()
      for vector in group.tests {
        run += 1
        guard let message = Hex.bytes(vector.msg), let signature = Hex.bytes(vector.sig) else {
          Issue.record("\(file) #\(vector.tcId): bad hex")
          continue
        }
        let digest = algorithm.digest(message)
        func verifies(_ key: ECPublicKey?) -> Bool {
          guard let key else { return false }
          return raw
            ? key.isValidSignature(rawRS: signature, digest: digest)
            : key.isValidSignature(derEncoded: signature, digest: digest)
        }
        let verdict = verifies(key)
        if verdict { accepted += 1 }
        let precomputedVerdict = verifies(precomputed)
        #expect(precomputedVerdict == verdict, "\(file) #\(vector.tcId): the precomputed key (KeyTableTests) disagrees")
        guard let expected = expectedVerdict(vector, file: file) else { continue }
        #expect(
          verdict == expected, "\(file) #\(vector.tcId) \(vector.comment) \(vector.flags): expected \(vector.result)")
        // The fast final comparison (projective, no inversion) gives the textbook affine answer: on the vectors
        // built around x(R) and special points, and on every third other one (each check costs a second
        // verification in a debug build).
        let edgeFlags: Set = ["ArithmeticError", "EdgeCase", "EdgeCaseShamirMultiplication", "PointDuplication"]
        guard vector.tcId % 3 == 0 || !edgeFlags.isDisjoint(with: vector.flags) else { continue }
        #expect(
          slowPathVerdict(curve, keyBytes, signature: signature, raw: raw, digest: digest) == verdict,
          "\(file) #\(vector.tcId): projective and affine x comparisons disagree")
      }
    }
    #expect(run + unsupported == wycheproof.numberOfTests, "\(file): every vector run or counted as unsupported")
    #expect(unsupported == unsupportedVectorCounts[file], "\(file): vectors on unsupported curves")
    #expect(accepted > 0 && run > 0)
    print("Wycheproof \(file): \(run) vectors run, \(accepted) verified, \(unsupported) on unsupported curves")
  }

  private func curve(named name: String) -> ECCurve? {
    switch name {
    case "secp256r1": .p256
    case "secp384r1": .p384
    default: nil
    }
  }

  private func digestAlgorithm(named name: String) -> DigestAlgorithm? {
    switch name {
    case "SHA-256": .sha256
    case "SHA-384": .sha384
    case "SHA-512": .sha512
    default: nil
    }
  }

  /// 04‖X‖Y: from the JWK where the group has one (the webcrypto file's point), else Wycheproof's hex.
  private func publicKeyBytes(_ group: WycheproofFile.Group) throws -> [UInt8] {
    if let jwk = group.jwk {
      guard let x = base64URL(jwk.x), let y = base64URL(jwk.y) else { throw WycheproofDataError.badJWK(jwk.x) }
      return [0x04] + x + y
    }
    guard let hex = (group.publicKey ?? group.key)?.uncompressed, let bytes = Hex.bytes(hex) else {
      throw WycheproofDataError.badKey
    }
    return bytes
  }

  private func base64URL(_ text: String) -> [UInt8]? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard).map { Array($0) }
  }

  /// valid → true, invalid → false, acceptable → the policy table; nil (and a recorded issue) for anything else.
  private func expectedVerdict(_ vector: WycheproofFile.Vector, file: String) -> Bool? {
    switch vector.result {
    case "valid": return true
    case "invalid": return false
    case "acceptable":
      var accept = true
      for flag in vector.flags {
        guard let policy = acceptablePolicy[flag] else {
          Issue.record("\(file) #\(vector.tcId): acceptable vector with flag \(flag), which the policy table lacks")
          return nil
        }
        accept = accept && policy
      }
      return accept
    default:
      Issue.record("\(file) #\(vector.tcId): unknown result \(vector.result)")
      return nil
    }
  }

  private func slowPathVerdict(_ curve: ECCurve, _ key: [UInt8], signature: [UInt8], raw: Bool, digest: [UInt8]) -> Bool
  {
    let parsed =
      raw
      ? ECDSASignatureForms.parseRaw(signature, integerBytes: curve.byteCount)
      : ECDSASignatureForms.parseDER(signature, maximumIntegerBytes: curve.byteCount)
    guard let (r, s) = parsed else { return false }
    switch curve {
    case .p256:
      guard let q = try? AffinePoint<P256>(x963: key) else { return false }
      return ECDSAVerifier<P256>.isValidComparingAffineX(r: r, s: s, digest: digest, publicKey: q)
    case .p384:
      guard let q = try? AffinePoint<P384>(x963: key) else { return false }
      return ECDSAVerifier<P384>.isValidComparingAffineX(r: r, s: s, digest: digest, publicKey: q)
    }
  }
}

private enum WycheproofDataError: Error {
  case badJWK(String)
  case badKey
}
