import Foundation
import Testing

@testable import ReceiptCrypto

/// Forgeries of PKCS#7 receipts fail, each with its own code: bytes flipped in real Apple receipts (run where
/// ../shared is present), and envelopes made with the OpenSSL command line (Fixtures/make-pkcs7-fixtures.sh,
/// always run) that carry valid signatures under a test root of our own.
@Suite struct AppleReceiptForgeryTests {
  /// The index of the first occurrence of `needle` in `haystack`.
  static func offset(of needle: some Collection<UInt8>, in haystack: [UInt8]) -> Int? {
    let needle = Array(needle)
    guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
    return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
  }

  static func fixture(_ name: String) throws -> [UInt8] {
    try #require(CryptoTestData.fixture(name), "Fixtures/\(name)")
  }

  /// Apple-shaped fixtures verify against the test root, at a moment inside their certificates' windows.
  static func fixtureVerdict(_ blob: [UInt8], trust: TrustAnchors? = nil) throws -> SignatureVerdict {
    let anchors = try trust ?? TrustAnchors.apple.adding(rootDER: try fixture("pkcs7-test-root.der"))
    var verifier = AppleSignatureVerifier(trust: anchors)
    let envelope = try PKCS7SignedData(berEncoded: blob)
    let notBefore = try envelope.certificates.map { try Certificate(derEncoded: $0).notBefore }.max() ?? 0
    return verifier.verifyPKCS7(
      blob, at: VerificationMoment(millisecondsSince1970: notBefore + 86_400_000, source: .receiptCreationDate))
  }

  @Test func fixturesWithAndWithoutSignedAttributesVerifyUnderTheirTestRoot() throws {
    for name in ["pkcs7-signed-attributes.der", "pkcs7-sha1-no-attributes.der"] {
      let blob = try Self.fixture(name)
      let verdict = try Self.fixtureVerdict(blob)
      #expect(verdict.outcome == .verified, "\(name): \(verdict.failure?.description ?? "")")
      #expect(!verdict.anchoredAtApple, "a --trust-root, not Apple")
      #expect(verdict.chain.map(\.position) == ["certificates[0]", "certificates[1]", "root"], "\(name)")
      // Without the test root the same envelope has no trusted root.
      let untrusted = try Self.fixtureVerdict(blob, trust: .apple)
      #expect(untrusted.failure?.code == .untrustedRoot, "\(name)")
    }
    let withAttributes = try PKCS7SignedData(berEncoded: try Self.fixture("pkcs7-signed-attributes.der"))
    #expect(withAttributes.signers.first?.signedAttributes?.first == ASN1Tag.set)
    #expect(withAttributes.signers.first?.messageDigest == SHA256.hash(withAttributes.content))
    let without = try PKCS7SignedData(berEncoded: try Self.fixture("pkcs7-sha1-no-attributes.der"))
    #expect(without.signers.first?.signedAttributes == nil)
    #expect(without.signers.first?.digestAlgorithm == .sha1)
  }

  @Test func signedAttributesWhoseDigestDoesNotMatchFail() throws {
    let blob = try Self.fixture("pkcs7-signed-attributes.der")
    // messageDigest: OID, SET { OCTET STRING (32) }; flip the digest's first byte.
    let oid: [UInt8] = [0x06, 0x09] + OID.messageDigestAttribute.contentOctets
    let at = try #require(Self.offset(of: oid, in: blob))
    #expect(Array(blob[(at + 11)..<(at + 15)]) == [0x31, 0x22, 0x04, 0x20])
    var forged = blob
    forged[at + 15] ^= 0x01
    #expect(try Self.fixtureVerdict(forged).failure?.code == .pkcs7Digest)
    // The content changed instead: the signed digest no longer matches it either.
    var content = blob
    let contentAt = try #require(Self.offset(of: Array("receipt-tool PKCS#7".utf8), in: blob))
    content[contentAt] ^= 0x01
    #expect(try Self.fixtureVerdict(content).failure?.code == .pkcs7Digest)
    // Another signed attribute (signingTime's last digit) changed: the signature over the SET fails.
    var attribute = blob
    attribute[at - 4] ^= 0x01
    let verdict = try Self.fixtureVerdict(attribute)
    #expect(verdict.failure?.code == .signatureMismatch, "\(verdict.failure?.description ?? "verified")")
  }

  @Test func aDigestOtherThanSHA1OrSHA256Fails() throws {
    let verdict = try Self.fixtureVerdict(try Self.fixture("pkcs7-sha384.der"))
    #expect(verdict.failure?.code == .pkcs7Algorithm)
    #expect(verdict.failure?.description.contains("2.16.840.1.101.3.4.2.2") == true)
  }

