import ReceiptModel

/// A value from a closed list that Apple may extend: the raw value is always kept, `known` is nil for
/// a value this version does not know (carried through and listed in the payload's `notes`).
public struct Coded<Known: RawRepresentable & Sendable & Hashable>: Sendable, Hashable
where Known.RawValue: Sendable & Hashable {
  /// The value exactly as the payload gave it.
  public var raw: Known.RawValue
  /// Wraps a raw value as read, known to this version or not.
  /// - Parameter raw: The value from the payload.
  public init(raw: Known.RawValue) { self.raw = raw }
  /// Wraps a value this version knows.
  /// - Parameter known: The recognised value.
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

/// `billingPlanType`, `renewalBillingPlanType`, `commitmentRenewalBillingPlanType` (App Store Server API 1.21).
public enum SignedBillingPlanType: String, Sendable, Hashable, CaseIterable {
  case billedUpfront = "BILLED_UPFRONT"
  case monthly = "MONTHLY"
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
  /// What was carried through and why, in plain words.
  public var message: String
}

/// `JWSTransactionDecodedPayload`. Every field is optional, as in Apple's own model; absence is kept.
public struct JWSTransactionPayload: Sendable, Hashable {
  /// `transactionId`: this purchase's own id (each renewal gets a new one).
  public var transactionId: String?
  /// `originalTransactionId`: the id of the first purchase in this chain; shared by its renewals.
  public var originalTransactionId: String?
  /// `webOrderLineItemId`: the id of this subscription purchase event across devices.
  public var webOrderLineItemId: String?
  /// `bundleId`: the app's bundle identifier.
  public var bundleId: String?
  /// `productId`: the product bought.
  public var productId: String?
  /// `subscriptionGroupIdentifier`: the subscription group the product belongs to.
  public var subscriptionGroupIdentifier: String?
  /// `purchaseDate`: when the App Store charged for this transaction (milliseconds since 1970).
  public var purchaseDate: Timestamp?
  /// `originalPurchaseDate`: when the original transaction was bought (milliseconds since 1970).
  public var originalPurchaseDate: Timestamp?
  /// `expiresDate`: when the period ends (milliseconds since 1970); auto-renewable subscriptions only.
  public var expiresDate: Timestamp?
  /// `quantity`: how many were bought (consumables).
  public var quantity: Int64?
  /// `type`: the kind of product (auto-renewable, non-consumable, consumable, non-renewing).
  public var type: Coded<SignedProductType>?
  /// `appAccountToken`: the UUID the app attached to the purchase; absent when it set none.
  public var appAccountToken: String?
  /// `inAppOwnershipType`: bought by this customer, or shared with them through Family Sharing.
  public var inAppOwnershipType: Coded<InAppOwnershipType>?
  /// `signedDate`: when Apple signed this payload (milliseconds since 1970).
  public var signedDate: Timestamp?
  /// `revocationReason`: why Apple refunded or revoked it (0 other, 1 an issue with the app).
  public var revocationReason: Coded<SignedRevocationReason>?
  /// `revocationDate`: when it was refunded or revoked from Family Sharing (milliseconds since 1970).
  public var revocationDate: Timestamp?
  /// Only ever present as `true` in Apple's data; Xcode writes `false`.
  public var isUpgraded: Bool?
  /// `offerType`: the offer used (1 introductory, 2 promotional, 3 offer code, 4 win-back).
  public var offerType: Coded<OfferType>?
  /// `offerIdentifier`: the offer code or promotional offer id; absent for introductory offers.
  public var offerIdentifier: String?
  /// `environment`: where the purchase happened (Sandbox, Production, Xcode, LocalTesting).
  public var environment: Coded<AppStoreEnvironment>?
  /// `storefront`: the customer's App Store country (ISO 3166-1 alpha-3, e.g. `USA`).
  public var storefront: String?
  /// `storefrontId`: Apple's id for that storefront (e.g. `143441`).
  public var storefrontId: String?
  /// `transactionReason`: `PURCHASE` (the customer bought it) or `RENEWAL` (the system renewed it).
  public var transactionReason: Coded<TransactionReason>?
  /// Milliunits of `currency` (price × 1000), after discounts, × quantity for consumables.
  public var price: Int64?
  /// `currency`: the ISO 4217 code of `price`; present only when `price` is.
  public var currency: String?
  /// `offerDiscountType`: how the offer was paid (free trial, pay as you go, pay up front, one time).
  public var offerDiscountType: Coded<OfferDiscountType>?
  /// ISO 8601 duration (`P1M`).
  public var offerPeriod: String?
  /// `appTransactionId`: the id of the app download transaction.
  public var appTransactionId: String?
  /// `revocationType`: full refund, prorated refund, or revoked from Family Sharing.
  public var revocationType: Coded<RevocationType>?
  /// Milliunits of a percent: 50000 is 50%.
  public var revocationPercentage: Int64?
  /// `previousOriginalTransactionId`: the original transaction id before a subscription migration.
  public var previousOriginalTransactionId: String?
  /// `billingPlanType`: how the subscription is billed (`BILLED_UPFRONT`, `MONTHLY`).
  public var billingPlanType: Coded<SignedBillingPlanType>?
  /// `commitmentInfo`: where a commitment plan's charge stands in its commitment.
  public var commitmentInfo: TransactionCommitmentInfo?
  /// `advancedCommerceInfo`: Advanced Commerce API data, carried as read under Apple's names (not interpreted).
  public var advancedCommerceInfo: [StatedField]?
  /// Unknown enum values and other things carried through.
  public var notes: [SignedDataNote] = []
  /// Top-level keys present but not read (e.g. `deviceVerification`), in input order.
  public var unreadKeys: [String] = []

  /// An empty payload, every field absent.
  public init() {}
}

/// `TransactionCommitmentInfo` (App Store Server API 1.21).
public struct TransactionCommitmentInfo: Sendable, Hashable {
  /// `billingPeriodNumber`: which billing period of the commitment the transaction pays for.
  public var billingPeriodNumber: Int64?
  /// `commitmentExpiresDate`: when the commitment ends (milliseconds since 1970).
  public var commitmentExpiresDate: Timestamp?
  /// `commitmentPrice`: the whole commitment's price, in milliunits of the transaction's `currency`.
  public var commitmentPrice: Int64?
  /// `totalBillingPeriods`: how many billing periods the commitment has.
  public var totalBillingPeriods: Int64?
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty `commitmentInfo`, every field absent.
  public init() {}
}

/// `RenewalCommitmentInfo` (App Store Server API 1.21).
public struct RenewalCommitmentInfo: Sendable, Hashable {
  /// `commitmentAutoRenewProductId`: the product the subscription renews into after the commitment.
  public var commitmentAutoRenewProductId: String?
  /// `commitmentAutoRenewStatus`: whether it renews after the commitment (0 off, 1 on).
  public var commitmentAutoRenewStatus: Coded<SignedAutoRenewStatus>?
  /// `commitmentRenewalBillingPlanType`: the billing plan it renews into.
  public var commitmentRenewalBillingPlanType: Coded<SignedBillingPlanType>?
  /// `commitmentRenewalDate`: when the commitment renews (milliseconds since 1970).
  public var commitmentRenewalDate: Timestamp?
  /// `commitmentRenewalPrice`: the price it renews at, in milliunits of the renewal info's `currency`.
  public var commitmentRenewalPrice: Int64?
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty `commitmentInfo`, every field absent.
  public init() {}
}

/// `JWSRenewalInfoDecodedPayload`.
public struct JWSRenewalInfoPayload: Sendable, Hashable {
  /// `expirationIntent`: why the subscription expired (1 cancelled, 2 billing error, 3 no consent to a price
  /// rise, 4 product unavailable, 5 other).
  public var expirationIntent: Coded<SignedExpirationIntent>?
  /// `originalTransactionId`: the id of the first purchase in this subscription.
  public var originalTransactionId: String?
  /// `autoRenewProductId`: the product that renews next.
  public var autoRenewProductId: String?
  /// `productId`: the product of the current period.
  public var productId: String?
  /// `autoRenewStatus`: whether the subscription will renew (0 off, 1 on).
  public var autoRenewStatus: Coded<SignedAutoRenewStatus>?
  /// `isInBillingRetryPeriod`: the App Store is still trying to charge after a billing failure.
  public var isInBillingRetryPeriod: Bool?
  /// `priceIncreaseStatus`: 0 the customer has not yet agreed to a price rise, 1 agreed or notified.
  public var priceIncreaseStatus: Coded<PriceIncreaseStatus>?
  /// `gracePeriodExpiresDate`: when the Billing Grace Period ends (milliseconds since 1970).
  public var gracePeriodExpiresDate: Timestamp?
  /// `offerType`: the offer for the next renewal (1 introductory, 2 promotional, 3 offer code, 4 win-back).
  public var offerType: Coded<OfferType>?
  /// `offerIdentifier`: the offer code or promotional offer id for the next renewal.
  public var offerIdentifier: String?
  /// `signedDate`: when Apple signed this payload (milliseconds since 1970).
  public var signedDate: Timestamp?
  /// `environment`: where the subscription lives (Sandbox, Production, Xcode, LocalTesting).
  public var environment: Coded<AppStoreEnvironment>?
  /// `recentSubscriptionStartDate`: start of the latest run of paid periods, ignoring gaps of 60 days or less.
  public var recentSubscriptionStartDate: Timestamp?
  /// `renewalDate`: when the latest purchase expires, which may be in the past (milliseconds since 1970).
  public var renewalDate: Timestamp?
  /// Milliunits of `currency`.
  public var renewalPrice: Int64?
  /// `currency`: the ISO 4217 code of `renewalPrice`.
  public var currency: String?
  /// `offerDiscountType`: how the next renewal's offer is paid (free trial, pay as you go, pay up front).
  public var offerDiscountType: Coded<OfferDiscountType>?
  /// `offerPeriod`: how long the next renewal's offer lasts (ISO 8601 duration, e.g. `P1M`).
  public var offerPeriod: String?
  /// `eligibleWinBackOfferIds`: win-back offers the customer may redeem, best first.
  public var eligibleWinBackOfferIds: [String]?
  /// `appAccountToken`: the UUID the app attached to the purchase.
  public var appAccountToken: String?
  /// `appTransactionId`: the id of the app download transaction.
  public var appTransactionId: String?
  /// `renewalBillingPlanType`: the billing plan of the next renewal (`BILLED_UPFRONT`, `MONTHLY`).
  public var renewalBillingPlanType: Coded<SignedBillingPlanType>?
  /// `commitmentInfo`: what a commitment renews into when it ends.
  public var commitmentInfo: RenewalCommitmentInfo?
  /// `advancedCommerceInfo`: Advanced Commerce API data, carried as read under Apple's names (not interpreted).
  public var advancedCommerceInfo: [StatedField]?
  /// Unknown enum values and other things carried through.
  public var notes: [SignedDataNote] = []
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty payload, every field absent.
  public init() {}
}

/// `AppTransaction` (the app download's signed record).
public struct AppTransactionPayload: Sendable, Hashable {
  /// `receiptType`: the environment the app was downloaded in (Sandbox, Production, Xcode, LocalTesting).
  public var receiptType: Coded<AppStoreEnvironment>?
  /// `appAppleId`: the app's Apple id in the App Store.
  public var appAppleId: Int64?
  /// `bundleId`: the app's bundle identifier.
  public var bundleId: String?
  /// `applicationVersion`: the app version the record was made for.
  public var applicationVersion: String?
  /// `versionExternalIdentifier`: the App Store's id for that app version.
  public var versionExternalIdentifier: Int64?
  /// `receiptCreationDate`: when the App Store signed this record (milliseconds since 1970).
  public var receiptCreationDate: Timestamp?
  /// `requestDate`: when the app asked for this record (milliseconds since 1970).
  public var requestDate: Timestamp?
  /// Nil when the value is outside 1970...9999 (Xcode writes year 1); the exact value is in
  /// `originalPurchaseDateMilliseconds` and a note says so.
  public var originalPurchaseDate: Timestamp?
  /// `originalPurchaseDate` exactly as given, even outside 1970...9999 (milliseconds since 1970).
  public var originalPurchaseDateMilliseconds: Int64?
  /// `originalApplicationVersion`: the app version the customer first downloaded.
  public var originalApplicationVersion: String?
  /// `deviceVerification`: a base64 hash that ties the record to one device.
  public var deviceVerification: String?
  /// `deviceVerificationNonce`: the UUID used in computing `deviceVerification`.
  public var deviceVerificationNonce: String?
  /// `preorderDate`: when the customer pre-ordered the app; absent when not pre-ordered.
  public var preorderDate: Timestamp?
  /// `appTransactionId`: the id of the app download transaction.
  public var appTransactionId: String?
  /// `originalPlatform`: the platform the customer first got the app on (`iOS`, `macOS`, ...).
  public var originalPlatform: String?
  /// Unknown enum values and other things carried through.
  public var notes: [SignedDataNote] = []
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty payload, every field absent.
  public init() {}
}

/// Notifications V2 `data`: one app's transaction event.
public struct NotificationData: Sendable, Hashable {
  /// `appAppleId`: the app's Apple id in the App Store.
  public var appAppleId: Int64?
  /// `bundleId`: the app's bundle identifier.
  public var bundleId: String?
  /// `bundleVersion`: the app's build version.
  public var bundleVersion: String?
  /// `environment`: where the event happened (Sandbox, Production, ...).
  public var environment: Coded<AppStoreEnvironment>?
  /// `status`: the subscription's state (1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked).
  public var status: Coded<SubscriptionStatus>?
  /// `consumptionRequestReason`: why the customer asked for a refund, with a `CONSUMPTION_REQUEST`.
  public var consumptionRequestReason: String?
  /// `signedTransactionInfo`: the transaction the event is about, still signed.
  public var signedTransactionInfo: NestedJWS<JWSTransactionPayload>?
  /// `signedRenewalInfo`: the subscription's renewal info, still signed.
  public var signedRenewalInfo: NestedJWS<JWSRenewalInfoPayload>?
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty `data`, every field absent.
  public init() {}
}

/// Notifications V2 `summary` (renewal-date extension for all subscribers).
public struct NotificationSummary: Sendable, Hashable {
  /// `requestIdentifier`: the id of the renewal-extension request this summarises.
  public var requestIdentifier: String?
  /// `environment`: where the extension ran (Sandbox, Production, ...).
  public var environment: Coded<AppStoreEnvironment>?
  /// `appAppleId`: the app's Apple id in the App Store.
  public var appAppleId: Int64?
  /// `bundleId`: the app's bundle identifier.
  public var bundleId: String?
  /// `productId`: the subscription product that was extended.
  public var productId: String?
  /// `storefrontCountryCodes`: the storefronts the extension covered.
  public var storefrontCountryCodes: [String]?
  /// `failedCount`: how many subscriptions could not be extended.
  public var failedCount: Int64?
  /// `succeededCount`: how many subscriptions were extended.
  public var succeededCount: Int64?
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty `summary`, every field absent.
  public init() {}
}

/// Notifications V2 `externalPurchaseToken`.
public struct ExternalPurchaseToken: Sendable, Hashable {
  /// `externalPurchaseId`: the id of the external purchase token.
  public var externalPurchaseId: String?
  /// `tokenCreationDate`: when the token was created (milliseconds since 1970).
  public var tokenCreationDate: Timestamp?
  /// `appAppleId`: the app's Apple id in the App Store.
  public var appAppleId: Int64?
  /// `bundleId`: the app's bundle identifier.
  public var bundleId: String?
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty `externalPurchaseToken`, every field absent.
  public init() {}
}

/// `responseBodyV2DecodedPayload`.
public struct NotificationV2Payload: Sendable, Hashable {
  /// `notificationType`: what happened (e.g. `DID_RENEW`, `EXPIRED`, `REFUND`).
  public var notificationType: Coded<NotificationTypeV2>?
  /// `subtype`: more detail on what happened (e.g. `AUTO_RENEW_DISABLED`); often absent.
  public var subtype: Coded<NotificationSubtype>?
  /// `notificationUUID`: this notification's unique id; a retry repeats it.
  public var notificationUUID: String?
  /// `version`: the notification format version (`2.0`).
  public var version: String?
  /// `signedDate`: when Apple signed this notification (milliseconds since 1970).
  public var signedDate: Timestamp?
  /// `data`: the app and, usually, the transaction the event is about.
  public var data: NotificationData?
  /// `summary`: the result of a renewal-date extension for many subscribers.
  public var summary: NotificationSummary?
  /// `externalPurchaseToken`: an external purchase report.
  public var externalPurchaseToken: ExternalPurchaseToken?
  /// `appData`: the app and its signed app transaction (RESCIND_CONSENT).
  public var appData: AppData?
  /// Unknown enum values and other things carried through.
  public var notes: [SignedDataNote] = []
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty notification, every field absent.
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
    /// `appData` (RESCIND_CONSENT): the app transaction of the customer it is about.
    case appData
    /// None of `data`, `summary`, `externalPurchaseToken`, `appData`.
    case empty
  }

  /// Which of `data`, `summary` or `externalPurchaseToken` this notification carries.
  public var content: Content {
    if let data { return data.signedTransactionInfo == nil ? .noTransaction : .transaction }
    if summary != nil { return .summary }
    if externalPurchaseToken != nil { return .externalPurchaseToken }
    if appData != nil { return .appData }
    return .empty
  }

  /// The environment, wherever this notification's variant keeps it.
  public var environment: Coded<AppStoreEnvironment>? {
    data?.environment ?? summary?.environment ?? appData?.environment
  }
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

  /// The top-level keys the payload had that the tool does not know (at most 256).
  public var unreadKeys: [String] {
    switch self {
    case .transaction(let p): p.unreadKeys
    case .renewalInfo(let p): p.unreadKeys
    case .appTransaction(let p): p.unreadKeys
    case .notification(let p): p.unreadKeys
    }
  }

  /// Adds a note about the payload as a whole.
  mutating func appendNote(_ note: SignedDataNote) {
    switch self {
    case .transaction(var p):
      p.notes.append(note)
      self = .transaction(p)
    case .renewalInfo(var p):
      p.notes.append(note)
      self = .renewalInfo(p)
    case .appTransaction(var p):
      p.notes.append(note)
      self = .appTransaction(p)
    case .notification(var p):
      p.notes.append(note)
      self = .notification(p)
    }
  }

  /// Which kind of payload this is.
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

  /// When the payload was signed: `signedDate` (an app transaction's `receiptCreationDate`).
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
  /// `alg`: the signing algorithm named (Apple: `ES256`).
  public var alg: String?
  /// `kid`: the key id, if any (Apple sends none; make-jws.py writes `hand-written`).
  public var kid: String?
  /// `typ`: the token type, if given.
  public var typ: String?
  /// How many certificates `x5c` holds (Apple: 3; Xcode: 1; hand-written: 0). Nil when absent.
  public var x5cCount: Int?
  /// `x5c`: the certificates, standard base64 DER, leaf first. Nil when absent.
  public var x5c: [String]?
  /// `crit`: extensions the signer says must be understood (RFC 7515 4.1.11); the verifier understands none, so
  /// a header carrying it is rejected. Nil when absent.
  public var crit: [String]?
  /// Header keys present but not read, in input order.
  public var unreadKeys: [String] = []

  /// An empty header, every field absent.
  public init() {}
}

