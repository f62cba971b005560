import ReceiptModel

extension FieldVocabulary {
  /// verifyReceipt responses, notification v1 bodies and bare receipt objects.
  public static let verifyReceipt = FieldVocabulary(
    document: "the receipt", transactionID: "transaction_id", originalTransactionID: "original_transaction_id",
    purchaseDate: "purchase_date", expiresDate: "expires_date", revocationDate: "cancellation_date",
    revocationReason: "cancellation_reason", ownership: "in_app_ownership_type",
    subscriptionGroup: "subscription_group_identifier", isUpgraded: "is_upgraded",
    introductoryOffer: "is_trial_period or is_in_intro_offer_period", autoRenewStatus: "auto_renew_status",
    expirationIntent: "expiration_intent", isInBillingRetryPeriod: "is_in_billing_retry_period",
    gracePeriodExpiresDate: "grace_period_expires_date")
}
