import ReceiptModel

/// The fields of each signed payload that the history does not map, kept under Apple's names so that
/// `decode --format json` shows every field it read.
extension SignedDataMapping {
  /// A signed transaction's fields beyond the mapped ones.
  static func statedFields(of p: JWSTransactionPayload) -> [StatedField] {
    var f: [StatedField] = []
    f.add("bundleId", p.bundleId)
    f.add("type", p.type?.raw)
    f.add("appAccountToken", p.appAccountToken)
    f.add("environment", p.environment?.raw)
    f.add("storefront", p.storefront)
    f.add("storefrontId", p.storefrontId)
    f.add("transactionReason", p.transactionReason?.raw)
    f.add("offerType", number: p.offerType?.raw)
    f.add("offerDiscountType", p.offerDiscountType?.raw)
    f.add("offerPeriod", p.offerPeriod)
    f.add("appTransactionId", p.appTransactionId)
    f.add("revocationType", p.revocationType?.raw)
    f.add("revocationPercentage", number: p.revocationPercentage)
    f.add("previousOriginalTransactionId", p.previousOriginalTransactionId)
    if let info = p.advancedCommerceInfo { f.append(StatedField("advancedCommerceInfo", .object(info))) }
    return f
  }

  /// Signed renewal info's fields beyond the mapped ones.
  static func statedFields(of p: JWSRenewalInfoPayload) -> [StatedField] {
    var f: [StatedField] = []
    f.add("signedDate", date: p.signedDate)
    f.add("environment", p.environment?.raw)
    f.add("recentSubscriptionStartDate", date: p.recentSubscriptionStartDate)
    f.add("offerType", number: p.offerType?.raw)
    f.add("offerIdentifier", p.offerIdentifier)
    f.add("offerDiscountType", p.offerDiscountType?.raw)
    f.add("offerPeriod", p.offerPeriod)
    f.add("renewalPrice", number: p.renewalPrice)
    f.add("currency", p.currency)
    if let ids = p.eligibleWinBackOfferIds { f.append(StatedField("eligibleWinBackOfferIds", .list(ids))) }
    f.add("appAccountToken", p.appAccountToken)
    f.add("appTransactionId", p.appTransactionId)
    if let info = p.advancedCommerceInfo { f.append(StatedField("advancedCommerceInfo", .object(info))) }
    return f
  }

  /// An app transaction's fields beyond the receipt metadata.
  static func statedFields(of a: AppTransactionPayload) -> [StatedField] {
    var f: [StatedField] = []
    f.add("appAppleId", number: a.appAppleId)
    f.add("versionExternalIdentifier", number: a.versionExternalIdentifier)
    f.add("deviceVerification", a.deviceVerification)
    f.add("deviceVerificationNonce", a.deviceVerificationNonce)
    f.add("preorderDate", date: a.preorderDate)
    f.add("appTransactionId", a.appTransactionId)
    return f
  }

  /// A V2 notification's own fields and its `data`'s, beyond the type and the signed payloads.
  static func statedFields(of n: NotificationV2Payload) -> [StatedField] {
    var f: [StatedField] = []
    f.add("notificationUUID", n.notificationUUID)
    f.add("version", n.version)
    f.add("signedDate", date: n.signedDate)
    if let d = n.data {
      f.add("data.appAppleId", number: d.appAppleId)
      f.add("data.bundleVersion", d.bundleVersion)
      f.add("data.environment", d.environment?.raw)
      f.add("data.status", number: d.status?.raw)
      f.add("data.consumptionRequestReason", d.consumptionRequestReason)
    }
    if let s = n.summary {
      f.add("summary.requestIdentifier", s.requestIdentifier)
      f.add("summary.productId", s.productId)
      if let codes = s.storefrontCountryCodes { f.append(StatedField("summary.storefrontCountryCodes", .list(codes))) }
      f.add("summary.succeededCount", number: s.succeededCount)
      f.add("summary.failedCount", number: s.failedCount)
    }
    if let t = n.externalPurchaseToken {
      f.add("externalPurchaseToken.externalPurchaseId", t.externalPurchaseId)
      f.add("externalPurchaseToken.tokenCreationDate", date: t.tokenCreationDate)
    }
    return f
  }
}
