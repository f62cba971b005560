/// What kind of document an input was, recognised from its content.
public enum DocumentKind: String, Sendable {
  /// A verifyReceipt response body (`status`, `receipt`, `latest_receipt_info`, ...).
  case verifyReceiptResponse = "verify_receipt_response"
  /// An App Store Server Notification v1 body (`notification_type`, `unified_receipt`).
  case notificationV1 = "notification_v1"
  /// A bare `receipt` object (`bundle_id`, `in_app`, ...).
  case receipt = "receipt"

  public var description: String {
    switch self {
    case .verifyReceiptResponse: "verifyReceipt response"
    case .notificationV1: "App Store Server Notification v1"
    case .receipt: "bare receipt object"
    }
  }
}

/// Who owns a transaction (`in_app_ownership_type`).
public enum Ownership: Hashable, Sendable {
  /// The customer bought it.
  case purchased
  /// A family member bought it and shares it with this customer.
  case familyShared
  /// A value Apple did not document when this tool was written, kept as received.
  case unrecognized(String)

  public var raw: String {
    switch self {
    case .purchased: "PURCHASED"
    case .familyShared: "FAMILY_SHARED"
    case .unrecognized(let raw): raw
    }
  }
}

/// The arrays a transaction was found in.
public struct TransactionSources: OptionSet, Hashable, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let inApp = TransactionSources(rawValue: 1)
  public static let latestReceiptInfo = TransactionSources(rawValue: 2)
  /// iOS 6-style bodies: the `receipt` object is itself a transaction.
  public static let legacyReceipt = TransactionSources(rawValue: 4)
  /// iOS 6-style bodies: `latest_expired_receipt_info`.
  public static let latestExpiredReceiptInfo = TransactionSources(rawValue: 8)

  /// JSON names, in a fixed order.
  public var names: [String] {
    var out: [String] = []
    if contains(.inApp) { out.append("in_app") }
    if contains(.latestReceiptInfo) { out.append("latest_receipt_info") }
    if contains(.legacyReceipt) { out.append("receipt") }
    if contains(.latestExpiredReceiptInfo) { out.append("latest_expired_receipt_info") }
    return out
  }
}

/// One in-app purchase transaction, merged from every array it appeared in.
public struct PurchaseTransaction: Hashable, Sendable {
  public var transactionID: String
  public var originalTransactionID: String?
  public var productID: String
  public var ownership: Ownership
  /// True when the receipt had no `in_app_ownership_type` and PURCHASED was assumed
  /// (receipts older than Family Sharing, and the `in_app` array, omit it).
  public var ownershipAssumed: Bool
  /// nil when absent; Apple always sends it, usually "1".
  public var quantity: Int?
  public var purchaseDate: Timestamp?
  public var originalPurchaseDate: Timestamp?
  public var expiresDate: Timestamp?
  /// Set when the App Store refunded the transaction or revoked it from Family Sharing.
  public var cancellationDate: Timestamp?
  /// "0" other reason, "1" a problem in the app; kept raw.
  public var cancellationReason: String?
  public var isTrialPeriod: Bool
  public var isInIntroOfferPeriod: Bool
  public var isUpgraded: Bool
  public var subscriptionGroup: String?
  public var webOrderLineItemID: String?
  public var promotionalOfferID: String?
  public var offerCodeRefName: String?
  public var sources: TransactionSources

  public init(
    transactionID: String, originalTransactionID: String? = nil, productID: String,
    ownership: Ownership = .purchased, ownershipAssumed: Bool = false, quantity: Int? = 1,
    purchaseDate: Timestamp? = nil, originalPurchaseDate: Timestamp? = nil, expiresDate: Timestamp? = nil,
    cancellationDate: Timestamp? = nil, cancellationReason: String? = nil,
    isTrialPeriod: Bool = false, isInIntroOfferPeriod: Bool = false, isUpgraded: Bool = false,
    subscriptionGroup: String? = nil, webOrderLineItemID: String? = nil, promotionalOfferID: String? = nil,
    offerCodeRefName: String? = nil, sources: TransactionSources = .latestReceiptInfo
  ) {
    self.transactionID = transactionID
    self.originalTransactionID = originalTransactionID
    self.productID = productID
    self.ownership = ownership
    self.ownershipAssumed = ownershipAssumed
    self.quantity = quantity
    self.purchaseDate = purchaseDate
    self.originalPurchaseDate = originalPurchaseDate
    self.expiresDate = expiresDate
    self.cancellationDate = cancellationDate
    self.cancellationReason = cancellationReason
    self.isTrialPeriod = isTrialPeriod
    self.isInIntroOfferPeriod = isInIntroOfferPeriod
    self.isUpgraded = isUpgraded
    self.subscriptionGroup = subscriptionGroup
    self.webOrderLineItemID = webOrderLineItemID
    self.promotionalOfferID = promotionalOfferID
    self.offerCodeRefName = offerCodeRefName
    self.sources = sources
  }

