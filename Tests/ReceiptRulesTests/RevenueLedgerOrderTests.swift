import Foundation
import ReceiptModel
import ReceiptModelTestSupport
import Testing

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
          (PurchaseLedger.TextOrder(x) < PurchaseLedger.TextOrder(y)) == (String(x) < String(y)), "\(x) against \(y)")
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
      var wholeFirst = PurchaseLedger()
      wholeFirst.add(history)
      wholeFirst.add(other)
      var entriesFirst = PurchaseLedger()
      entriesFirst.add(other)
      entriesFirst.add(history)
      #expect(wholeFirst.entryCount > 0 && entriesFirst.entryCount >= history.transactions.count - 1, "\(name)")
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
    var whole = PurchaseLedger()
    whole.add(sameDay)
    var entries = PurchaseLedger()
    entries.add(PurchaseHistory(format: .handBuilt))
    var first = PurchaseHistory(format: .handBuilt)
    first.transactions = [PurchaseTransaction(transactionID: "0", productID: "p", purchaseDate: day, vocabulary: .test)]
    entries.add(first)
    entries.add(sameDay)
    #expect(whole.purchaseOrder().map { whole.transactionID(at: $0) } == expected)
    #expect(entries.purchaseOrder().map { entries.transactionID(at: $0) } == ["7", "5", "0"] + ids.sorted())
  }

  /// The plain purchase order: by date (undated first), then by transaction_id as text, read from the ledger.
  static func plainPurchaseOrder(_ ledger: PurchaseLedger) -> [Int] {
    let dates = (0..<ledger.distinctTransactions).map { ledger.purchaseDate(at: $0)?.milliseconds ?? Int64.min }
    return (0..<ledger.distinctTransactions).sorted { a, b in
      dates[a] != dates[b] ? dates[a] < dates[b] : ledger.transactionID(at: a) < ledger.transactionID(at: b)
    }
  }

  /// The ledger's purchase order (dates gathered and sorted by the table's sort, ids of one moment by text) is the
  /// plain sort, with text ids beside numeric ones, shared and missing dates, kept whole and as entries.
  @Test func purchaseOrderGivesThePlainSort() {
    for shape in Self.shapes {
      let (name, history) = (shape.name, shape.history(index: 0))
      // Text ids beside numeric ones (a leading zero or letters make an id text), and shared dates.
      var mixed = history
      for i in mixed.transactions.indices where i % 3 == 0 {
        mixed.transactions[i].transactionID = (i % 2 == 0 ? "0" : "id-") + mixed.transactions[i].transactionID
      }
      for i in mixed.transactions.indices where i % 4 == 0 {
        mixed.transactions[i].purchaseDate = i % 8 == 0 ? nil : mixed.transactions[0].purchaseDate
      }
      for h in [history, mixed] {
        var whole = PurchaseLedger()
        whole.add(h)
        #expect(whole.purchaseOrder() == Self.plainPurchaseOrder(whole), "\(name)")
        // Kept as entries after a first document of one transaction.
        var first = PurchaseHistory(format: h.provenance.format)
        first.transactions = [PurchaseTransaction(transactionID: "first", productID: "other", vocabulary: .test)]
        var entries = PurchaseLedger()
        entries.add(first)
        entries.add(h)
        #expect(entries.purchaseOrder() == Self.plainPurchaseOrder(entries), "\(name)")
      }
    }
  }

  /// The ledger's chain numbers are dense, in the order first met, one per chain id; its upgrade moments are the
  /// table's (`PurchaseTable`) for the upgrades the data states, kept whole and as entries.
  @Test func chainNumbersAndUpgradeMomentsAreTheTablesFacts() {
    for shape in Self.shapes {
      let history = shape.history(index: 1)
      var whole = PurchaseLedger()
      whole.add(history)
      var entries = PurchaseLedger()
      entries.add(PurchaseHistory(format: .handBuilt))
      entries.add(history)
      let table = PurchaseTable(history)
      let stated = table.rows.map { table.upgrade[$0]?.cause == .stated ? table.upgrade[$0]?.at : nil }
      for ledger in [whole, entries] {
        var seen: [String: Int32] = [:]
        let plain = (0..<ledger.distinctTransactions).map { p in
          let id = ledger.chainID(at: p)
          if let n = seen[id] { return n }
          seen[id] = Int32(seen.count)
          return Int32(seen.count - 1)
        }
        #expect(ledger.chainNumbers() == plain, "\(shape.name)")
        let moments = ledger.upgradeMoments()
        #expect(moments.isEmpty ? !stated.contains { $0 != nil } : moments == stated, "\(shape.name)")
      }
    }
  }
}
