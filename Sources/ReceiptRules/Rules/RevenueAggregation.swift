import ReceiptModel

/// How revenue rows are grouped.
public enum RevenueGrouping: String, Sendable, CaseIterable {
  case product, month, day, none

  /// The row a transaction belongs to: its product id, its purchase month (`2024-06`) or day
  /// (`2024-06-15`) in UTC, or `all`. Transactions without a purchase date group under `undated`.
  public func key(for transaction: PurchaseTransaction) -> String {
    switch self {
    case .product: return transaction.productID
    case .none: return "all"
    case .month: return transaction.purchaseDate.map { String($0.iso8601.prefix(7)) } ?? "undated"
    case .day: return transaction.purchaseDate.map { String($0.iso8601.prefix(10)) } ?? "undated"
    }
  }
}

/// Totals of one row of one currency. Amounts are minor units of that currency.
public struct RevenueGroup: Hashable, Sendable {
  public var key: String
  /// Units sold, free trials included.
  public var units: Int64 = 0
  /// Units that were free trials.
  public var trials: Int64 = 0
  /// Units refunded.
  public var refunded: Int64 = 0
  public var gross: Int64 = 0
  public var refunds: Int64 = 0
  /// Estimated proceeds after commission; nil without --commission.
  public var proceeds: Int64?

  public init(key: String, proceeds: Int64? = nil) {
    self.key = key
    self.proceeds = proceeds
  }

  /// Gross minus refunds (refunded transactions are in both).
  public var net: Int64 { gross &- refunds }

  /// Adds `other` into this row; throws when a sum does not fit.
  public mutating func add(_ other: RevenueGroup) throws(ReceiptError) {
    units = try addMoney(units, other.units, what: "units")
    trials = try addMoney(trials, other.trials, what: "trials")
    refunded = try addMoney(refunded, other.refunded, what: "refunded units")
    gross = try addMoney(gross, other.gross, what: "gross")
    refunds = try addMoney(refunds, other.refunds, what: "refunds")
    if let p = other.proceeds { proceeds = try addMoney(proceeds ?? 0, p, what: "proceeds") }
  }
}

/// One currency's rows and totals.
public struct CurrencyRevenue: Hashable, Sendable {
  public var currency: String
  public var groups: [RevenueGroup]
  /// The sum of the rows.
  public var total: RevenueGroup
}

/// Transaction counts over everything read.
public struct RevenueCounts: Hashable, Sendable {
  /// Distinct owner transactions (PURCHASED or no ownership field): priced, unpriced, trial or refunded alike.
  public var counted = 0
  /// FAMILY_SHARED copies: the purchaser's transaction is the revenue, these never are.
  public var familySharedExcluded = 0
  /// Ownership values Apple does not document: not known to be the purchaser's, so not counted.
  public var unrecognizedOwnershipExcluded = 0
  /// Rows or documents that repeated a transaction_id already read.
  public var duplicatesMerged = 0
  public var refunded = 0
  public var trials = 0
  public var unpriced = 0
  /// Transactions without a purchase date, left out because --from/--to was given.
  public var undatedExcluded = 0
  /// Transactions valued at the price the data states (signed data), not the catalog's.
  public var pricedFromTransaction = 0

  public init() {}

  public mutating func add(_ o: RevenueCounts) {
    counted += o.counted
    familySharedExcluded += o.familySharedExcluded
    unrecognizedOwnershipExcluded += o.unrecognizedOwnershipExcluded
    duplicatesMerged += o.duplicatesMerged
    refunded += o.refunded
    trials += o.trials
    unpriced += o.unpriced
    undatedExcluded += o.undatedExcluded
    pricedFromTransaction += o.pricedFromTransaction
  }
}

/// An input that could not be read; its transactions are missing from the totals.
public struct RevenueInputError: Hashable, Sendable {
  public var input: String
  public var message: String

  public init(input: String, message: String) {
    self.input = input
    self.message = message
  }
}

/// The revenue answer: rows per currency (currencies are never added together), counts,
/// unpriced products and unreadable inputs.
public struct RevenueReport: Sendable {
  /// currency → row key → row.
  var rows: [String: [String: RevenueGroup]] = [:]
  public var counts = RevenueCounts()
  /// product id → unpriced units.
  public var unpriced: [String: Int64] = [:]
  public var errors: [RevenueInputError] = []
  public var hasProceeds: Bool

  public init(hasProceeds: Bool) { self.hasProceeds = hasProceeds }

  /// currency → the sum of its rows, kept as rows are added so every sum is overflow-checked.
  var totals: [String: RevenueGroup] = [:]

  public mutating func add(_ group: RevenueGroup, currency: String) throws(ReceiptError) {
    var row = rows[currency]?[group.key] ?? RevenueGroup(key: group.key, proceeds: hasProceeds ? 0 : nil)
    try row.add(group)
    var total = totals[currency] ?? RevenueGroup(key: "total", proceeds: hasProceeds ? 0 : nil)
    try total.add(group)
    rows[currency, default: [:]][group.key] = row
    totals[currency] = total
  }

