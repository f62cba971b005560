import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import Testing

/// The rule half of ReceiptTestSupport's RevenueFixtures (a small catalog, hand-built documents, reports),
/// without a format: the revenue rules' tests need no decoder.
enum RevenueFixtures {
  static let usdMonthly = CatalogProduct(
    productID: "pro.monthly", type: .autoRenewable, price: DecimalAmount(units: 999, scale: 2), currency: "USD",
    introOffer: IntroOffer(paymentMode: .freeTrial, period: "P1W"))
  static let usdYearlyIntro = CatalogProduct(
    productID: "pro.yearly", type: .autoRenewable, price: DecimalAmount(units: 4999, scale: 2), currency: "USD",
    introOffer: IntroOffer(paymentMode: .payUpFront, period: "P1Y", price: DecimalAmount(units: 1999, scale: 2)))
  static let coins = CatalogProduct(
    productID: "coins", type: .consumable, price: DecimalAmount(units: 99, scale: 2), currency: "USD")
  static let yenTheme = CatalogProduct(
    productID: "theme", type: .nonConsumable, price: DecimalAmount(units: 300, scale: 0), currency: "JPY")
  static let catalog = Catalog([usdMonthly, usdYearlyIntro, coins, yenTheme])

  static func day(_ text: String) -> Timestamp? { Timestamp.parse(formatted: text + "T00:00:00Z") }

  static func document(_ transactions: [PurchaseTransaction], duplicateRows: Int = 0) -> PurchaseHistory {
    var doc = PurchaseHistory(format: .handBuilt)
    doc.transactions = transactions
    doc.provenance.duplicateRowsMerged = duplicateRows
    return doc
  }

  static func report(
    _ docs: [PurchaseHistory], catalog: Catalog = catalog, by grouping: RevenueGrouping = .product,
    range: PurchaseDateRange = PurchaseDateRange(), commission: CommissionPlan = .none
  ) throws -> RevenueReport {
    var ledger = PurchaseLedger()
    for d in docs { ledger.add(d) }
    return try ledger.report(catalog: catalog, grouping: grouping, range: range, commission: commission)
  }

  static func usd(_ report: RevenueReport) -> CurrencyRevenue? {
    report.currencies.first { $0.currency == "USD" }
  }
}

@Suite struct RevenueValuationTests {
  typealias F = RevenueFixtures

  @Test func catalogPriceTimesQuantity() throws {
    let t = PurchaseTransaction(transactionID: "1", productID: "coins", quantity: 5, vocabulary: .test)
    #expect(try valueOf(t, catalog: F.catalog) == .paid(Money(minorUnits: 495, currency: "USD"), basis: .catalogPrice))
    let noQuantity = PurchaseTransaction(transactionID: "2", productID: "coins", quantity: nil, vocabulary: .test)
    #expect(
      try valueOf(noQuantity, catalog: F.catalog) == .paid(Money(minorUnits: 99, currency: "USD"), basis: .catalogPrice)
    )
  }

  @Test func trialIsZeroAndIntroUsesIntroPrice() throws {
    let trial = PurchaseTransaction(transactionID: "1", productID: "pro.monthly", offer: .freeTrial, vocabulary: .test)
    #expect(try valueOf(trial, catalog: F.catalog) == .trial(currency: "USD"))
    let intro = PurchaseTransaction(
      transactionID: "2", productID: "pro.yearly", offer: .introductoryPrice, vocabulary: .test)
    #expect(
      try valueOf(intro, catalog: F.catalog) == .paid(Money(minorUnits: 1999, currency: "USD"), basis: .introPrice))
    // An intro period whose catalog offer has no price is unpriced, not valued at the full price.
    var noIntroPrice = F.usdYearlyIntro
    noIntroPrice.introOffer?.price = nil
    let value = try valueOf(intro, catalog: Catalog([noIntroPrice]))
    guard case .unpriced = value else {
      Issue.record("expected unpriced, got \(value)")
      return
    }
  }

  @Test func unknownProductIsUnpriced() throws {
    let value = try valueOf(
      PurchaseTransaction(transactionID: "1", productID: "mystery", vocabulary: .test), catalog: F.catalog)
    guard case .unpriced(let reason) = value else {
      Issue.record("expected unpriced, got \(value)")
      return
    }
    #expect(reason.contains("not in the catalog"))
  }

  @Test func priceWithMoreDecimalsThanTheCurrencyFails() {
    let bad = CatalogProduct(
      productID: "x", type: .consumable, price: DecimalAmount(units: 3005, scale: 1), currency: "JPY")
    #expect(throws: ReceiptError.self) {
      try valueOf(PurchaseTransaction(transactionID: "1", productID: "x", vocabulary: .test), catalog: Catalog([bad]))
    }
  }

  @Test func moneyTextUsesMinorDigits() {
    #expect(Money(minorUnits: 2997, currency: "USD").text == "29.97")
    #expect(Money(minorUnits: 300, currency: "JPY").text == "300")
    #expect(Money(minorUnits: 1250, currency: "KWD").text == "1.250")
    #expect(Money(parsing: "29.97", currency: "USD")?.minorUnits == 2997)
    #expect(Money(parsing: "29.9", currency: "USD") == nil)
    #expect(Money(parsing: "-0.50", currency: "USD")?.minorUnits == -50)
  }
}

