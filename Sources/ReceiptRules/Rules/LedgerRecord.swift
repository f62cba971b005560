import ReceiptModel

/// One copy of a transaction as one document states it, with every fact `revenue` needs: what the map step
/// (`revenue --format ledger`) writes and the reduce step (`revenue --from-ledger`) sums. The facts that need
/// the rest of the document (the commission year, the upgrade estimate) are worked out when it is written.
public struct LedgerRecord: Hashable, Sendable {
  public var transactionID: String
  /// Which document stated this copy (a digest of its bytes): a copy read twice is one copy.
  public var copy: String
  public var productID: String
  public var ownership: Ownership
  /// Units: its quantity, 1 when the data gives none.
  public var units: Int64
  public var purchaseDate: Timestamp?
  /// The refund's own date (cancellation_date, revocationDate).
  public var refundDate: Timestamp?
  /// The refunded share of the price, `revocationPercentage` in milliunits of a percent; nil for the whole price.
  public var refundShare: Int64?
  /// When Apple reversed the refund (`REFUND_REVERSED`, or a later-signed copy without it): the sale stands.
  public var refundReversedAt: Timestamp?
  /// The copy's `signedDate`: of two signed copies, the later one's word on the refund stands.
  public var signedDate: Timestamp?
  public var price: LedgerPrice
  /// Paid service of its subscription before the sale, in milliseconds; nil when it is not a subscription.
  public var paidServiceBefore: Int64?
  /// nil when it was not upgraded.
  public var upgrade: LedgerUpgrade?
  /// Rows of its document that repeated a transaction already read there (carried by a document's first record).
  public var duplicateRows: Int
  /// Its document's signature verdict and whether its ownership is signed: whether its money is backed
  /// (`moneyBacking`) travels with the copy whose price and ownership are counted.
  public var evidence: MoneyEvidence
  /// Where its commitment stood (`commitmentInfo`), on a commitment plan (`CommitmentTotals`); else nil.
  public var commitment: TransactionCommitment? {
    get { charge?.facts.commitment }
    set { charge = .boxing(newValue, itemRefunds) }
  }
  /// An Advanced Commerce transaction's item refunds, each its amount and date (what revenue reads of them).
  public var itemRefunds: [ItemRefund] {
    get { charge?.facts.itemRefunds ?? [] }
    set { charge = .boxing(commitment, newValue) }
  }
  /// The two above, out of line: few records have either, and a record is copied for each event it books.
  private var charge: RareCharge?

  private indirect enum RareCharge: Hashable, Sendable {
    case facts(commitment: TransactionCommitment?, itemRefunds: [ItemRefund])

    var facts: (commitment: TransactionCommitment?, itemRefunds: [ItemRefund]) {
      switch self {
      case .facts(let c, let r): (c, r)
      }
    }

    static func boxing(_ commitment: TransactionCommitment?, _ itemRefunds: [ItemRefund]) -> RareCharge? {
      commitment == nil && itemRefunds.isEmpty ? nil : .facts(commitment: commitment, itemRefunds: itemRefunds)
    }
  }

  /// - Parameters: every fact, as the stored properties name them.
  public init(
    transactionID: String, copy: String, productID: String, ownership: Ownership, units: Int64,
    purchaseDate: Timestamp?, refundDate: Timestamp?, price: LedgerPrice, paidServiceBefore: Int64?,
    upgrade: LedgerUpgrade?, duplicateRows: Int = 0, refundShare: Int64? = nil, refundReversedAt: Timestamp? = nil,
    signedDate: Timestamp? = nil, evidence: MoneyEvidence = .notRecorded, commitment: TransactionCommitment? = nil,
    itemRefunds: [ItemRefund] = []
  ) {
    self.init(
      transactionID: transactionID, copy: copy, productID: productID, ownership: ownership, units: units,
      purchaseDate: purchaseDate, refundDate: refundDate, price: price, paidServiceBefore: paidServiceBefore,
      upgrade: upgrade, duplicateRows: duplicateRows, refundShare: refundShare, refundReversedAt: refundReversedAt,
      signedDate: signedDate, evidence: evidence, charge: .boxing(commitment, itemRefunds))
  }

  private init(
    transactionID: String, copy: String, productID: String, ownership: Ownership, units: Int64,
    purchaseDate: Timestamp?, refundDate: Timestamp?, price: LedgerPrice, paidServiceBefore: Int64?,
    upgrade: LedgerUpgrade?, duplicateRows: Int, refundShare: Int64?, refundReversedAt: Timestamp?,
    signedDate: Timestamp?, evidence: MoneyEvidence, charge: RareCharge?
  ) {
    self.charge = charge
    self.evidence = evidence
    self.signedDate = signedDate
    self.refundShare = refundShare
    self.refundReversedAt = refundReversedAt
    self.transactionID = transactionID
    self.copy = copy
    self.productID = productID
    self.ownership = ownership
    self.units = units
    self.purchaseDate = purchaseDate
    self.refundDate = refundDate
    self.price = price
    self.paidServiceBefore = paidServiceBefore
    self.upgrade = upgrade
    self.duplicateRows = duplicateRows
  }

