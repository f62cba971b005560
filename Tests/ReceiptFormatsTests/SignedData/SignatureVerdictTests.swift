import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Every signed thing is checked, and a document's verdict is its weakest item's: the examples signed by the
/// test chain that ships beside them, a forgery of one, a test-signed one, and Apple's own data where present.
@Suite struct SignatureVerdictTests {
  static let examples = TestPaths.packageRoot.appendingPathComponent("examples/storekit2")

  /// One verifier lent to every decode and kept, to count its chain cache (one thread in these tests).
  typealias OneVerifier = OneVerifierLending

  static func testTrust() throws -> TrustAnchors {
    let pem = try [UInt8](Data(contentsOf: examples.appendingPathComponent("test-root.pem")))
    var trust = TrustAnchors.apple
    for der in try TrustAnchors.certificatesFromPEMOrDER(pem) { trust = try trust.adding(rootDER: der) }
    return trust
  }

  static let now = Timestamp(milliseconds: 1_790_000_000_000) ?? .epoch

  static func history(_ bytes: [UInt8], lender: OneVerifier) throws -> PurchaseHistory {
    try SignedDataFormat().decode(
      bytes, source: "test", options: DecodeOptions(signatures: SignatureChecking(verifiers: lender, now: now)))
  }

  static func example(_ name: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: examples.appendingPathComponent(name)))
  }

  @Test(arguments: [
    "entitlements-active.jws", "family-revoke-notification-v2.json", "subscription-statuses-grace-period.json",
    "revenue-family-purchaser-notification-v2.json",
  ])
  func examplesVerifyThroughTheTestRootAndFailWithoutIt(_ name: String) throws {
    let bytes = try Self.example(name)
    let trusted = try Self.history(bytes, lender: OneVerifier(trust: Self.testTrust()))
    let check = trusted.provenance.signatureCheck
    #expect(check.verdict == .verified, "\(name): \(check.summary)")
    #expect(check.anchor == .trustRoot)
    #expect(check.verifiedItems == check.signedItems && check.signedItems >= 2)
    #expect(check.chain.last?.commonName == "receipt-tool Examples Test Root")
    #expect(check.summary.contains("not Apple's root") && check.summary.contains("revocation not checked"))

    let apple = try Self.history(bytes, lender: OneVerifier(trust: .apple)).provenance.signatureCheck
    #expect(apple.verdict == .invalid)
    #expect(apple.failureCount == apple.signedItems)
    #expect(apple.failures.allSatisfy { $0.code == "chain.untrustedRoot" })
  }

  /// A Notification V2 is three signatures: the notification's and the transaction's and renewal's inside it.
  @Test func aNotificationsNestedSignaturesAreCheckedToo() throws {
    let check = try Self.history(
      Self.example("family-revoke-notification-v2.json"), lender: OneVerifier(trust: Self.testTrust())
    ).provenance.signatureCheck
    #expect(check.signedItems == 3)
  }

  @Test func aForgedPayloadFailsAtItsOwnLineWithAMismatch() throws {
    let check = try Self.history(
      Self.example("forged-entitlements-expired.jws"), lender: OneVerifier(trust: Self.testTrust())
    ).provenance.signatureCheck
    #expect(check.verdict == .invalid)
    #expect(check.failureCount == 1 && check.signedItems == 3)
    let failure = try #require(check.failures.first)
    #expect(failure.path == "line 2" && failure.code == "signature.mismatch")
    #expect(!failure.reason.contains("\n"))
  }

  /// Any byte flipped in a signed line is caught (header, payload or signature).
  @Test func aFlippedByteAnywhereFails() throws {
    let original = try Self.example("entitlements-active.jws")
    let firstLine = original.prefix { $0 != 0x0A }
    let dots = firstLine.indices.filter { firstLine[$0] == UInt8(ascii: ".") }
    let headerEnd = try #require(dots.first)
    let payloadEnd = try #require(dots.last)
    for offset in [headerEnd - 10, headerEnd + 20, payloadEnd - 5, payloadEnd + 10] {
      var bytes = Array(firstLine)
      // Swap for another base64url letter, so the token still decodes.
      bytes[offset] = bytes[offset] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
      let verdict: SignatureCheck.Verdict
      do {
        verdict = try Self.history(bytes, lender: OneVerifier(trust: Self.testTrust())).provenance.signatureCheck
          .verdict
      } catch {
        continue  // the flip broke the header or payload JSON: not read at all, never verified
      }
      #expect(verdict == .invalid, "byte \(offset)")
    }
  }

  @Test func aLoneSelfSignedCertificateIsTestSigned() throws {
    let check = try Self.history(
      Self.example("test-signed-entitlements-active.jws"), lender: OneVerifier(trust: .apple)
    ).provenance.signatureCheck
    #expect(check.verdict == .testSigned)
    #expect(check.summary.contains("not by Apple"))
  }

  /// A batch signed with one chain checks that chain once, then only each signature.
  @Test func aBatchChecksItsChainOnce() throws {
    let lender = try OneVerifier(trust: Self.testTrust())
    for name in ["entitlements-active.jws", "entitlements-expired.jws", "entitlements-refunded.jws"] {
      _ = try Self.history(Self.example(name), lender: lender)
    }
    #expect(lender.verifier.cacheMisses == 1)
    #expect(lender.verifier.cacheHits >= 8)
  }

  /// The in-place reader of a history page and the tree reader (taken when a token holds a JSON escape) check
  /// the same signatures alike.
  @Test func theInPlaceListReaderChecksAsTheTreeReaderDoes() throws {
    let lines = try String(decoding: Self.example("entitlements-active.jws"), as: UTF8.self).split(separator: "\n")
    let tokens = lines.map { "\"\($0)\"" }
    let inPlace = "{\"bundleId\":\"com.acme.notes\",\"signedTransactions\":[\(tokens.joined(separator: ","))]}"
    // "eyJ" -> "\u0065yJ": the same string, but the in-place reader leaves escapes to the tree reader.
    let escaped = inPlace.replacingOccurrences(of: "[\"eyJ", with: "[\"\\u0065yJ")
    #expect(escaped != inPlace)
    let a = try Self.history(Array(inPlace.utf8), lender: OneVerifier(trust: Self.testTrust())).provenance
    let b = try Self.history(Array(escaped.utf8), lender: OneVerifier(trust: Self.testTrust())).provenance
    #expect(a.signatureCheck == b.signatureCheck)
    // Three transactions; the renewal info line is no transaction, so a history page leaves it out unread.
    #expect(a.signatureCheck.verdict == .verified && a.signatureCheck.signedItems == 3)
  }

  /// The running tally a document keeps gives what combining every item's own verdict gives.
  @Test(arguments: [
    "forged-entitlements-expired.jws", "family-revoke-notification-v2.json", "subscription-statuses-grace-period.json",
    "test-signed-entitlements-active.jws", "entitlements-active.jws",
  ])
  func theTallyAgreesWithCombiningEveryItem(_ name: String) throws {
    for trust in [try Self.testTrust(), TrustAnchors.apple] {
      let checks = JWSChecks(workspace: SignatureWorkspace(trust: trust), now: Self.now, keepsItems: true)
      _ = try SignedDataDecoder.decode(Self.example(name), strict: false, checks: checks)
      let items = try #require(checks.tally.items)
      #expect(!items.isEmpty)
      #expect(checks.documentCheck == SignatureCheck.combining(items, none: SignatureCheck(.notChecked)), "\(name)")
    }
  }

  @Test func withoutAVerifierNothingIsCalledVerified() throws {
    let history = try SignedDataFormat().decode(
      Self.example("entitlements-active.jws"), source: "test", options: DecodeOptions())
    #expect(history.provenance.signatureCheck.verdict == .notChecked)
  }

  @Test func aDecodedPayloadIsUnsigned() throws {
    let payload = #"{"transactionId":"1","productId":"p","purchaseDate":1700000000000}"#
    let history = try Self.history(Array(payload.utf8), lender: OneVerifier(trust: .apple))
    #expect(history.provenance.signatureCheck.verdict == .unsigned)
  }

  /// The weakest verdict wins, failures are counted whole, and the merged one names each document.
  @Test func oneCustomerTakesTheWeakestDocumentsVerdict() throws {
    let trust = try Self.testTrust()
    var merger = CustomerHistoryMerger()
    merger.add(
      try Self.history(Self.example("entitlements-active.jws"), lender: OneVerifier(trust: trust)), source: "a")
    merger.add(
      try Self.history(Self.example("forged-entitlements-expired.jws"), lender: OneVerifier(trust: trust)),
      source: "b")
    let check = try #require(merger.history()).provenance.signatureCheck
    #expect(check.verdict == .invalid)
    #expect(check.signedItems == 7 && check.failureCount == 1 && check.verifiedItems == 6)
    #expect(check.failures.first?.path == "b: line 2")
  }

  @Test func verdictsOrderWeakestFirst() {
    let order: [SignatureCheck.Verdict] = [.invalid, .unsigned, .notChecked, .testSigned, .verified]
    #expect(order.sorted() == order)
    let combined = SignatureCheck.combining(
      [SignatureCheck(.verified), .unsigned("x"), SignatureCheck(.testSigned)], none: SignatureCheck(.notChecked))
    #expect(combined.verdict == .unsigned)
    #expect(SignatureCheck.combining([], none: SignatureCheck(.notChecked)).verdict == .notChecked)
  }

  // MARK: Apple's own data (../shared)

  @Test func aRealAppleNotificationVerifiesAtThePinnedRoot() throws {
    guard
      let bytes = SignedDataFixtures.bytes(SignedDataFixtures.aporatDirectory + "test-notification-signed-payload.json")
    else { return }
    let check = try Self.history(bytes, lender: OneVerifier(trust: .apple)).provenance.signatureCheck
    #expect(check.verdict == .verified, "\(check.summary)")
    #expect(check.anchor == .apple)
    #expect(check.chain.last?.commonName == "Apple Root CA - G3")
    #expect(check.moment?.source == "signedDate")
  }

  @Test func appleLibraryTestDataIsTestSignedOrFailsClearly() throws {
    let directory = "reference/signatures/jws/"
    if let xcode = SignedDataFixtures.bytes(directory + "xcode-signed-transaction") {
      let check = try Self.history(xcode, lender: OneVerifier(trust: .apple)).provenance.signatureCheck
      #expect(check.verdict == .testSigned)
    }
    if let missing = SignedDataFixtures.bytes(directory + "missingX5CHeaderClaim") {
      let check = try Self.history(missing, lender: OneVerifier(trust: .apple)).provenance.signatureCheck
      #expect(check.verdict == .invalid)
      #expect(check.failures.first?.code == "jws.x5c")
    }
  }
}
