import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// An entitlement result keeps its deciding transaction as the row (`EntitlementResult.decidingRow`): the fields the
/// answers show are read from the row in place, and `deciding` makes the transaction as known at the moment. Both
/// are held to the transaction the table makes for the finding's row (`PurchaseTable.transaction(_:at:)`).
@Suite struct DecidingRowTests {
  /// Shapes of every ownership (undocumented ones too), refunds, upgrades, undated and unordered rows, at moments
  /// before, inside and after their purchases, with no catalog and with one that names their products.
  @Test func theRowsFieldsAreTheDecidingTransactions() {
    let shapes = [
      ReceiptShape(name: "one", transactions: 1, chains: 1, products: 1),
      ReceiptShape(
        name: "many", transactions: 120, chains: 12, products: 5, shuffled: true, randomIDs: true,
        familySharedPercent: 30, upgradedPercent: 10, refundedPercent: 10, seed: 7),
    ]
    var checked = 0
    for shape in shapes {
      for seed: UInt64 in 0..<6 {
        var s = shape
        s.seed = shape.seed &+ seed
        var h = s.history(index: 0)
        for i in h.transactions.indices {
          if i % 7 == 3 { h.transactions[i].ownership = .unrecognized("BORROWED-\(i % 2)") }
          if i % 11 == 5 { h.transactions[i].ownership = .unknown }
          if i % 13 == 6 { h.transactions[i].purchaseDate = nil }
          if i % 5 == 2 { h.transactions[i].originalTransactionID = nil }
        }
        let dates = h.transactions.compactMap(\.purchaseDate).map(\.milliseconds).sorted()
        let moments = [dates.first ?? 0, dates[dates.count / 2], (dates.last ?? 0) + 400 * 86_400_000]
        let products = Set(h.transactions.map(\.productID)).sorted()
        let catalogs = [
          Catalog(),
          Catalog(products.map { CatalogProduct(productID: $0, type: .autoRenewable, entitlements: ["pro"]) }),
        ]
        for catalog in catalogs {
          for ms in moments {
            let time = Timestamp(milliseconds: ms) ?? .epoch
            for r in entitlementStatuses(of: h, catalog: catalog, at: time) {
              let plain = r.finding.decidingCharge.map { $0.table.transaction($0.row, at: time) }
              #expect(r.deciding == plain, "\(s.name) \(ms) \(r.id)")
              let row = r.decidingRow
              #expect(row?.productID == plain?.productID)
              #expect(row?.transactionID == plain?.transactionID)
              #expect(row?.originalTransactionID == plain?.originalTransactionID)
              #expect(row?.chainID == plain?.chainID)
              #expect(row?.ownership == plain?.ownership)
              #expect(row?.purchaseDate == plain?.purchaseDate)
              checked += plain == nil ? 0 : 1
            }
          }
        }
      }
    }
    #expect(checked > 100)
  }
}
