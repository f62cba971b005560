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
      // Every sum made, and whether any did not fit: then they are made again one by one, for the first error.
      var sum = self
      var overflow = false
      var o = false
      (sum.units, o) = units.addingReportingOverflow(other.units)
      overflow = overflow || o
      (sum.trials, o) = trials.addingReportingOverflow(other.trials)
      overflow = overflow || o
      (sum.refunded, o) = refunded.addingReportingOverflow(other.refunded)
      overflow = overflow || o
      (sum.gross, o) = gross.addingReportingOverflow(other.gross)
      overflow = overflow || o
      (sum.refunds, o) = refunds.addingReportingOverflow(other.refunds)
      overflow = overflow || o
      (sum.upgradeProrations, o) = upgradeProrations.addingReportingOverflow(other.upgradeProrations)
      overflow = overflow || o
      (sum.estimatedProrationRefunds, o) = estimatedProrationRefunds.addingReportingOverflow(
        other.estimatedProrationRefunds)
      overflow = overflow || o
      if let p = other.proceeds {
        let (total, o) = (proceeds ?? 0).addingReportingOverflow(p)
        sum.proceeds = total
        overflow = overflow || o
      }
      return overflow ? try addingInTurn(other) : sum
    }

    /// `adding`, each sum checked as it is made.
    func addingInTurn(_ other: RevenueGroup) throws(ReceiptError) -> Sums {
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

/// The revenue answer: rows per currency (currencies are never added together), counts,
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
  /// `unpriced`'s place of product ids asked about, by a hash of their bytes (`addUnpriced`).
  private var unpricedSlots: [UnpricedSlot] = []
  private static let unpricedSlotCount = 64

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
  /// of the event; and by product id, the one before compared first (an interned id: a pointer check).
  mutating func rowNumber(_ grouping: RevenueGrouping, productID: String, date: Timestamp?) -> Int {
    if grouping == .product {
      if lastProductKey >= 0, sameBytes(lastProduct, productID) { return lastProductKey }
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
      dayKeys = [:]
      monthKeys = [:]
      daySlots = []
      lastDay = -1
      dayKeysGrouping = grouping
    }
    if day == lastDay { return lastDayKey }
    // Days within `daySlotCount / 2` either side of the first one asked about are found by an array read;
    // others are hashed.
    if daySlots.isEmpty {
      daySlotBase = day - Int64(Self.daySlotCount / 2)
      daySlots = [Int32](repeating: -1, count: Self.daySlotCount)
    }
    let slot = day - daySlotBase
    let inSlots = slot >= 0 && slot < Int64(daySlots.count)
    let key: Int
    if inSlots, daySlots[Int(slot)] >= 0 {
      key = Int(daySlots[Int(slot)])
    } else if !inSlots, let known = dayKeys[day] {
      key = known
    } else if grouping == .month {
      // A month's key is written once, not once per day of it.
      let (year, month, _) = Timestamp.civil(fromDays: day)
      let m = year &* 12 &+ month
      if let known = monthKeys[m] {
        key = known
      } else {
        key = keyNumber(grouping.key(productID: productID, date: date))
        monthKeys[m] = key
      }
      if inSlots { daySlots[Int(slot)] = Int32(clamping: key) } else { dayKeys[day] = key }
    } else {
      key = keyNumber(grouping.key(productID: productID, date: date))
      // Row keys are a few per month or day: far fewer than Int32 holds.
      if inSlots { daySlots[Int(slot)] = Int32(clamping: key) } else { dayKeys[day] = key }
    }
    (lastDay, lastDayKey) = (day, key)
    return key
  }

  /// Row key numbers by UTC day in `dayKeysGrouping` (-1: none yet): `daySlots[day - daySlotBase]`, and beyond
  /// them `dayKeys`; and the day asked about last (`rowNumber`; -1: none, as no date before 1970 is kept here).
  private var daySlots: [Int32] = []
  private var daySlotBase: Int64 = 0
  private static let daySlotCount = 1 << 16
  private var dayKeys: [Int64: Int] = [:]
  /// `--by month`: row key numbers by year × 12 + month.
  private var monthKeys: [Int64: Int] = [:]
  private var dayKeysGrouping: RevenueGrouping?
  private var lastDay: Int64 = -1
  private var lastDayKey = 0

  public mutating func addUnpriced(productID: String, units: Int64) throws(ReceiptError) {
    // A report without a catalog adds every sale here: the id's place is found by a cheap hash of its bytes and
    // a byte comparison (the reader's threads each share their own String per id), not by hashing its text.
    let slot = Int(fnv1a(productID) % UInt32(Self.unpricedSlotCount))
    if slot < unpricedSlots.count, let at = unpricedSlots[slot].at, sameBytes(unpricedSlots[slot].key, productID) {
      unpriced.values[at] = try addMoney(unpriced.values[at], units, what: "unpriced units")
      return
    }
    guard let held = unpriced.index(forKey: productID) else {
      unpriced[productID] = try addMoney(0, units, what: "unpriced units")
      // A new key moves the dictionary's places.
      unpricedSlots.removeAll(keepingCapacity: true)
      return
    }
    unpriced.values[held] = try addMoney(unpriced.values[held], units, what: "unpriced units")
    if unpricedSlots.isEmpty { unpricedSlots = Array(repeating: UnpricedSlot(), count: Self.unpricedSlotCount) }
    unpricedSlots[slot] = UnpricedSlot(key: productID, at: held)
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

extension RevenueLedger {
  /// Values, filters and groups every transaction: each sale in the window of its purchase date, each refund
  /// in the window of its own date, each upgrade's estimated proration in the window of the upgrade.
  public func report(
    catalog: Catalog, grouping: RevenueGrouping, range: PurchaseDateRange = PurchaseDateRange(),
    commission: CommissionPlan = .none
  ) throws(ReceiptError) -> RevenueReport {
    // In purchase order even without proceeds: the first error met is the one the report throws.
    finished(
      try report(
        Array(0..<distinctTransactions), sorting: true, upgrades: upgradeMomentsByPosition(), catalog: catalog,
        grouping: grouping, range: range, commission: commission))
  }

  /// Some transactions of the ledger whose report is one term of a sum (`reportParts`): with proceeds, every
  /// transaction of each of its subscription chains.
  public struct ReportPart: Sendable {
    let positions: [Int]
    /// Whether `positions` are in purchase order already; else the part's report sorts them (on its own thread)
    /// when it tracks the commission year.
    let isInPurchaseOrder: Bool
    /// `upgradeMomentsByPosition()`, shared by every part.
    let upgrades: [Timestamp?]
    /// Each position's subscription chain number in one numbering of the whole ledger (`chainNumbers`); empty
    /// when the part's report numbers its own.
    var chains: [Int32] = []
  }

  /// The purchase order cut into `count` parts whose reports, each made alone (`report(of:)`, one thread each if
  /// the caller likes), sum to the one-pass report (`report(summing:)`); nil when it must be made in one pass.
  ///
  /// Without proceeds the paid service before a sale (the one fact that needs the sales before it) is not
  /// tracked, so no part needs the sales of another, and the transactions are cut in the order they are kept.
  /// With proceeds each subscription chain goes whole to one part (by a hash of its id, `chainPart`; one pass when
  /// a chain id is not ASCII), and each part's report sorts its own transactions into purchase order: a chain's
  /// sales come in the order one pass takes them, so each sale's commission year is the same.
  ///
  /// The sum is the one pass's report exactly. Without a negative price every total but proceeds only grows, so
  /// a part or the sum overflows exactly when one pass does. Proceeds also fall (refunds, upgrade prorations):
  /// `report(summing:)` makes the one pass when they could have left Int64 in some order. On any error the caller
  /// makes that pass, so the error is the one it meets first.
  public func reportParts(_ count: Int, commission: CommissionPlan, pieces: [ChainPartsPiece]? = nil)
    -> [ReportPart]?
  {
    guard count > 1 else { return nil }
    let hasNegativePrice =
      firstDocument.indices.contains { firstDocument[$0].price.map { $0.amount.units < 0 } ?? false }
      || rare.contains { $0.price.map { $0.amount.units < 0 } ?? false }
    guard !hasNegativePrice else { return nil }
    let total = distinctTransactions
    guard total >= count else { return nil }
    // The pieces (`chainParts`, made on several cores by the caller) when they cover the ledger for `count`.
    let given = pieces.flatMap { pieces in
      pieces.map(\.positions.count).reduce(0, +) == total && pieces.allSatisfy { $0.partCount == count }
        && zip(pieces, pieces.dropFirst()).allSatisfy { $0.positions.upperBound == $1.positions.lowerBound }
        ? pieces : nil
    }
    let anyUpgraded = given.map { $0.contains { $0.anyUpgraded } } ?? (0..<total).contains { isUpgraded(at: $0) }
    guard commission != .none else {
      let upgrades = anyUpgraded ? upgradeMomentsByPosition(chains: nil) : []
      // Cut in the order kept, not in purchase order: the sum does not depend on the order, and reading the
      // transactions in the order they lie in memory saves the sort and a cache miss on each.
      return (0..<count).map { i in
        ReportPart(
          positions: Array(total * i / count..<total * (i + 1) / count), isInPurchaseOrder: false,
          upgrades: upgrades)
      }
    }
    var positions = [[Int]](repeating: [], count: count)
    for i in positions.indices { positions[i].reserveCapacity(total / count + total / 8) }
    guard anyUpgraded else {
      // Each transaction's part from its chain id (`chainPart`); each part numbers its own chains.
      if let given {
        guard given.allSatisfy({ $0.parts.count == $0.positions.count }) else { return nil }
        for piece in given {
          for (k, part) in piece.parts.enumerated() { positions[Int(part)].append(piece.positions.lowerBound + k) }
        }
      } else {
        for p in 0..<total {
          guard let part = chainPart(at: p, of: count) else { return nil }
          positions[part].append(p)
        }
      }
      return positions.map { ReportPart(positions: $0, isInPurchaseOrder: false, upgrades: []) }
    }
    // Upgrades need every chain numbered (`upgradeMomentsByPosition`): numbered once, in one pass, for the
    // moments and the parts, each chain's part from its first transaction's id (`chainPart`: ids of one number
    // are the same bytes when every id is ASCII), and each part given its chain numbers.
    let numbered = given.map { chainNumbers(from: $0) } ?? chainNumbers()
    guard numbered.allASCII else { return nil }
    var partOfChain: [Int] = []
    partOfChain.reserveCapacity(numbered.count)
    var chains = [[Int32]](repeating: [], count: count)
    for i in chains.indices { chains[i].reserveCapacity(total / count + total / 8) }
    for p in 0..<total {
      let chain = numbered.numbers[p]
      if Int(chain) == partOfChain.count {
        guard let part = chainPart(at: p, of: count) else { return nil }
        partOfChain.append(part)
      }
      let part = partOfChain[Int(chain)]
      positions[part].append(p)
      chains[part].append(chain)
    }
    let upgrades = upgradeMomentsByPosition(chains: numbered.numbers)
    return positions.indices.map { i in
      ReportPart(positions: positions[i], isInPurchaseOrder: false, upgrades: upgrades, chains: chains[i])
    }
  }

  /// What `chainParts` finds in some positions: whether one is upgraded, and (when asked) each one's part.
  public struct ChainPartsPiece: Sendable {
    let positions: Range<Int>
    let partCount: Int
    /// `chainPart(at:of: partCount)` of each position; empty when not asked for.
    let parts: [UInt8]
    /// With an upgrade among them and proceeds: each position's chain number among the piece's own, each of
    /// those chains' first position, and whether every chain id is ASCII (`chainNumbers(from:)`).
    var chains: [Int32] = []
    var firstOfChain: [Int] = []
    var allASCII = true
    let anyUpgraded: Bool
  }

  /// The ledger's positions cut into `pieces` ranges in order, for `chainParts` on as many cores.
  public func chainPartRanges(_ pieces: Int) -> [Range<Int>] {
    let total = distinctTransactions
    let n = max(1, pieces)
    return (0..<n).map { i in total * i / n..<total * (i + 1) / n }
  }

  /// For `reportParts`, made apart so that the caller can make each range's on its own core: whether a
  /// transaction at `positions` is upgraded, and with proceeds each one's part of `count` (`chainPart`); nil
  /// when a chain id is not ASCII (the report is then made in one pass).
  public func chainParts(of positions: Range<Int>, count: Int, commission: CommissionPlan) -> ChainPartsPiece? {
    let anyUpgraded = positions.contains { isUpgraded(at: $0) }
    if anyUpgraded, commission != .none {
      // The piece's chains numbered on its own core; `chainNumbers(from:)` numbers the pieces' chains in turn.
      var numbering = ChainNumbering()
      var piece = ChainPartsPiece(positions: positions, partCount: count, parts: [], anyUpgraded: true)
      piece.chains.reserveCapacity(positions.count)
      for p in positions {
        let n = chainNumber(at: p, in: &numbering)
        if n == piece.firstOfChain.count { piece.firstOfChain.append(p) }
        piece.chains.append(Int32(truncatingIfNeeded: n))
      }
      piece.allASCII = numbering.allASCII
      return piece
    }
    guard commission != .none, !anyUpgraded, count <= Int(UInt8.max) else {
      return ChainPartsPiece(positions: positions, partCount: count, parts: [], anyUpgraded: anyUpgraded)
    }
    var parts: [UInt8] = []
    parts.reserveCapacity(positions.count)
    for p in positions {
      guard let part = chainPart(at: p, of: count) else { return nil }
      parts.append(UInt8(truncatingIfNeeded: part))
    }
    return ChainPartsPiece(positions: positions, partCount: count, parts: parts, anyUpgraded: false)
  }

  /// `chainNumbers()` from pieces in order (`chainParts`): each piece's chains numbered in turn by their first
  /// position, which numbers them in the order they first appear, as one pass does; a piece without its own
  /// numbers (no upgrade among it) is numbered here.
  func chainNumbers(from pieces: [ChainPartsPiece]) -> (numbers: [Int32], count: Int, allASCII: Bool) {
    var chains = ChainNumbering()
    var numbers: [Int32] = []
    numbers.reserveCapacity(distinctTransactions)
    var allASCII = true
    for piece in pieces {
      guard piece.chains.count == piece.positions.count, piece.firstOfChain.count <= piece.positions.count else {
        for p in piece.positions { numbers.append(Int32(truncatingIfNeeded: chainNumber(at: p, in: &chains))) }
        continue
      }
      allASCII = allASCII && piece.allASCII
      let global = piece.firstOfChain.map { Int32(truncatingIfNeeded: chainNumber(at: $0, in: &chains)) }
      for local in piece.chains {
        // Each local number is below `firstOfChain.count`, as `chainParts` made them.
        guard Int(local) < global.count else { return chainNumbers() }
        numbers.append(global[Int(local)])
      }
    }
    return (numbers, chains.count, allASCII && chains.allASCII)
  }

  /// Every position's subscription chain number (`chainNumber(at:in:)`, numbered in position order), and whether
  /// every chain id is ASCII.
  func chainNumbers() -> (numbers: [Int32], count: Int, allASCII: Bool) {
    var chains = ChainNumbering()
    var numbers: [Int32] = []
    numbers.reserveCapacity(distinctTransactions)
    for p in 0..<distinctTransactions { numbers.append(Int32(truncatingIfNeeded: chainNumber(at: p, in: &chains))) }
    return (numbers, chains.count, chains.allASCII)
  }

  /// The report of the transactions of `part` alone, to be summed by `report(summing:)`.
  public func report(
    of part: ReportPart, catalog: Catalog, grouping: RevenueGrouping, range: PurchaseDateRange,
    commission: CommissionPlan
  ) throws(ReceiptError) -> RevenueReport {
    // Only the commission year reads the sales in order: without it, a part is read as it was cut.
    try report(
      part.positions, sorting: !part.isInPurchaseOrder && commission != .none, upgrades: part.upgrades,
      chains: part.chains, catalog: catalog, grouping: grouping, range: range, commission: commission)
  }

  /// The report of the transactions at `positions`, put in purchase order first when `sorting`; read through
  /// rows (`forEachReportRecord`) unless `readsRows` is false (tests compare the two), when each transaction is
  /// loaded whole in purchase order (`forEachRecord`).
  func report(
    _ positions: [Int], sorting: Bool, upgrades: [Timestamp?], chains: [Int32] = [], catalog: Catalog,
    grouping: RevenueGrouping, range: PurchaseDateRange, commission: CommissionPlan, readsRows: Bool = true
  ) throws(ReceiptError) -> RevenueReport {
    var report = RevenueReport(hasProceeds: commission != .none)
    // One transaction at a time, so the report needs no second copy of the ledger.
    if readsRows {
      let notOwned = try forEachReportRecord(
        positions, sorting: sorting, upgrades: upgrades, chains: chains, catalog: catalog,
        tracksPaidService: commission != .none, countingNotOwnedIn: range
      ) { (record) throws(ReceiptError) in
        try record.addEvents(grouping: grouping, range: range, commission: commission, into: &report)
      }
      report.counts.add(notOwned)
      return report
    }
    try forEachRecord(
      sorting ? purchaseOrder(of: positions) : positions, upgrades: upgrades, catalog: catalog, copy: "",
      tracksPaidService: commission != .none
    ) { (record) throws(ReceiptError) in
      try record.addEvents(grouping: grouping, range: range, commission: commission, into: &report)
    }
    return report
  }

  /// The ledger's report from its parts' reports (`reportParts`, in order); nil when a sum overflows (the one
  /// pass then meets the error first), or when proceeds could have: one pass adds a currency's sales, refunds
  /// and prorations in another order than the parts do, and proceeds fall by at most its refunds and estimated
  /// proration refunds, and rise by at most its gross, so only when those fit is every order's sum inside Int64.
  public func report(summing parts: [RevenueReport]) -> RevenueReport? {
    guard var sum = parts.first else { return nil }
    do throws(ReceiptError) {
      for other in parts.dropFirst() { try sum.merge(other) }
    } catch {
      return nil
    }
    if sum.hasProceeds,
      sum.totals.contains(where: { $0.refunds.addingReportingOverflow($0.estimatedProrationRefunds).overflow })
    {
      return nil
    }
    return finished(sum)
  }

  /// `report` with what only the whole ledger knows: duplicate rows merged, inputs that could not be read.
  private func finished(_ report: RevenueReport) -> RevenueReport {
    var report = report
    report.counts.duplicatesMerged = duplicatesMerged
    report.errors = errors
    return report
  }

  /// Every distinct transaction as a ledger record: what `revenue --format ledger` writes for one document.
  /// - Parameters:
  ///   - catalog: prices, currencies and product types.
  ///   - copy: names the document the records come from (a digest of its bytes).
  /// - Returns: the records in purchase order; the first carries the document's merged duplicate rows.
  /// - Throws: `ReceiptError` when a catalog price cannot be written in its currency or overflows.
  public func records(catalog: Catalog, copy: String) throws(ReceiptError) -> [LedgerRecord] {
    var out: [LedgerRecord] = []
    out.reserveCapacity(distinctTransactions)
    try forEachRecord(
      purchaseOrder(), upgrades: upgradeMomentsByPosition(), catalog: catalog, copy: copy, tracksPaidService: true
    ) { (record) throws(ReceiptError) in out.append(record) }
    if !out.isEmpty { out[0].duplicateRows = duplicatesMerged }
    return out
  }

  /// Calls `body` with the record of each transaction at `positions` (in purchase order): its value, the paid
  /// service of its subscription before it (for the commission year) and its upgrade estimate (`upgrades` is
  /// `upgradeMomentsByPosition()`). Paid service is tracked only when `tracksPaidService` (nil otherwise): it counts the
  /// sales among `positions`, so those must then hold every position of each of their subscription chains.
  func forEachRecord(
    _ positions: [Int], upgrades: [Timestamp?], catalog: Catalog, copy: String, tracksPaidService: Bool,
    _ body: (LedgerRecord) throws(ReceiptError) -> Void
  ) throws(ReceiptError) {
    var maker = RecordMaker(lookup: CatalogLookup(catalog), tracksPaidService: tracksPaidService, copy: copy)
    // Entries keep no field names (no revenue figure quotes one): a loaded entry takes the first document's.
    // Without a first document's transaction there are no entries either, so no position to record.
    guard let names = firstDocument.first?.vocabulary else { return }
    var loaded = PurchaseTransaction(transactionID: "", productID: "", vocabulary: names)
    // The first document's transactions are loaded field by field, as entries are: an array's element passed
    // on is a copy, every field retained and released.
    try firstDocument.withUnsafeBufferPointer { (whole) throws(ReceiptError) in
      guard let first = whole.baseAddress else { return }
      for position in positions {
        if position < whole.count {
          load(first + position, into: &loaded)
        } else {
          load(entries[position - whole.count], into: &loaded)
        }
        let upgradedAt = position < upgrades.count ? upgrades[position] : nil
        try body(try maker.record(loaded, at: position, upgradedAt: upgradedAt, in: self))
      }
    }
  }

  /// `forEachRecord` for a report: the transactions at `positions` read first into rows (`reportRows`), in the
  /// order kept (with their chain numbers `chains` when given, one per position), and then, in purchase order when `sorting` (else in the order of `positions`), each plain one
  /// loaded from its row and the rest whole. A record's transaction id is left empty when it comes from a row:
  /// no figure reads it, and a record that throws is made again from the transaction read whole, whose error
  /// quotes it.
  ///
  /// With `range`, a plain row its purchaser does not own (FAMILY_SHARED, or no ownership field) is only
  /// counted, in the counts returned, as `addEvents` counts it: such a record is never valued, adds no paid
  /// service and books no event, whatever else it states.
  @discardableResult
  func forEachReportRecord(
    _ positions: [Int], sorting: Bool, upgrades: [Timestamp?], chains: [Int32], catalog: Catalog,
    tracksPaidService: Bool, countingNotOwnedIn range: PurchaseDateRange? = nil,
    _ body: (LedgerRecord) throws(ReceiptError) -> Void
  ) throws(ReceiptError) -> RevenueCounts {
    var counted = RevenueCounts()
    var maker = RecordMaker(lookup: CatalogLookup(catalog), tracksPaidService: tracksPaidService, copy: "")
    guard let names = firstDocument.first?.vocabulary else { return counted }
    var loaded = PurchaseTransaction(transactionID: "", productID: "", vocabulary: names)
    let gathered = reportRows(
      positions, chains: chains, numbersChains: tracksPaidService && chains.count != positions.count,
      readsIDOrder: sorting, countingNotOwnedIn: range)
    let order = sorting ? purchaseOrder(of: gathered.rows) : Array(gathered.rows.indices)
    // Each row's product looked up once (a lookup hashed the id's bytes per transaction).
    let facts = gathered.products.map { maker.lookup.facts($0) }
    counted = gathered.counted
    try firstDocument.withUnsafeBufferPointer { (whole) throws(ReceiptError) in
      guard let first = whole.baseAddress else { return }
      var idLoaded = false
      for i in order {
        let row = gathered.rows[i]
        let position = row.position
        let upgradedAt = position < upgrades.count ? upgrades[position] : nil
        let chain: Int? = row.chain >= 0 ? Int(row.chain) : nil
        let record: LedgerRecord
        if row.product >= 0 {
          load(row, products: gathered.products, into: &loaded)
          if idLoaded {
            loaded.transactionID = ""
            idLoaded = false
          }
          do throws(ReceiptError) {
            record = try maker.record(
              loaded, at: position, upgradedAt: upgradedAt, chain: chain, facts: facts[Int(row.product)], in: self)
          } catch {
            // Only valuing throws, before the record changes anything: made again with the id to quote.
            load(first + position, into: &loaded)
            idLoaded = true
            record = try maker.record(loaded, at: position, upgradedAt: upgradedAt, chain: chain, in: self)
          }
        } else {
          if position < whole.count {
            load(first + position, into: &loaded)
          } else {
            load(entries[position - whole.count], into: &loaded)
          }
          idLoaded = true
          record = try maker.record(loaded, at: position, upgradedAt: upgradedAt, chain: chain, in: self)
        }
        try body(record)
      }
    }
    return counted
  }

  /// What `forEachRecord` carries from one transaction to the next: the catalog's entries, and each subscription
  /// chain's paid service so far (by chain number), in purchase order, for the standard plan's second year. A
  /// struct's own fields, where variables a nested function captured were checked for exclusive access at every
  /// use.
  struct RecordMaker {
    var lookup: CatalogLookup
    var chains = ChainNumbering()
    var service: [PaidServiceSoFar] = []
    let tracksPaidService: Bool
    let copy: String

    init(lookup: CatalogLookup, tracksPaidService: Bool, copy: String) {
      self.lookup = lookup
      self.tracksPaidService = tracksPaidService
      self.copy = copy
    }

    /// The record of `t`, at `position` of `ledger`, upgraded at `upgradedAt` (`upgradeMoments()`); `numbered` is
    /// its chain's number when the caller numbered it (`reportRows`), else it is numbered here; `given` its
    /// product's catalog facts when the caller looked them up (`lookup.facts` of its product id), else they are
    /// looked up here.
    mutating func record(
      _ t: borrowing PurchaseTransaction, at position: Int, upgradedAt: Timestamp?, chain numbered: Int? = nil,
      facts given: CatalogProductFacts? = nil, in ledger: RevenueLedger
    ) throws(ReceiptError) -> LedgerRecord {
      let facts = given ?? lookup.facts(t.productID)
      let isSubscription =
        tracksPaidService && resolveProductType(of: t, product: facts.product)?.type == .autoRenewable
      let chain = isSubscription ? numbered ?? ledger.chainNumber(at: position, in: &chains) : nil
      if let chain, chain >= service.count {
        service += repeatElement(PaidServiceSoFar(), count: chain + 1 - service.count)
      }
      // What Apple knew at the sale: a refund after it does not change the commission charged then.
      let before: Int64? = chain.map { service[$0].before(sale: t.purchaseDate) }
      let value: TransactionValue? = t.isOwnedByPurchaser ? try valueOf(t, product: facts) : nil
      if let chain, t.isOwnedByPurchaser {
        var isTrial = false
        if case .trial = value { isTrial = true }
        // Its service as bought: a refund counts apart, from its own date. (Copied only when refunded.)
        let paid: Int64
        if t.revocation == nil {
          paid = paidService(of: t, isTrial: isTrial)
        } else {
          var unrefunded = copy t
          unrefunded.revocation = nil
          paid = paidService(of: unrefunded, isTrial: isTrial)
        }
        service[chain].add(milliseconds: paid, refunded: t.revocation?.date)
      }
      return LedgerRecord(
        transaction: t, value: value, copy: copy, paidServiceBefore: before,
        upgrade: try LedgerUpgrade(of: t, value: value, upgradedAt: upgradedAt),
        evidence: ledger.evidence(at: position))
    }
  }

  /// When each upgraded transaction was upgraded: the first later purchase of its subscription chain or group
  /// (the same rule as `UpgradeMoments`), by position.
  func upgradeMoments() -> [Int: Timestamp] {
    var moments: [Int: Timestamp] = [:]
    for (i, moment) in upgradeMomentsByPosition().enumerated() { moments[i] = moment }
    return moments
  }

  /// `upgradeMoments()` as an array by position (nil: not upgraded, or no later purchase; empty: nothing
  /// upgraded), so that each record reads its own without hashing its position.
  func upgradeMomentsByPosition() -> [Timestamp?] { upgradeMomentsByPosition(chains: nil) }

  /// `upgradeMomentsByPosition()`, with every position's chain number given when the caller has them
  /// (`chainNumbers`: any numbering of the chains will do).
  func upgradeMomentsByPosition(chains numbered: [Int32]?) -> [Timestamp?] {
    let positions = 0..<distinctTransactions
    // Upgrades are rare: most ledgers need no chains at all.
    guard positions.contains(where: { isUpgraded(at: $0) }) else { return [] }
    // Chains and groups numbered (no key hashed per transaction) and the purchases indexed by date as the known
    // history's are (`DatedPurchases`): the replacing purchase is read from where the upgraded one stands in its
    // chain and group, as `UpgradeMoments` reads it (a pass over the group per upgrade was quadratic on a batch
    // whose customers share their app's groups). RuleFastPathTests compares the scan.
    var chains = ChainNumbering()
    var groups = KeyNumbering()
    var chainNumbers: [Int32] = []
    var groupNumbers: [Int32] = []
    chainNumbers.reserveCapacity(positions.count)
    groupNumbers.reserveCapacity(positions.count)
    // A ledger's transactions share a handful of groups: the group before is compared first (as `chainNumber`
    // compares the chain before), its bytes, before its text is numbered.
    var (lastGroup, lastGroupNumber) = ("", Int32(-1))
    for i in positions {
      chainNumbers.append(numbered?[i] ?? Int32(truncatingIfNeeded: chainNumber(at: i, in: &chains)))
      guard let group = subscriptionGroup(at: i) else {
        groupNumbers.append(-1)
        continue
      }
      if lastGroupNumber < 0 || !sameBytes(lastGroup, group) {
        (lastGroup, lastGroupNumber) = (group, Int32(truncatingIfNeeded: groups.number(of: group)))
      }
      groupNumbers.append(lastGroupNumber)
    }
    let purchases = DatedPurchases(chainNumbers: chainNumbers, groupNumbers: groupNumbers) { purchaseDate(at: $0) }
    var moments = [Timestamp?](repeating: nil, count: positions.count)
    for i in positions where isUpgraded(at: i) {
      let inChain = purchases.chainAfterItsPurchase(of: i).first?.at
      let inGroup = purchases.groupAfterItsPurchase(of: i).first?.at
      moments[i] = inChain.map { c in inGroup.map { min(c, $0) } ?? c } ?? inGroup
    }
    return moments
  }
}

/// A subscription's paid service so far, in purchase order: a running total, and the refunded periods apart,
/// since a refund counts against a later sale only once it had happened. Refunds are few, so a sale costs
/// one pass over them rather than over the whole subscription.
struct PaidServiceSoFar {
  var total: Int64 = 0
  var refunded: [(milliseconds: Int64, at: Timestamp)] = []

  mutating func add(milliseconds: Int64, refunded at: Timestamp?) {
    total = total &+ milliseconds
    if let at { refunded.append((milliseconds, at)) }
  }

  /// Paid service before a sale, counting only refunds that had happened by then (every refund, when the
  /// sale has no date).
  func before(sale: Timestamp?) -> Int64 {
    var paid = total
    for r in refunded where sale.map({ r.at <= $0 }) ?? true { paid = paid &- r.milliseconds }
    return paid
  }
}

extension LedgerRecord {
  /// Adds this transaction's sale, refund and upgrade proration to `report`, each in the window and row of its
  /// own date, or counts why it is not revenue.
  /// - Throws: `ReceiptError` when a price × quantity or a sum does not fit.
  func addEvents(
    grouping: RevenueGrouping, range: PurchaseDateRange, commission: CommissionPlan, into report: inout RevenueReport
  ) throws(ReceiptError) {
    guard let saleInRange = range.contains(purchaseDate) else {
      report.counts.undatedExcluded += 1
      return
    }
    switch ownership {
    case .familyShared:
      if saleInRange { report.counts.familySharedExcluded += 1 }
      return
    case .unrecognized:
      if saleInRange { report.counts.unrecognizedOwnershipExcluded += 1 }
      return
    case .unknown:
      if saleInRange { report.counts.unknownOwnershipExcluded += 1 }
      return
    case .purchased:
      break
    }
    let rate = commission == .none ? nil : commissionPercent(plan: commission, paidServiceBefore: paidServiceBefore)
    let value = try value()
    let events = TransactionEvents(
      productID: productID, purchaseDate: purchaseDate, units: units, value: value, grouping: grouping,
      rate: rate, backing: moneyBacking(of: value, evidence: evidence))
    if saleInRange { try events.sale(into: &report) }
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
  func book(_ row: RevenueGroup, key: Int, currency: String, sale: Bool, into report: inout RevenueReport)
    throws(ReceiptError)
  {
    try report.add(row, key: key, currency: currency)
    var figures = BackedFigures(proceeds: row.proceeds)
    (figures.gross, figures.refunds, figures.estimatedProrationRefunds) = (
      row.gross, row.refunds, row.estimatedProrationRefunds
    )
    figures.transactions = sale ? 1 : 0
    try report.addBacking(figures, currency: currency, as: backing)
  }

  /// An empty row of the event on `date`, and its key's number (the row's key text is the report's to set).
  func row(at date: Timestamp?, in report: inout RevenueReport) -> (RevenueGroup, key: Int) {
    (RevenueGroup(key: "", proceeds: rate.map { _ in 0 }), report.rowNumber(grouping, productID: productID, date: date))
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
      var (row, key) = row(at: purchaseDate, in: &report)
      row.units = units
      row.trials = units
      try book(row, key: key, currency: currency, sale: true, into: &report)
    case .paid(let money, let basis):
      if basis == .transactionPrice { report.counts.pricedFromTransaction += 1 }
      var (row, key) = row(at: purchaseDate, in: &report)
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
    var (row, key) = row(at: date, in: &report)
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
      var (row, key) = row(at: upgraded, in: &report)
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

/// A product id's place in `RevenueReport.unpriced` (nil: none), kept in the slot of the id's FNV-1a hash.
struct UnpricedSlot {
  var key = ""
  var at: Dictionary<String, Int64>.Index?
}
