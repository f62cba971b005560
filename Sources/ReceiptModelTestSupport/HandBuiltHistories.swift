import ReceiptModel

/// What a hand-built test history says it was read as: no input format, so a rule test names none.
extension FormatIdentity {
  package static let handBuilt = FormatIdentity(name: "hand_built", description: "hand-built test history")
}

extension FieldVocabulary {
  /// Field names for hand-built test histories. Spelled as verifyReceipt spells them, so that reasons read
  /// as they do for a receipt, but a vocabulary of its own: the model names no format.
  package static let test = FieldVocabulary(
    document: "the receipt", transactionID: "transaction_id", originalTransactionID: "original_transaction_id",
    purchaseDate: "purchase_date", expiresDate: "expires_date", revocationDate: "cancellation_date",
    revocationReason: "cancellation_reason", ownership: "in_app_ownership_type",
    subscriptionGroup: "subscription_group_identifier", isUpgraded: "is_upgraded",
    introductoryOffer: "is_trial_period or is_in_intro_offer_period", autoRenewStatus: "auto_renew_status",
    expirationIntent: "expiration_intent", isInBillingRetryPeriod: "is_in_billing_retry_period",
    gracePeriodExpiresDate: "grace_period_expires_date")

  /// Like `test`, for a format that carries no renewal state and no ownership (an on-device receipt).
  package static let testWithoutRenewalState = FieldVocabulary(
    document: "the on-device receipt", transactionID: "transaction_id",
    originalTransactionID: "original_transaction_id", purchaseDate: "purchase_date", expiresDate: "expires_date",
    revocationDate: "cancellation_date", revocationReason: "cancellation_reason", ownership: "in_app_ownership_type",
    subscriptionGroup: "subscription_group_identifier", isUpgraded: "is_upgraded",
    introductoryOffer: "is_trial_period or is_in_intro_offer_period", autoRenewStatus: "auto_renew_status",
    expirationIntent: "expiration_intent", isInBillingRetryPeriod: "is_in_billing_retry_period",
    gracePeriodExpiresDate: "grace_period_expires_date", holdsRenewalState: false)
}

extension ReceiptShape {
  /// Document `index` built directly as a purchase history, with the transactions the verifyReceipt decoder
  /// reads from `verifyReceipt(index:)` in the order it gives them: the rows also in `receipt.in_app` (every
  /// 4th) first, then the rest of `latest_receipt_info`.
  package func history(index: Int, vocabulary: FieldVocabulary = .test) -> PurchaseHistory {
    let rows = rows(index: index)
    let inApp = Set(stride(from: 0, to: rows.count, by: 4))
    let order = inApp.sorted() + rows.indices.filter { !inApp.contains($0) }
    var history = PurchaseHistory(format: .handBuilt)
    history.transactions = order.map { i in
      let r = rows[i]
      return PurchaseTransaction(
        transactionID: r.transactionID, originalTransactionID: r.originalTransactionID, productID: r.productID,
        ownership: r.familyShared ? .familyShared : .purchased, purchaseDate: Self.timestamp(r.purchase),
        originalPurchaseDate: Self.timestamp(r.originalPurchase), expiresDate: r.expires.flatMap(Self.timestamp),
        revocation: r.refunded.flatMap(Self.timestamp).map { Revocation(date: $0, reason: .other) },
        offer: r.inIntroOffer ? .introductoryPrice : nil, isUpgraded: r.isUpgraded,
        subscriptionGroup: r.subscriptionGroup, webOrderLineItemID: r.expires == nil ? nil : r.transactionID + "7",
        sources: inApp.contains(i) ? [.inApp, .latestReceiptInfo] : .latestReceiptInfo, vocabulary: vocabulary)
    }
    return history
  }

  private static func timestamp(_ milliseconds: Int64) -> Timestamp? { Timestamp(milliseconds: milliseconds) }
}
