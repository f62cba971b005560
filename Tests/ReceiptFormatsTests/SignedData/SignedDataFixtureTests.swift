import Foundation
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Real fixtures from ../shared/peer-fixtures, checked against the assertions in their source repositories'
/// own tests (quoted above each check): apple/app-store-server-library-swift
/// Tests/AppStoreServerLibraryTests/SignedModelTests.swift, XcodeSignedDataVerifierTests.swift and
/// AppStoreServerAPIClientTests.swift; aporat/store-receipt-validator tests/AppleAppStore/ServerNotificationTest.php.
@Suite struct SignedDataFixtureTests {
  typealias F = SignedDataFixtures

  func decode(_ name: String, strict: Bool = true) throws -> SignedDataDocument? {
    guard let bytes = F.bytes(name) else { return nil }
    return try SignedDataDecoder.decode(bytes, strict: strict)
  }

  // MARK: Decoded payloads (SignedModelTests.swift)

  @Test func signedTransactionJSON() throws {
    guard let doc = try decode(F.appleDirectory + "signedTransaction.json") else { return }
    #expect(doc.shape == .decodedPayload)
    guard case .decodedPayload(.transaction(let t)) = doc.content else {
      Issue.record("not a transaction: \(doc.shape)")
      return
    }
    // XCTAssertEqual("12345", transaction.originalTransactionId) / ("23456", transactionId) / ("34343", webOrderLineItemId)
    #expect(t.originalTransactionId == "12345")
    #expect(t.transactionId == "23456")
    #expect(t.webOrderLineItemId == "34343")
    // XCTAssertEqual("com.example", bundleId); ("com.example.product", productId); ("55555", subscriptionGroupIdentifier)
    #expect(t.bundleId == "com.example")
    #expect(t.productId == "com.example.product")
    #expect(t.subscriptionGroupIdentifier == "55555")
    // Date(timeIntervalSince1970: 1698148800) originalPurchaseDate, 1698148900 purchaseDate,
    // 1698148950 revocationDate, 1698149000 expiresDate, 1698148900 signedDate
    #expect(t.originalPurchaseDate == F.ms(1_698_148_800))
    #expect(t.purchaseDate == F.ms(1_698_148_900))
    #expect(t.revocationDate == F.ms(1_698_148_950))
    #expect(t.expiresDate == F.ms(1_698_149_000))
    #expect(t.signedDate == F.ms(1_698_148_900))
    // XCTAssertEqual(1, transaction.quantity); ProductType.autoRenewableSubscription, "Auto-Renewable Subscription"
    #expect(t.quantity == 1)
    #expect(t.type?.known == .autoRenewableSubscription)
    #expect(t.type?.raw == "Auto-Renewable Subscription")
    // UUID(uuidString: "7e3fb20b-4cdb-47cc-936d-99d65f608138") appAccountToken
    #expect(t.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
    // InAppOwnershipType.purchased, "PURCHASED"
    #expect(t.inAppOwnershipType == Coded(.purchased))
    // SignedRevocationReason.refundedDueToIssue, rawRevocationReason 1
    #expect(t.revocationReason?.known == .appIssue)
    #expect(t.revocationReason?.raw == 1)
    // "abc.123" offerIdentifier; isUpgraded true; OfferType.introductoryOffer, rawOfferType 1
    #expect(t.offerIdentifier == "abc.123")
    #expect(t.isUpgraded == true)
    #expect(t.offerType?.known == .introductory)
    // "USA" storefront, "143441" storefrontId, TransactionReason.purchase "PURCHASE"
    #expect(t.storefront == "USA")
    #expect(t.storefrontId == "143441")
    #expect(t.transactionReason?.known == .purchase)
    // AppStoreEnvironment.localTesting "LocalTesting"; 10990 price; "USD" currency; payAsYouGo "PAY_AS_YOU_GO"
    #expect(t.environment?.known == .localTesting)
    #expect(t.price == 10990)
    #expect(t.currency == "USD")
    #expect(t.offerDiscountType?.raw == "PAY_AS_YOU_GO")
    #expect(t.offerDiscountType?.known == .payAsYouGo)
    #expect(t.appTransactionId == "71134")
    #expect(t.offerPeriod == "P1Y")
    #expect(t.billingPlanType?.known == .monthly)
    // TransactionCommitmentInfo: billingPeriodNumber 3, commitmentExpiresDate, commitmentPrice 119880, 12 periods.
    #expect(t.commitmentInfo?.billingPeriodNumber == 3 && t.commitmentInfo?.totalBillingPeriods == 12)
    #expect(t.commitmentInfo?.commitmentExpiresDate == F.ms(1_698_150_000))
    #expect(t.commitmentInfo?.commitmentPrice == 119_880 && t.commitmentInfo?.unreadKeys == [])
    // Carried as read.
    #expect(t.advancedCommerceInfo?.contains { $0.name == "items" } == true)
    #expect(t.unreadKeys.isEmpty)
    #expect(t.notes.isEmpty)
  }

