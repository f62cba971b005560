/// A format's own names for the facts the rules speak of, so that a reason quotes the field a support
/// person will find in the data: `expires_date` in verifyReceipt JSON, `expiresDate` in a signed transaction.
///
/// A class, so that every transaction of a document shares one instance instead of copying its strings.
public final class FieldVocabulary: Hashable, Sendable {
  /// The format's name for itself in these messages ("the receipt", "the signed transaction").
  public let document: String
  public let transactionID: String
  public let originalTransactionID: String
  public let purchaseDate: String
  public let expiresDate: String
  public let revocationDate: String
  public let revocationReason: String
  public let ownership: String
  public let subscriptionGroup: String
  public let isUpgraded: String
  public let introductoryOffer: String
  public let autoRenewStatus: String
  public let expirationIntent: String
  public let isInBillingRetryPeriod: String
  public let gracePeriodExpiresDate: String
  /// False when the format carries no renewal state at all (an on-device receipt): billing retry, grace
  /// period, auto-renew status and refund reasons are then unknown, not absent.
  public let holdsRenewalState: Bool

  public init(
    document: String, transactionID: String, originalTransactionID: String, purchaseDate: String,
    expiresDate: String, revocationDate: String, revocationReason: String, ownership: String,
    subscriptionGroup: String, isUpgraded: String, introductoryOffer: String, autoRenewStatus: String,
    expirationIntent: String, isInBillingRetryPeriod: String, gracePeriodExpiresDate: String,
    holdsRenewalState: Bool = true
  ) {
    self.document = document
    self.transactionID = transactionID
    self.originalTransactionID = originalTransactionID
    self.purchaseDate = purchaseDate
    self.expiresDate = expiresDate
    self.revocationDate = revocationDate
    self.revocationReason = revocationReason
    self.ownership = ownership
    self.subscriptionGroup = subscriptionGroup
    self.isUpgraded = isUpgraded
    self.introductoryOffer = introductoryOffer
    self.autoRenewStatus = autoRenewStatus
    self.expirationIntent = expirationIntent
    self.isInBillingRetryPeriod = isInBillingRetryPeriod
    self.gracePeriodExpiresDate = gracePeriodExpiresDate
    self.holdsRenewalState = holdsRenewalState
  }

  /// verifyReceipt responses, notification v1 bodies and bare receipt objects.
  public static let verifyReceipt = FieldVocabulary(
    document: "the receipt", transactionID: "transaction_id", originalTransactionID: "original_transaction_id",
    purchaseDate: "purchase_date", expiresDate: "expires_date", revocationDate: "cancellation_date",
    revocationReason: "cancellation_reason", ownership: "in_app_ownership_type",
    subscriptionGroup: "subscription_group_identifier", isUpgraded: "is_upgraded",
    introductoryOffer: "is_trial_period or is_in_intro_offer_period", autoRenewStatus: "auto_renew_status",
    expirationIntent: "expiration_intent", isInBillingRetryPeriod: "is_in_billing_retry_period",
    gracePeriodExpiresDate: "grace_period_expires_date")

  public static func == (a: FieldVocabulary, b: FieldVocabulary) -> Bool { a === b }
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
