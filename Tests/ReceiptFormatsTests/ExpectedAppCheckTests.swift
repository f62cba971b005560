import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// The expected app (`--bundle-id`, `--app-apple-id`, `--environment`, the catalog's `app`) as Apple's
/// SignedDataVerifier checks it: data of another app or environment fails the document's signature check, naming
/// the field and both values, in every format; data of the expected app keeps its verdict.
@Suite struct ExpectedAppCheckTests {
  static let examples = TestPaths.packageRoot.appendingPathComponent("examples")
  static let now = Timestamp(milliseconds: 1_790_000_000_000) ?? .epoch

  static func file(_ path: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: examples.appendingPathComponent(path)))
  }

  static func trust(_ roots: [[UInt8]]) throws -> TrustAnchors {
    var trust = TrustAnchors.apple
    for file in roots {
      for der in try TrustAnchors.certificatesFromPEMOrDER(file) { trust = try trust.adding(rootDER: der) }
    }
    return trust
  }

  static var examplesTrust: TrustAnchors {
    get throws {
      try trust([file("storekit2/test-root.pem"), file("app-receipt/test-receipt-root.pem")])
    }
  }

  static func app(bundle: String? = nil, appleID: Int64? = nil, environment: String? = nil) -> ExpectedApp {
    ExpectedApp(
      bundleID: bundle.map { .init($0, origin: "--bundle-id") },
      appAppleID: appleID.map { .init($0, origin: "--app-apple-id") },
      environment: environment.map { .init($0, origin: "--environment") })
  }

  static func check(
    _ bytes: [UInt8], _ expected: ExpectedApp, trust: TrustAnchors? = nil
  ) throws -> SignatureCheck {
    let checking = SignatureChecking(
      verifiers: OneVerifierLending(try trust ?? examplesTrust), now: now, expectedApp: expected)
    return try FormatRegistry.standard.decode(bytes, source: "test", options: DecodeOptions(signatures: checking))
      .provenance.signatureCheck
  }

  // The self-made twin of Apple's wrongBundleId sample: always run.
  @Test func aNotificationOfAnotherAppFailsAndVerifiesForItsOwnBundleID() throws {
    let jws = try Self.file("storekit2/wrong-bundle-id-notification.jws")
    let wrong = try Self.check(jws, Self.app(bundle: "com.example"))
    #expect(wrong.verdict == .invalid)
    #expect(wrong.failures.map(\.code) == ["app.bundleId"])
    #expect(
      wrong.failures.first?.reason
        == #"app.bundleId: data.bundleId "com.example.wrong" is not the expected "com.example" (--bundle-id)"#)
    #expect(wrong.failsOnlyForTheApp)
    #expect(wrong.chain.count == 3, "the chain that verified is still shown")
    let right = try Self.check(jws, Self.app(bundle: "com.example.wrong", appleID: 1234, environment: "Sandbox"))
    #expect(right.verdict == .verified, "\(right.summary)")
    #expect(try Self.check(jws, ExpectedApp()).verdict == .verified)
    // Its Apple id and environment are checked too.
    let otherID = try Self.check(jws, Self.app(bundle: "com.example.wrong", appleID: 1235))
    #expect(otherID.failures.map(\.code) == ["app.appAppleId"])
    #expect(otherID.failures.first?.reason.contains("data.appAppleId 1234 is not the expected 1235") == true)
    let production = try Self.check(jws, Self.app(environment: "Production"))
    #expect(
      production.failures.first?.reason
        == #"app.environment: data.environment "Sandbox" is not the expected "Production" (--environment)"#)
  }

  @Test func applesWrongBundleIDSampleFailsAgainstComExample() throws {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("Apple's wrongBundleId sample (the self-made twin runs always)")
      return
    }
    let jws = shared.appendingPathComponent("reference/signatures/jws")
    let sample = try [UInt8](Data(contentsOf: jws.appendingPathComponent("wrongBundleId")))
    let trust = try Self.trust([[UInt8](Data(contentsOf: jws.appendingPathComponent("testCA.der")))])
    let wrong = try Self.check(sample, Self.app(bundle: "com.example"), trust: trust)
    #expect(wrong.verdict == .invalid)
    #expect(wrong.failures.map(\.code) == ["app.bundleId"])
    #expect(wrong.failures.first?.reason.contains(#""com.example.wrong" is not the expected "com.example""#) == true)
    #expect(try Self.check(sample, Self.app(bundle: "com.example.wrong"), trust: trust).verdict == .verified)
  }

  /// Every signed transaction of a document is checked; the document fails with each item's place.
  @Test func signedTransactionsCarryTheirBundleIDAndEnvironment() throws {
    let jws = try Self.file("storekit2/entitlements-active.jws")
    #expect(try Self.check(jws, Self.app(bundle: "com.acme.notes", environment: "Production")).verdict == .verified)
    let sandbox = try Self.check(jws, Self.app(environment: "Sandbox"))
    #expect(sandbox.verdict == .invalid)
    #expect(sandbox.failureCount == sandbox.signedItems)
    #expect(sandbox.failures.allSatisfy { $0.code == "app.environment" })
    #expect(sandbox.failures.first?.reason.contains(#"environment "Production" is not the expected "Sandbox""#) == true)
    // A forged item keeps its own failure: the app is checked only where the signature held.
    let forged = try Self.check(try Self.file("storekit2/forged-entitlements-expired.jws"), Self.app(bundle: "x"))
    #expect(forged.failures.map(\.code).contains("signature.mismatch"))
    #expect(!forged.failsOnlyForTheApp)
  }

  @Test func anAppReceiptCarriesItsBundleIDAndReceiptType() throws {
    let receipt = try Self.file("app-receipt/signed-entitlements-active.b64")
    #expect(try Self.check(receipt, Self.app(bundle: "com.acme.notes")).verdict == .verified)
    let other = try Self.check(receipt, Self.app(bundle: "com.example"))
    #expect(other.verdict == .invalid)
    #expect(
      other.failures.first?.reason
        == #"app.bundleId: bundle id (type 2) "com.acme.notes" is not the expected "com.example" (--bundle-id)"#)
    // The same receipt as a JSON body's latest_receipt: the JSON's own receipt.bundle_id and environment.
    let backed = try Self.file("backed-entitlements-active.json")
    #expect(try Self.check(backed, Self.app(bundle: "com.acme.notes", environment: "Production")).verdict == .verified)
    let sandbox = try Self.check(backed, Self.app(environment: "Sandbox"))
    #expect(sandbox.failures.map(\.code) == ["app.environment"])
    #expect(sandbox.failures.first?.reason.contains(#"environment "Production" is not the expected "Sandbox""#) == true)
  }

  @Test func unsignedVerifyReceiptJSONOfAnotherAppFailsToo() throws {
    let json = try Self.file("entitlements-active.json")
    #expect(try Self.check(json, Self.app(bundle: "com.acme.notes")).verdict == .unsigned)
    let other = try Self.check(json, Self.app(bundle: "com.example"))
    #expect(other.verdict == .invalid)
    #expect(
      other.failures.first?.reason
        == #"app.bundleId: receipt.bundle_id "com.acme.notes" is not the expected "com.example" (--bundle-id)"#)
  }

  /// The policy alone: absent required fields fail, absent Apple ids pass, environments compare by meaning.
  @Test func thePolicyComparesByMeaningAndNamesTheField() {
    let expected = Self.app(bundle: "com.example", appleID: 7, environment: "Sandbox")
    func failure(_ stated: StatedApp) -> String? {
      ExpectedAppCheck.failure(of: stated, expected: expected, path: "")?.reason
    }
    let matching = StatedApp(
      bundleID: .bundleID("bundleId", "com.example"), appAppleID: .appAppleID("appAppleId", nil),
      environment: .environment("receipt type (type 0)", "ProductionSandbox", meaning: "Sandbox", required: false))
    #expect(failure(matching) == nil)
    var absent = matching
    absent.bundleID = .bundleID("bundleId", nil)
    #expect(failure(absent) == #"app.bundleId: bundleId is absent; expected "com.example" (--bundle-id)"#)
    var optional = matching
    optional.environment = .environment("environment", nil, meaning: nil, required: false)
    #expect(failure(optional) == nil)
    #expect(ExpectedAppCheck.environmentMeaning("PROD") == "Production")
    var production = matching
    production.environment = .environment("environment", "PROD", meaning: "Production", required: false)
    #expect(
      failure(production) == #"app.environment: environment "PROD" is not the expected "Sandbox" (--environment)"#)
    // Nothing expected: nothing fails.
    #expect(ExpectedAppCheck.failure(of: absent, expected: ExpectedApp(), path: "") == nil)
  }

  @Test func theCatalogStatesTheAppAndALaterCatalogOverridesItKeyByKey() throws {
    let first = try CatalogLoader.load(
      Array(#"{"app": {"bundle_id": "com.acme.notes", "environment": "Production"}}"#.utf8), source: "a.json")
    #expect(first.expectedApp.bundleID == .init("com.acme.notes", origin: "app.bundle_id in a.json"))
    let second = try CatalogLoader.load(
      Array(#"{"app": {"environment": "Sandbox", "app_apple_id": 12}, "products": []}"#.utf8), source: "b.json")
    var merged = Catalog()
    merged.merge(first)
    merged.merge(second)
    #expect(merged.expectedApp.bundleID?.value == "com.acme.notes")
    #expect(merged.expectedApp.environment == .init("Sandbox", origin: "app.environment in b.json"))
    #expect(merged.expectedApp.appAppleID?.value == 12)
    // Options over the catalog.
    let options = Self.app(bundle: "com.example")
    #expect(options.over(merged.expectedApp).bundleID?.origin == "--bundle-id")
    #expect(options.over(merged.expectedApp).environment?.value == "Sandbox")
    for (text, path) in [
      (#"{"app": {"environment": "sandbox"}}"#, "$.app.environment"),
      (#"{"app": {"app_apple_id": "12"}}"#, "$.app.app_apple_id"),
      (#"{"app": {"bundle": "x"}}"#, "$.app.bundle"),
    ] {
      #expect(throws: ReceiptError.self) { try CatalogLoader.load(Array(text.utf8), source: "c.json") }
      do {
        _ = try CatalogLoader.load(Array(text.utf8), source: "c.json")
      } catch {
        #expect(error.description.contains(path), "\(error)")
      }
    }
  }
}