  @Test func signedTransactionWithRevocationJSON() throws {
    guard let doc = try decode(F.appleDirectory + "signedTransactionWithRevocation.json") else { return }
    guard case .decodedPayload(.transaction(let t)) = doc.content else {
      Issue.record("not a transaction")
      return
    }
    // Values as in the file (Apple's testTransactionWithRevocationDecoding asserts REFUND_PRORATED / 50000).
    #expect(t.revocationType?.known == .refundProrated)
    #expect(t.revocationPercentage == 50000)
    #expect(t.revocationReason?.known == .appIssue)
    #expect(t.revocationDate == F.ms(1_698_148_950))
    #expect(t.price == 10990)
    #expect(t.unreadKeys.isEmpty)
  }

  @Test func signedRenewalInfoJSON() throws {
    guard let doc = try decode(F.appleDirectory + "signedRenewalInfo.json") else { return }
    guard case .decodedPayload(.renewalInfo(let r)) = doc.content else {
      Issue.record("not renewal info")
      return
    }
    // SignedExpirationIntent.customerCancelled, raw 1; "12345"; "com.example.product.2"; "com.example.product"
    #expect(r.expirationIntent?.known == .customerCancelled)
    #expect(r.expirationIntent?.raw == 1)
    #expect(r.originalTransactionId == "12345")
    #expect(r.autoRenewProductId == "com.example.product.2")
    #expect(r.productId == "com.example.product")
    // SignedAutoRenewStatus.on raw 1; isInBillingRetryPeriod true; PriceIncreaseStatus.customerHasNotResponded raw 0
    #expect(r.autoRenewStatus?.known == .on)
    #expect(r.isInBillingRetryPeriod == true)
    #expect(r.priceIncreaseStatus?.known == .notResponded)
    #expect(r.priceIncreaseStatus?.raw == 0)
    // gracePeriodExpiresDate 1698148900; OfferType.promotionalOffer raw 2; "abc.123"; signedDate 1698148800
    #expect(r.gracePeriodExpiresDate == F.ms(1_698_148_900))
    #expect(r.offerType?.known == .promotional)
    #expect(r.offerIdentifier == "abc.123")
    #expect(r.signedDate == F.ms(1_698_148_800))
    // localTesting; recentSubscriptionStartDate 1698148800; renewalDate 1698148850; 9990; "USD"; payAsYouGo
    #expect(r.environment?.known == .localTesting)
    #expect(r.recentSubscriptionStartDate == F.ms(1_698_148_800))
    #expect(r.renewalDate == F.ms(1_698_148_850))
    #expect(r.renewalPrice == 9990)
    #expect(r.currency == "USD")
    #expect(r.offerDiscountType?.known == .payAsYouGo)
    // ["eligible1", "eligible2"] eligibleWinBackOfferIds
    #expect(r.eligibleWinBackOfferIds == ["eligible1", "eligible2"])
    // RenewalBillingPlanType.monthly; RenewalCommitmentInfo as in the file; advancedCommerceInfo carried.
    #expect(r.renewalBillingPlanType?.known == .monthly)
    #expect(r.commitmentInfo?.commitmentAutoRenewProductId == "com.example.product.commitment")
    #expect(r.commitmentInfo?.commitmentAutoRenewStatus?.known == .on)
    #expect(r.commitmentInfo?.commitmentRenewalBillingPlanType?.known == .monthly)
    #expect(r.commitmentInfo?.commitmentRenewalDate == F.ms(1_698_149_500))
    #expect(r.commitmentInfo?.commitmentRenewalPrice == 9990)
    #expect(r.advancedCommerceInfo?.first == StatedField("consistencyToken", .text("token-abc-123")))
    #expect(r.unreadKeys.isEmpty)
    #expect(r.notes.isEmpty)
  }

