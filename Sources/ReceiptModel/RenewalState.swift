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
  public var code: String

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

/// What the App Store says about a subscription chain's next renewal (`pending_renewal_info`, signed renewal info).
public struct RenewalState: Hashable, Sendable {
  public var productID: String?
  /// The product the chain renews into (a pending downgrade or crossgrade when it differs).
  public var autoRenewProductID: String?
  public var originalTransactionID: String?
  public var autoRenewStatus: AutoRenewStatus?
  public var expirationIntent: ExpirationIntent?
  public var isInBillingRetryPeriod: Bool?
  public var gracePeriodExpiresDate: Timestamp?
  /// verifyReceipt's `price_consent_status`, kept raw.
  public var priceConsentStatus: String?
  /// Signed renewal info's `renewalDate`.
  public var renewalDate: Timestamp?
  public var vocabulary: FieldVocabulary

  public init(
    productID: String? = nil, autoRenewProductID: String? = nil, originalTransactionID: String? = nil,
    autoRenewStatus: AutoRenewStatus? = nil, expirationIntent: ExpirationIntent? = nil,
    isInBillingRetryPeriod: Bool? = nil, gracePeriodExpiresDate: Timestamp? = nil,
    priceConsentStatus: String? = nil, renewalDate: Timestamp? = nil, vocabulary: FieldVocabulary = .verifyReceipt
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
