import ReceiptModel

/// A value from a closed list that Apple may extend: the raw value is always kept, `known` is nil for
/// a value this version does not know (carried through and listed in the payload's `notes`).
public struct Coded<Known: RawRepresentable & Sendable & Hashable>: Sendable, Hashable
where Known.RawValue: Sendable & Hashable {
  public var raw: Known.RawValue
  public init(raw: Known.RawValue) { self.raw = raw }
  public init(_ known: Known) { raw = known.rawValue }
  /// The recognised value, or nil when `raw` is not one this version knows.
  public var known: Known? { Known(rawValue: raw) }
}

/// `environment` (and an app transaction's `receiptType`).
public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable {
  case sandbox = "Sandbox"
  case production = "Production"
  case xcode = "Xcode"
  case localTesting = "LocalTesting"
}

/// `type` (named apart from the catalog's `ProductType`).
public enum SignedProductType: String, Sendable, Hashable, CaseIterable {
  case autoRenewableSubscription = "Auto-Renewable Subscription"
  case nonConsumable = "Non-Consumable"
  case consumable = "Consumable"
  case nonRenewingSubscription = "Non-Renewing Subscription"
}

/// `inAppOwnershipType`.
public enum InAppOwnershipType: String, Sendable, Hashable, CaseIterable {
  case purchased = "PURCHASED"
  case familyShared = "FAMILY_SHARED"
}

/// `transactionReason`.
public enum TransactionReason: String, Sendable, Hashable, CaseIterable {
  case purchase = "PURCHASE"
  case renewal = "RENEWAL"
}

/// `offerDiscountType`.
public enum OfferDiscountType: String, Sendable, Hashable, CaseIterable {
  case freeTrial = "FREE_TRIAL"
  case payAsYouGo = "PAY_AS_YOU_GO"
  case payUpFront = "PAY_UP_FRONT"
  case oneTime = "ONE_TIME"
}

/// `revocationType`.
public enum RevocationType: String, Sendable, Hashable, CaseIterable {
  case refundFull = "REFUND_FULL"
  case refundProrated = "REFUND_PRORATED"
  case familyRevoke = "FAMILY_REVOKE"
}

/// `offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back.
public enum OfferType: Int64, Sendable, Hashable, CaseIterable {
  case introductory = 1
  case promotional = 2
  case offerCode = 3
  case winBack = 4
}

/// `revocationReason`: 0 other (e.g. accidental purchase), 1 an issue with the app.
public enum SignedRevocationReason: Int64, Sendable, Hashable, CaseIterable {
  case other = 0
  case appIssue = 1
}

/// `expirationIntent`.
public enum SignedExpirationIntent: Int64, Sendable, Hashable, CaseIterable {
  case customerCancelled = 1
  case billingError = 2
  case declinedPriceIncrease = 3
  case productUnavailable = 4
  case other = 5
}

/// `autoRenewStatus`.
public enum SignedAutoRenewStatus: Int64, Sendable, Hashable, CaseIterable {
  case off = 0
  case on = 1
}

/// `priceIncreaseStatus`: 0 not yet consented, 1 consented (or notified of one that needs no consent).
public enum PriceIncreaseStatus: Int64, Sendable, Hashable, CaseIterable {
  case notResponded = 0
  case consentedOrNotified = 1
}

/// App Store Server API subscription `status`.
public enum SubscriptionStatus: Int64, Sendable, Hashable, CaseIterable {
  case active = 1
  case expired = 2
  case billingRetry = 3
  case billingGracePeriod = 4
  case revoked = 5
}

/// Notifications V2 `notificationType`.
public enum NotificationTypeV2: String, Sendable, Hashable, CaseIterable {
  case consumptionRequest = "CONSUMPTION_REQUEST"
  case didChangeRenewalPref = "DID_CHANGE_RENEWAL_PREF"
  case didChangeRenewalStatus = "DID_CHANGE_RENEWAL_STATUS"
  case didFailToRenew = "DID_FAIL_TO_RENEW"
  case didRenew = "DID_RENEW"
  case expired = "EXPIRED"
  case externalPurchaseToken = "EXTERNAL_PURCHASE_TOKEN"
  case gracePeriodExpired = "GRACE_PERIOD_EXPIRED"
  case metadataUpdate = "METADATA_UPDATE"
  case migration = "MIGRATION"
  case offerRedeemed = "OFFER_REDEEMED"
  case oneTimeCharge = "ONE_TIME_CHARGE"
  case priceChange = "PRICE_CHANGE"
  case priceIncrease = "PRICE_INCREASE"
  case refund = "REFUND"
  case refundDeclined = "REFUND_DECLINED"
  case refundReversed = "REFUND_REVERSED"
  case renewalExtended = "RENEWAL_EXTENDED"
  case renewalExtension = "RENEWAL_EXTENSION"
  case rescindConsent = "RESCIND_CONSENT"
  case revoke = "REVOKE"
  case subscribed = "SUBSCRIBED"
  case test = "TEST"
}

