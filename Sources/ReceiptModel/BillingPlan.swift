/// How a subscription is billed (App Store Server API 1.21: `billingPlanType`, `renewalBillingPlanType`,
/// `commitmentRenewalBillingPlanType`; a `.storekit` file's `billingPlans[].billingPlanType`).
public enum BillingPlanType: Hashable, Sendable {
  /// `BILLED_UPFRONT`: the whole period is charged at its start.
  case billedUpfront
  /// `MONTHLY`: charged every month of a longer commitment (a year's subscription billed monthly).
  case monthly
  /// A value Apple did not document when this tool was written, kept as received.
  case unrecognized(String)

  /// Reads Apple's spelling.
  /// - Parameter raw: The value as received.
  public init(raw: String) {
    switch raw {
    case "BILLED_UPFRONT": self = .billedUpfront
    case "MONTHLY": self = .monthly
    default: self = .unrecognized(raw)
    }
  }

  /// Apple's spelling.
  public var raw: String {
    switch self {
    case .billedUpfront: "BILLED_UPFRONT"
    case .monthly: "MONTHLY"
    case .unrecognized(let raw): raw
    }
  }
}

/// Where one charge of a commitment plan stands (a signed transaction's `commitmentInfo`).
public struct TransactionCommitment: Hashable, Sendable {
  /// `billingPeriodNumber`: which billing period of the commitment this charge pays for, from 1.
  public var billingPeriodNumber: Int64?
  /// `totalBillingPeriods`: how many billing periods the commitment has (12 for a year billed monthly).
  public var totalBillingPeriods: Int64?
  /// `commitmentExpiresDate`: when the commitment ends.
  public var expiresDate: Timestamp?
  /// `commitmentPrice`: the price of the whole commitment, in the transaction's `currency`.
  public var price: StatedPrice?

  /// Records a commitment's progress; every field is optional, as in Apple's model.
  /// - Parameters:
  ///   - billingPeriodNumber: Which billing period this charge pays for.
  ///   - totalBillingPeriods: How many billing periods the commitment has.
  ///   - expiresDate: When the commitment ends.
  ///   - price: The price of the whole commitment.
  public init(
    billingPeriodNumber: Int64? = nil, totalBillingPeriods: Int64? = nil, expiresDate: Timestamp? = nil,
    price: StatedPrice? = nil
  ) {
    self.billingPeriodNumber = billingPeriodNumber
    self.totalBillingPeriods = totalBillingPeriods
    self.expiresDate = expiresDate
    self.price = price
  }
}

/// A charge's billing plan and, on a commitment plan, where the commitment stands.
public struct BillingTerms: Hashable, Sendable {
  /// `billingPlanType`, when the data states it.
  public var plan: BillingPlanType?
  /// `commitmentInfo`, when the data states it.
  public var commitment: TransactionCommitment?

  /// Records a charge's billing terms.
  /// - Parameters:
  ///   - plan: The billing plan.
  ///   - commitment: Where the commitment stands.
  public init(plan: BillingPlanType? = nil, commitment: TransactionCommitment? = nil) {
    self.plan = plan
    self.commitment = commitment
  }
}

/// One item's refund of an Advanced Commerce API transaction (`advancedCommerceInfo.items[].refunds[]`): part of
/// the transaction's price given back on its own date.
public struct ItemRefund: Hashable, Sendable {
  /// The item's `SKU`.
  public var sku: String?
  /// `refundAmount`, in the transaction's `currency` (milliunits as stated).
  public var amount: StatedPrice
  /// `refundDate`.
  public var date: Timestamp
  /// `refundType` (`FULL`, `PRORATED`, `CUSTOM`) and `refundReason`, as written.
  public var type: String?
  public var reason: String?

  /// - Parameters: every fact, as the stored properties name them.
  public init(sku: String? = nil, amount: StatedPrice, date: Timestamp, type: String? = nil, reason: String? = nil) {
    self.sku = sku
    self.amount = amount
    self.date = date
    self.type = type
    self.reason = reason
  }
}

/// What few charges state beyond the common fields: a billing plan and commitment, an Advanced Commerce
/// transaction's item refunds.
public struct ChargeDetails: Hashable, Sendable {
  public var billing: BillingTerms?
  public var itemRefunds: [ItemRefund] = []

  public init(billing: BillingTerms? = nil, itemRefunds: [ItemRefund] = []) {
    self.billing = billing
    self.itemRefunds = itemRefunds
  }

  var isEmpty: Bool { billing == nil && itemRefunds.isEmpty }
}

/// `ChargeDetails` kept out of line: few transactions have any, and the rest should not carry their room.
@usableFromInline indirect enum ChargeDetailsBox: Hashable, Sendable {
  case details(ChargeDetails)

  @usableFromInline var details: ChargeDetails {
    switch self {
    case .details(let d): d
    }
  }

  /// The box for `details`; nil when they are empty.
  static func boxing(_ details: ChargeDetails) -> ChargeDetailsBox? { details.isEmpty ? nil : .details(details) }
}

/// What a commitment renews into when it ends (signed renewal info's `commitmentInfo`).
public struct RenewalCommitment: Hashable, Sendable {
  /// `commitmentAutoRenewProductId`: the product the subscription renews into after the commitment.
  public var autoRenewProductID: String?
  /// `commitmentAutoRenewStatus`: whether it renews after the commitment.
  public var autoRenewStatus: AutoRenewStatus?
  /// `commitmentRenewalBillingPlanType`: the billing plan it renews into.
  public var billingPlan: BillingPlanType?
  /// `commitmentRenewalDate`: when the commitment renews.
  public var renewalDate: Timestamp?
  /// `commitmentRenewalPrice`: the price it renews at, in the renewal info's `currency`.
  public var renewalPrice: StatedPrice?

  /// Records what a commitment renews into; every field is optional, as in Apple's model.
  /// - Parameters:
  ///   - autoRenewProductID: The product it renews into.
  ///   - autoRenewStatus: Whether it renews.
  ///   - billingPlan: The billing plan it renews into.
  ///   - renewalDate: When it renews.
  ///   - renewalPrice: The price it renews at.
  public init(
    autoRenewProductID: String? = nil, autoRenewStatus: AutoRenewStatus? = nil, billingPlan: BillingPlanType? = nil,
    renewalDate: Timestamp? = nil, renewalPrice: StatedPrice? = nil
  ) {
    self.autoRenewProductID = autoRenewProductID
    self.autoRenewStatus = autoRenewStatus
    self.billingPlan = billingPlan
    self.renewalDate = renewalDate
    self.renewalPrice = renewalPrice
  }
}