/// Who produced the signature, as far as can be told without verifying it.
public enum SigningSource: String, Sendable, Hashable {
  /// Claims to be the App Store (Sandbox or Production); the signature check says whether it is.
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
    case .appStoreClaimed: "claims App Store signing"
    case .xcode: "Xcode StoreKit testing (signed locally by Xcode, not by Apple)"
    case .localTesting: "LocalTesting (App Store Server Library test data, not signed by Apple)"
    case .handWritten: "hand-written (dummy signature, not signed by anyone)"
    }
  }
}

/// One compact JWS as read; its signature's verdict is kept apart (`JWSChecks`), for the document as a whole.
public struct SignedJWS<Payload: Sendable & Hashable>: Sendable, Hashable {
  /// The JWS header.
  public var header: JWSHeader
  /// The decoded payload.
  public var payload: Payload
  /// Bytes in the decoded signature segment (ES256: 64).
  public var signatureByteCount: Int
  /// Who appears to have signed it; a claim, not a check.
  public var source: SigningSource
}

/// A signed string inside a response or notification: decoded, or carried with the reason it could not be
/// (only when the caller asked for `strict: false`; Apple's own fixtures hold placeholders like
/// `"signed_transaction_one"`).
public enum NestedJWS<Payload: Sendable & Hashable>: Sendable, Hashable {
  case decoded(SignedJWS<Payload>)
  case undecodable(SignedDataError)

  /// The decoded JWS, or nil when it could not be decoded.
  public var decoded: SignedJWS<Payload>? {
    if case .decoded(let jws) = self { return jws }
    return nil
  }
}