  @Test func aLeafWithoutAppleMarkerFails() throws {
    let verdict = try Self.fixtureVerdict(try Self.fixture("pkcs7-leaf-without-marker.der"))
    #expect(verdict.failure?.code == .marker)
    #expect(verdict.failure?.certificate == "certificates[0]")
  }

  @Test func aChainReRootedAtALookAlikeRootFails() throws {
    let blob = try Self.fixture("pkcs7-look-alike-root.der")
    let envelope = try PKCS7SignedData(berEncoded: blob)
    let names = try envelope.certificates.map { try Certificate(derEncoded: $0).issuer.encoded }
    let appleRoot = try #require(TrustAnchors.apple.anchors.last?.certificate)
    #expect(appleRoot.subject.commonName == "Apple Root CA")
    #expect(names.contains(appleRoot.subject.encoded), "the intermediate names Apple Inc. Root byte for byte")
    let verdict = try Self.fixtureVerdict(blob, trust: .apple)
    #expect(verdict.failure?.code == .untrustedRoot)
    #expect(verdict.failure?.description.contains("look-alike") == true)
  }

  /// Bytes changed in real Apple receipts: content, signature, the leaf's marker OID, the digest algorithm.
  @Test func flippedBytesInRealReceiptsFail() throws {
    guard let receipts = try RealReceipt.all() else { return }
    for receipt in receipts where !receipt.isXcode {
      var verifier = AppleSignatureVerifier()
      let envelope = try PKCS7SignedData(berEncoded: receipt.blob)
      let signer = try #require(envelope.signers.first)

      var content = receipt.blob
      let contentAt = try #require(Self.offset(of: envelope.content.prefix(64), in: content))
      content[contentAt + envelope.content.count / 2] ^= 0x01
      #expect(verifier.verifyPKCS7(content, at: receipt.creation).failure?.code == .signatureMismatch, "\(receipt)")

      for index in [0, signer.signature.count - 1] {
        var signature = receipt.blob
        let signatureAt = try #require(Self.offset(of: signer.signature, in: signature))
        signature[signatureAt + index] ^= 0x80
        #expect(
          verifier.verifyPKCS7(signature, at: receipt.creation).failure?.code == .signatureMismatch,
          "\(receipt) signature[\(index)]")
      }

      // 1.2.840.113635.100.6.11.1 -> .6.11.2 in the leaf (the byte count stays, the marker is gone).
      let marker: [UInt8] = [0x06, 0x0A] + OID.appleLeafMarker.contentOctets
      var leaf = receipt.blob
      let markerAt = try #require(Self.offset(of: marker, in: leaf))
      leaf[markerAt + marker.count - 1] = 0x02
      let unmarked = verifier.verifyPKCS7(leaf, at: receipt.creation)
      #expect(unmarked.failure?.code == .marker, "\(receipt): \(unmarked.failure?.description ?? "verified")")

      // SHA-256 -> SHA-384 in the digest algorithm identifiers (the certificates name sha256WithRSA, another OID).
      let sha256: [UInt8] = [0x06, 0x09] + OID.sha256.contentOctets
      if Self.offset(of: sha256, in: receipt.blob) != nil {
        var digest = receipt.blob
        while let at = Self.offset(of: sha256, in: digest) { digest[at + sha256.count - 1] = 0x02 }
        #expect(verifier.verifyPKCS7(digest, at: receipt.creation).failure?.code == .pkcs7Algorithm, "\(receipt)")
      }
    }
  }

  /// Malformed envelopes are refused with a reason, never a crash: every truncation of a fixture, and bytes that
  /// are no envelope at all.
  @Test func truncatedAndForeignBytesFailCleanly() throws {
    let blob = try Self.fixture("pkcs7-sha1-no-attributes.der")
    var verifier = AppleSignatureVerifier()
    let moment = VerificationMoment(millisecondsSince1970: 0, source: .now)
    for length in stride(from: 0, to: blob.count, by: 7) {
      let verdict = verifier.verifyPKCS7(Array(blob.prefix(length)), at: moment)
      #expect(verdict.failure != nil, "prefix \(length)")
      #expect(verdict.failure?.description.contains("\n") == false)
    }
    #expect(verifier.verifyPKCS7(Array("NOT A RECEIPT".utf8), at: moment).failure?.code == .derMalformed)
    #expect(verifier.verifyPKCS7([], at: moment).failure?.code == .derMalformed)
    // A certificate DER (a SEQUENCE, but no ContentInfo).
    let certificate = try Self.fixture("pkcs7-test-root.der")
    #expect(verifier.verifyPKCS7(certificate, at: moment).failure?.code == .derMalformed)
  }
}
