import ReceiptModel

/// Money of one currency in one backing class (`MoneyBacking`, signed fields [S27] §6): the sales counted in it,
/// and what they and the refunds and estimated upgrade prorations of those sales add up to. Amounts are minor
/// units.
public struct BackedFigures: Hashable, Sendable {
  /// Sales counted (free trials included; a refund of a sale outside --from/--to adds none).
  public var transactions: Int64 = 0
  public var gross: Int64 = 0
  public var refunds: Int64 = 0
  public var estimatedProrationRefunds: Int64 = 0
  /// Estimated proceeds after commission; nil without --commission.
  public var proceeds: Int64?

  public init(proceeds: Int64? = nil) { self.proceeds = proceeds }

  /// Gross minus refunds and estimated upgrade prorations, as `RevenueGroup.net`.
  public var net: Int64 { gross &- refunds &- estimatedProrationRefunds }

  public var isZero: Bool {
    transactions == 0 && gross == 0 && refunds == 0 && estimatedProrationRefunds == 0 && (proceeds ?? 0) == 0
  }

  /// Adds `other`; throws when a sum does not fit, and then changes nothing.
  public mutating func add(_ other: BackedFigures) throws(ReceiptError) {
    var sum = self
    sum.transactions = try addMoney(transactions, other.transactions, what: "backed transactions")
    sum.gross = try addMoney(gross, other.gross, what: "backed gross")
    sum.refunds = try addMoney(refunds, other.refunds, what: "backed refunds")
    sum.estimatedProrationRefunds = try addMoney(
      estimatedProrationRefunds, other.estimatedProrationRefunds, what: "backed estimated proration refunds")
    if let p = other.proceeds { sum.proceeds = try addMoney(proceeds ?? 0, p, what: "backed proceeds") }
    self = sum
  }
}

/// How much of one currency's money rests on a verified signature (`moneyBacking`), and the rest by reason. The
/// classes split the currency's total: backed plus every reason's figures are its gross, refunds and proceeds.
public struct BackedRevenue: Hashable, Sendable {
  /// Backed through any root in force: Apple's, or a `--trust-root`.
  public var backed = BackedFigures()
  /// The part of `backed` whose chain ends at a `--trust-root`, not at Apple's root.
  public var backedThroughTrustRoot = BackedFigures()
  /// Not backed, by reason.
  public var notBacked: [NotBackedReason: BackedFigures] = [:]

  public init() {}

  /// Everything not backed, summed (nil when a sum does not fit: each reason's figures still stand).
  public var notBackedTotal: BackedFigures? {
    var sum = BackedFigures()
    for (_, figures) in notBacked {
      do throws(ReceiptError) { try sum.add(figures) } catch { return nil }
    }
    if notBacked.values.allSatisfy({ $0.proceeds == nil }) { sum.proceeds = nil }
    return sum
  }

  /// The reasons with their figures, in `NotBackedReason`'s order.
  public var reasons: [(reason: NotBackedReason, figures: BackedFigures)] {
    notBacked.keys.sorted().compactMap { r in notBacked[r].map { (r, $0) } }
  }

  /// Adds `figures` to the class `backing` names.
  public mutating func add(_ figures: BackedFigures, as backing: MoneyBacking) throws(ReceiptError) {
    switch backing {
    case .backed(let anchor):
      try backed.add(figures)
      if anchor == .trustRoot { try backedThroughTrustRoot.add(figures) }
    case .notBacked(let reason):
      var held = notBacked[reason] ?? BackedFigures()
      try held.add(figures)
      notBacked[reason] = held
    }
  }

  /// Adds every class of `other`.
  public mutating func add(_ other: BackedRevenue) throws(ReceiptError) {
    try backed.add(other.backed)
    try backedThroughTrustRoot.add(other.backedThroughTrustRoot)
    for (reason, figures) in other.notBacked {
      var held = notBacked[reason] ?? BackedFigures()
      try held.add(figures)
      notBacked[reason] = held
    }
  }
}
