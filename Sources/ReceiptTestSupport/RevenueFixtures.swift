import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// Helpers shared by the revenue and ledger tests: a small catalog, documents and reports.
package enum RevenueFixtures {
  package static let usdMonthly = CatalogProduct(
    productID: "pro.monthly", type: .autoRenewable, price: DecimalAmount(units: 999, scale: 2), currency: "USD",
    introOffer: IntroOffer(paymentMode: .freeTrial, period: "P1W"))
  package static let usdYearlyIntro = CatalogProduct(
    productID: "pro.yearly", type: .autoRenewable, price: DecimalAmount(units: 4999, scale: 2), currency: "USD",
    introOffer: IntroOffer(paymentMode: .payUpFront, period: "P1Y", price: DecimalAmount(units: 1999, scale: 2)))
  package static let coins = CatalogProduct(
    productID: "coins", type: .consumable, price: DecimalAmount(units: 99, scale: 2), currency: "USD")
  package static let yenTheme = CatalogProduct(
    productID: "theme", type: .nonConsumable, price: DecimalAmount(units: 300, scale: 0), currency: "JPY")
  package static let catalog = Catalog([usdMonthly, usdYearlyIntro, coins, yenTheme])

  package static func day(_ text: String) -> Timestamp? { Timestamp.parse(formatted: text + "T00:00:00Z") }

  package static func document(_ transactions: [PurchaseTransaction], duplicateRows: Int = 0) -> PurchaseHistory {
    var doc = PurchaseHistory(format: VerifyReceiptFormats.response)
    doc.transactions = transactions
    doc.provenance.duplicateRowsMerged = duplicateRows
    return doc
  }

  package static func report(
    _ docs: [PurchaseHistory], catalog: Catalog = catalog, by grouping: RevenueGrouping = .product,
    range: PurchaseDateRange = PurchaseDateRange(), commission: CommissionPlan = .none
  ) throws -> RevenueReport {
    var ledger = PurchaseLedger()
    for d in docs { ledger.add(d) }
    return try ledger.report(catalog: catalog, grouping: grouping, range: range, commission: commission)
  }

  package static func usd(_ report: RevenueReport) -> CurrencyRevenue? {
    report.currencies.first { $0.currency == "USD" }
  }

  /// examples/revenue-catalog.json read with a few lines of test code, so the revenue goldens can be
  /// checked before the catalog loader lands.
  package static func exampleCatalog() throws -> Catalog {
    let bytes = try [UInt8](
      Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("examples/revenue-catalog.json")))
    let json = try JSONValue.parse(bytes)
    guard case .array(let items)? = json.member("products") else { throw CocoaError(.fileReadCorruptFile) }
    var catalog = Catalog()
    for item in items {
      guard case .string(let id)? = item.member("product_id"), case .string(let type)? = item.member("type"),
        let productType = ProductType(rawValue: type)
      else { throw CocoaError(.fileReadCorruptFile) }
      var product = CatalogProduct(productID: id, type: productType, origin: "examples/revenue-catalog.json")
      if case .string(let p)? = item.member("price") { product.price = DecimalAmount(parsing: p) }
      if case .string(let c)? = item.member("currency") { product.currency = c }
      if case .string(let mode)? = item.member("intro_offer")?.member("payment_mode"),
        let m = IntroPaymentMode(rawValue: mode)
      {
        product.introOffer = IntroOffer(paymentMode: m)
      }
      catalog.add(product)
    }
    return catalog
  }
}