/// Notifications V2 `subtype`.
public enum NotificationSubtype: String, Sendable, Hashable, CaseIterable {
  case accepted = "ACCEPTED"
  case autoRenewDisabled = "AUTO_RENEW_DISABLED"
  case autoRenewEnabled = "AUTO_RENEW_ENABLED"
  case billingRecovery = "BILLING_RECOVERY"
  case billingRetry = "BILLING_RETRY"
  case downgrade = "DOWNGRADE"
  case failure = "FAILURE"
  case gracePeriod = "GRACE_PERIOD"
  case initialBuy = "INITIAL_BUY"
  case pending = "PENDING"
  case priceIncrease = "PRICE_INCREASE"
  case productNotForSale = "PRODUCT_NOT_FOR_SALE"
  case resubscribe = "RESUBSCRIBE"
  case summary = "SUMMARY"
  case upgrade = "UPGRADE"
  case unreported = "UNREPORTED"
  case voluntary = "VOLUNTARY"
  case created = "CREATED"
  case activeTokenReminder = "ACTIVE_TOKEN_REMINDER"
}

/// Something carried through rather than understood: an unknown enum value, a date outside 1970...9999.
public struct SignedDataNote: Sendable, Hashable {
  /// Where, as in `SignedDataError.path` (relative to the payload: `expiresDate`, `data.status`).
  public var path: String
  public var message: String
}

/// `JWSTransactionDecodedPayload`. Every field is optional, as in Apple's own model; absence is kept.
public struct JWSTransactionPayload: Sendable, Hashable {
  public var transactionId: String?
  public var originalTransactionId: String?
  public var webOrderLineItemId: String?
  public var bundleId: String?
  public var productId: String?
  public var subscriptionGroupIdentifier: String?
  public var purchaseDate: Timestamp?
  public var originalPurchaseDate: Timestamp?
  public var expiresDate: Timestamp?
  public var quantity: Int64?
  public var type: Coded<SignedProductType>?
  public var appAccountToken: String?
  public var inAppOwnershipType: Coded<InAppOwnershipType>?
  public var signedDate: Timestamp?
  public var revocationReason: Coded<SignedRevocationReason>?
  public var revocationDate: Timestamp?
  /// Only ever present as `true` in Apple's data; Xcode writes `false`.
  public var isUpgraded: Bool?
  public var offerType: Coded<OfferType>?
  public var offerIdentifier: String?
  public var environment: Coded<AppStoreEnvironment>?
  public var storefront: String?
  public var storefrontId: String?
  public var transactionReason: Coded<TransactionReason>?
  /// Milliunits of `currency` (price × 1000), after discounts, × quantity for consumables.
  public var price: Int64?
  public var currency: String?
  public var offerDiscountType: Coded<OfferDiscountType>?
  /// ISO 8601 duration (`P1M`).
  public var offerPeriod: String?
  public var appTransactionId: String?
  public var revocationType: Coded<RevocationType>?
  /// Milliunits of a percent: 50000 is 50%.
  public var revocationPercentage: Int64?
  public var previousOriginalTransactionId: String?
  /// Advanced Commerce / billing plan fields, kept as their JSON type names only (not interpreted).
  public var billingPlanType: String?
  /// Unknown enum values and other things carried through.
  public var notes: [SignedDataNote] = []
  /// Top-level keys present but not read (e.g. `advancedCommerceInfo`, `deviceVerification`), in input order.
  public var unreadKeys: [String] = []

  public init() {}
}

