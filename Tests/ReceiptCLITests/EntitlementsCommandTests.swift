import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import Testing

@testable import ReceiptCLI

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? Timestamp.epoch }

private let yearly = "com.acme.pro.yearly"
private let proCatalog = Catalog([
  CatalogProduct(
    productID: "com.acme.pro.monthly", type: .autoRenewable, subscriptionGroup: "21000111", entitlements: ["pro"]),
  CatalogProduct(productID: yearly, type: .autoRenewable, subscriptionGroup: "21000111", entitlements: ["pro"]),
])

/// A revoked family copy, and the customer's own later purchase.
private let familyThenOwn: PurchaseHistory = {
  var d = PurchaseHistory(format: VerifyReceiptFormats.response)
  d.transactions = [
    PurchaseTransaction(
      transactionID: "2200", productID: yearly, ownership: .familyShared, purchaseDate: at("2023-09-01"),
      expiresDate: at("2024-09-01"), revocation: Revocation(date: at("2024-03-01")), vocabulary: .test),
    PurchaseTransaction(
      transactionID: "3100", productID: yearly, purchaseDate: at("2024-03-02"), expiresDate: at("2025-03-02"),
      vocabulary: .test),
  ]
  return d
}()

/// What the entitlements command adds to the rules' answer: the options it names, --require, the table.
@Suite struct EntitlementsCommandTests {
  /// The rule names what is missing; only the command line names the option that supplies it.
  @Test func aMissingProductTypeIsHintedWithTheCatalogOption() throws {
    var d = PurchaseHistory(format: VerifyReceiptFormats.response)
    d.transactions = [
      PurchaseTransaction(
        transactionID: "1", productID: "com.acme.lifetime", purchaseDate: at("2023-01-01"), vocabulary: .test)
    ]
    let results = entitlementStatuses(of: d, catalog: Catalog(), at: at("2024-01-01"))
    let hinted = try #require(results.first.map(CommandLineHints.adding(to:)))
    #expect(hinted.reason.hasSuffix("non-renewing subscription; give a catalog with --catalog to say which."))
  }

  @Test func requireListsOnlyMissingEntitlements() throws {
    let results = entitlementStatuses(of: familyThenOwn, catalog: proCatalog, at: at("2024-06-15"))
    #expect(EntitlementsCommand.missingRequirements(["pro"], results).isEmpty)
    let missing = EntitlementsCommand.missingRequirements(["pro", "team"], results)
    #expect(missing == ["entitlement 'team' is not active: no product in the receipt or the catalog gives it."])
  }

  @Test func textTableFitsEightyColumnsAndColourOnlyWhenAsked() throws {
    let results = entitlementStatuses(of: familyThenOwn, catalog: Catalog(), at: at("2024-06-15"))
    let time = EvaluationTime(time: at("2024-06-15"), source: .given)
    let plain = EntitlementsTextRenderer.render(
      EntitlementsAnswer(results: results), evaluation: time, explain: true, color: false
    ).rendered
    #expect(plain.split(separator: "\n").allSatisfy { $0.count <= 80 })
    #expect(!plain.contains("\u{1B}"))
    let coloured = EntitlementsTextRenderer.render(
      EntitlementsAnswer(results: results), evaluation: time, explain: false, color: true
    ).rendered
    #expect(coloured.contains("\u{1B}[32mactive\u{1B}[0m"))
  }
}