  @Test func signedNotificationJSON() throws {
    let name = F.appleDirectory + "signedNotification.json"
    // Apple's fixture holds placeholders where the signed strings go: strict decoding names the place.
    if let bytes = F.bytes(name) {
      let e = F.error { _ = try SignedDataDecoder.decode(bytes) }
      #expect(e?.category == .segmentCount)
      #expect(e?.path == "data.signedTransactionInfo")
      #expect(e?.description.contains("signed_transaction_info_value") == false)
    }
    guard let doc = try decode(name, strict: false) else { return }
    guard case .decodedPayload(.notification(let n)) = doc.content else {
      Issue.record("not a notification")
      return
    }
    // NotificationTypeV2.subscribed "SUBSCRIBED"; Subtype.initialBuy "INITIAL_BUY"
    #expect(n.notificationType == Coded(.subscribed))
    #expect(n.subtype == Coded(.initialBuy))
    // "002e14d5-51f5-4503-b5a8-c3a1af68eb20"; "2.0"; Date(timeIntervalSince1970: 1698148900)
    #expect(n.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
    #expect(n.version == "2.0")
    #expect(n.signedDate == F.ms(1_698_148_900))
    // XCTAssertNotNil(notification.data); XCTAssertNil(summary); XCTAssertNil(externalPurchaseToken)
    #expect(n.summary == nil && n.externalPurchaseToken == nil)
    let data = try #require(n.data)
    // localTesting; 41234 appAppleId; "com.example"; "1.2.3"; Status.active raw 1
    #expect(data.environment?.known == .localTesting)
    #expect(data.appAppleId == 41234)
    #expect(data.bundleId == "com.example")
    #expect(data.bundleVersion == "1.2.3")
    #expect(data.status?.known == .active)
    #expect(data.consumptionRequestReason == nil)
    // "signed_transaction_info_value" is no JWS: carried with the reason.
    guard case .undecodable(let e)? = data.signedTransactionInfo else {
      Issue.record("placeholder decoded")
      return
    }
    #expect(e.category == .segmentCount)
    #expect(doc.carriedErrors.count == 2)
    #expect(n.content == .transaction)
  }

  @Test func getAllSubscriptionStatusesResponse() throws {
    guard let doc = try decode(F.appleDirectory + "getAllSubscriptionStatusesResponse.json", strict: false) else {
      return
    }
    guard case .subscriptionStatuses(let r) = doc.content else {
      Issue.record("shape \(doc.shape)")
      return
    }
    // AppStoreServerAPIClientTests.testGetAllSubscriptionStatuses: localTesting, "com.example", 5454545,
    // sub_group_one: (active, "3749183"), (revoked, "5314314134"); sub_group_two: (expired, "3413453")
    #expect(r.environment?.known == .localTesting)
    #expect(r.bundleId == "com.example")
    #expect(r.appAppleId == 5_454_545)
    #expect(r.data.map(\.subscriptionGroupIdentifier) == ["sub_group_one", "sub_group_two"])
    #expect(r.data[0].lastTransactions.map(\.status) == [Coded(.active), Coded(.revoked)])
    #expect(r.data[0].lastTransactions.map(\.originalTransactionId) == ["3749183", "5314314134"])
    #expect(r.data[1].lastTransactions.map(\.status) == [Coded(.expired)])
    #expect(r.data[1].lastTransactions.map(\.originalTransactionId) == ["3413453"])
    // The signed strings are placeholders ("signed_transaction_one"): six carried errors, paths named.
    #expect(doc.carriedErrors.count == 6)
    #expect(doc.carriedErrors.first?.path == "data[0].lastTransactions[0].signedTransactionInfo")
  }

  // MARK: Xcode-signed JWS (XcodeSignedDataVerifierTests.swift)