/// `JWSRenewalInfoDecodedPayload`.
public struct JWSRenewalInfoPayload: Sendable, Hashable {
  public var expirationIntent: Coded<SignedExpirationIntent>?
  public var originalTransactionId: String?
  public var autoRenewProductId: String?
  public var productId: String?
  public var autoRenewStatus: Coded<SignedAutoRenewStatus>?
  public var isInBillingRetryPeriod: Bool?
  public var priceIncreaseStatus: Coded<PriceIncreaseStatus>?
  public var gracePeriodExpiresDate: Timestamp?
  public var offerType: Coded<OfferType>?
  public var offerIdentifier: String?
  public var signedDate: Timestamp?
  public var environment: Coded<AppStoreEnvironment>?
  public var recentSubscriptionStartDate: Timestamp?
  public var renewalDate: Timestamp?
  /// Milliunits of `currency`.
  public var renewalPrice: Int64?
  public var currency: String?
  public var offerDiscountType: Coded<OfferDiscountType>?
  public var offerPeriod: String?
  public var eligibleWinBackOfferIds: [String]?
  public var appAccountToken: String?
  public var appTransactionId: String?
  public var notes: [SignedDataNote] = []
  public var unreadKeys: [String] = []

  public init() {}
}

/// `AppTransaction` (the app download's signed record).
public struct AppTransactionPayload: Sendable, Hashable {
  public var receiptType: Coded<AppStoreEnvironment>?
  public var appAppleId: Int64?
  public var bundleId: String?
  public var applicationVersion: String?
  public var versionExternalIdentifier: Int64?
  public var receiptCreationDate: Timestamp?
  public var requestDate: Timestamp?
  /// Nil when the value is outside 1970...9999 (Xcode writes year 1); the exact value is in
  /// `originalPurchaseDateMilliseconds` and a note says so.
  public var originalPurchaseDate: Timestamp?
  public var originalPurchaseDateMilliseconds: Int64?
  public var originalApplicationVersion: String?
  public var deviceVerification: String?
  public var deviceVerificationNonce: String?
  public var preorderDate: Timestamp?
  public var appTransactionId: String?
  public var originalPlatform: String?
  public var notes: [SignedDataNote] = []
  public var unreadKeys: [String] = []

  public init() {}
}

/// Notifications V2 `data`: one app's transaction event.
public struct NotificationData: Sendable, Hashable {
  public var appAppleId: Int64?
  public var bundleId: String?
  public var bundleVersion: String?
  public var environment: Coded<AppStoreEnvironment>?
  public var status: Coded<SubscriptionStatus>?
  public var consumptionRequestReason: String?
  public var signedTransactionInfo: NestedJWS<JWSTransactionPayload>?
  public var signedRenewalInfo: NestedJWS<JWSRenewalInfoPayload>?
  public var unreadKeys: [String] = []

  public init() {}
}

/// Notifications V2 `summary` (renewal-date extension for all subscribers).
public struct NotificationSummary: Sendable, Hashable {
  public var requestIdentifier: String?
  public var environment: Coded<AppStoreEnvironment>?
  public var appAppleId: Int64?
  public var bundleId: String?
  public var productId: String?
  public var storefrontCountryCodes: [String]?
  public var failedCount: Int64?
  public var succeededCount: Int64?
  public var unreadKeys: [String] = []

  public init() {}
}

/// Notifications V2 `externalPurchaseToken`.
public struct ExternalPurchaseToken: Sendable, Hashable {
  public var externalPurchaseId: String?
  public var tokenCreationDate: Timestamp?
  public var appAppleId: Int64?
  public var bundleId: String?
  public var unreadKeys: [String] = []

  public init() {}
}

/// `responseBodyV2DecodedPayload`.
public struct NotificationV2Payload: Sendable, Hashable {
  public var notificationType: Coded<NotificationTypeV2>?
  public var subtype: Coded<NotificationSubtype>?
  public var notificationUUID: String?
  public var version: String?
  public var signedDate: Timestamp?
  public var data: NotificationData?
  public var summary: NotificationSummary?
  public var externalPurchaseToken: ExternalPurchaseToken?
  public var notes: [SignedDataNote] = []
  public var unreadKeys: [String] = []

  public init() {}

  /// What the notification carries about purchases; a summary or a bare event is not an error.
  public enum Content: Sendable, Hashable {
    /// `data` with a `signedTransactionInfo` (decoded or not).
    case transaction
    /// `data` without a transaction (TEST, or an event about the app only).
    case noTransaction
    /// `summary`: a renewal extension for many subscribers; no single customer's transaction.
    case summary
    /// `externalPurchaseToken`: an external purchase report; no App Store transaction.
    case externalPurchaseToken
    /// None of `data`, `summary`, `externalPurchaseToken`.
    case empty
  }

