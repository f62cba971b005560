import ReceiptModel

/// How revenue rows are grouped.
public enum RevenueGrouping: String, Sendable, CaseIterable {
  case product, month, day, none

  /// The row a transaction's sale belongs to: its product id, its purchase month (`2024-06`) or day
  /// (`2024-06-15`) in UTC, or `all`. Transactions without a purchase date group under `undated`.
  public func key(for transaction: PurchaseTransaction) -> String {
    key(productID: transaction.productID, date: transaction.purchaseDate)
  }

  /// The row of an event of a product on `date` (a sale on its purchase date, a refund on its own date).
  public func key(productID: String, date: Timestamp?) -> String {
    switch self {
    case .product: return productID
    case .none: return "all"
    case .month: return date.map { String($0.iso8601.prefix(7)) } ?? "undated"
    case .day: return date.map { String($0.iso8601.prefix(10)) } ?? "undated"
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
  /// Upgraded units whose unused part Apple refunded, estimated from dates (Apple states no amount).
  public var upgradeProrations: Int64 = 0
  /// The estimated refund of those unused parts: never Apple's figure.
  public var estimatedProrationRefunds: Int64 = 0
  /// Estimated proceeds after commission; nil without --commission.
  public var proceeds: Int64?

  public init(key: String, proceeds: Int64? = nil) {
    self.key = key
    self.proceeds = proceeds
  }

  /// Gross minus refunds and estimated upgrade prorations (a refunded sale is in both gross and refunds).
  public var net: Int64 { gross &- refunds &- estimatedProrationRefunds }

  /// Whether part of this row is an estimate rather than a stated or catalog figure.
  public var hasEstimate: Bool { upgradeProrations != 0 || estimatedProrationRefunds != 0 }

  /// Adds `other` into this row; throws when a sum does not fit, and then changes nothing.
  public mutating func add(_ other: RevenueGroup) throws(ReceiptError) {
    set(try Sums(self).adding(other))
  }

  /// A row's figures without its key, so that a report's table holds nothing reference-counted and adds to a row
  /// in place.
  struct Sums {
    var units, trials, refunded, gross, refunds, upgradeProrations, estimatedProrationRefunds: Int64
    var proceeds: Int64?

    init(_ row: RevenueGroup) {
      (units, trials, refunded, gross, refunds) = (row.units, row.trials, row.refunded, row.gross, row.refunds)
      (upgradeProrations, estimatedProrationRefunds) = (row.upgradeProrations, row.estimatedProrationRefunds)
      proceeds = row.proceeds
    }

    /// These figures with `other`'s added, each sum checked in turn (the first that does not fit throws).
    func adding(_ other: RevenueGroup) throws(ReceiptError) -> Sums {
      var sum = self
      sum.units = try addMoney(units, other.units, what: "units")
      sum.trials = try addMoney(trials, other.trials, what: "trials")
      sum.refunded = try addMoney(refunded, other.refunded, what: "refunded units")
      sum.gross = try addMoney(gross, other.gross, what: "gross")
      sum.refunds = try addMoney(refunds, other.refunds, what: "refunds")
      sum.upgradeProrations = try addMoney(upgradeProrations, other.upgradeProrations, what: "upgrade prorations")
      sum.estimatedProrationRefunds = try addMoney(
        estimatedProrationRefunds, other.estimatedProrationRefunds, what: "estimated proration refunds")
      if let p = other.proceeds { sum.proceeds = try addMoney(proceeds ?? 0, p, what: "proceeds") }
      return sum
    }
  }

  /// The row `key` with `sums`' figures.
  init(key: String, _ sums: Sums) {
    self.key = key
    set(sums)
  }

  mutating func set(_ sums: Sums) {
    (units, trials, refunded, gross, refunds) = (sums.units, sums.trials, sums.refunded, sums.gross, sums.refunds)
    (upgradeProrations, estimatedProrationRefunds) = (sums.upgradeProrations, sums.estimatedProrationRefunds)
    proceeds = sums.proceeds
  }
}

/// One currency's rows and totals.
public struct CurrencyRevenue: Hashable, Sendable {
  public var currency: String
  public var groups: [RevenueGroup]
  /// The sum of the rows.
  public var total: RevenueGroup
  /// How much of `total` rests on a verified signature (`moneyBacking`), and the rest by reason.
  public var backing = BackedRevenue()
}

/// Transaction counts over everything read.
public struct RevenueCounts: Hashable, Sendable {
  /// Distinct owner transactions (PURCHASED or no ownership field): priced, unpriced, trial or refunded alike.
  public var counted = 0
  /// FAMILY_SHARED copies: the purchaser's transaction is the revenue, these never are.
  public var familySharedExcluded = 0
  /// Ownership values Apple does not document: not known to be the purchaser's, so not counted.
  public var unrecognizedOwnershipExcluded = 0
  /// Data that cannot say who bought a transaction (an on-device receipt): a family member's copy would count
  /// the purchase twice, so these are listed apart, not counted.
  public var unknownOwnershipExcluded = 0
  /// Rows or documents that repeated a transaction_id already read.
  public var duplicatesMerged = 0
  public var refunded = 0
  public var trials = 0
  public var unpriced = 0
  /// Transactions without a purchase date, left out because --from/--to was given.
  public var undatedExcluded = 0
  /// Upgraded owner transactions whose prorated refund was estimated from dates.
  public var upgradeProrations = 0
  /// Upgraded owner transactions whose refund could not be estimated (no replacing purchase, price or dates).
  public var upgradesNotEstimated = 0
  /// Transactions valued at the price the data states (signed data), not the catalog's.
  public var pricedFromTransaction = 0
  /// Refunds of part of the price: `revocationPercentage` below 100%.
  public var partialRefunds = 0
  /// Refunds Apple reversed (`REFUND_REVERSED`, or a later-signed copy without the revocation): the sale stands.
  public var refundsReversed = 0

  public init() {}

  public mutating func add(_ o: RevenueCounts) {
    counted += o.counted
    familySharedExcluded += o.familySharedExcluded
    unrecognizedOwnershipExcluded += o.unrecognizedOwnershipExcluded
    unknownOwnershipExcluded += o.unknownOwnershipExcluded
    duplicatesMerged += o.duplicatesMerged
    refunded += o.refunded
    trials += o.trials
    unpriced += o.unpriced
    undatedExcluded += o.undatedExcluded
    upgradeProrations += o.upgradeProrations
    upgradesNotEstimated += o.upgradesNotEstimated
    pricedFromTransaction += o.pricedFromTransaction
    partialRefunds += o.partialRefunds
    refundsReversed += o.refundsReversed
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

/// The revenue answer, owner-only [S33] §7.4: rows per currency (currencies are never added together), counts,
/// unpriced products and unreadable inputs.
public struct RevenueReport: Sendable {
  /// Every row's figures, in the order first added, and its currency's number (`currencyNames`) and key's number
  /// (`keyTexts`).
  private var rowFigures: [RevenueGroup.Sums] = []
  private var rowNames: [(currency: Int, key: Int)] = []
  /// Currencies in the order first added, each with the sum of its rows, kept as rows are added so every sum is
  /// overflow-checked.
  private var currencyNames: [String] = []
  private var totalFigures: [RevenueGroup.Sums] = []
  /// Each currency's money by backing class (`moneyBacking`), by currency number; made with the currency.
  private var backingFigures: [BackedRevenue] = []

  /// Each currency's total, in the order first added.
  var totals: [RevenueGroup] { totalFigures.map { RevenueGroup(key: "total", $0) } }
  public var counts = RevenueCounts()
  /// product id → unpriced units.
  public private(set) var unpriced: [String: Int64] = [:]
  public var errors: [RevenueInputError] = []
  public var hasProceeds: Bool

  public init(hasProceeds: Bool) { self.hasProceeds = hasProceeds }

  /// Row keys numbered (`keyNumber`), and each currency's row of each key number (-1: none yet), so that an event
  /// finds its row by two array reads: a report adds an event or two per transaction, to a handful of rows.
  /// Rows never move in `rowFigures`.
  private var keyTexts: [String] = []
  private var keyNumbers: [String: Int] = [:]
  private var placesByKey: [[Int]] = []
  /// The currency and the product id asked about last, with their numbers.
  /// (Apart, not optional tuples: those are copied, their text retained, to be compared.)
  private var lastCurrency = ""
  private var lastCurrencyNumber = -1
  private var lastProduct = ""
  private var lastProductKey = -1

  public mutating func add(_ group: RevenueGroup, currency: String) throws(ReceiptError) {
    try add(group, key: keyNumber(group.key), currency: currency)
  }

  /// Adds `group`'s figures to the row of key number `key` (`keyNumber`; `group.key` is not read) of `currency`.
  /// Nothing is stored unless both sums fit: not even a new row.
  mutating func add(_ group: RevenueGroup, key: Int, currency: String) throws(ReceiptError) {
    let c: Int
    if lastCurrencyNumber >= 0, lastCurrency == currency {
      c = lastCurrencyNumber
    } else if let known = currencyNames.firstIndex(of: currency) {
      c = known
      (lastCurrency, lastCurrencyNumber) = (currency, known)
    } else {
      try addRow(group, key: key, currency: currency)
      return
    }
    let place = key < placesByKey[c].count ? placesByKey[c][key] : -1
    guard place >= 0 else {
      try addRow(group, key: key, currency: currency)
      return
    }
    let row = try rowFigures[place].adding(group)
    let total = try totalFigures[c].adding(group)
    rowFigures[place] = row
    totalFigures[c] = total
  }

  /// Adds the first event of a row: the row is made, and its currency's total when it has none yet.
  private mutating func addRow(_ group: RevenueGroup, key: Int, currency: String) throws(ReceiptError) {
    let known = currencyNames.firstIndex(of: currency)
    let empty = RevenueGroup.Sums(RevenueGroup(key: "", proceeds: hasProceeds ? 0 : nil))
    let row = try empty.adding(group)
    let total = try (known.map { totalFigures[$0] } ?? empty).adding(group)
    let c: Int
    if let known {
      c = known
      totalFigures[c] = total
    } else {
      c = currencyNames.count
      currencyNames.append(currency)
      totalFigures.append(total)
      backingFigures.append(BackedRevenue())
      placesByKey.append([])
    }
    if placesByKey[c].count <= key { placesByKey[c] += Array(repeating: -1, count: key + 1 - placesByKey[c].count) }
    rowFigures.append(row)
    rowNames.append((c, key))
    placesByKey[c][key] = rowFigures.count - 1
  }

  /// Adds `figures` of `currency` to the class `backing` names; the currency's row was added first (`add`), so
  /// its figures are part of the currency's total.
  public mutating func addBacking(_ figures: BackedFigures, currency: String, as backing: MoneyBacking)
    throws(ReceiptError)
  {
    let c =
      lastCurrencyNumber >= 0 && lastCurrency == currency ? lastCurrencyNumber : currencyNames.firstIndex(of: currency)
    guard let c else { return }
    try backingFigures[c].add(figures, as: backing)
  }

  /// Adds a part's backing of `currency` (`--merge`), making the currency when it has no row yet.
  public mutating func addBacking(_ backing: BackedRevenue, currency: String) throws(ReceiptError) {
    if currencyNames.firstIndex(of: currency) == nil {
      currencyNames.append(currency)
      totalFigures.append(RevenueGroup.Sums(RevenueGroup(key: "", proceeds: hasProceeds ? 0 : nil)))
      backingFigures.append(BackedRevenue())
      placesByKey.append([])
    }
    guard let c = currencyNames.firstIndex(of: currency) else { return }
    try backingFigures[c].add(backing)
  }

  /// The number of the row key `text`, numbered in the order first asked.
  mutating func keyNumber(_ text: String) -> Int {
    if let known = keyNumbers[text] { return known }
    keyTexts.append(text)
    keyNumbers[text] = keyTexts.count - 1
    return keyTexts.count - 1
  }

  /// `grouping.key(productID:date:)`, remembered by UTC day for `--by month` and `day` (`rowNumber`).
  mutating func rowKey(_ grouping: RevenueGrouping, productID: String, date: Timestamp?) -> String {
    keyTexts[rowNumber(grouping, productID: productID, date: date)]
  }

  /// The number (`keyNumber`) of `grouping.key(productID:date:)`: remembered by UTC day for `--by month` and
  /// `day`, since a report makes a row key for every event, and writing a date's text costs more than the rest
  /// of the event; and the product id or day before compared first.
  mutating func rowNumber(_ grouping: RevenueGrouping, productID: String, date: Timestamp?) -> Int {
    if grouping == .product {
      if lastProductKey >= 0, lastProduct == productID { return lastProductKey }
      let key = keyNumber(productID)
      (lastProduct, lastProductKey) = (productID, key)
      return key
    }
    // Within 1970...9999 `iso8601` begins with the day's date whatever the time; outside it, no shortcut.
    guard grouping == .month || grouping == .day, let date, date.milliseconds >= 0,
      date.milliseconds <= Timestamp.maximumMilliseconds
    else { return keyNumber(grouping.key(productID: productID, date: date)) }
    let day = date.milliseconds / 86_400_000
    if dayKeysGrouping != grouping {
      (dayKeys, lastDay, dayKeysGrouping) = ([:], -1, grouping)
    }
    if day == lastDay { return lastDayKey }
    // A day's key is written once, the first time it is asked about.
    let key: Int
    if let known = dayKeys[day] {
      key = known
    } else {
      key = keyNumber(grouping.key(productID: productID, date: date))
      dayKeys[day] = key
    }
    (lastDay, lastDayKey) = (day, key)
    return key
  }

  /// Row key numbers by UTC day in `dayKeysGrouping`, and the day asked about last (`rowNumber`; -1: none, as no
  /// date before 1970 is kept here).
  private var dayKeys: [Int64: Int] = [:]
  private var dayKeysGrouping: RevenueGrouping?
  private var lastDay: Int64 = -1
  private var lastDayKey = 0

  public mutating func addUnpriced(productID: String, units: Int64) throws(ReceiptError) {
    unpriced[productID] = try addMoney(unpriced[productID] ?? 0, units, what: "unpriced units")
  }

  /// Whether any row holds an estimate (an upgrade proration).
  public var hasEstimates: Bool { totals.contains { $0.hasEstimate } }

  /// Currencies in alphabetical order, rows sorted by key, with totals.
  public var currencies: [CurrencyRevenue] {
    currencyNames.indices.sorted { currencyNames[$0] < currencyNames[$1] }.map { c in
      let groups = rowFigures.indices.filter { rowNames[$0].currency == c }
        .map { RevenueGroup(key: keyTexts[rowNames[$0].key], rowFigures[$0]) }.sorted { $0.key < $1.key }
      return CurrencyRevenue(
        currency: currencyNames[c], groups: groups, total: RevenueGroup(key: "total", totalFigures[c]),
        backing: backingFigures[c])
    }
  }

  /// Unpriced products sorted by product id.
  public var unpricedProducts: [(productID: String, units: Int64)] {
    unpriced.keys.sorted().map { ($0, unpriced[$0] ?? 0) }
  }

  /// Sums another report (a part read back with --merge) into this one.
  public mutating func merge(_ other: RevenueReport) throws(ReceiptError) {
    if !other.rowFigures.isEmpty {
      if rowFigures.isEmpty {
        hasProceeds = other.hasProceeds
      } else if hasProceeds != other.hasProceeds {
        throw .data(
          source: nil,
          message: "--merge: some parts have proceeds and some do not; merge parts made with the same --commission")
      }
    }
    for (i, name) in other.rowNames.enumerated() {
      try add(
        RevenueGroup(key: "", other.rowFigures[i]), key: keyNumber(other.keyTexts[name.key]),
        currency: other.currencyNames[name.currency])
    }
    for (c, name) in other.currencyNames.enumerated() { try addBacking(other.backingFigures[c], currency: name) }
    counts.add(other.counts)
    for (id, u) in other.unpriced { try addUnpriced(productID: id, units: u) }
    errors += other.errors
  }
}

/// What --from/--to select: events with from ≤ date < to. A sale is dated by its purchase date, a refund by
/// its own date (cancellation_date, revocationDate) and an upgrade proration by the replacing purchase, as
/// Apple's financial reports put each in the period it happened in.
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