  @Test func xcodeSignedTransaction() throws {
    guard let doc = try decode(F.appleDirectory + "xcode-signed-transaction") else { return }
    guard case .compactJWS(let jws) = doc.content, case .transaction(let t) = jws.payload else {
      Issue.record("shape \(doc.shape)")
      return
    }
    #expect(jws.header.alg == "ES256")
    #expect(jws.header.kid == "Apple_Xcode_Key")
    #expect(jws.header.x5cCount == 1)
    #expect(jws.signatureByteCount == 64)
    #expect(jws.header.x5c?.count == 1)
    #expect(jws.source == .xcode)
    // "0" originalTransactionId, transactionId, webOrderLineItemId; XCODE_BUNDLE_ID; "pass.premium"; "6F3A93AB"
    #expect(t.originalTransactionId == "0" && t.transactionId == "0" && t.webOrderLineItemId == "0")
    #expect(t.bundleId == "com.example.naturelab.backyardbirds.example")
    #expect(t.productId == "pass.premium")
    #expect(t.subscriptionGroupIdentifier == "6F3A93AB")
    // compareXcodeDates (floor to the millisecond): 1697679936.049 purchase and original purchase,
    // 1700358336.049 expires, 1697679936.056 signed
    #expect(t.purchaseDate?.milliseconds == 1_697_679_936_049)
    #expect(t.originalPurchaseDate?.milliseconds == 1_697_679_936_049)
    #expect(t.expiresDate?.milliseconds == 1_700_358_336_049)
    #expect(t.signedDate?.milliseconds == 1_697_679_936_056)
    // 1 quantity; autoRenewableSubscription; nil appAccountToken; purchased; nil revocation; isUpgraded false
    #expect(t.quantity == 1)
    #expect(t.type?.known == .autoRenewableSubscription)
    #expect(t.appAccountToken == nil)
    #expect(t.inAppOwnershipType?.known == .purchased)
    #expect(t.revocationReason == nil && t.revocationDate == nil)
    #expect(t.isUpgraded == false)
    // introductoryOffer raw 1; nil offerIdentifier; xcode "Xcode"; "USA"; "143441"; purchase
    #expect(t.offerType?.raw == 1)
    #expect(t.offerIdentifier == nil)
    #expect(t.environment?.raw == "Xcode")
    #expect(t.storefront == "USA" && t.storefrontId == "143441")
    #expect(t.transactionReason?.known == .purchase)
    #expect(t.unreadKeys == ["deviceVerification", "deviceVerificationNonce"])
  }

  @Test func xcodeSignedRenewalInfo() throws {
    guard let doc = try decode(F.appleDirectory + "xcode-signed-renewal-info") else { return }
    guard case .compactJWS(let jws) = doc.content, case .renewalInfo(let r) = jws.payload else {
      Issue.record("shape \(doc.shape)")
      return
    }
    #expect(jws.source == .xcode)
    // nil expirationIntent; "0"; "pass.premium" x2; SignedAutoRenewStatus.on raw 1; nil retry, price increase, grace,
    // offer type and identifier; signedDate 1697679936.711; xcode; recentSubscriptionStartDate 1697679936.049;
    // renewalDate 1700358336.049
    #expect(r.expirationIntent == nil)
    #expect(r.originalTransactionId == "0")
    #expect(r.autoRenewProductId == "pass.premium" && r.productId == "pass.premium")
    #expect(r.autoRenewStatus?.raw == 1)
    #expect(r.isInBillingRetryPeriod == nil && r.priceIncreaseStatus == nil && r.gracePeriodExpiresDate == nil)
    #expect(r.offerType == nil && r.offerIdentifier == nil)
    #expect(r.signedDate?.milliseconds == 1_697_679_936_711)
    #expect(r.environment?.known == .xcode)
    #expect(r.recentSubscriptionStartDate?.milliseconds == 1_697_679_936_049)
    #expect(r.renewalDate?.milliseconds == 1_700_358_336_049)
  }

  @Test func xcodeSignedAppTransaction() throws {
    guard let doc = try decode(F.appleDirectory + "xcode-signed-app-transaction") else { return }
    guard case .compactJWS(let jws) = doc.content, case .appTransaction(let a) = jws.payload else {
      Issue.record("shape \(doc.shape)")
      return
    }
    #expect(jws.source == .xcode)
    // nil appAppleId; XCODE_BUNDLE_ID; "1" applicationVersion; nil versionExternalIdentifier;
    // originalPurchaseDate Date(timeIntervalSince1970: -62135769600); "1" originalApplicationVersion;
    // deviceVerification "cYUsXc53EbYc0pOeXG5d6/31LGHeVGf84sqSN0OrJi5u/j2H89WWKgS8N0hMsMlf";
    // nonce 48c8b92d-ce0d-4229-bedf-e61b4f9cfc92; nil preorderDate; xcode
    #expect(a.appAppleId == nil)
    #expect(a.bundleId == "com.example.naturelab.backyardbirds.example")
    #expect(a.applicationVersion == "1")
    #expect(a.versionExternalIdentifier == nil)
    #expect(a.originalPurchaseDateMilliseconds == -62_135_769_600_000)
    #expect(a.originalPurchaseDate == nil)
    #expect(a.notes.map(\.path) == ["originalPurchaseDate"])
    #expect(a.originalApplicationVersion == "1")
    #expect(a.deviceVerification == "cYUsXc53EbYc0pOeXG5d6/31LGHeVGf84sqSN0OrJi5u/j2H89WWKgS8N0hMsMlf")
    #expect(a.deviceVerificationNonce == "48c8b92d-ce0d-4229-bedf-e61b4f9cfc92")
    #expect(a.preorderDate == nil)
    #expect(a.receiptType?.known == .xcode)
  }

