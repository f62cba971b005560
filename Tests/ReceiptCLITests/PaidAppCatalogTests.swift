import ReceiptFormats
import ReceiptModel
import ReceiptRules
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
  ])
  func badTermsFailWithPathAndValue(_ doc: String, _ expected: String) throws {
    let error = try #require(catalogError(doc))
    #expect(error.exitStatus == .dataError)
    #expect(error.message.hasPrefix(expected), "\(error.message)")
  }
}
