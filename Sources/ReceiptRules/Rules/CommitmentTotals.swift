import ReceiptModel

/// One currency's charges on commitment plans (App Store Server API 1.21: a year's subscription billed monthly,
/// `commitmentInfo`), from what the data states and no more: each charge, and each commitment once, at its first
/// billing period, where its `commitmentPrice` is the value committed to. Every figure is a sum over distinct
/// transactions, so parts, ledgers and `--merge` add up to one machine's figures exactly. What remains of a
/// commitment Apple does not state, and a charge is not matched to its commitment across parts, so no remainder
/// is given: the value committed and the value charged stand side by side.
public struct CommitmentTotals: Hashable, Sendable {
  /// Sales that state `commitmentInfo`.
  public var charges: Int64 = 0
  /// Their gross, minor units of the currency.
  public var chargesGross: Int64 = 0
  /// Charges of billing period 1 (`billingPeriodNumber`): the commitments that started.
  public var started: Int64 = 0
  /// The `commitmentPrice` of those that state it, summed.
  public var committed: Int64 = 0
  /// Started commitments whose `commitmentPrice` is not stated, or not in the charge's currency and minor digits:
  /// counted, never valued at 0.
  public var startedWithoutPrice: Int64 = 0

  public init() {}

  /// Whether no charge on a commitment plan was counted.
  public var isEmpty: Bool { charges == 0 && started == 0 }

  /// Adds `other`; throws when a sum does not fit, and then changes nothing.
  public mutating func add(_ other: CommitmentTotals) throws(ReceiptError) {
    var sum = self
    sum.charges = try addMoney(charges, other.charges, what: "commitment charges")
    sum.chargesGross = try addMoney(chargesGross, other.chargesGross, what: "commitment charges' gross")
    sum.started = try addMoney(started, other.started, what: "commitments started")
    sum.committed = try addMoney(committed, other.committed, what: "committed value")
    sum.startedWithoutPrice = try addMoney(startedWithoutPrice, other.startedWithoutPrice, what: "commitments")
    self = sum
  }

  /// What one sale of `gross` on a commitment plan adds ([S26a] §6: `commitmentInfo`'s `billingPeriodNumber`,
  /// `commitmentPrice` in the transaction's `currency`): a charge, and at billing period 1 a commitment started,
  /// valued at its stated `commitmentPrice` when that is written in the sale's currency.
  /// - Parameters:
  ///   - commitment: the sale's `commitmentInfo`.
  ///   - gross: the sale's gross, minor units of `currency`.
  ///   - currency: the sale's currency.
  /// - Returns: the charge's totals.
  static func charge(_ commitment: TransactionCommitment, gross: Int64, currency: String) -> CommitmentTotals {
    var t = CommitmentTotals()
    t.charges = 1
    t.chargesGross = gross
    guard commitment.billingPeriodNumber == 1 else { return t }
    t.started = 1
    if let price = commitment.price, price.currency == currency,
      let minor = price.amount.rescaled(to: minorDigits(ofCurrency: currency))
    {
      t.committed = minor.units
    } else {
      t.startedWithoutPrice = 1
    }
    return t
  }
}
