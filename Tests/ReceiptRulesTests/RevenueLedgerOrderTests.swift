import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI
// The ledger's internal ordering (TextOrder, purchaseOrder, entries) checked beside the revenue command's report.
@testable import ReceiptRules

/// The revenue ledger's shortcuts must give what the plain ways give: text order of numeric ids, the id
/// index against a dictionary, and the first document kept whole against compact entries.
struct RevenueLedgerOrderTests {
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

  /// A file's purchase history, when some format reads it (fixtures include catalogs and bad inputs).
  static func history(at url: URL) -> PurchaseHistory? {
    guard let bytes = try? [UInt8](Data(contentsOf: url)) else { return nil }
    return try? FormatRegistry.standard.decode(bytes, source: url.lastPathComponent)
  }

  /// The first document's transactions are kept whole and later ones as compact entries, so reading the same
  /// documents in the other order takes each document down the other path; the answers must not change.
  /// A second document holds a refunded, upgraded copy of one transaction, so merging into either kind is
  /// compared too.
  @Test func theFirstDocumentKeptWholeGivesWhatEntriesGive() throws {
    var documents: [(String, PurchaseHistory)] = []
    for index in 0..<3 {
      let bytes = Array(SyntheticReceipts.verifyReceipt(index: index, transactions: 60).utf8)
      documents.append(("synthetic \(index)", try FormatRegistry.standard.decode(bytes, source: "synthetic")))
    }
    for url in TestPaths.exampleAndPeerFixtureFiles(for: "the ledger's kept-whole comparison") {
      guard let history = Self.history(at: url), !history.transactions.isEmpty else { continue }
      documents.append((url.lastPathComponent, history))
    }
    #expect(documents.count > 20)
    let catalog = try RevenueFixtures.exampleCatalog()
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
          transactionID: "other-1", productID: "pro.monthly", purchaseDate: Timestamp(milliseconds: 1_710_000_000_000)),
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

  /// Two halves on two threads, summed, must be the one pass's report: over many chains (synthetic receipts and
  /// every fixture in one ledger), with and without a catalog, by product and by month; and where a transaction
  /// cannot be valued, the same error.
  @Test func halvesOnTwoThreadsGiveTheOnePassReport() throws {
    var ledger = RevenueLedger()
    for index in 0..<40 {
      let bytes = Array(SyntheticReceipts.verifyReceipt(index: index, transactions: 25).utf8)
      ledger.add(try FormatRegistry.standard.decode(bytes, source: "synthetic"))
    }
    for url in TestPaths.exampleAndPeerFixtureFiles(for: "the halves-against-one-pass comparison") {
      if let history = Self.history(at: url) { ledger.add(history) }
    }
    #expect(ledger.distinctTransactions > 1_000)
    for catalog in [Catalog(), try RevenueFixtures.exampleCatalog()] {
      for grouping in [RevenueGrouping.product, .month] {
        func report(halvesFrom minimum: Int) throws -> RevenueReport {
          try RevenueCommand.report(
            of: ledger, catalog: catalog, grouping: grouping, range: PurchaseDateRange(), commission: .none,
            halvesFrom: minimum)
        }
        let (halves, onePass) = (try report(halvesFrom: 0), try report(halvesFrom: .max))
        #expect(!halves.currencies.isEmpty || !halves.unpricedProducts.isEmpty)
        #expect(halves.currencies == onePass.currencies)
        #expect(halves.counts == onePass.counts)
        #expect(halves.unpricedProducts.map(\.productID) == onePass.unpricedProducts.map(\.productID))
        #expect(halves.unpricedProducts.map(\.units) == onePass.unpricedProducts.map(\.units))
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

  /// Purchase order: undated first, then by date, and on one date by transaction_id as text, numeric or not,
  /// whether the transactions are kept whole or as entries.
  @Test func purchaseOrderIsByDateThenIDText() {
    let day = Timestamp(milliseconds: 1_700_000_000_000)
    let earlier = Timestamp(milliseconds: 1_600_000_000_000)
    let ids = ["9", "10", "abc", "012", "1", "100", "9223372036854775808", "99"]
    var sameDay = PurchaseHistory(format: VerifyReceiptFormats.response)
    sameDay.transactions = ids.map { PurchaseTransaction(transactionID: $0, productID: "p", purchaseDate: day) }
    sameDay.transactions.append(PurchaseTransaction(transactionID: "5", productID: "p", purchaseDate: earlier))
    sameDay.transactions.append(PurchaseTransaction(transactionID: "7", productID: "p"))
    let expected = ["7", "5"] + ids.sorted()
    var whole = RevenueLedger()
    whole.add(sameDay)
    var entries = RevenueLedger()
    entries.add(PurchaseHistory(format: VerifyReceiptFormats.response))
    var first = PurchaseHistory(format: VerifyReceiptFormats.response)
    first.transactions = [PurchaseTransaction(transactionID: "0", productID: "p", purchaseDate: day)]
    entries.add(first)
    entries.add(sameDay)
    #expect(whole.purchaseOrder().map { whole.idText(at: $0) } == expected)
    #expect(entries.purchaseOrder().map { entries.idText(at: $0) } == ["7", "5", "0"] + ids.sorted())
  }
}