  public var content: Content {
    if let data { return data.signedTransactionInfo == nil ? .noTransaction : .transaction }
    if summary != nil { return .summary }
    if externalPurchaseToken != nil { return .externalPurchaseToken }
    return .empty
  }

  /// The environment, wherever this notification's variant keeps it.
  public var environment: Coded<AppStoreEnvironment>? { data?.environment ?? summary?.environment }
}

/// The kinds of signed payload, recognised from their fields.
public enum SignedPayloadKind: String, Sendable, Hashable, CaseIterable {
  case transaction, renewalInfo, appTransaction, notification

  /// How messages name the kind, with Apple's type name.
  public var noun: String {
    switch self {
    case .transaction: "a transaction (JWSTransactionDecodedPayload)"
    case .renewalInfo: "renewal info (JWSRenewalInfoDecodedPayload)"
    case .appTransaction: "an app transaction (AppTransaction)"
    case .notification: "a V2 notification (responseBodyV2DecodedPayload)"
    }
  }
}

/// A decoded payload of any kind.
public enum SignedPayload: Sendable, Hashable {
  case transaction(JWSTransactionPayload)
  case renewalInfo(JWSRenewalInfoPayload)
  case appTransaction(AppTransactionPayload)
  case notification(NotificationV2Payload)

  public var kind: SignedPayloadKind {
    switch self {
    case .transaction: .transaction
    case .renewalInfo: .renewalInfo
    case .appTransaction: .appTransaction
    case .notification: .notification
    }
  }

  /// The payload's `environment` (an app transaction's `receiptType`).
  public var environment: Coded<AppStoreEnvironment>? {
    switch self {
    case .transaction(let p): p.environment
    case .renewalInfo(let p): p.environment
    case .appTransaction(let p): p.receiptType
    case .notification(let p): p.environment
    }
  }

  public var signedDate: Timestamp? {
    switch self {
    case .transaction(let p): p.signedDate
    case .renewalInfo(let p): p.signedDate
    case .appTransaction(let p): p.receiptCreationDate
    case .notification(let p): p.signedDate
    }
  }
}

/// `JWSDecodedHeader`, as far as the tool reports it.
public struct JWSHeader: Sendable, Hashable {
  public var alg: String?
  public var kid: String?
  public var typ: String?
  /// How many certificates `x5c` holds (Apple: 3; Xcode: 1; hand-written: 0). Nil when absent.
  public var x5cCount: Int?
  public var unreadKeys: [String] = []

  public init() {}
}

/// Who produced the signature, as far as can be told without verifying it.
public enum SigningSource: String, Sendable, Hashable {
  /// Claims to be the App Store (Sandbox or Production). Not verified.
  case appStoreClaimed
  /// Xcode StoreKit testing: signed on the developer's Mac by Xcode, never by Apple.
  case xcode
  /// `LocalTesting`: Apple's server library test data.
  case localTesting
  /// Made by examples/storekit2/make-jws.py (`kid` "hand-written"): unsigned.
  case handWritten

  /// A phrase for output.
  public var label: String {
    switch self {
    case .appStoreClaimed: "claims App Store signing (not verified)"
    case .xcode: "Xcode StoreKit testing (signed locally by Xcode, not by Apple)"
    case .localTesting: "LocalTesting (App Store Server Library test data, not signed by Apple)"
    case .handWritten: "hand-written (dummy signature, not signed by anyone)"
    }
  }
}

/// One compact JWS, read but NOT verified.
public struct SignedJWS<Payload: Sendable & Hashable>: Sendable, Hashable {
  public var header: JWSHeader
  public var payload: Payload
  /// Bytes in the decoded signature segment (ES256: 64).
  public var signatureByteCount: Int
  public var source: SigningSource

  /// Always false: receipt-tool has no cryptography and never checks the signature or the certificate chain.
  public var signatureVerified: Bool { false }
}

/// A signed string inside a response or notification: decoded, or carried with the reason it could not be
/// (only when the caller asked for `strict: false`; Apple's own fixtures hold placeholders like
/// `"signed_transaction_one"`).
public enum NestedJWS<Payload: Sendable & Hashable>: Sendable, Hashable {
  case decoded(SignedJWS<Payload>)
  case undecodable(SignedDataError)

  public var decoded: SignedJWS<Payload>? {
    if case .decoded(let jws) = self { return jws }
    return nil
  }
}
