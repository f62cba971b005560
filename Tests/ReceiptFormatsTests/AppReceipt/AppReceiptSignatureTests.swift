import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Issue 28 in the decoder: an app receipt's PKCS#7 signature is checked when the caller lends a verifier, at
/// the receipt's creation date, and the verdict is the document's `signatureCheck`.
@Suite struct AppReceiptSignatureTests {
  /// One verifier lent to every decode and kept, to count its chain cache (one thread in these tests).
  typealias OneVerifier = OneVerifierLending

  static let now = Timestamp(milliseconds: 1_790_000_000_000) ?? .epoch

  static func check(_ bytes: [UInt8], trust: TrustAnchors = .apple) throws -> SignatureCheck {
    let options = DecodeOptions(signatures: SignatureChecking(verifiers: OneVerifier(trust: trust), now: now))
    return try AppReceiptFormat().decode(bytes, source: "test", options: options).provenance.signatureCheck
  }

  static func receipt(_ path: String) -> [UInt8]? {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("the real app receipt \(path)")
      return nil
    }
    return (try? Data(contentsOf: shared.appendingPathComponent(path))).map { Array($0) }
  }

  /// The hand-written example has no signer: unsigned, whether or not signatures are checked.
  @Test func aReceiptWithoutASignerIsUnsigned() throws {
    let bytes = Array(
      try Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("examples/app-receipt/entitlements-active.b64"))
    )
    #expect(try Self.check(bytes).verdict == .unsigned)
    let unchecked = try AppReceiptFormat().decode(bytes, source: "test", options: DecodeOptions())
    #expect(unchecked.provenance.signatureCheck.verdict == .unsigned)
  }

  @Test func appleReceiptsVerifyAtTheirCreationDate() throws {
    for path in [
      "reference/signatures/receipts/receipt-production", "reference/signatures/receipts/receipt-sandbox-legacy",
      "peer-fixtures/Cocoanetics__Kvitto/sandboxReceipt",
    ] {
      guard let bytes = Self.receipt(path) else { return }
      let check = try Self.check(bytes)
      #expect(check.verdict == .verified, "\(path): \(check.summary)")
      #expect(check.anchor == .apple)
      #expect(check.moment?.source == "receipt creation date")
      #expect(check.chain.count == 3 && check.chain.last?.commonName == "Apple Root CA")
      // Read without a verifier: said to be unchecked, never passed off as verified.
      let unchecked = try AppReceiptFormat().decode(bytes, source: "test", options: DecodeOptions())
      #expect(unchecked.provenance.signatureCheck.verdict == .notChecked)
    }
  }

  @Test func aFlippedSignatureByteMakesTheReceiptInvalid() throws {
    guard let text = Self.receipt("reference/signatures/receipts/receipt-sandbox-g5"),
      var der = Data(base64Encoded: String(decoding: text.filter { $0 > 0x20 }, as: UTF8.self)).map({ Array($0) })
    else { return }
    // The signature is the last OCTET STRING: its final byte is the envelope's last byte.
    der[der.count - 1] ^= 0x01
    let check = try Self.check(der)
    #expect(check.verdict == .invalid)
    #expect(check.failures.first?.code == "signature.mismatch", "\(check.summary)")
  }

  @Test func xcodeReceiptsAreTestSignedOrVerifiedWithTheirCertificateAsTrustRoot() throws {
    guard let bytes = Self.receipt("reference/signatures/receipts/receipt-xcode"),
      let certificate = Self.receipt("reference/signatures/receipts/StoreKitTestCertificate.cer")
    else { return }
    #expect(try Self.check(bytes).verdict == .testSigned)
    let rooted = try Self.check(bytes, trust: TrustAnchors.apple.adding(rootDER: certificate))
    #expect(rooted.verdict == .verified)
    #expect(rooted.anchor == .trustRoot)
  }
}
