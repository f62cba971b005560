import Foundation
import Testing

@testable import ReceiptCrypto

/// A real PKCS#7 app receipt from ../shared, with its creation date (attribute 12) and receipt type as
/// DECODED_RECEIPTS.json gives them (an ASN.1 walk independent of this code).
struct RealReceipt: CustomStringConvertible {
  let name: String
  let blob: [UInt8]
  let creation: VerificationMoment
  let receiptType: String

  var description: String { name }
  var isXcode: Bool { receiptType == "Xcode" }

  /// Every PKCS#7 receipt in ../shared/peer-fixtures and ../shared/reference/signatures/receipts; nil (with a
  /// printed note) where ../shared is absent.
  static func all() throws -> [RealReceipt]? {
    guard let signatures = CryptoTestPaths.signatures else {
      CryptoTestPaths.noteSharedMissing("the real app receipts")
      return nil
    }
    let peers = signatures.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("peer-fixtures")
    let decoded = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: peers.appendingPathComponent("DECODED_RECEIPTS.json")))
        as? [String: Any])
    let receipts = try #require(decoded["receipts"] as? [String: [String: Any]])
    var found: [RealReceipt] = []
    func add(_ name: String, _ file: URL, decodedAs key: String, jsonField: String? = nil) throws {
      let facts = try #require(receipts[key], "\(key) in DECODED_RECEIPTS.json")
      let date = try #require(facts["receipt_creation_date"] as? String)
      let type = try #require(facts["receipt_type"] as? String)
      var bytes = Array(try Data(contentsOf: file))
      if let jsonField {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        bytes = Array(try #require(object[jsonField] as? String).utf8)
      }
      let blob = try #require(receiptBytes(bytes), "\(name) is neither DER nor base64")
      let moment = VerificationMoment(
        millisecondsSince1970: try #require(rfc3339Milliseconds(date), "date \(date)"), source: .receiptCreationDate)
      found.append(RealReceipt(name: name, blob: blob, creation: moment, receiptType: type))
    }
    for key in receipts.keys.sorted() {
      let parts = key.split(separator: "#", maxSplits: 1).map(String.init)
      try add(
        key, peers.appendingPathComponent(parts[0]), decodedAs: key,
        jsonField: parts.count == 2 ? parts[1] : nil)
    }
    for file in ["receipt-production", "receipt-sandbox-g5", "receipt-sandbox-legacy", "receipt-xcode"] {
      try add(
        "signatures/receipts/\(file)", signatures.appendingPathComponent("receipts/\(file)"),
        decodedAs: "tikhop__TPInAppReceipt/\(file)")
    }
    return found
  }

  /// DER as is (it starts with a SEQUENCE), else base64 text with whitespace ignored.
  static func receiptBytes(_ bytes: [UInt8]) -> [UInt8]? {
    if bytes.first == 0x30 { return bytes }
    let text = String(decoding: bytes.filter { ![0x0A, 0x0D, 0x20, 0x09].contains($0) }, as: UTF8.self)
    return Data(base64Encoded: text).map { Array($0) }
  }

  /// `2020-07-22T18:33:15Z`, `...+0100` or `...+01:00`, to milliseconds since 1970.
  static func rfc3339Milliseconds(_ text: String) -> Int64? {
    let digits = Array(text.utf8)
    guard digits.count >= 20 else { return nil }
    func number(_ range: Range<Int>) -> Int64? { Int64(String(decoding: digits[range], as: UTF8.self)) }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
    else { return nil }
    var offset: Int64 = 0
    let zone = Array(digits[19...]).filter { $0 != UInt8(ascii: ":") }
    if zone != [UInt8(ascii: "Z")] {
      guard zone.count == 5, let hours = Int64(String(decoding: zone[1..<3], as: UTF8.self)),
        let minutes = Int64(String(decoding: zone[3..<5], as: UTF8.self))
      else { return nil }
      offset = (hours * 60 + minutes) * 60 * (zone[0] == UInt8(ascii: "-") ? -1 : 1)
    }
    // Days from civil (Howard Hinnant's algorithm), independent of CertificateTime.
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    let days = era * 146_097 + doe - 719_468
    return ((days * 86_400 + hour * 3_600 + minute * 60 + second) - offset) * 1_000
  }
}

