/// A format's own names for the facts the rules speak of, so that a reason quotes the field a support
/// person will find in the data: `expires_date` in verifyReceipt JSON, `expiresDate` in a signed transaction.
/// Each format defines its own beside its decoder; the model names none.
///
/// A class, so that every transaction of a document shares one instance instead of copying its strings.
public final class FieldVocabulary: Hashable, Sendable {
  /// The format's name for itself in these messages ("the receipt", "the signed transaction").
  public let document: String
  /// The format's name for the transaction id.
  public let transactionID: String
  /// The format's name for the original transaction id.
  public let originalTransactionID: String
  /// The format's name for the purchase date.
  public let purchaseDate: String
  /// The format's name for the expiry date.
  public let expiresDate: String
  /// The format's name for the refund or revocation date.
  public let revocationDate: String
  /// The format's name for the refund or revocation reason.
  public let revocationReason: String
  /// The format's name for the ownership type (purchased or family shared).
  public let ownership: String
  /// The format's name for the subscription group.
  public let subscriptionGroup: String
  /// The format's name for the upgraded-away-from flag.
  public let isUpgraded: String
  /// The format's name for the field that shows an introductory offer was used.
  public let introductoryOffer: String
  /// The format's name for the auto-renew status.
  public let autoRenewStatus: String
  /// The format's name for the expiration intent.
  public let expirationIntent: String
  /// The format's name for the billing retry flag.
  public let isInBillingRetryPeriod: String
  /// The format's name for the end of the Billing Grace Period.
  public let gracePeriodExpiresDate: String
  /// False when the format carries no renewal state at all (an on-device receipt): billing retry, grace
  /// period, auto-renew status and refund reasons are then unknown, not absent.
  public let holdsRenewalState: Bool

  /// Names every field; see the properties for what each means.
  /// - Parameters:
  ///   - document: The format's name for itself.
  ///   - transactionID: Its name for the transaction id.
  ///   - originalTransactionID: Its name for the original transaction id.
  ///   - purchaseDate: Its name for the purchase date.
  ///   - expiresDate: Its name for the expiry date.
  ///   - revocationDate: Its name for the refund date.
  ///   - revocationReason: Its name for the refund reason.
  ///   - ownership: Its name for the ownership type.
  ///   - subscriptionGroup: Its name for the subscription group.
  ///   - isUpgraded: Its name for the upgraded flag.
  ///   - introductoryOffer: Its name for the introductory offer field.
  ///   - autoRenewStatus: Its name for the auto-renew status.
  ///   - expirationIntent: Its name for the expiration intent.
  ///   - isInBillingRetryPeriod: Its name for the billing retry flag.
  ///   - gracePeriodExpiresDate: Its name for the end of the grace period.
  ///   - holdsRenewalState: Whether the format carries renewal state at all.
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

  /// Two vocabularies are equal only when they are the same instance.
  /// - Parameters:
  ///   - a: One vocabulary.
  ///   - b: The other.
  /// - Returns: Whether they are the same instance.
  public static func == (a: FieldVocabulary, b: FieldVocabulary) -> Bool { a === b }
  /// Hashes the instance's identity, to match `==`.
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
