import ReceiptModel

extension LedgerRecord {
  /// Adds this transaction's sale, refund and upgrade proration to `report`, each in the window and row of its
  /// own date, or counts why it is not revenue. Only the purchaser's own transaction is revenue: each family
  /// member holds a shared purchase as a transaction of their own, so FAMILY_SHARED copies never count [S33]
  /// §7.4. A refund is booked on its `cancellation_date` / `revocationDate` [S34][S22] §7.4, of
  /// `revocationPercentage` when stated [S26a]; `is_upgraded` decides that a cancellation is an upgrade, whose
  /// unused part is estimated [S5][S30] §3, §7.2. An Advanced Commerce transaction's item refunds are each booked
  /// on their own date, of their own amount (`advancedCommerceInfo`); a whole refund already books the whole
  /// price, so beside one they are not booked again.
  /// - Throws: `ReceiptError` when a price × quantity or a sum does not fit.
  func addEvents(
    grouping: RevenueGrouping, range: PurchaseDateRange, commission: CommissionPlan, into report: inout RevenueReport
  ) throws(ReceiptError) {
    if Self.countsAsNotOwned(ownership: ownership, purchaseDate: purchaseDate, range: range, into: &report) { return }
    guard let saleInRange = range.contains(purchaseDate) else {
      report.counts.undatedExcluded += 1
      return
    }
    let rate = commission == .none ? nil : commissionPercent(plan: commission, paidServiceBefore: paidServiceBefore)
    let value = try value()
    let events = TransactionEvents(
      productID: productID, purchaseDate: purchaseDate, units: units, value: value, grouping: grouping,
      rate: rate, backing: moneyBacking(of: value, evidence: evidence))
    if saleInRange {
      try events.sale(into: &report)
      // A paid sale on a commitment plan is also a commitment charge.
      if let commitment, case .paid(let money, _)? = value {
        try report.addCommitments(
          CommitmentTotals.charge(commitment, gross: money.minorUnits, currency: money.currency),
          currency: money.currency)
      }
    }
    // Old receipts also set cancellation_date on an upgrade: is_upgraded decides that it is one.
    if let upgrade {
      try events.upgrade(upgrade, range: range, into: &report)
    } else if let refunded = refundDate, range.contains(refunded) == true {
      // A reversed refund books nothing: the sale stands.
      if refundReversedAt != nil {
        report.counts.refundsReversed += 1
      } else {
        try events.refund(at: refunded, share: refundShare, into: &report)
      }
    }
    if refundDate == nil, !itemRefunds.isEmpty { try events.itemRefunds(itemRefunds, range: range, into: &report) }
  }
}

extension LedgerRecord {
  /// Counts a transaction that is not the purchaser's own (FAMILY_SHARED, unknown or an undocumented ownership)
  /// under its reason, in the window of its purchase date, or as undated; false for the purchaser's own, which
  /// is revenue.
  static func countsAsNotOwned(
    ownership: Ownership, purchaseDate: Timestamp?, range: PurchaseDateRange, into report: inout RevenueReport
  ) -> Bool {
    if ownership == .purchased { return false }
    guard let saleInRange = range.contains(purchaseDate) else {
      report.counts.undatedExcluded += 1
      return true
    }
    guard saleInRange else { return true }
    switch ownership {
    case .familyShared: report.counts.familySharedExcluded += 1
    case .unrecognized: report.counts.unrecognizedOwnershipExcluded += 1
    case .unknown: report.counts.unknownOwnershipExcluded += 1
    case .purchased: break
    }
    return true
  }
}

/// The sale, refund and upgrade proration of one owner transaction, each dated by itself.
struct TransactionEvents {
  // The record's few facts the events need, not a copy of the whole record.
  var productID: String
  var purchaseDate: Timestamp?
  var units: Int64
  var value: TransactionValue?
  var grouping: RevenueGrouping
  /// The commission percent of its sale, when proceeds are estimated.
  var rate: Int64?
  /// Whether its money rests on a verified signature: its sale, refund and proration are booked in that class.
  var backing: MoneyBacking

  /// Adds `row` to the report, and its money to the class of `backing`; `sale` counts a transaction there.
  func book(_ row: RevenueGroup, key: RevenueRowKey, currency: String, sale: Bool, into report: inout RevenueReport)
    throws(ReceiptError)
  {
    var figures = BackedFigures(proceeds: row.proceeds)
    (figures.gross, figures.refunds, figures.estimatedProrationRefunds) = (
      row.gross, row.refunds, row.estimatedProrationRefunds
    )
    figures.transactions = sale ? 1 : 0
    try report.add(row, key: key, currency: currency, money: figures, as: backing)
  }

  /// An empty row of the event on `date`, and its key (the row's key text is the report's to write).
  func row(at date: Timestamp?) -> (RevenueGroup, key: RevenueRowKey) {
    (RevenueGroup(key: "", proceeds: rate.map { _ in 0 }), grouping.rowKey(productID: productID, date: date))
  }

