import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// A JWS header whose `crit` names an extension is rejected (RFC 7515 4.1.11): the verifier understands none.
/// The example is signed by the test chain, so its signature holds and `crit` alone rejects it.
@Suite struct CriticalHeaderTests {
  static let examples = TestPaths.packageRoot.appendingPathComponent("examples/storekit2")

  static func trust() throws -> TrustAnchors {
    let pem = try [UInt8](Data(contentsOf: examples.appendingPathComponent("test-root.pem")))
    var trust = TrustAnchors.apple
    for der in try TrustAnchors.certificatesFromPEMOrDER(pem) { trust = try trust.adding(rootDER: der) }
    return trust
  }

  @Test func aHeaderWithCritIsRejectedThoughItsSignatureHolds() throws {
    let bytes = try [UInt8](Data(contentsOf: Self.examples.appendingPathComponent("crit-entitlements-active.jws")))
    let checking = SignatureChecking(verifiers: OneVerifierLending(try Self.trust()), now: .epoch)
    let history = try SignedDataFormat().decode(bytes, source: "t", options: DecodeOptions(signatures: checking))
    let check = history.provenance.signatureCheck
    #expect(check.verdict == .invalid)
    #expect(check.failures.map(\.code) == ["jws.crit"])
    #expect(
      check.failures.first?.reason.contains(#"crit names "exp", which this verifier does not understand"#) == true)
    // The same token, its crit not given to the verifier: the signature and chain verify.
    let jws = try CompactJWS.decode(bytes)
    #expect(jws.header.crit == ["exp"])
    let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    let parts = text.split(separator: ".")
    let signature = try ReceiptCrypto.Base64.decode(Array(parts[2].utf8), rules: .url)
    var verifier = AppleSignatureVerifier(trust: try Self.trust())
    let moment = VerificationMoment(millisecondsSince1970: 1_718_409_600_000, source: .signedDate)
    let input = Array("\(parts[0]).\(parts[1])".utf8)
    let withoutCrit = verifier.verifyJWS(
      signingInput: input, signature: signature, algorithm: "ES256", x5c: jws.header.x5c, at: moment)
    #expect(withoutCrit.outcome == .verified)
    for critical in [[], ["b64"], ["a", "b", "c", "d"]] {
      let verdict = verifier.verifyJWS(
        signingInput: input, signature: signature, algorithm: "ES256", x5c: jws.header.x5c, critical: critical,
        at: moment)
      #expect(verdict.failure?.code == .jwsCritical, "\(critical)")
    }
  }

  @Test func aCritThatIsNotAListOfStringsIsAMalformedHeader() {
    let header = Array(#"{"alg":"ES256","x5c":[],"crit":"exp"}"#.utf8)
    #expect(throws: SignedDataError.self) { try CompactJWS.readHeader(header, base: LazyPath("")) }
  }
}
