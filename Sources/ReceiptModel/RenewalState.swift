/// Whether a subscription will renew (`auto_renew_status`, `autoRenewStatus`).
public enum AutoRenewStatus: Hashable, Sendable {
  case on
  case off
  /// A value Apple does not document, kept as received.
  case unrecognized(String)

  /// Reads Apple's code, `"1"` or `"0"`.
  public init(code: String) {
    switch code {
    case "1": self = .on
    case "0": self = .off
    default: self = .unrecognized(code)
    }
  }

  /// Apple's code.
  public var code: String {
    switch self {
    case .on: "1"
    case .off: "0"
    case .unrecognized(let raw): raw
    }
  }
}

/// Why a subscription expired (`expiration_intent`, `expirationIntent`): Apple's codes 1 to 5.
public struct ExpirationIntent: Hashable, Sendable {
  /// Apple's code as received, `"1"` to `"5"` or one Apple does not document.
  public var code: String

  /// Reads Apple's code.
  /// - Parameter code: The code as received.
  public init(code: String) { self.code = code }

  /// Apple's words for the code.
  public var description: String {
    switch code {
    case "1": "the customer cancelled the subscription"
    case "2": "a billing error (the payment could not be collected)"
    case "3": "the customer did not agree to a price increase"
    case "4": "the product was not available for purchase at renewal"
    case "5": "an unknown error"
    default: "expiration intent \(code), which Apple does not document"
    }
  }
}

/// Apple's own verdict on a subscription chain: Get All Subscription Statuses' `status`, a V2 notification's
/// `data.status`. Shown beside receipt-tool's answer, never used to make it.
public struct StoreSubscriptionStatus: Hashable, Sendable {
  /// 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked.
  public var code: Int64
  /// When Apple said so: the newest `signedDate` of the signed data that came with it, when known.
  public var asOf: Timestamp?

  /// Records Apple's status.
  /// - Parameters:
  ///   - code: Apple's status code.
  ///   - asOf: When Apple said so, when known.
  public init(code: Int64, asOf: Timestamp?) {
    self.code = code
    self.asOf = asOf
  }

  /// Apple's meaning, in the words `entitlements` uses for its own statuses.
  public var meaning: String {
    switch code {
    case 1: "active"
    case 2: "expired"
    case 3: "billing_retry"
    case 4: "grace_period"
    case 5: "revoked"
    default: "undocumented status \(code)"
    }
  }
}

/// What the App Store says about a subscription chain's next renewal (`pending_renewal_info`, signed renewal info).
public struct RenewalState: Hashable, Sendable {
  /// `product_id` / `productId`: the product of the current period.
  public var productID: String?
  /// The product the chain renews into (a pending downgrade or crossgrade when it differs).
  public var autoRenewProductID: String?
  /// `original_transaction_id` / `originalTransactionId`: the subscription chain this describes.
  public var originalTransactionID: String?
  /// `auto_renew_status` / `autoRenewStatus`: whether the subscription will renew.
  public var autoRenewStatus: AutoRenewStatus?
  /// `expiration_intent` / `expirationIntent`: why the subscription expired, when it did.
  public var expirationIntent: ExpirationIntent?
  /// `is_in_billing_retry_period` / `isInBillingRetryPeriod`: the App Store is still trying to charge.
  public var isInBillingRetryPeriod: Bool?
  /// `grace_period_expires_date_ms` / `gracePeriodExpiresDate`: when the Billing Grace Period ends.
  public var gracePeriodExpiresDate: Timestamp?
  /// verifyReceipt's `price_consent_status`, kept raw.
  public var priceConsentStatus: String?
  /// Signed renewal info's `renewalDate`.
  public var renewalDate: Timestamp?
  /// When this copy was signed (signed renewal info's `signedDate`): of two copies, the later one wins.
  public var signedDate: Timestamp?
  /// Apple's own status of the chain, when the data carries one.
  public var storeStatus: StoreSubscriptionStatus?
  /// Signed renewal info's `renewalBillingPlanType`: the billing plan of the next renewal.
  public var billingPlan: BillingPlanType?
  /// Signed renewal info's `commitmentInfo`: what a commitment renews into when it ends.
  public var commitment: RenewalCommitment?
  /// The source's own field names, for reasons that quote them.
  public var vocabulary: FieldVocabulary
  /// Fields the renewal info states that no rule reads, under its own names, for `decode`.
  public var statedFields: [StatedField] = []

  /// Makes a renewal state; every field is optional but the vocabulary, which its format names.
  /// - Parameters:
  ///   - productID: The product of the current period.
  ///   - autoRenewProductID: The product the chain renews into.
  ///   - originalTransactionID: The subscription chain this describes.
  ///   - autoRenewStatus: Whether it will renew.
  ///   - expirationIntent: Why it expired.
  ///   - isInBillingRetryPeriod: Whether the App Store is still trying to charge.
  ///   - gracePeriodExpiresDate: When the Billing Grace Period ends.
  ///   - priceConsentStatus: verifyReceipt's `price_consent_status`, raw.
  ///   - renewalDate: Signed renewal info's `renewalDate`.
  ///   - vocabulary: The source's own field names.
  public init(
    productID: String? = nil, autoRenewProductID: String? = nil, originalTransactionID: String? = nil,
    autoRenewStatus: AutoRenewStatus? = nil, expirationIntent: ExpirationIntent? = nil,
    isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Timestamp? = nil,
    priceConsentStatus: String? = nil, renewalDate: Timestamp? = nil, vocabulary: FieldVocabulary
  ) {
    self.productID = productID
    self.autoRenewProductID = autoRenewProductID
    self.originalTransactionID = originalTransactionID
    self.autoRenewStatus = autoRenewStatus
    self.expirationIntent = expirationIntent
    self.isInBillingRetryPeriod = isInBillingRetryPeriod
    self.gracePeriodExpiresDate = gracePeriodExpiresDate
    self.priceConsentStatus = priceConsentStatus
    self.renewalDate = renewalDate
    self.vocabulary = vocabulary
  }
}

extension [RenewalState] {
  /// The renewal state of chain `id` (its `original_transaction_id`).
  public func renewal(ofChain id: String?) -> RenewalState? {
    guard let id else { return nil }
    return first { $0.originalTransactionID == id }
  }
}
