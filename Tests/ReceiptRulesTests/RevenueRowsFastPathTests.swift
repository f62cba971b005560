import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// Revenue reports read through rows (`PurchaseLedger.reportRows`: plain first-document transactions gathered in
/// the order kept, then loaded from their rows in purchase order) against the same report loading every
/// transaction whole; and parts given the whole ledger's chain numbers against parts that number their own.
struct RevenueRowsFastPathTests {
  /// Both reports of `positions`, every grouping and plan, the whole history and its second half: the same
  /// rows, counts and unpriced products, or the same error.
  static func expectRowsGiveTheWholeTransactionsReport(
    _ ledger: PurchaseLedger, positions: [Int], sorting: Bool, chains: [Int32] = [], catalog: Catalog,
    _ label: String
  ) {
    let upgrades = ledger.upgradeMomentsByPosition()
    let ranges = [PurchaseDateRange(), PurchaseDateRange(from: Timestamp(milliseconds: ReceiptShape.middleOfHistory))]
    for range in ranges {
      for grouping in RevenueGrouping.allCases {
        for commission in CommissionPlan.allCases {
          let what = "\(label), \(grouping), \(commission), from \(range.from?.iso8601 ?? "-")"
          func report(_ readsRows: Bool) -> Result<RevenueReport, ReceiptError> {
            Result { () throws(ReceiptError) in
              try ledger.report(
                positions, sorting: sorting, upgrades: upgrades, chains: readsRows ? chains : [], catalog: catalog,
                grouping: grouping, range: range, commission: commission, readsRows: readsRows)
            }
          }
          switch (report(true), report(false)) {
          case (.success(let rows), .success(let whole)):
            #expect(rows.currencies == whole.currencies, "\(what)")
            #expect(rows.counts == whole.counts, "\(what)")
            #expect(rows.unpricedProducts.map(\.productID) == whole.unpricedProducts.map(\.productID), "\(what)")
            #expect(rows.unpricedProducts.map(\.units) == whole.unpricedProducts.map(\.units), "\(what)")
          case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(what)")
          case (let a, let b):
            Issue.record("\(what): \(a) against \(b)")
          }
        }
      }
    }
  }

  @Test func rowsGiveTheReportOfWholeTransactions() throws {
    var batch = PurchaseLedger()
    var plainRows = 0
    for (name, history, catalog) in try RuleFastPathTests.histories() {
      var ledger = PurchaseLedger()
      ledger.add(history)
      batch.add(history)
      let all = Array(0..<ledger.distinctTransactions)
      plainRows += ledger.reportRows(all, chains: [], numbersChains: false, readsIDOrder: false).rows.count {
        $0.product >= 0
      }
      Self.expectRowsGiveTheWholeTransactionsReport(ledger, positions: all, sorting: true, catalog: catalog, name)
      Self.expectRowsGiveTheWholeTransactionsReport(ledger, positions: all, sorting: false, catalog: catalog, name)
      // The parts from pieces made apart (`chainParts`, on as many cores) are the parts made in one pass.
      for count in [2, 3] {
        for commission in CommissionPlan.allCases {
          let whole = try #require(ledger.reportParts(count, commission: commission), "\(name)")
          for pieceCount in [1, 2, 5] {
            let pieces = try ledger.chainPartRanges(pieceCount).map { range in
              try #require(ledger.chainParts(of: range, count: count, commission: commission))
            }
            let apart = try #require(ledger.reportParts(count, commission: commission, pieces: pieces))
            #expect(apart.map(\.positions) == whole.map(\.positions), "\(name) \(count) \(commission)")
            #expect(apart.map(\.chains) == whole.map(\.chains), "\(name) \(count) \(commission)")
            #expect(apart.map(\.upgrades) == whole.map(\.upgrades), "\(name) \(count) \(commission)")
          }
        }
      }
      for catalog in [Catalog(), catalog] {
        // Each part with the whole ledger's chain numbers (given when something is upgraded), and alone.
        for part in try #require(ledger.reportParts(2, commission: .standard)) {
          let upgraded = (0..<ledger.distinctTransactions).contains { ledger.isUpgraded(at: $0) }
          #expect(part.chains.count == (upgraded ? part.positions.count : 0), "\(name)")
          Self.expectRowsGiveTheWholeTransactionsReport(
            ledger, positions: part.positions, sorting: true, chains: part.chains, catalog: catalog,
            "\(name), a part")
        }
      }
    }
    // Later documents are entries, read whole; the first document's transactions are rows.
    let all = Array(0..<batch.distinctTransactions)
    Self.expectRowsGiveTheWholeTransactionsReport(
      batch, positions: all, sorting: true, catalog: RuleFastPathTests.catalog(of: RuleFastPathTests.shapes[3]),
      "every shape in one ledger")
    #expect(plainRows > 1_000, "most transactions of the shapes are plain")
  }

  /// Transactions `isPlain` refuses (a refund, a signed date, a stated price or type, an undocumented ownership,
  /// a quantity past Int32) among plain ones, with trials and introductory prices, undated ones and shared
  /// moments, ids of text and digits; and a quantity whose price overflows: the same error, quoting its id.
  @Test func transactionsReadWholeAmongRowsGiveTheSameReport() throws {
    let start: Int64 = 1_700_000_000_000
    let day: Int64 = 86_400_000
    var history = PurchaseHistory(format: .handBuilt)
    for i in 0..<240 {
      let bought = Timestamp(milliseconds: start + Int64(i / 3) * day)
      var t = PurchaseTransaction(
        transactionID: i % 7 == 0 ? "t\(i)" : "\(1_000_000_000_000_000 + i * 7919 % 1000)",
        originalTransactionID: "c\(i % 9)", productID: i % 5 == 0 ? "coins" : "monthly",
        ownership: i % 11 == 0 ? .familyShared : i % 13 == 0 ? .unknown : .purchased, quantity: i % 4 == 0 ? 3 : 1,
        purchaseDate: i % 17 == 0 ? nil : bought,
        expiresDate: bought.flatMap { Timestamp(milliseconds: $0.milliseconds + 30 * day) },
        offer: i % 9 == 0 ? .freeTrial : i % 9 == 1 ? .introductoryPrice : nil, isUpgraded: i % 10 == 3,
        subscriptionGroup: "g", vocabulary: .test)
      switch i % 8 {
      case 1: t.revocation = Revocation(date: Timestamp(milliseconds: start + Int64(i) * day) ?? .init(unchecked: 0))
      case 2: t.signedDate = bought
      case 3: t.price = StatedPrice(amount: DecimalAmount(units: 4990, scale: 3), currency: "EUR")
      case 4: t.productType = .consumable
      case 5 where i % 3 == 0: t.ownership = .unrecognized("GIFTED")
      case 6 where i % 5 == 1: t.quantity = Int(Int32.max) + 1
      default: break
      }
      history.transactions.append(t)
    }
    let catalog = Catalog([
      CatalogProduct(
        productID: "monthly", type: .autoRenewable, subscriptionGroup: "g", entitlements: ["pro"],
        price: DecimalAmount(units: 999, scale: 2), currency: "USD",
        introOffer: IntroOffer(paymentMode: .payAsYouGo, price: DecimalAmount(units: 199, scale: 2))),
      CatalogProduct(
        productID: "coins", type: .consumable, entitlements: [], price: DecimalAmount(units: 99, scale: 2),
        currency: "USD"),
    ])
    var ledger = PurchaseLedger()
    ledger.add(history)
    let rows = ledger.reportRows(
      Array(0..<ledger.distinctTransactions), chains: [], numbersChains: true, readsIDOrder: true
    ).rows
    #expect(rows.contains { $0.product >= 0 } && rows.contains { $0.product < 0 })
    let all = Array(0..<ledger.distinctTransactions)
    for sorting in [true, false] {
      Self.expectRowsGiveTheWholeTransactionsReport(ledger, positions: all, sorting: sorting, catalog: catalog, "mixed")
    }
    // A plain transaction whose price × quantity does not fit: the error quotes its id, as the whole one's does.
    var huge = history
    huge.transactions[5].quantity = Int(Int32.max)
    var overflowing = PurchaseLedger()
    overflowing.add(huge)
    let expensive = Catalog([
      CatalogProduct(
        productID: "monthly", type: .autoRenewable, subscriptionGroup: "g", entitlements: ["pro"],
        price: DecimalAmount(units: Int64.max / 1_000, scale: 0), currency: "JPY")
    ])
    #expect(overflowing.reportRows([5], chains: [], numbersChains: false, readsIDOrder: false).rows[0].product >= 0)
    #expect(throws: ReceiptError.self) {
      try overflowing.report(catalog: expensive, grouping: .product)
    }
    Self.expectRowsGiveTheWholeTransactionsReport(
      overflowing, positions: all, sorting: true, catalog: expensive, "overflow")
  }
}