  /// Revenue belongs to the purchaser: PURCHASED, or no ownership field at all (pre-Family-Sharing receipts).
  public var isOwnedByPurchaser: Bool { ownership == .purchased }
}

/// One element of `pending_renewal_info`.
public struct PendingRenewal: Hashable, Sendable {
  public var productID: String?
  public var autoRenewProductID: String?
  public var originalTransactionID: String?
  /// "1" will renew, "0" the customer turned auto-renew off; kept raw.
  public var autoRenewStatus: String?
  /// "1" customer cancelled, "2" billing error, "3" price increase not accepted, "4" product unavailable, "5" other.
  public var expirationIntent: String?
  public var isInBillingRetryPeriod: Bool?
  public var gracePeriodExpiresDate: Timestamp?
  public var priceConsentStatus: String?

  public init(
    productID: String? = nil, autoRenewProductID: String? = nil, originalTransactionID: String? = nil,
    autoRenewStatus: String? = nil, expirationIntent: String? = nil, isInBillingRetryPeriod: Bool? = nil,
    gracePeriodExpiresDate: Timestamp? = nil, priceConsentStatus: String? = nil
  ) {
    self.productID = productID
    self.autoRenewProductID = autoRenewProductID
    self.originalTransactionID = originalTransactionID
    self.autoRenewStatus = autoRenewStatus
    self.expirationIntent = expirationIntent
    self.isInBillingRetryPeriod = isInBillingRetryPeriod
    self.gracePeriodExpiresDate = gracePeriodExpiresDate
    self.priceConsentStatus = priceConsentStatus
  }

  /// Apple's words for `expiration_intent`.
  public static func describe(expirationIntent code: String) -> String {
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

/// The `receipt` object's own metadata.
public struct ReceiptInfo: Hashable, Sendable {
  public var bundleID: String?
  public var applicationVersion: String?
  public var originalApplicationVersion: String?
  public var receiptType: String?
  public var receiptCreationDate: Timestamp?
  public var requestDate: Timestamp?
  public var originalPurchaseDate: Timestamp?

  public init() {}
}

/// The top-level fields only a v1 notification has. `password` is deliberately not kept: it is the app's shared secret.
public struct NotificationInfo: Hashable, Sendable {
  public var notificationType: String?
  /// "PROD" or "Sandbox" (the notification's own spelling).
  public var environment: String?
  public var autoRenewStatus: String?
  public var autoRenewProductID: String?
  public var bundleID: String?
  public var hasPassword: Bool = false
  /// Only kept when asked for with `--show-secrets`.
  public var password: String?

  public init() {}
}

/// A message about a value that was carried through rather than understood.
public struct DataWarning: Hashable, Sendable {
  public var path: String
  public var message: String

  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }
}

/// Everything receipt-tool reads from one input document.
public struct ReceiptDocument: Sendable {
  public var kind: DocumentKind
  /// nil when the document has no status (a bare receipt, or a notification whose `unified_receipt` omits it).
  public var status: ReceiptStatus?
  public var isRetryable: Bool?
  public var environment: String?
  public var receipt: ReceiptInfo?
  public var notification: NotificationInfo?
  /// De-duplicated by transaction id, in the order first seen.
  public var transactions: [PurchaseTransaction]
  public var pendingRenewals: [PendingRenewal]
  /// Length of the base64 `latest_receipt`; the credential itself is never kept.
  public var latestReceiptLength: Int?
  /// The base64 `latest_receipt` itself, only kept when asked for with `--show-secrets`.
  public var latestReceipt: String?
  /// How many array rows were merged into a transaction already seen.
  public var duplicateRowsMerged: Int
  public var warnings: [DataWarning]

  public init(kind: DocumentKind) {
    self.kind = kind
    transactions = []
    pendingRenewals = []
    duplicateRowsMerged = 0
    warnings = []
  }

  /// The moment the document describes: the receipt's `request_date`, when it has one.
  public var moment: DataMoment? {
    receipt?.requestDate.map { DataMoment(time: $0, field: "request_date", description: "the receipt's request_date") }
  }

  /// The pending renewal for a subscription chain.
  public func pendingRenewal(originalTransactionID: String?) -> PendingRenewal? {
    guard let originalTransactionID else { return nil }
    return pendingRenewals.first { $0.originalTransactionID == originalTransactionID }
  }
}
