import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// The catalog price comparison prices a charge by its billing plan: a commitment plan's monthly charge is a
/// month's price, not the up-front year's.
@Suite struct BillingPlanPriceTests {
  static let yearly = {
    var p = CatalogProduct(
      productID: "pro.yearly", type: .autoRenewable, price: DecimalAmount(units: 9999, scale: 2), currency: "USD")
    p.billingPlans = [
      CatalogBillingPlan(type: .billedUpfront, price: DecimalAmount(units: 9999, scale: 2)),
      CatalogBillingPlan(
        type: .monthly, price: DecimalAmount(units: 999, scale: 2),
        commitmentPrice: DecimalAmount(units: 11988, scale: 2)
      ),
    ]
    return p
  }()

  static func charge(_ milliunits: Int64, plan: BillingPlanType?) -> PurchaseTransaction {
    var t = PurchaseTransaction(
      transactionID: "t1", productID: "pro.yearly", productType: .autoRenewable,
      price: StatedPrice(amount: DecimalAmount(units: milliunits, scale: 3), currency: "USD"),
      sources: .signedTransaction, vocabulary: .test)
    if let plan { t.billing = BillingTerms(plan: plan, commitment: TransactionCommitment(billingPeriodNumber: 3)) }
    return t
  }

  @Test func aMonthlyChargeIsComparedWithTheMonthlyPlan() {
    let catalog = Catalog([Self.yearly])
    #expect(catalogDisagreements(of: Self.charge(9990, plan: .monthly), catalog: catalog).isEmpty)
    #expect(catalogDisagreements(of: Self.charge(99990, plan: .billedUpfront), catalog: catalog).isEmpty)
    // A wrong monthly price is still said, against the month's price.
    let wrong = catalogDisagreements(of: Self.charge(8990, plan: .monthly), catalog: catalog)
    #expect(wrong.count == 1 && wrong[0].contains("at 8.99 USD; the catalog says 9.99 USD"))
  }

  @Test func dataBeforeBillingPlansIsComparedAsBefore() {
    var plain = Self.yearly
    plain.billingPlans = []
    let catalog = Catalog([plain])
    #expect(catalogDisagreements(of: Self.charge(99990, plan: nil), catalog: catalog).isEmpty)
    #expect(catalogDisagreements(of: Self.charge(99990, plan: .billedUpfront), catalog: catalog).isEmpty)
    #expect(catalogDisagreements(of: Self.charge(9990, plan: nil), catalog: catalog).count == 1)
  }

  /// A monthly charge against a catalog without that plan is not called mispriced: the catalog cannot say.
  @Test func aPlanTheCatalogLacksIsSaidNotMispriced() {
    var plain = Self.yearly
    plain.billingPlans = []
    let said = catalogDisagreements(of: Self.charge(9990, plan: .monthly), catalog: Catalog([plain]))
    #expect(said.count == 1)
    #expect(said.first?.contains("the catalog lists no MONTHLY billing plan") == true)
    #expect(said.first?.contains("9.99 USD; the catalog says 99.99") == false)
    let unknown = catalogDisagreements(
      of: Self.charge(9990, plan: .unrecognized("QUARTERLY")), catalog: Catalog([Self.yearly]))
    #expect(unknown.first?.contains("no QUARTERLY billing plan") == true)
  }

  /// A charge that states no price is valued at its billing plan's price: a month's for a MONTHLY charge.
  @Test func aChargeWithoutAPriceIsValuedByItsPlan() throws {
    var monthly = Self.charge(0, plan: .monthly)
    monthly.price = nil
    let catalog = Catalog([Self.yearly])
    #expect(
      try valueOf(monthly, catalog: catalog) == .paid(Money(minorUnits: 999, currency: "USD"), basis: .catalogPrice))
    var upfront = monthly
    upfront.billing = BillingTerms(plan: .billedUpfront)
    #expect(
      try valueOf(upfront, catalog: catalog) == .paid(Money(minorUnits: 9999, currency: "USD"), basis: .catalogPrice))
    // A plan the catalog does not list leaves the charge unpriced, never at another plan's price.
    var plain = Self.yearly
    plain.billingPlans = []
    guard case .unpriced(let reason) = try valueOf(monthly, catalog: Catalog([plain])) else {
      Issue.record("a MONTHLY charge was priced without a MONTHLY plan")
      return
    }
    #expect(reason.contains("billing plan MONTHLY"))
  }

  /// A later document's charge keeps its billing plan in the ledger, so revenue values it the same as the first's.
  @Test func theLedgerKeepsEachChargesPlan() throws {
    func document(_ id: String) -> PurchaseHistory {
      var t = Self.charge(0, plan: .monthly)
      (t.transactionID, t.price, t.purchaseDate) = (id, nil, RevenueFixtures.day("2026-03-05"))
      return RevenueFixtures.document([t])
    }
    let report = try RevenueFixtures.report([document("t1"), document("t2")], catalog: Catalog([Self.yearly]))
    #expect(RevenueFixtures.usd(report)?.total.gross == 1998)
  }
}