/// `RevenueGroup.Sums.adding` (every sum made, then checked together) against `addingInTurn` (each checked as
/// made): the same figures, or the same first error, whichever figures overflow.
struct RevenueSumsFastPathTests {
  @Test func sumsCheckedTogetherGiveTheFirstErrorInTurn() throws {
    func group(_ values: [Int64], proceeds: Int64?) -> RevenueGroup {
      var g = RevenueGroup(key: "k", proceeds: proceeds)
      (g.units, g.trials, g.refunded, g.gross) = (values[0], values[1], values[2], values[3])
      (g.refunds, g.upgradeProrations, g.estimatedProrationRefunds) = (values[4], values[5], values[6])
      return g
    }
    var generator = SystemRandomNumberGenerator()
    var cases: [(RevenueGroup, RevenueGroup)] = []
    // Every set of the eight figures at the edge, and random figures.
    for mask in 0..<256 {
      let high = (0..<7).map { mask >> $0 & 1 == 1 ? Int64.max - 2 : Int64(mask) }
      let proceeds: Int64? = mask & 128 != 0 ? Int64.min + 1 : mask % 3 == 0 ? nil : 5
      cases.append((group(high, proceeds: proceeds), group(Array(repeating: 3, count: 7), proceeds: -4)))
      cases.append((group(high, proceeds: nil), group(Array(repeating: -1, count: 7), proceeds: proceeds)))
    }
    for _ in 0..<500 {
      let a = (0..<7).map { _ in Int64.random(in: -1_000_000...1_000_000, using: &generator) }
      let b = (0..<7).map { _ in Int64.random(in: -1_000_000...1_000_000, using: &generator) }
      cases.append((group(a, proceeds: a[0]), group(b, proceeds: b[1])))
    }
    var overflows = 0
    for (a, b) in cases {
      let sums = RevenueGroup.Sums(a)
      let together = Result { () throws(ReceiptError) in RevenueGroup(key: "k", try sums.adding(b)) }
      let inTurn = Result { () throws(ReceiptError) in RevenueGroup(key: "k", try sums.addingInTurn(b)) }
      #expect(together == inTurn, "\(a) + \(b)")
      if case .failure = inTurn { overflows += 1 }
    }
    #expect(overflows > 200, "most edge cases overflow some figure")
  }
}