@Suite struct RevenueAggregationTests {
  typealias F = RevenueFixtures

  @Test func familySharedExcludedWhilePurchaserCounted() throws {
    let purchaser = F.document([
      PurchaseTransaction(
        transactionID: "p1", productID: "pro.monthly", ownership: .purchased, purchaseDate: F.day("2024-01-08"),
        vocabulary: .test)
    ])
    let member = F.document([
      PurchaseTransaction(
        transactionID: "m1", productID: "pro.monthly", ownership: .familyShared, purchaseDate: F.day("2024-01-08"),
        vocabulary: .test)
    ])
    let odd = F.document([
      PurchaseTransaction(
        transactionID: "u1", productID: "pro.monthly", ownership: .unrecognized("GIFTED"), vocabulary: .test)
    ])
    let r = try F.report([purchaser, member, odd])
    #expect(r.counts.counted == 1)
    #expect(r.counts.familySharedExcluded == 1)
    #expect(r.counts.unrecognizedOwnershipExcluded == 1)
    #expect(F.usd(r)?.total.gross == 999)
    #expect(F.usd(r)?.total.units == 1)
  }

  @Test func duplicatesAcrossArraysAndDocumentsCountOnce() throws {
    let t = PurchaseTransaction(
      transactionID: "p1", productID: "coins", purchaseDate: F.day("2024-01-08"), vocabulary: .test)
    // The decoder merged one in_app/latest_receipt_info pair in each document.
    let a = F.document([t], duplicateRows: 1)
    var later = t
    later.revocation = F.day("2024-01-09").map { Revocation(date: $0) }
    let b = F.document([later], duplicateRows: 1)
    let r = try F.report([a, b])
    #expect(r.counts.counted == 1)
    #expect(r.counts.duplicatesMerged == 3)
    // The later copy knew of the refund.
    #expect(r.counts.refunded == 1)
    #expect(F.usd(r)?.total.gross == 99)
  }

