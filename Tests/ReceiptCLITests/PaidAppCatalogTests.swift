import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The JSON catalog's `paid_app`: read whole, merged over earlier files, and every bad value refused with exit 65,
/// its path and the value.
@Suite struct PaidAppCatalogTests {
  @Test func readsTheTerms() throws {
    let catalog = try loadCatalog(
      #"{"paid_app": {"entitlement": "pro", "before_version": "1.10", "version_kind": "CFBundleShortVersionString", "before_date": "2024-03-01T00:00:00Z"}}"#
    )
    let terms = try #require(catalog.paidApp)
    #expect(terms.entitlement == "pro")
    #expect(terms.beforeVersion == AppVersion("1.10"))
    #expect(terms.versionKind == .shortVersion)
    #expect(terms.beforeDate == Timestamp.parse(formatted: "2024-03-01T00:00:00Z"))
    #expect(catalog.isEmpty)
    // Beside products, and a later file's terms over an earlier one's.
    let later = try loadCatalog(
      #"{"products": [{"product_id": "p", "type": "non_consumable"}], "paid_app": {"entitlement": "plus", "before_date": "2025-01-01"}}"#
    )
    var merged = catalog
    merged.merge(later)
    #expect(merged.paidApp?.entitlement == "plus" && merged.paidApp?.beforeVersion == nil)
    merged.merge(try loadCatalog(#"{"products": []}"#))
    #expect(merged.paidApp?.entitlement == "plus")
  }

  @Test(arguments: [
    (#"{"paid_app": {"entitlement": "pro"}}"#, "cat.json: $.paid_app: needs before_version or before_date"),
    (#"{"paid_app": {"before_date": "2024-03-01"}}"#, "cat.json: $.paid_app.entitlement: missing"),
    (
      #"{"paid_app": {"entitlement": "pro", "before_version": "42"}}"#,
      "cat.json: $.paid_app.version_kind: missing: before_version needs it"
    ),
    (
      #"{"paid_app": {"entitlement": "pro", "before_version": "4.2b", "version_kind": "CFBundleVersion"}}"#,
      "cat.json: $.paid_app.before_version: \"4.2b\" is not a version of dot-separated whole numbers"
    ),
    (
      #"{"paid_app": {"entitlement": "pro", "before_version": "42", "version_kind": "build"}}"#,
      "cat.json: $.paid_app.version_kind: unknown version kind \"build\""
    ),
    (
      #"{"paid_app": {"entitlement": "pro", "before_date": "March 2024"}}"#,
      "cat.json: $.paid_app.before_date: \"March 2024\" is not a date"
    ),
    (
      #"{"paid_app": {"entitlement": "pro", "before_date": "2024-03-01", "before": "42"}}"#,
      "cat.json: $.paid_app.before: unknown key \"before\""
    ),
    (#"{"paid_app": ["pro"]}"#, "cat.json: $.paid_app: expected an object"),
    (
      #"{"paid_app": {"entitlement": "pro", "before_date": "2024-03-01", "version_kind": "CFBundleVersion"}}"#,
      "cat.json: $.paid_app.version_kind: says which version before_version is, and there is no before_version"
    ),
  ])
  func badTermsFailWithPathAndValue(_ doc: String, _ expected: String) throws {
    let error = try #require(catalogError(doc))
    #expect(error.exitStatus == .dataError)
    #expect(error.message.hasPrefix(expected), "\(error.message)")
  }
}

/// The paid-app grant on receipts as the decoders read them: the examples' own on-device receipt always, and
/// Apple's production and sandbox receipts (TPInAppReceipt's, in ../shared) where present.
@Suite struct PaidAppFromReceiptsTests {
  static let terms = PaidAppTerms(entitlement: "pro", beforeVersion: AppVersion("400"), versionKind: .bundleVersion)

  static func decision(_ bytes: [UInt8], _ source: String, _ terms: PaidAppTerms = terms) throws -> PaidAppDecision {
    let history = try FormatRegistry.standard.decode(bytes, source: source)
    var catalog = Catalog()
    catalog.paidApp = terms
    let time = history.provenance.receipt?.receiptCreationDate ?? Timestamp.epoch
    let answer = answerEntitlements(of: history, catalog: catalog, at: time)
    return try #require(answer.paidApp)
  }

  @Test func theExamplesOnDeviceReceipt() throws {
    let bytes = try FileInput.readAll(path: repoFile("examples/app-receipt/entitlements-active.b64"))
    // original_application_version 301, no original_purchase_date: the version alone decides.
    let granted = try Self.decision(bytes, "entitlements-active.b64")
    #expect(
      granted
        == .granted(
          "The customer bought the app at version 301 (original_application_version, CFBundleVersion), before version 400 went free; the catalog's paid_app grants pro, which does not expire."
        ))
    let dateOnly = PaidAppTerms(entitlement: "pro", beforeDate: Timestamp.parse(formatted: "2024-01-01"))
    guard case .undecided(let why) = try Self.decision(bytes, "entitlements-active.b64", dateOnly) else {
      Issue.record("a date-only grant without original_purchase_date is decided")
      return
    }
    #expect(why.hasSuffix("the data states no original_purchase_date to compare with 2024-01-01T00:00:00Z."))
  }

  @Test func applesProductionAndSandboxReceipts() throws {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("the paid-app grant on Apple's receipts")
      return
    }
    let dir = shared.appendingPathComponent("reference/signatures/receipts")
    // Production: bought at build 434 on 2016-08-16.
    let production = try FileInput.readAll(path: dir.appendingPathComponent("receipt-production").path)
    guard case .notGranted(let why) = try Self.decision(production, "receipt-production") else {
      Issue.record("build 434 is not before build 400")
      return
    }
    #expect(why.contains("at version 434 (original_application_version, CFBundleVersion) on 2016-08-16T15:15:43Z"))
    let later = PaidAppTerms(entitlement: "pro", beforeVersion: AppVersion("435"), versionKind: .bundleVersion)
    #expect(
      try Self.decision(production, "receipt-production", later).reason.hasPrefix("The customer bought the app at"))
    // Sandbox: "1.0" and 2013-08-01, whatever was bought.
    let sandbox = try FileInput.readAll(path: dir.appendingPathComponent("receipt-sandbox-g5").path)
    guard case .undecided(let reason) = try Self.decision(sandbox, "receipt-sandbox-g5", later) else {
      Issue.record("a sandbox receipt decides the paid-app grant")
      return
    }
    #expect(reason.contains("in ProductionSandbox (receipt_type)"))
  }
}