@Suite struct AppleReceiptTests {
  static let now = VerificationMoment(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000), source: .now)
  /// SHA-256 of the WWDR intermediates (../shared/reference/signatures/SOURCES.md).
  static let wwdrG1 = "ce057691d730f89ca25e916f7335f4c8a15713dcd273a658c024023f8eb809c2"
  static let wwdrG5 = "53fd008278e5a595fe1e908ae9c5e5675f26243264a5a6438c023e3ce2870760"

  @Test func everyAppleReceiptVerifiesAtItsCreationDate() throws {
    guard let receipts = try RealReceipt.all() else { return }
    var verifier = AppleSignatureVerifier()
    var digests: Set<DigestAlgorithm> = []
    var intermediates: Set<String> = []
    var types: Set<String> = []
    var appleCount = 0
    for receipt in receipts where !receipt.isXcode {
      appleCount += 1
      let verdict = verifier.verifyPKCS7(receipt.blob, at: receipt.creation)
      #expect(verdict.outcome == .verified, "\(receipt): \(verdict.failure?.description ?? "")")
      #expect(verdict.anchoredAtApple, "\(receipt)")
      #expect(verdict.moment.source == .receiptCreationDate)
      #expect(verdict.chain.count == 3, "\(receipt)")
      #expect(verdict.chain.last?.position == "root")
      #expect(verdict.chain.last?.commonName == "Apple Root CA")
      #expect(!verdict.revocationChecked)
      if verdict.chain.count == 3 { intermediates.insert(Hex.string(verdict.chain[1].sha256)) }
      let envelope = try PKCS7SignedData(berEncoded: receipt.blob)
      if let oid = envelope.signers.first?.digestAlgorithm, let digest = DigestAlgorithm(oid: oid) {
        digests.insert(digest)
      }
      types.insert(receipt.receiptType)
    }
    #expect(appleCount == 14, "10 distinct Apple receipts, 4 of them also under signatures/receipts")
    // The proof covers both digests, both WWDR eras and both environments.
    #expect(digests == [.sha1, .sha256])
    #expect(intermediates.isSuperset(of: [Self.wwdrG1, Self.wwdrG5]))
    #expect(types == ["Production", "ProductionSandbox"])
    // The repeated receipts and the shared chains were validated once each.
    #expect(verifier.cacheHits > 0)
  }

  /// Checked now, every Apple receipt fails with chain.expired: Apple's receipt signing certificates live about
  /// two years (the newest here, the G5 sandbox leaf, expired 2026-08-23), and a receipt is signed once, so only
  /// its creation date says whether the certificate was valid when Apple signed it. This is why AppReceiptValidator
  /// names its fixtures "ExpiredAppleCert" and why verification uses the creation date.
  @Test func everyAppleReceiptCheckedNowHasAnExpiredCertificate() throws {
    guard let receipts = try RealReceipt.all() else { return }
    var verifier = AppleSignatureVerifier()
    for receipt in receipts where !receipt.isXcode {
      let verdict = verifier.verifyPKCS7(receipt.blob, at: Self.now)
      #expect(verdict.failure?.code == .expired, "\(receipt): \(verdict.failure?.description ?? "verified")")
      #expect(verdict.failure?.description.contains("(now)") == true)
      #expect(verdict.chain.count == 3)
    }
  }

  /// Xcode receipts: BER envelope, one self-signed StoreKit Testing certificate: test-signed; with that certificate
  /// as a trust root, the receipts it signed are verified (not anchored at Apple).
  @Test func xcodeReceiptsAreTestSignedAndVerifyWithTheirCertificateAsTrustRoot() throws {
    guard let receipts = try RealReceipt.all(),
      let certificate = CryptoTestData.signatures("receipts/StoreKitTestCertificate.cer", "the StoreKit certificate")
    else { return }
    let xcode = receipts.filter(\.isXcode)
    #expect(xcode.count == 5, "4 distinct Xcode receipts, one also under signatures/receipts")
    var plain = AppleSignatureVerifier()
    var withRoot = AppleSignatureVerifier(trust: try TrustAnchors.apple.adding(rootDER: certificate))
    var verifiedWithRoot = 0
    for receipt in xcode {
      #expect(throws: ASN1Error.self, "\(receipt) is BER, not DER") {
        try ASN1Reader.nodes(receipt.blob, rules: .der)
      }
      let verdict = plain.verifyPKCS7(receipt.blob, at: receipt.creation)
      #expect(verdict.outcome == .testSigned, "\(receipt): \(verdict.failure?.description ?? "")")
      #expect(verdict.chain.count == 1)
      #expect(!verdict.anchoredAtApple)
      let rooted = withRoot.verifyPKCS7(receipt.blob, at: receipt.creation)
      if rooted.outcome == .verified {
        verifiedWithRoot += 1
        #expect(!rooted.anchoredAtApple)
        #expect(rooted.chain.first?.sha256 == DigestAlgorithm.sha256.digest(certificate))
      } else {
        // Another Xcode installation's certificate: still test-signed, never verified.
        #expect(rooted.outcome == .testSigned, "\(receipt)")
      }
    }
    #expect(verifiedWithRoot >= 2, "signatures/receipts/receipt-xcode and its peer-fixtures copy")
  }
}