  @Test func refundsCountInGrossAndRefunds() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(
          transactionID: "1", productID: "coins", quantity: 2, purchaseDate: F.day("2024-01-01"),
          revocation: F.day("2024-01-02").map { Revocation(date: $0) }, vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", productID: "coins", purchaseDate: F.day("2024-01-03"), vocabulary: .test),
      ])
    ])
    let total = try #require(F.usd(r)?.total)
    #expect(total.gross == 297)
    #expect(total.refunds == 198)
    #expect(total.net == 99)
    #expect(total.refunded == 2)
    #expect(r.counts.refunded == 1)
  }

  @Test func trialsAreCountedAtZero() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(
          transactionID: "1", productID: "pro.monthly", purchaseDate: F.day("2024-01-01"), offer: .freeTrial,
          vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", originalTransactionID: "1", productID: "pro.monthly", purchaseDate: F.day("2024-01-08"),
          vocabulary: .test),
      ])
    ])
    let total = try #require(F.usd(r)?.total)
    #expect(total.units == 2)
    #expect(total.trials == 1)
    #expect(total.gross == 999)
    #expect(r.counts.trials == 1)
    #expect(r.counts.counted == 2)
  }

  @Test func introPricePeriods() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(
          transactionID: "1", productID: "pro.yearly", purchaseDate: F.day("2024-01-01"), offer: .introductoryPrice,
          vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", originalTransactionID: "1", productID: "pro.yearly", purchaseDate: F.day("2025-01-01"),
          vocabulary: .test),
      ])
    ])
    let gross = try #require(F.usd(r)?.total.gross)
    #expect(gross == Int64(1999 + 4999))
  }

  @Test func unpricedProductsAreListedNotZero() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(transactionID: "1", productID: "mystery", quantity: 2, vocabulary: .test),
        PurchaseTransaction(transactionID: "2", productID: "mystery", vocabulary: .test),
        PurchaseTransaction(transactionID: "3", productID: "coins", vocabulary: .test),
      ])
    ])
    #expect(r.counts.unpriced == 2)
    #expect(r.counts.counted == 3)
    #expect(r.unpricedProducts.map(\.productID) == ["mystery"])
    #expect(r.unpricedProducts.first?.units == 3)
    #expect(F.usd(r)?.groups.map(\.key) == ["coins"])
  }

  @Test func consumableQuantity() throws {
    let r = try F.report([
      F.document([PurchaseTransaction(transactionID: "1", productID: "coins", quantity: 7, vocabulary: .test)])
    ])
    #expect(F.usd(r)?.total.units == 7)
    #expect(F.usd(r)?.total.gross == 693)
  }

  @Test func groupingByMonthAndRange() throws {
    let docs = [
      F.document([
        PurchaseTransaction(
          transactionID: "1", productID: "coins", purchaseDate: F.day("2024-01-31"), vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", productID: "coins", purchaseDate: F.day("2024-02-01"), vocabulary: .test),
        PurchaseTransaction(
          transactionID: "3", productID: "coins", purchaseDate: F.day("2024-02-29"), vocabulary: .test),
        PurchaseTransaction(transactionID: "4", productID: "coins", purchaseDate: nil, vocabulary: .test),
      ])
    ]
    let r = try F.report(docs, by: .month)
    #expect(F.usd(r)?.groups.map(\.key) == ["2024-01", "2024-02", "undated"])
    #expect(F.usd(r)?.groups.map(\.units) == [1, 2, 1])
    let feb = try F.report(
      docs, by: .month, range: PurchaseDateRange(from: F.day("2024-02-01"), to: F.day("2024-03-01")))
    #expect(F.usd(feb)?.groups.map(\.key) == ["2024-02"])
    #expect(feb.counts.counted == 2)
    #expect(feb.counts.undatedExcluded == 1)
  }

}

@Suite struct CommissionTests {
  typealias F = RevenueFixtures

  @Test func roundingHalfUpPerTransaction() throws {
    // 9.99 at 30%: commission 2.997 rounds to 3.00.
    #expect(try proceeds(of: 999, commissionPercent: 30) == 699)
    #expect(try proceeds(of: 999, commissionPercent: 15) == 849)  // 1.4985 → 1.50
    #expect(try proceeds(of: 10, commissionPercent: 15) == 8)  // 1.5 → 2
    #expect(commissionPercent(plan: .smallBusiness, paidServiceBefore: nil) == 15)
    #expect(commissionPercent(plan: .standard, paidServiceBefore: nil) == 30)
  }

