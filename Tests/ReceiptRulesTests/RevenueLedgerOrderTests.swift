import Foundation
import ReceiptModel
import ReceiptModelTestSupport
import Testing

// The ledger's internal ordering (TextOrder, purchaseOrder, entries) against the plain ways.
@testable import ReceiptRules

/// The revenue ledger's shortcuts must give what the plain ways give: text order of numeric ids, the id
/// index against a dictionary, and the first document kept whole against compact entries.
struct RevenueLedgerOrderTests {
  /// Histories of many chains: shuffled, with random ids, upgrades, refunds and Family Sharing.
  static let shapes = [
    ReceiptShape(name: "one-chain", transactions: 60),
    ReceiptShape(
      name: "many-chains", transactions: 120, chains: 15, products: 6, shuffled: true, randomIDs: true,
      familySharedPercent: 25, upgradedPercent: 20, refundedPercent: 10, seed: 3),
    ReceiptShape(
      name: "many-products", transactions: 200, chains: 30, products: 40, shuffled: true, familySharedPercent: 50,
      upgradedPercent: 10, refundedPercent: 5, seed: 11),
  ]

  /// A priced catalog for half the shapes' products (the rest are unpriced), one of them with an intro offer.
  static let catalog = Catalog(
    (0..<20).map { j in
      let product = ReceiptShape.productID(j)
      return CatalogProduct(
        productID: product, type: product.hasSuffix("ly") ? .autoRenewable : .consumable,
        price: DecimalAmount(units: Int64(j) * 100 + 99, scale: 2), currency: j % 4 == 3 ? "EUR" : "USD",
        introOffer: j == 1 ? IntroOffer(paymentMode: .freeTrial, period: "P1W") : nil)
    })

