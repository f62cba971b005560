import Foundation
import ReceiptCrypto
import Testing

/// Real Apple data: the pinned G3 root, Apple's library test chain, and the Xcode test certificate.
@Suite struct AppleJWSTests {
  static let nowMoment = VerificationMoment(
    millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000), source: .now)

  @Test func pinnedRootsMatchTheirPublishedFingerprints() throws {
    #expect(TrustAnchors.apple.anchors.count == 2)
    #expect(
      Hex.string(DigestAlgorithm.sha256.digest(AppleRoots.appleRootCAG3)).uppercased() == AppleRoots.appleRootCAG3SHA256
    )
    #expect(
      Hex.string(DigestAlgorithm.sha256.digest(AppleRoots.appleIncRoot)).uppercased() == AppleRoots.appleIncRootSHA256)
    // The values Apple publishes (crypto-models.md section 0), written independently of the constants above.
    #expect(AppleRoots.appleRootCAG3SHA256 == "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179")
    #expect(AppleRoots.appleIncRootSHA256 == "B0B1730ECBC7FF4505142C49F1295E6EDA6BCAED7E2C68C5BE91B5A11001F024")
    let g3 = try #require(TrustAnchors.apple.anchors.first)
    #expect(g3.certificate.subject.commonName == "Apple Root CA - G3")
    #expect(g3.certificate.publicKeyDescription == "P-384 EC")
    let g3SignsItself = g3.certificate.isSigned(by: g3.certificate.publicKey)
    #expect(g3SignsItself)
    let inc = TrustAnchors.apple.anchors[1].certificate
    #expect(inc.subject.commonName == "Apple Root CA" && inc.publicKeyDescription == "RSA")
    #expect(inc.signatureAlgorithm == .sha1WithRSAEncryption)
    let incSignsItself = inc.isSigned(by: inc.publicKey, allowingSHA1: true)
    let incSignsItselfWithoutSHA1 = inc.isSigned(by: inc.publicKey)
    #expect(incSignsItself)
    #expect(!incSignsItselfWithoutSHA1)
    if let file = CryptoTestData.signatures("roots/AppleRootCA-G3.cer", "the root files") {
      #expect(file == AppleRoots.appleRootCAG3)
      #expect(
        CryptoTestData.signatures("roots/AppleIncRootCertificate.cer", "the root files") == AppleRoots.appleIncRoot)
    }
  }

  @Test func realNotificationVerifiesAtItsSignedDateAgainstPinnedG3() throws {
    guard let token = CryptoTestData.aporatNotification else { return }
    let signedDate = try #require(token.signedDate)
    #expect(signedDate == 1_662_122_492_884)
    var verifier = AppleSignatureVerifier()
    let verdict = token.verify(with: &verifier)
    #expect(verdict.outcome == .verified, "\(verdict.failure?.description ?? "")")
    #expect(verdict.anchoredAtApple && !verdict.revocationChecked)
    #expect(verdict.moment.source == .signedDate)
    #expect(verdict.chain.map(\.position) == ["x5c[0]", "x5c[1]", "root"])
    #expect(verdict.chain.last?.commonName == "Apple Root CA - G3")
    #expect(Hex.string(verdict.chain[2].sha256).uppercased() == AppleRoots.appleRootCAG3SHA256)

    // Now the leaf has expired (notAfter 2023-09-24).
    let now = token.verify(with: &verifier, at: Self.nowMoment)
    #expect(now.failure == SignatureFailure(.expired, certificate: "x5c[0]", ""), "\(now.failure?.description ?? "")")
    #expect(now.failure?.description.contains("valid until 2023-09-24") == true)

    // Inclusive bound: valid at notAfter exactly, expired 1 ms later.
    let notAfter = verdict.chain[0].notAfter
    let atEnd = token.verify(with: &verifier, at: VerificationMoment(millisecondsSince1970: notAfter, source: .now))
    #expect(atEnd.outcome == .verified)
    let after = token.verify(with: &verifier, at: VerificationMoment(millisecondsSince1970: notAfter + 1, source: .now))
    #expect(after.failure?.code == .expired)
    let before = token.verify(
      with: &verifier, at: VerificationMoment(millisecondsSince1970: verdict.chain[0].notBefore - 1, source: .now))
    #expect(before.failure?.code == .notYetValid)
    // One chain validation served all five documents; time was checked every time.
    #expect(verifier.cacheMisses == 1 && verifier.cacheHits == 4)
  }

  @Test func librariesTestChainVerifiesOnlyWithItsTestRoot() throws {
    guard let testCA = CryptoTestData.signatures("jws/testCA.der", "Apple's library test resources") else { return }
    let trust = try TrustAnchors.apple.adding(rootDER: testCA)
    for name in ["transactionInfo", "testNotification", "renewalInfo", "wrongBundleId"] {
      let token = try #require(CryptoTestData.token(name), "\(name)")
      var with = AppleSignatureVerifier(trust: trust)
      let verdict = token.verify(with: &with)
      #expect(verdict.outcome == .verified, "\(name): \(verdict.failure?.description ?? "")")
      #expect(!verdict.anchoredAtApple, "\(name)")
      var without = AppleSignatureVerifier()
      let refused = token.verify(with: &without)
      #expect(refused.failure?.code == .untrustedRoot, "\(name): \(refused.failure?.description ?? "verified")")
    }
  }

  @Test func missingX5CFailsWithAClearReason() throws {
    guard let token = CryptoTestData.token("missingX5CHeaderClaim") else { return }
    #expect(token.x5c == nil)
    var verifier = AppleSignatureVerifier()
    let verdict = token.verify(with: &verifier)
    let failure = try #require(verdict.failure)
    #expect(failure.code == .jwsX5C)
    #expect(failure.description == "jws.x5c: the header has no x5c certificate chain")
  }

  @Test func xcodeTransactionIsTestSigned() throws {
    guard let token = CryptoTestData.token("xcode-signed-transaction") else { return }
    var verifier = AppleSignatureVerifier()
    let verdict = token.verify(with: &verifier)
    #expect(verdict.outcome == .testSigned, "\(verdict.failure?.description ?? "")")
    #expect(verdict.chain.first?.commonName == "StoreKit Testing in Xcode")
    // Given as a trust root, the same certificate anchors it: verified, not Apple's.
    let first = try #require(token.x5c?.first)
    let der = try #require(Base64.decode(first))
    var trusting = AppleSignatureVerifier(trust: try TrustAnchors.apple.adding(rootDER: der))
    let moment = VerificationMoment(millisecondsSince1970: verdict.chain[0].notBefore, source: .signedDate)
    let anchored = token.verify(with: &trusting, at: moment)
    #expect(anchored.outcome == .verified && !anchored.anchoredAtApple, "\(anchored.failure?.description ?? "")")
    // A flipped signature byte: no longer test-signed.
    var forged = token
    forged.signature[5] ^= 1
    #expect(forged.verify(with: &verifier).failure?.code == .signatureMismatch)
  }

  @Test func realChainCertificatesParse() throws {
    guard let root = CryptoTestPaths.signatures else {
      CryptoTestPaths.noteSharedMissing("the real chain certificates")
      return
    }
    for path in [
      "intermediates/AppleWWDRCAG6.cer", "intermediates/AppleWWDRCAG5.cer",
      "intermediates/AppleWWDRCA-G1-from-receipt.cer",
      "certs-from-tests/prod-ecc-receipt-signing-leaf-2025.der", "receipts/StoreKitTestCertificate.cer",
    ] {
      let file = CryptoTestData.file(root.appendingPathComponent(path))
      let bytes = try #require(file, "\(path)")
      do {
        let certificate = try Certificate(derEncoded: bytes)
        #expect(certificate.version == 3, "\(path)")
      } catch {
        Issue.record("\(path): \(error)")
      }
    }
    // The 2025 production leaf chains to G3 through G6.
    let g6Bytes = try #require(CryptoTestData.file(root.appendingPathComponent("intermediates/AppleWWDRCAG6.cer")))
    let leafBytes = try #require(
      CryptoTestData.file(root.appendingPathComponent("certs-from-tests/prod-ecc-receipt-signing-leaf-2025.der")))
    let g6 = try Certificate(derEncoded: g6Bytes)
    let leaf = try Certificate(derEncoded: leafBytes)
    let result = AppleChain.validate(
      leaf: PositionedCertificate("leaf", leaf), intermediate: PositionedCertificate("G6", g6), anchors: .apple,
      policy: .jws)
    guard case .success(let chain) = result else {
      Issue.record("\(result)")
      return
    }
    #expect(chain.anchoredAtApple && chain.certificates[2].certificate.subject.commonName == "Apple Root CA - G3")
    #expect(g6.extensions.contains(.appleIntermediateMarker) && leaf.extensions.contains(.appleLeafMarker))
  }
}
