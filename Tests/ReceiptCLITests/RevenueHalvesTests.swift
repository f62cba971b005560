import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The revenue command's split of one ledger into halves on two threads against the one pass.
struct RevenueHalvesTests {
  /// A file's purchase history, when some format reads it (fixtures include catalogs and bad inputs).
  static func history(at url: URL) -> PurchaseHistory? {
    guard let bytes = try? [UInt8](Data(contentsOf: url)) else { return nil }
    return try? FormatRegistry.standard.decode(bytes, source: url.lastPathComponent)
  }

  /// Two halves on two threads, summed, must be the one pass's report: over many chains (synthetic receipts and
  /// every fixture in one ledger), with and without a catalog, by product and by month, with every commission
  /// plan; and where a transaction cannot be valued, the same error.
  @Test func halvesOnTwoThreadsGiveTheOnePassReport() throws {
    var ledger = PurchaseLedger()
    for index in 0..<40 {
      let bytes = Array(SyntheticReceipts.verifyReceipt(index: index, transactions: 25).utf8)
      ledger.add(try FormatRegistry.standard.decode(bytes, source: "synthetic"))
    }
    for url in TestPaths.exampleAndPeerFixtureFiles(for: "the halves-against-one-pass comparison") {
      if let history = Self.history(at: url) { ledger.add(history) }
    }
    #expect(ledger.distinctTransactions > 1_000)
    // With --commission each subscription chain goes whole to one half.
    #expect(RevenueParts(ledger, count: 2, commission: .standard) != nil)
    for catalog in [Catalog(), try RevenueFixtures.exampleCatalog()] {
      for grouping in [RevenueGrouping.product, .month] {
        for commission in CommissionPlan.allCases {
          func report(halvesFrom minimum: Int) throws -> RevenueReport {
            try RevenueCommand.report(
              of: ledger, catalog: catalog, grouping: grouping, range: PurchaseDateRange(), commission: commission,
              halvesFrom: minimum)
          }
          let (halves, onePass) = (try report(halvesFrom: 0), try report(halvesFrom: .max))
          #expect(!halves.currencies.isEmpty || !halves.unpricedProducts.isEmpty)
          #expect(halves.currencies == onePass.currencies, "\(grouping) \(commission)")
          #expect(halves.counts == onePass.counts, "\(grouping) \(commission)")
          #expect(halves.unpricedProducts.map(\.productID) == onePass.unpricedProducts.map(\.productID))
          #expect(halves.unpricedProducts.map(\.units) == onePass.unpricedProducts.map(\.units))
        }
      }
    }
    // A price with more decimals than its currency has: both ways stop at the same transaction's error.
    let yen = CatalogProduct(
      productID: "com.example.coins.100", type: .consumable, price: DecimalAmount(units: 1, scale: 3),
      currency: "JPY")
    func failure(halvesFrom minimum: Int) -> ReceiptError? {
      do {
        _ = try RevenueCommand.report(
          of: ledger, catalog: Catalog([yen]), grouping: .product, range: PurchaseDateRange(), commission: .none,
          halvesFrom: minimum)
        return nil
      } catch {
        return error
      }
    }
    let halvesError = failure(halvesFrom: 0)
    #expect(halvesError != nil)
    #expect(halvesError?.message == failure(halvesFrom: .max)?.message)
  }

  /// The command's split into 1, 2 and 3 parts gives the report bytes of the one pass, every plan and grouping,
  /// over many chains with upgrades, refunds and family-shared copies (several documents: compact entries too).
  @Test func everySplitGivesTheOnePassReportBytes() throws {
    var ledger = PurchaseLedger()
    let shapes = [
      ReceiptShape(
        name: "many-chains", transactions: 300, chains: 40, products: 6, shuffled: true, randomIDs: true,
        familySharedPercent: 20, upgradedPercent: 20, refundedPercent: 10, seed: 7),
      ReceiptShape(
        name: "other", transactions: 200, chains: 25, products: 8, shuffled: true, upgradedPercent: 10,
        refundedPercent: 5, seed: 9),
    ]
    for shape in shapes { for index in 0..<2 { ledger.add(shape.history(index: index)) } }
    // Half the products priced (the rest unpriced), in two currencies.
    let catalog = Catalog(
      (0..<4).map { j in
        let product = ReceiptShape.productID(j)
        return CatalogProduct(
          productID: product, type: product.hasSuffix("ly") ? .autoRenewable : .consumable,
          price: DecimalAmount(units: Int64(j) * 100 + 99, scale: 2), currency: j % 2 == 1 ? "EUR" : "USD")
      })
    for grouping in [RevenueGrouping.product, .month] {
      for commission in CommissionPlan.allCases {
        let onePass = try ledger.report(catalog: catalog, grouping: grouping, commission: commission)
        let expected = RevenueReportCodec.write(onePass).rendered()
        for count in 1...3 {
          let parts = try #require(RevenueParts(ledger, count: count, commission: commission))
          let sum = try #require(parts.report(catalog: catalog, grouping: grouping, range: PurchaseDateRange()))
          #expect(RevenueReportCodec.write(sum).rendered() == expected, "\(count) parts \(grouping) \(commission)")
        }
      }
    }
  }

  /// Parts whose proceeds could have left Int64 in one pass's order are not summed: a currency's refunds and
  /// estimated proration refunds, each within Int64, whose sum is not.
  @Test func proceedsThatCouldOverflowInOnePassAreNotSummed() throws {
    func part(refunds: Int64, prorations: Int64, proceeds: Bool = true) throws -> RevenueReport {
      var report = RevenueReport(hasProceeds: proceeds)
      var row = RevenueGroup(key: "p", proceeds: proceeds ? 0 : nil)
      row.refunds = refunds
      row.estimatedProrationRefunds = prorations
      row.proceeds = proceeds ? 0 &- refunds &- prorations : nil
      try report.add(row, currency: "USD")
      return report
    }
    let half = Int64.max / 2 + 1
    let (a, b, c) = (
      try part(refunds: half, prorations: 0), try part(refunds: 0, prorations: half),
      try part(refunds: 0, prorations: 5)
    )
    #expect(RevenueParts.sum([a, b]) == nil)
    #expect(RevenueParts.sum([a, c]) != nil)
    // A part that failed: no sum.
    #expect(RevenueParts.sum([c, nil]) == nil)
    // Without proceeds nothing falls: the same rows are summed.
    let noProceeds = [
      try part(refunds: half, prorations: 0, proceeds: false), try part(refunds: 0, prorations: half, proceeds: false),
    ]
    #expect(RevenueParts.sum(noProceeds.map { $0 }) != nil)
  }
}