  public mutating func addUnpriced(productID: String, units: Int64) throws(ReceiptError) {
    unpriced[productID] = try addMoney(unpriced[productID] ?? 0, units, what: "unpriced units")
  }

  /// Currencies in alphabetical order, rows sorted by key, with totals.
  public var currencies: [CurrencyRevenue] {
    rows.keys.sorted().map { currency in
      let groups = (rows[currency] ?? [:]).values.sorted { $0.key < $1.key }
      let total = totals[currency] ?? RevenueGroup(key: "total", proceeds: hasProceeds ? 0 : nil)
      return CurrencyRevenue(currency: currency, groups: groups, total: total)
    }
  }

  /// Unpriced products sorted by product id.
  public var unpricedProducts: [(productID: String, units: Int64)] {
    unpriced.keys.sorted().map { ($0, unpriced[$0] ?? 0) }
  }

  /// Sums another report (a part read back with --merge) into this one.
  public mutating func merge(_ other: RevenueReport) throws(ReceiptError) {
    if !other.rows.isEmpty {
      if rows.isEmpty {
        hasProceeds = other.hasProceeds
      } else if hasProceeds != other.hasProceeds {
        throw .data(
          source: nil,
          message: "--merge: some parts have proceeds and some do not; merge parts made with the same --commission")
      }
    }
    for (currency, groups) in other.rows {
      for group in groups.values { try add(group, currency: currency) }
    }
    counts.add(other.counts)
    for (id, u) in other.unpriced { try addUnpriced(productID: id, units: u) }
    errors += other.errors
  }
}

/// What --from/--to select: purchase dates with from ≤ date < to.
public struct PurchaseDateRange: Hashable, Sendable {
  public var from: Timestamp?
  public var to: Timestamp?

  public init(from: Timestamp? = nil, to: Timestamp? = nil) {
    self.from = from
    self.to = to
  }

  public var isUnbounded: Bool { from == nil && to == nil }

  /// nil when the transaction has no purchase date and the range is bounded.
  public func contains(_ date: Timestamp?) -> Bool? {
    if isUnbounded { return true }
    guard let date else { return nil }
    if let from, date < from { return false }
    if let to, date >= to { return false }
    return true
  }
}

extension RevenueLedger {
  /// Values, filters and groups every transaction.
  public func report(
    catalog: Catalog, grouping: RevenueGrouping, range: PurchaseDateRange = PurchaseDateRange(),
    commission: CommissionPlan = .none
  ) throws(ReceiptError) -> RevenueReport {
    var report = RevenueReport(hasProceeds: commission != .none)
    report.counts.duplicatesMerged = duplicatesMerged
    report.errors = errors

    // Paid service per subscription so far, in purchase order, for the standard plan's second year.
    var paidSoFar: [String: Int64] = [:]
    // One transaction at a time, so the report needs no second copy of the ledger.
    for position in purchaseOrder() {
      let t = transaction(entries[position])
      let isSubscription = resolveProductType(of: t, catalog: catalog)?.type == .autoRenewable
      let chain = t.chainID
      let before: Int64? = isSubscription ? paidSoFar[chain] ?? 0 : nil
      let value: TransactionValue? = t.isOwnedByPurchaser ? try valueOf(t, catalog: catalog) : nil
      if isSubscription, t.isOwnedByPurchaser {
        var isTrial = false
        if case .trial = value { isTrial = true }
        paidSoFar[chain] = (before ?? 0) &+ paidService(of: t, isTrial: isTrial)
      }
      guard let inRange = range.contains(t.purchaseDate) else {
        report.counts.undatedExcluded += 1
        continue
      }
      guard inRange else { continue }
      switch t.ownership {
      case .familyShared:
        report.counts.familySharedExcluded += 1
        continue
      case .unrecognized, .unknown:
        report.counts.unrecognizedOwnershipExcluded += 1
        continue
      case .purchased:
        break
      }
      report.counts.counted += 1
      let refunded = t.revocation != nil
      if refunded { report.counts.refunded += 1 }
      let u = units(of: t)
      var row = RevenueGroup(key: grouping.key(for: t), proceeds: commission == .none ? nil : 0)
      switch value {
      case .trial(let currency):
        report.counts.trials += 1
        // A trial without a catalog currency has no table to go in; it stays in the counts.
        guard let currency else { continue }
        row.units = u
        row.trials = u
        row.refunded = refunded ? u : 0
        try report.add(row, currency: currency)
      case .paid(let money, let basis):
        if basis == .transactionPrice { report.counts.pricedFromTransaction += 1 }
        row.units = u
        row.gross = money.minorUnits
        if refunded {
          row.refunded = u
          row.refunds = money.minorUnits
        } else if commission != .none {
          row.proceeds = try proceeds(
            of: money.minorUnits, commissionPercent: commissionPercent(plan: commission, paidServiceBefore: before))
        }
        try report.add(row, currency: money.currency)
      case .unpriced, nil:
        report.counts.unpriced += 1
        try report.addUnpriced(productID: t.productID, units: u)
      }
    }
    return report
  }
}