  // Borrowed: an initializer owns its arguments, so the caller would copy the transaction, every field retained.
  init(
    transaction t: borrowing PurchaseTransaction, value: TransactionValue?, copy: String, paidServiceBefore: Int64?,
    upgrade: LedgerUpgrade?, evidence: MoneyEvidence
  ) {
    let units = ReceiptRules.units(of: t)
    self.init(
      transactionID: t.transactionID, copy: copy, productID: t.productID, ownership: t.ownership, units: units,
      purchaseDate: t.purchaseDate, refundDate: t.revocation?.date, price: LedgerPrice(value, units: units),
      paidServiceBefore: paidServiceBefore, upgrade: upgrade, duplicateRows: 0, refundShare: t.revocation?.percentage,
      refundReversedAt: t.revocation?.reversedAt, signedDate: t.signedDate, evidence: evidence,
      charge: t.chargeDetails.flatMap {
        .boxing($0.billing?.commitment, $0.itemRefunds.map { ItemRefund(amount: $0.amount, date: $0.date) })
      })
  }

  /// The refund this copy states, as `Revocation.combining` reads it.
  var refund: Revocation? {
    refundDate.map { Revocation(date: $0, percentage: refundShare, reversedAt: refundReversedAt) }
  }

  /// What the transaction is worth: a catalog or introductory price × units, the transaction's own price as is.
  /// - Throws: `ReceiptError` when price × units does not fit.
  public func value() throws(ReceiptError) -> TransactionValue? {
    switch price {
    case .notValued: return nil
    case .unpriced: return .unpriced(reason: "no price")
    case .trial(let currency): return .trial(currency: currency)
    case .paid(let money, .transactionPrice): return .paid(money, basis: .transactionPrice)
    case .paid(let money, let basis):
      let (total, overflow) = money.minorUnits.multipliedReportingOverflow(by: units)
      if overflow {
        throw .data(source: nil, message: "transaction \(Excerpt.quoted(transactionID)): price × quantity is too large")
      }
      return .paid(Money(minorUnits: total, currency: money.currency), basis: basis)
    }
  }
}

/// A transaction's price as the catalog or the transaction gives it.
public enum LedgerPrice: Hashable, Sendable {
  /// Per unit for a catalog or introductory price; for the whole transaction when the transaction states it.
  case paid(Money, basis: TransactionValue.PriceBasis)
  /// A free trial, in the product's currency when known.
  case trial(currency: String?)
  /// No price is known: listed as unpriced, never valued at 0.
  case unpriced
  /// Not the purchaser's (family-shared, unknown or unrecognised ownership): never revenue.
  case notValued

  init(_ value: TransactionValue?, units: Int64) {
    switch value {
    case nil: self = .notValued
    case .unpriced: self = .unpriced
    case .trial(let currency): self = .trial(currency: currency)
    case .paid(let money, .transactionPrice): self = .paid(money, basis: .transactionPrice)
    case .paid(let money, let basis):
      // valueOf multiplied a unit price by `units`, so the division is exact.
      let unit = units > 0 ? money.minorUnits / units : money.minorUnits
      self = .paid(Money(minorUnits: unit, currency: money.currency), basis: basis)
    }
  }
}

/// What an upgraded transaction's unused part is estimated to be worth, from the dates of its own document.
public enum LedgerUpgrade: Hashable, Sendable {
  /// Upgraded at `at` (the first later purchase of its subscription chain or group); `refund` minor units of
  /// the price's currency, rounded half-up.
  case estimated(at: Timestamp, refund: Int64)
  /// No price, dates or replacing purchase to estimate from.
  case notEstimated
  /// A trial, or upgraded after its period ended: nothing was refunded.
  case nothingToRefund

  /// An upgraded period's unused part [S5][S27] §7.2, refunded when the upgrade was bought (Apple states no
  /// amount, so it is estimated): the same rule as `TransactionEvents.upgrade` on one machine, the unused part,
  /// from the upgrade to the old expiry, as a share of the price. nil when the transaction was not upgraded.
  // Borrowed, as for `LedgerRecord.init(transaction:...)`.
  init?(of t: borrowing PurchaseTransaction, value: TransactionValue?, upgradedAt: Timestamp?) throws(ReceiptError) {
    guard t.isUpgraded else { return nil }
    // A refund signed data states stands beside the upgrade: the refund is booked, not an estimate.
    if let r = t.revocation, r.excludesUpgrade, r.reversedAt == nil { return nil }
    guard case .paid(let money, _) = value, let upgradedAt, let start = t.purchaseDate, let end = t.expiresDate,
      end > start
    else {
      if case .trial = value {
        self = .nothingToRefund
      } else {
        self = .notEstimated
      }
      return
    }
    guard upgradedAt < end else {
      self = .nothingToRefund
      return
    }
    let estimate = try proratedRefund(
      money.minorUnits, unused: end.milliseconds - max(upgradedAt, start).milliseconds,
      of: end.milliseconds - start.milliseconds)
    self = .estimated(at: upgradedAt, refund: estimate)
  }