  /// The proceeds of `amount` at the sale's commission.
  func proceedsOf(_ amount: Int64) throws(ReceiptError) -> Int64? {
    guard let rate else { return nil }
    return try proceeds(of: amount, commissionPercent: rate)
  }

  func sale(into report: inout RevenueReport) throws(ReceiptError) {
    report.counts.counted += 1
    // The row is made only where it is added to (an unpriced sale has none, and a row key may be a date's text).
    switch value {
    case .trial(let currency):
      report.counts.trials += 1
      // A trial without a catalog currency has no table to go in; it stays in the counts.
      guard let currency else { return }
      var (row, key) = row(at: purchaseDate)
      row.units = units
      row.trials = units
      try book(row, key: key, currency: currency, sale: true, into: &report)
    case .paid(let money, let basis):
      if basis == .transactionPrice { report.counts.pricedFromTransaction += 1 }
      var (row, key) = row(at: purchaseDate)
      row.units = units
      row.gross = money.minorUnits
      row.proceeds = try proceedsOf(money.minorUnits)
      try book(row, key: key, currency: money.currency, sale: true, into: &report)
    case .unpriced, nil:
      report.counts.unpriced += 1
      try report.addUnpriced(productID: productID, units: units)
    }
  }

  /// The refund, of `share` of the price (`revocationPercentage`, milliunits of a percent) or of all of it.
  func refund(at date: Timestamp, share: Int64?, into report: inout RevenueReport) throws(ReceiptError) {
    report.counts.refunded += 1
    var (row, key) = row(at: date)
    row.refunded = units
    switch value {
    case .trial(let currency):
      guard let currency else { return }
      try book(row, key: key, currency: currency, sale: false, into: &report)
    case .paid(let money, _):
      var amount = money.minorUnits
      if let share, share < 100_000 {
        report.counts.partialRefunds += 1
        amount = money.minorUnits < 0 ? 0 : try proratedRefund(money.minorUnits, unused: share, of: 100_000)
      }
      row.refunds = amount
      row.proceeds = try proceedsOf(amount).map { 0 &- $0 }
      try book(row, key: key, currency: money.currency, sale: false, into: &report)
    case .unpriced, nil:
      return
    }
  }

  /// Item refunds, each in the window of its own date and of its amount (milliunits, rounded half-up to the
  /// currency's minor unit): a partial refund of the transaction, counted once however many items. One in
  /// another currency than the sale's, or of an unpriced sale, is counted but has no amount to book.
  func itemRefunds(_ refunds: [ItemRefund], range: PurchaseDateRange, into report: inout RevenueReport)
    throws(ReceiptError)
  {
    var counted = false
    for r in refunds where range.contains(r.date) == true {
      if !counted {
        report.counts.refunded += 1
        report.counts.partialRefunds += 1
        counted = true
      }
      guard case .paid(let money, _) = value, r.amount.currency == money.currency,
        let milliunits = r.amount.amount.rescaled(to: 3)?.units
      else { continue }
      var scale: Int64 = 1
      for _ in 0..<minorDigits(ofCurrency: money.currency) { scale *= 10 }
      let amount = try proratedRefund(milliunits, unused: scale, of: 1000)
      var (row, key) = row(at: r.date)
      row.refunds = amount
      row.proceeds = try proceedsOf(amount).map { 0 &- $0 }
      try book(row, key: key, currency: money.currency, sale: false, into: &report)
    }
  }

  /// The estimated refund of an upgraded period's unused part, in the window of the upgrade.
  func upgrade(_ upgrade: LedgerUpgrade, range: PurchaseDateRange, into report: inout RevenueReport)
    throws(ReceiptError)
  {
    switch upgrade {
    case .nothingToRefund:
      return
    case .notEstimated:
      if range.contains(purchaseDate) == true { report.counts.upgradesNotEstimated += 1 }
    case .estimated(let upgraded, let estimate):
      guard case .paid(let money, _) = value, range.contains(upgraded) == true else { return }
      report.counts.upgradeProrations += 1
      var (row, key) = row(at: upgraded)
      row.upgradeProrations = units
      row.estimatedProrationRefunds = estimate
      row.proceeds = try proceedsOf(estimate).map { 0 &- $0 }
      try book(row, key: key, currency: money.currency, sale: false, into: &report)
    }
  }
}

/// `amount × unused ÷ period`, rounded half-up to a minor unit, without overflow.
func proratedRefund(_ amount: Int64, unused: Int64, of period: Int64) throws(ReceiptError) -> Int64 {
  guard period > 0, unused > 0, amount > 0 else { return 0 }
  let share = min(unused, period)
  let product = amount.multipliedFullWidth(by: share)
  // amount × share ≤ amount × period, so the quotient fits in Int64.
  let (q, r) = period.dividingFullWidth(product)
  let (twice, overflow) = r.multipliedReportingOverflow(by: 2)
  return overflow || twice >= period ? q + 1 : q
}