  @Test func numericIDsSortAsTheirText() {
    let edges: [UInt64] = [
      0, 1, 9, 10, 12, 99, 100, 120, 123, 1_000_000_000_000_000, 999_999_999_999_999, (1 << 63) - 1,
      9_223_372_036_854_775_806, 922_337_203_685_477_580, 1_000_000_000_000_000_000, 99_999_999_999_999_999,
    ]
    var generator = SystemRandomNumberGenerator()
    var values = edges
    for _ in 0..<2_000 {
      let digits = Int.random(in: 1...19, using: &generator)
      var n = UInt64.random(in: 1...9, using: &generator)
      for _ in 1..<digits { n = n * 10 + UInt64.random(in: 0...9, using: &generator) }
      values.append(min(n, (1 << 63) - 1))
    }
    for x in values {
      for y in values.prefix(200) {
        #expect(
          (RevenueLedger.TextOrder(x) < RevenueLedger.TextOrder(y)) == (String(x) < String(y)), "\(x) against \(y)")
      }
    }
  }

  @Test func idIndexFindsWhatADictionaryFinds() {
    var index = TransactionIDIndex()
    var dictionary: [String: Int] = [:]
    var generator = SystemRandomNumberGenerator()
    index.reserve(10)
    for row in 0..<20_000 {
      // Numbers, repeats, leading zeros and text all share one index.
      let id =
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: String(UInt64.random(in: 0..<5_000, using: &generator))
        case 1: String(UInt64.random(in: 0..<UInt64.max, using: &generator))
        case 2: "0" + String(Int.random(in: 0..<500, using: &generator))
        default: "id-\(Int.random(in: 0..<500, using: &generator))"
        }
      let expected = dictionary[id]
      if expected == nil { dictionary[id] = row }
      #expect(index.position(of: id, inserting: row) == expected, "\(id)")
      if row % 5_000 == 0 { index.reserve(3_000) }
    }
  }

  /// The first document's transactions are kept whole and later ones as compact entries, so reading the same
  /// documents in the other order takes each document down the other path; the answers must not change.
  /// A second document holds a refunded, upgraded copy of one transaction, so merging into either kind is
  /// compared too.
  @Test func theFirstDocumentKeptWholeGivesWhatEntriesGive() throws {
    var documents: [(String, PurchaseHistory)] = []
    for shape in Self.shapes {
      for index in 0..<3 { documents.append(("\(shape.name) \(index)", shape.history(index: index))) }
    }
    let catalog = Self.catalog
    for (name, history) in documents {
      // A later copy that knows of a refund (when the first did not) and of an upgrade.
      var refunded = history.transactions[0]
      if refunded.revocation == nil {
        refunded.revocation = Revocation(date: Timestamp(milliseconds: 1_720_000_000_000) ?? .epoch)
      }
      refunded.isUpgraded = true
      var other = PurchaseHistory(format: history.provenance.format)
      other.transactions = [
        refunded,
        PurchaseTransaction(
          transactionID: "other-1", productID: "pro.monthly", purchaseDate: Timestamp(milliseconds: 1_710_000_000_000),
          vocabulary: .test),
      ]
      other.provenance.duplicateRowsMerged = 2
      var wholeFirst = RevenueLedger()
      wholeFirst.add(history)
      wholeFirst.add(other)
      var entriesFirst = RevenueLedger()
      entriesFirst.add(other)
      entriesFirst.add(history)
      #expect(!wholeFirst.entries.isEmpty && entriesFirst.entries.count >= history.transactions.count - 1, "\(name)")
      for commission in [CommissionPlan.none, .standard] {
        let a = try wholeFirst.report(catalog: catalog, grouping: .month, commission: commission)
        let b = try entriesFirst.report(catalog: catalog, grouping: .month, commission: commission)
        #expect(a.currencies == b.currencies, "\(name)")
        #expect(a.counts == b.counts, "\(name)")
        #expect(a.unpricedProducts.map(\.productID) == b.unpricedProducts.map(\.productID), "\(name)")
        #expect(a.unpricedProducts.map(\.units) == b.unpricedProducts.map(\.units), "\(name)")
      }
      #expect(try wholeFirst.records(catalog: catalog, copy: "c") == entriesFirst.records(catalog: catalog, copy: "c"))
      var idsA: [String] = []
      var idsB: [String] = []
      wholeFirst.forEachTransactionID { idsA.append($0) }
      entriesFirst.forEachTransactionID { idsB.append($0) }
      #expect(Set(idsA) == Set(idsB) && idsA.count == idsB.count, "\(name)")
    }
  }

  /// Purchase order: undated first, then by date, and on one date by transaction_id as text, numeric or not,
  /// whether the transactions are kept whole or as entries.
  @Test func purchaseOrderIsByDateThenIDText() {
    let day = Timestamp(milliseconds: 1_700_000_000_000)
    let earlier = Timestamp(milliseconds: 1_600_000_000_000)
    let ids = ["9", "10", "abc", "012", "1", "100", "9223372036854775808", "99"]
    var sameDay = PurchaseHistory(format: .handBuilt)
    sameDay.transactions = ids.map {
      PurchaseTransaction(transactionID: $0, productID: "p", purchaseDate: day, vocabulary: .test)
    }
    sameDay.transactions.append(
      PurchaseTransaction(transactionID: "5", productID: "p", purchaseDate: earlier, vocabulary: .test))
    sameDay.transactions.append(PurchaseTransaction(transactionID: "7", productID: "p", vocabulary: .test))
    let expected = ["7", "5"] + ids.sorted()
    var whole = RevenueLedger()
    whole.add(sameDay)
    var entries = RevenueLedger()
    entries.add(PurchaseHistory(format: .handBuilt))
    var first = PurchaseHistory(format: .handBuilt)
    first.transactions = [PurchaseTransaction(transactionID: "0", productID: "p", purchaseDate: day, vocabulary: .test)]
    entries.add(first)
    entries.add(sameDay)
    #expect(whole.purchaseOrder().map { whole.idText(at: $0) } == expected)
    #expect(entries.purchaseOrder().map { entries.idText(at: $0) } == ["7", "5", "0"] + ids.sorted())
  }
}
