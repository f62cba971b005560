import ReceiptModel

/// How revenue rows are grouped.
public enum RevenueGrouping: String, Sendable, CaseIterable {
  case product, month, day, none

  /// The row of an event of a product on `date` (a sale on its purchase date, a refund on its own date): its product
  /// id, the month (`2024-06`) or day (`2024-06-15`) in UTC, or `all`; an event without a date is `undated`.
  public func key(productID: String, date: Timestamp?) -> String {
    switch self {
    case .product: return productID
    case .none: return "all"
    case .month: return date.map { String($0.iso8601.prefix(7)) } ?? "undated"
    case .day: return date.map { String($0.iso8601.prefix(10)) } ?? "undated"
    }
  }

  /// The row of an event of a product on `date`, as a key whose text is `key(productID:date:)`: a month or day
  /// is a number, written as text once, when the report is read.
  func rowKey(productID: String, date: Timestamp?) -> RevenueRowKey {
    // Within 1970...9999 `iso8601` begins with the day's date whatever the time; outside it, the text is kept.
    guard self == .month || self == .day, let date, Timestamp(milliseconds: date.milliseconds) != nil else {
      return .text(key(productID: productID, date: date))
    }
    let day = date.milliseconds / 86_400_000
    guard self == .month else { return .day(day) }
    let (year, month, _) = Timestamp.civil(fromDays: day)
    return .month(year * 12 + month - 1)
  }
}

/// The row an event goes in: a product id or other text, or a UTC month or day as a number.
enum RevenueRowKey: Hashable {
  case text(String)
  /// Months since January of year 0 (`year * 12 + month - 1`).
  case month(Int64)
  /// Days since 1970-01-01.
  case day(Int64)