  /// Mock signed data: three-certificate headers; payloads too small to say their kind alone.
  @Test func mockSignedData() throws {
    guard let bytes = F.bytes(F.appleDirectory + "transactionInfo") else { return }
    // Alone, the payload's fields (environment, bundleId, signedDate) fit only a transaction: read as one, and
    // the note says why (issue 30: "unknown kind" is not a reason to refuse valid JSON).
    let alone = try SignedDataDecoder.decode(bytes)
    guard case .compactJWS(let read) = alone.content, case .transaction(let partial) = read.payload else {
      Issue.record("expected a transaction")
      return
    }
    #expect(partial.environment?.known == .sandbox)
    #expect(partial.notes.first?.message.contains("only environment, bundleId, signedDate") == true)
    // Where a response says it is a transaction, it is one.
    let jws = try CompactJWS.decode(bytes, expected: .transaction)
    #expect(jws.header.x5cCount == 3)
    guard case .transaction(let t) = jws.payload else { return }
    // SignedDataVerifierTests: environment Sandbox, bundleId com.example; payload signedDate 1672956154000
    #expect(t.environment?.known == .sandbox && t.bundleId == "com.example")
    #expect(t.signedDate?.milliseconds == 1_672_956_154_000)
    #expect(jws.source == .appStoreClaimed)

    guard let test = F.bytes(F.appleDirectory + "testNotification") else { return }
    let doc = try SignedDataDecoder.decode(test)
    guard case .compactJWS(let n) = doc.content, case .notification(let note) = n.payload else { return }
    #expect(note.notificationType?.known == .test)
    #expect(note.data?.appAppleId == 1234)
    #expect(note.content == .noTransaction)
  }

  // MARK: aporat/store-receipt-validator

  /// ServerNotificationTest::testNotificationParsesCorrectly asserts only that the type, UUID, environment,
  /// bundle id and signed date are present; the values below were read from the payload by hand
  /// (python3 base64.urlsafe_b64decode) and agree with SOURCES.md ("notificationType TEST, version 2.0,
  /// Sandbox, bundle com.Abilities").
  @Test func aporatTestNotificationBody() throws {
    guard let doc = try decode(F.aporatDirectory + "test-notification-signed-payload.json") else { return }
    guard case .notificationBody(let jws, let unread) = doc.content else {
      Issue.record("shape \(doc.shape)")
      return
    }
    #expect(unread.isEmpty)
    #expect(jws.header.alg == "ES256")
    #expect(jws.header.x5cCount == 3)
    #expect(jws.header.kid == nil)
    #expect(jws.signatureByteCount == 64)
    #expect(jws.source == .appStoreClaimed)
    let n = jws.payload
    #expect(n.notificationType?.known == .test)
    #expect(n.notificationUUID == "5e09dcfc-205e-4ea1-9883-96676f394992")
    #expect(n.version == "2.0")
    #expect(n.signedDate?.milliseconds == 1_662_122_492_884)
    #expect(n.data?.bundleId == "com.Abilities")
    #expect(n.environment?.known == .sandbox)
    #expect(n.content == .noTransaction)
    #expect(doc.newestSignedDate?.milliseconds == 1_662_122_492_884)
  }

  /// Every fixture in the two folders that is signed data is recognised by the sniff; none of the
  /// verifyReceipt ones is.
  @Test func sniff() throws {
    let signed =
      [
        "signedTransaction.json", "signedRenewalInfo.json", "signedNotification.json",
        "getAllSubscriptionStatusesResponse.json", "xcode-signed-transaction", "xcode-signed-renewal-info",
        "xcode-signed-app-transaction", "transactionInfo", "testNotification",
      ].map { F.appleDirectory + $0 } + [F.aporatDirectory + "test-notification-signed-payload.json"]
    for name in signed {
      guard let bytes = F.bytes(name) else { return }
      #expect(SignedDataDecoder.looksLikeSignedData(bytes), "\(name)")
    }
    for name in ["inAppPurchaseResponse.json", "serverNotificationRequest.json"] {
      guard let bytes = F.bytes(F.aporatDirectory + name) else { return }
      #expect(!SignedDataDecoder.looksLikeSignedData(bytes), "\(name)")
    }
  }
}
