import Foundation
import ReceiptFormats
import ReceiptModel
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
    #expect(ledger.reportParts(2, commission: .standard) != nil)
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

}
