import Foundation
import ReceiptCrypto
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// The benchmark's signed lines share one x5c header: one verifier hashes it once and resumes from it for every
/// token, and each token's verdict is what a fresh verifier gives it, a spoilt signature's included.
@Suite struct SharedHeaderDigestTests {
  @Test func tokensSharingAHeaderVerifyAsAlone() throws {
    let signer = try #require(TestChainSigner())
    let pem = try [UInt8](
      Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("Tests/ExampleSigning/test-root.pem")))
    var trust = TrustAnchors.apple
    for der in try TrustAnchors.certificatesFromPEMOrDER(pem) { trust = try trust.adding(rootDER: der) }
    var shared = AppleSignatureVerifier(trust: trust)
    let moment = VerificationMoment(millisecondsSince1970: 1_735_689_600_000, source: .now)
    for index in 0..<6 {
      let line = UserShapes.signedTransactionLine(index: index, customers: 3, signer: signer)
      let parts = line.split(separator: ".")
      try #require(parts.count == 3)
      let jws = try CompactJWS.decode(Array(line.utf8))
      let input = Array("\(parts[0]).\(parts[1])".utf8)
      var signature = try ReceiptCrypto.Base64.decode(Array(parts[2].utf8), rules: .url)
      for spoilt in [false, true] {
        if spoilt { signature[9] ^= 1 }
        var fresh = AppleSignatureVerifier(trust: trust)
        let alone = fresh.verifyJWS(
          signingInput: input, signature: signature, algorithm: "ES256", x5c: jws.header.x5c, at: moment)
        let inBatch = shared.verifyJWS(
          signingInput: input, signature: signature, algorithm: "ES256", x5c: jws.header.x5c, at: moment)
        #expect(inBatch == alone, "line \(index)")
        #expect((alone.outcome == .verified) == !spoilt, "line \(index)")
      }
    }
    #expect(shared.resumedDigests == 11)
  }
}