  /// The key as rows show it: `2024-06`, `2024-06-15`, or the text.
  var text: String {
    switch self {
    case .text(let text): text
    case .day(let day): Timestamp(unchecked: day * 86_400_000).date
    case .month(let months):
      String(
        Timestamp(unchecked: Timestamp.days(year: months / 12, month: months % 12 + 1, day: 1) * 86_400_000).date
          .prefix(7))
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
  /// Its charges on commitment plans and the commitments they started.
  public var commitments = CommitmentTotals()
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
  /// One currency's rows by key, the sum of its rows (kept as rows are added, so every sum is overflow-checked)
  /// and its money by backing class (`moneyBacking`).
  private struct CurrencyFigures {
    var rows = LastKeyDictionary<RevenueRowKey, RevenueGroup.Sums>()
    var total: RevenueGroup.Sums
    var backing = BackedRevenue()
    var commitments = CommitmentTotals()

    /// Adds `group` to the row `key` and to the total; nothing is stored unless both sums fit.
    mutating func add(_ group: RevenueGroup, key: RevenueRowKey, empty: RevenueGroup.Sums) throws(ReceiptError) {
      let total = try self.total.adding(group)
      try rows.update(key, empty: empty) { (row) throws(ReceiptError) in try row.adding(group) }
      self.total = total
    }
  }

  /// Currency codes in the order first added, numbering `figures`.
  private var currencyNumbers = LastKeyDictionary<String, Int>()
  private var figures: [CurrencyFigures] = []
  public var counts = RevenueCounts()
  /// product id → unpriced units.
  public private(set) var unpriced: [String: Int64] = [:]
  public var errors: [RevenueInputError] = []
  public var hasProceeds: Bool

  public init(hasProceeds: Bool) { self.hasProceeds = hasProceeds }

  /// An empty row, with proceeds when the report has them.
  private var emptyRow: RevenueGroup.Sums {
    RevenueGroup.Sums(RevenueGroup(key: "", proceeds: hasProceeds ? 0 : nil))
  }

  /// The number of `currency`'s figures, made empty when it has none yet.
  private mutating func currencyNumber(_ currency: String) -> Int {
    if let known = currencyNumbers.value(of: currency) { return known }
    figures.append(CurrencyFigures(total: emptyRow))
    currencyNumbers.update(currency, empty: figures.count - 1) { $0 }
    return figures.count - 1
  }

  /// Adds `group`'s figures to the row of its key in `currency`.
  public mutating func add(_ group: RevenueGroup, currency: String) throws(ReceiptError) {
    try add(group, key: .text(group.key), currency: currency)
  }

  /// Adds `group`'s figures to the row `key` (`group.key` is not read) of `currency`, and returns the currency's
  /// number. Nothing is stored unless both sums fit: not even a new row or currency.
  @discardableResult
  mutating func add(_ group: RevenueGroup, key: RevenueRowKey, currency: String) throws(ReceiptError) -> Int {
    if let c = currencyNumbers.value(of: currency) {
      try figures[c].add(group, key: key, empty: emptyRow)
      return c
    }
    var made = CurrencyFigures(total: emptyRow)
    try made.add(group, key: key, empty: emptyRow)
    let c = currencyNumber(currency)
    figures[c] = made
    return c
  }

  /// Adds `group` as `add(_:key:currency:)` does, and `money` to the class `backing` names.
  mutating func add(
    _ group: RevenueGroup, key: RevenueRowKey, currency: String, money: BackedFigures, as backing: MoneyBacking
  ) throws(ReceiptError) {
    let c = try add(group, key: key, currency: currency)
    try figures[c].backing.add(money, as: backing)
  }

  /// Adds a part's backing of `currency` (`--merge`), making the currency when it has no row yet.
  public mutating func addBacking(_ backing: BackedRevenue, currency: String) throws(ReceiptError) {
    try figures[currencyNumber(currency)].backing.add(backing)
  }

  /// Adds commitment charges of `currency` (a sale's, or a part's with `--merge`), making the currency when it
  /// has no row yet.
  public mutating func addCommitments(_ totals: CommitmentTotals, currency: String) throws(ReceiptError) {
    try figures[currencyNumber(currency)].commitments.add(totals)
  }

  public mutating func addUnpriced(productID: String, units: Int64) throws(ReceiptError) {
    // Found once: an entry made here holds 0 + units, which fits, so nothing is added when the sum throws.
    try Self.add(units, to: &unpriced[productID, default: 0])
  }

  private static func add(_ units: Int64, to sum: inout Int64) throws(ReceiptError) {
    sum = try addMoney(sum, units, what: "unpriced units")
  }

  /// Whether any row holds an estimate (an upgrade proration).
  public var hasEstimates: Bool { figures.contains { RevenueGroup(key: "total", $0.total).hasEstimate } }

  /// Currencies in alphabetical order, rows sorted by key, with totals.
  public var currencies: [CurrencyRevenue] {
    currencyNumbers.elements.sorted { $0.key < $1.key }.map { currency, number in
      let c = figures[number]
      let groups = c.rows.elements.map { RevenueGroup(key: $0.key.text, $0.value) }.sorted { $0.key < $1.key }
      return CurrencyRevenue(
        currency: currency, groups: groups, total: RevenueGroup(key: "total", c.total), backing: c.backing,
        commitments: c.commitments)
    }
  }

  /// Unpriced products sorted by product id.
  public var unpricedProducts: [(productID: String, units: Int64)] {
    unpriced.keys.sorted().map { ($0, unpriced[$0] ?? 0) }
  }

  /// Sums another report (a part read back with --merge) into this one.
  public mutating func merge(_ other: RevenueReport) throws(ReceiptError) {
    if other.figures.contains(where: { !$0.rows.elements.isEmpty }) {
      if !figures.contains(where: { !$0.rows.elements.isEmpty }) {
        hasProceeds = other.hasProceeds
      } else if hasProceeds != other.hasProceeds {
        throw .data(
          source: nil,
          message: "--merge: some parts have proceeds and some do not; merge parts made with the same --commission")
      }
    }
    for (currency, number) in other.currencyNumbers.elements.sorted(by: { $0.key < $1.key }) {
      let c = other.figures[number]
      for key in c.rows.elements.keys.sorted(by: { $0.text < $1.text }) {
        guard let sums = c.rows.elements[key] else { continue }
        try add(RevenueGroup(key: "", sums), key: key, currency: currency)
      }
      try addBacking(c.backing, currency: currency)
      if !c.commitments.isEmpty { try addCommitments(c.commitments, currency: currency) }
    }
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