  /// A monthly subscriber: a trial week, then 13 paid months. Paid service reaches a year at
  /// the 13th paid month (the trial week does not count), whose proceeds are at 15%.
  @Test func standardCrossesTheFirstPaidYear() throws {
    var transactions = [
      PurchaseTransaction(
        transactionID: "t0", originalTransactionID: "t0", productID: "pro.monthly",
        purchaseDate: F.day("2023-01-01"), expiresDate: F.day("2023-01-08"), offer: .freeTrial, vocabulary: .test)
    ]
    var start = try #require(F.day("2023-01-08"))
    for i in 1...13 {
      let end = try #require(ISOPeriod("P1M")?.added(to: start))
      transactions.append(
        PurchaseTransaction(
          transactionID: "t\(i)", originalTransactionID: "t0", productID: "pro.monthly", purchaseDate: start,
          expiresDate: end, vocabulary: .test))
      start = end
    }
    let r = try F.report([F.document(transactions)], by: .day, commission: .standard)
    let groups = try #require(F.usd(r)?.groups)
    #expect(groups.count == 14)
    // 12 paid months (2023-01-08 … 2024-01-08) reach 365 days, so the 13th month is at 15%.
    let proceedsByMonth = groups.map { $0.proceeds ?? -1 }
    #expect(proceedsByMonth.first == 0)  // the trial
    #expect(proceedsByMonth.dropFirst().dropLast().allSatisfy { $0 == 699 })
    #expect(proceedsByMonth.last == 849)
    let total = try #require(F.usd(r)?.total.proceeds)
    #expect(total == Int64(12 * 699 + 849))
    // Small business: 15% everywhere.
    let small = try F.report([F.document(transactions)], commission: .smallBusiness)
    let smallTotal = try #require(F.usd(small)?.total.proceeds)
    #expect(smallTotal == Int64(13 * 849))
  }

  @Test func refundedTransactionsHaveNoProceeds() throws {
    let r = try F.report(
      [
        F.document([
          PurchaseTransaction(
            transactionID: "1", productID: "coins", revocation: F.day("2024-01-02").map { Revocation(date: $0) },
            vocabulary: .test),
          PurchaseTransaction(transactionID: "2", productID: "coins", vocabulary: .test),
        ])
      ], commission: .standard)
    #expect(F.usd(r)?.total.proceeds == 69)
  }

  @Test func mergeRejectsPartsWithAndWithoutProceeds() throws {
    let docs = [F.document([PurchaseTransaction(transactionID: "1", productID: "coins", vocabulary: .test)])]
    var merged = try F.report(docs, commission: .standard)
    #expect(throws: ReceiptError.self) { try merged.merge(try F.report(docs)) }
  }

  /// A row's figures that do not fit Int64 throw, naming the first figure in turn, and change nothing: not the
  /// row, not its currency's total.
  @Test func aSumThatDoesNotFitThrowsAndChangesNothing() throws {
    var report = RevenueReport(hasProceeds: false)
    var row = RevenueGroup(key: "p")
    (row.units, row.gross) = (1, Int64.max - 1)
    try report.add(row, currency: "USD")
    var more = RevenueGroup(key: "p")
    (more.units, more.gross, more.refunds) = (Int64.max, 5, 1)
    #expect(throws: ReceiptError.data(source: nil, message: "units: the total is too large to compute exactly")) {
      try report.add(more, currency: "USD")
    }
    more.units = 1
    #expect(throws: ReceiptError.data(source: nil, message: "gross: the total is too large to compute exactly")) {
      try report.add(more, currency: "USD")
    }
    #expect(report.currencies.first?.groups == [row])
    #expect(report.currencies.first?.total.gross == Int64.max - 1)
  }
}
