import Foundation
import Testing

@testable import ReceiptCrypto

/// Wycheproof's RSASSA-PKCS1-v1_5 file (testvectors_v1, schema rsassa_pkcs1_verify_schema_v1.json).
private struct WycheproofRSAFile: Decodable {
  let algorithm: String
  let schema: String
  let numberOfTests: Int
  let testGroups: [Group]

  struct Group: Decodable {
    let keySize: Int
    let sha: String
    let publicKey: PublicKey
    let tests: [Vector]
  }

  struct PublicKey: Decodable {
    let modulus: String
    let publicExponent: String
  }

  struct Vector: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let msg: String
    let sig: String
    let result: String
  }
}

/// What this verifier does with Wycheproof's "acceptable" vectors, flag by flag. An acceptable vector whose flag
/// is not listed fails the test, so a new kind of leniency is decided here, never by default.
private let acceptablePolicy: [String: Bool] = [
  // DigestInfo without the NULL parameters. RFC 8017 §9.2 note 1 allows verifiers to accept it, but Apple's
  // receipts and certificates all carry the NULL, and the encoding is rebuilt, never parsed: reject.
  "MissingNull": false,
  // e = 3 keys: a small exponent is no weakness for verification; the key rules accept e ≥ 3.
  "SmallPublicKey": true,
]

@Suite struct WycheproofRSATests {
  @Test func rsa2048SHA256AgreesWithEveryVector() throws {
    guard let signatures = CryptoTestPaths.signatures else {
      CryptoTestPaths.noteSharedMissing("Wycheproof rsa_signature_2048_sha256_test.json")
      return
    }
    let url = signatures.appendingPathComponent("wycheproof/rsa_signature_2048_sha256_test.json")
    let file = try JSONDecoder().decode(WycheproofRSAFile.self, from: Data(contentsOf: url))
    #expect(file.algorithm == "RSASSA-PKCS1-v1_5")
    #expect(file.schema == "rsassa_pkcs1_verify_schema_v1.json")
    var run = 0
    var accepted = 0
    var acceptableSeen = 0
    for group in file.testGroups {
      #expect(group.sha == "SHA-256")
      let modulus = try #require(Hex.bytes(group.publicKey.modulus))
      let exponent = try #require(Hex.bytes(group.publicKey.publicExponent))
      let key = try RSAPublicKey(modulus: modulus, publicExponent: exponent)
      #expect(key.modulusBitCount == group.keySize)
      for vector in group.tests {
        run += 1
        let expected: Bool
        switch vector.result {
        case "valid": expected = true
        case "invalid": expected = false
        case "acceptable":
          acceptableSeen += 1
          let decisions = vector.flags.map { acceptablePolicy[$0] }
          guard !decisions.isEmpty, decisions.allSatisfy({ $0 != nil }) else {
            Issue.record(
              "tcId \(vector.tcId): acceptable with flags \(vector.flags) that the policy table does not decide")
            continue
          }
          expected = decisions.allSatisfy { $0 == true }
        default:
          Issue.record("tcId \(vector.tcId): unknown result \(vector.result)")
          continue
        }
        let message = try #require(Hex.bytes(vector.msg))
        let signature = try #require(Hex.bytes(vector.sig))
        let verified = key.isValidPKCS1v15Signature(signature, digest: SHA256.hash(message), algorithm: .sha256)
        if verified { accepted += 1 }
        #expect(verified == expected, "tcId \(vector.tcId) (\(vector.result), \(vector.flags)): \(vector.comment)")
      }
    }
    #expect(run == file.numberOfTests, "every vector ran")
    #expect(acceptableSeen == 1)
    #expect(accepted == 9, "the 9 valid vectors, and no other")
  }
}