  /// Which of two copies' estimates stands: the earliest upgrade moment, as one machine looks for the first
  /// later purchase among every document; then any moment over none.
  func preferred(over other: LedgerUpgrade) -> Bool {
    switch (self, other) {
    case (.estimated(let a, let x), .estimated(let b, let y)): return a != b ? a < b : x < y
    case (.estimated, _): return true
    case (.nothingToRefund, .notEstimated): return true
    default: return false
    }
  }
}

/// The reduce step: ledger records from any number of documents, each transaction counted once whatever order
/// and however often its records come (owner-only revenue [S33] §7.4, as `PurchaseLedger.report` counts it). It
/// holds one record per distinct transaction.
public struct LedgerReduction: Sendable {
  struct Merged: Sendable {
    var record: LedgerRecord
    /// Every copy read, each once.
    var copies: Set<String>
    var duplicateRows: Int
  }

  var merged: [String: Merged] = [:]
  var errors: Set<RevenueInputError> = []

  public init() {}

  /// Distinct transactions read.
  public var distinctTransactions: Int { merged.count }

  /// Adds one record. A copy already read changes nothing; another copy of a transaction is merged into it:
  /// the facts of the copy with the smallest name stand, a refund any copy knows of counts (the earliest),
  /// and the paid service and upgrade estimate are the fullest any copy's document gave.
  public mutating func add(_ record: LedgerRecord) {
    guard var m = merged[record.transactionID] else {
      merged[record.transactionID] = Merged(
        record: record, copies: [record.copy], duplicateRows: record.duplicateRows)
      return
    }
    guard m.copies.insert(record.copy).inserted else { return }
    m.duplicateRows = m.duplicateRows &+ record.duplicateRows
    var base = record.copy < m.record.copy ? record : m.record
    let other = record.copy < m.record.copy ? m.record : record
    if let mine = base.signedDate, let theirs = other.signedDate, mine != theirs {
      // Two signed copies: the later one's word stands, and a later one without the refund reverses it.
      let refund = Revocation.combining(base.refund, signed: mine, other.refund, signed: theirs)
      (base.refundDate, base.refundShare, base.refundReversedAt) = (
        refund?.date, refund?.percentage, refund?.reversedAt
      )
      base.signedDate = max(mine, theirs)
    } else {
      switch (base.refundDate, other.refundDate) {
      case (nil, _?),
        (_?, _?) where other.refundDate.map({ $0 < base.refundDate ?? $0 }) == true:
        (base.refundDate, base.refundShare) = (other.refundDate, other.refundShare)
      default: break
      }
      // A reversal any copy knows of stands: only a later-signed copy knows of one.
      if let theirs = other.refundReversedAt, base.refundDate != nil {
        base.refundReversedAt = min(base.refundReversedAt ?? theirs, theirs)
      }
      base.signedDate = base.signedDate ?? other.signedDate
    }
    if base.commitment == nil { base.commitment = other.commitment }
    if base.itemRefunds.isEmpty { base.itemRefunds = other.itemRefunds }
    if let theirs = other.paidServiceBefore { base.paidServiceBefore = max(base.paidServiceBefore ?? theirs, theirs) }
    if let theirs = other.upgrade, base.upgrade.map({ theirs.preferred(over: $0) }) ?? true { base.upgrade = theirs }
    m.record = base
    merged[record.transactionID] = m
  }

  /// Adds an input the map step could not read, so that it is reported, not lost.
  public mutating func add(_ error: RevenueInputError) { errors.insert(error) }

  /// Calls `body` with each distinct transaction id, in no particular order.
  public func forEachTransactionID(_ body: (String) -> Void) {
    for id in merged.keys { body(id) }
  }

  /// The inputs the map step could not read, sorted.
  public var inputErrors: [RevenueInputError] {
    errors.sorted { ($0.input, $0.message) < ($1.input, $1.message) }
  }

  /// The partial report of the transactions read, as `PurchaseLedger.report` computes it on one machine.
  /// - Parameters:
  ///   - grouping: `--by`.
  ///   - range: `--from`/`--to`.
  ///   - commission: `--commission`.
  /// - Returns: the report; repeated copies are counted in `duplicatesMerged`.
  /// - Throws: `ReceiptError` when a sum does not fit.
  public func report(grouping: RevenueGrouping, range: PurchaseDateRange, commission: CommissionPlan)
    throws(ReceiptError) -> RevenueReport
  {
    var report = RevenueReport(hasProceeds: commission != .none)
    report.errors = inputErrors
    var duplicates = 0
    for m in merged.values {
      duplicates = duplicates &+ (m.copies.count - 1) &+ m.duplicateRows
      try m.record.addEvents(grouping: grouping, range: range, commission: commission, into: &report)
    }
    report.counts.duplicatesMerged = duplicates
    return report
  }
}
