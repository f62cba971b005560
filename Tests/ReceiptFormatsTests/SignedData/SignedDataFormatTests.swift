import Foundation
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// StoreKit 2 data through the format registry: the purchase history each fixture gives, checked against the
/// values the source repositories' own tests assert (../shared/peer-fixtures/SOURCES.md).
@Suite struct SignedDataFormatTests {
  static func history(_ relative: String) throws -> PurchaseHistory? {
    guard let bytes = SignedDataFixtures.bytes(relative) else { return nil }
    return try FormatRegistry.standard.decode(bytes, source: relative)
  }

  static let apple = SignedDataFixtures.appleDirectory

  @Test func registryPicksSignedDataForJWSAndCamelCaseAndVerifyReceiptOtherwise() {
    let jws = SignedDataFixtures.jws(#"{"transactionId":"1","productId":"p"}"#)
    #expect(FormatRegistry.standard.format(for: Array(jws.utf8)) is SignedDataFormat)
    #expect(FormatRegistry.standard.format(for: Array(#"{"signedPayload":"x"}"#.utf8)) is SignedDataFormat)
    #expect(FormatRegistry.standard.format(for: Array(#"{"status":0}"#.utf8)) is VerifyReceiptFormat)
  }

  /// Apple's JWSTransactionDecodedPayload model test (signedTransaction.json).
  @Test func decodedTransactionMapsFieldByField() throws {
    guard let h = try Self.history(Self.apple + "signedTransaction.json") else { return }
    #expect(h.transactions.count == 1)
    let t = try #require(h.transactions.first)
    #expect(t.transactionID == "23456" && t.originalTransactionID == "12345" && t.webOrderLineItemID == "34343")
    #expect(t.productID == "com.example.product" && t.subscriptionGroup == "55555")
    #expect(t.purchaseDate?.milliseconds == 1_698_148_900_000)
    #expect(t.originalPurchaseDate?.milliseconds == 1_698_148_800_000)
    #expect(t.expiresDate?.milliseconds == 1_698_149_000_000)
    #expect(t.ownership == .purchased && !t.ownershipAssumed)
    #expect(
      t.revocation
        == Revocation(
          date: try #require(Timestamp(milliseconds: 1_698_148_950_000)), reason: .appIssue, excludesUpgrade: true))
    #expect(t.isUpgraded)
    #expect(t.offer == OfferUse(kind: .introductory, pricing: .payAsYouGo, identifier: "abc.123"))
    #expect(t.offer?.usesIntroductoryOffer == true)
    #expect(t.productType == .autoRenewable)
    #expect(t.price == StatedPrice(amount: DecimalAmount(units: 10990, scale: 3), currency: "USD"))
    #expect(t.vocabulary === FieldVocabulary.storeKit2 && t.vocabulary.expiresDate == "expiresDate")
    #expect(h.environment == "LocalTesting")
    // Apple's test data dates the refund after its signedDate: the data knows of it, so its moment is the refund.
    #expect(h.moment?.time.milliseconds == 1_698_148_950_000 && h.moment?.field == "revocationDate")
    #expect(h.provenance.signature == nil)
  }

  @Test func revocationTypeIsCarried() throws {
    guard let h = try Self.history(Self.apple + "signedTransactionWithRevocation.json") else { return }
    let t = try #require(h.transactions.first)
    #expect(t.revocation?.type == "REFUND_PRORATED")
    #expect(t.revocation?.reason == .appIssue)
  }

  /// Apple's JWSRenewalInfoDecodedPayload model test (signedRenewalInfo.json).
  @Test func renewalInfoMapsToRenewalState() throws {
    guard let h = try Self.history(Self.apple + "signedRenewalInfo.json") else { return }
    #expect(h.transactions.isEmpty)
    let r = try #require(h.renewals.first)
    #expect(r.originalTransactionID == "12345" && r.productID == "com.example.product")
    #expect(r.autoRenewProductID == "com.example.product.2")
    #expect(r.autoRenewStatus == .on)
    #expect(r.expirationIntent?.code == "1")
    #expect(r.isInBillingRetryPeriod == true)
    #expect(r.gracePeriodExpiresDate?.milliseconds == 1_698_148_900_000)
    #expect(r.renewalDate?.milliseconds == 1_698_148_850_000)
    #expect(r.vocabulary === FieldVocabulary.storeKit2)
  }

  /// Apple's GetAllSubscriptionStatusesResponse test: statuses 1, 5, 2 for three chains; the signed strings
  /// are placeholders, carried as warnings (never dropped silently).
  @Test func subscriptionStatusesCarryApplesStatusAndPlaceholderWarnings() throws {
    guard let h = try Self.history(Self.apple + "getAllSubscriptionStatusesResponse.json") else { return }
    #expect(h.transactions.isEmpty)
    #expect(h.renewals.map(\.originalTransactionID) == ["3749183", "5314314134", "3413453"])
    #expect(h.renewals.map { $0.storeStatus?.code } == [1, 5, 2])
    #expect(h.renewal(originalTransactionID: "5314314134")?.storeStatus?.meaning == "revoked")
    // Two unreadable strings per item, and per item Apple's status kept without its transaction.
    #expect(h.warnings.count == 9)
    #expect(h.warnings.first?.path == "data[0].lastTransactions[0].signedTransactionInfo")
    #expect(h.warnings.filter { $0.path.hasSuffix(".status") }.count == 3)
    #expect(h.environment == "LocalTesting")
  }

  /// Apple's ResponseBodyV2DecodedPayload test (signedNotification.json): SUBSCRIBED / INITIAL_BUY.
  @Test func decodedNotificationNamesItsTypeAndCarriesPlaceholders() throws {
    guard let h = try Self.history(Self.apple + "signedNotification.json") else { return }
    #expect(h.provenance.notification?.notificationType == "SUBSCRIBED / INITIAL_BUY")
    #expect(h.provenance.notification?.bundleID == "com.example")
    #expect(h.environment == "LocalTesting")
    #expect(h.moment?.time.milliseconds == 1_698_148_900_000)
    // The two placeholders, and data.status 1 kept though its transaction could not be read.
    #expect(h.warnings.count == 3)
  }

  /// aporat's test: a TEST notification body, Sandbox, com.Abilities; no transaction and no warning.
  @Test func testNotificationIsNotAnErrorAndHasNoTransactions() throws {
    guard let h = try Self.history(SignedDataFixtures.aporatDirectory + "test-notification-signed-payload.json")
    else { return }
    #expect(h.transactions.isEmpty && h.warnings.isEmpty)
    #expect(h.provenance.notification?.notificationType == "TEST")
    #expect(h.provenance.notification?.bundleID == "com.Abilities")
    #expect(h.environment == "Sandbox")
    #expect(h.provenance.format.description.contains("no transaction"))
    // Decoded without a verifier: the signature is said not to be checked, never verified.
    #expect(h.provenance.signatureCheck.verdict == .notChecked)
  }

  /// Apple's Xcode tests: pass.premium, transaction "0", ES256 with one certificate, labelled Xcode.
  @Test func xcodeSignedTransactionIsLabelledAndNotVerified() throws {
    guard let h = try Self.history(Self.apple + "xcode-signed-transaction") else { return }
    let s = try #require(h.provenance.signature)
    #expect(s.algorithm == "ES256" && s.keyID == "Apple_Xcode_Key" && s.certificateCount == 1)
    #expect(h.provenance.signatureCheck.verdict == .notChecked)
    #expect(s.signer == SigningSource.xcode.label)
    let t = try #require(h.transactions.first)
    #expect(t.transactionID == "0" && t.productID == "pass.premium" && t.subscriptionGroup == "6F3A93AB")
    #expect(t.expiresDate?.milliseconds == 1_700_358_336_049)
    #expect(t.offer?.kind == .introductory)
    #expect(h.environment == "Xcode")
    #expect(h.moment?.time.milliseconds == 1_697_679_936_056)
  }

  @Test func xcodeRenewalAndAppTransaction() throws {
    if let h = try Self.history(Self.apple + "xcode-signed-renewal-info") {
      #expect(h.renewals.first?.autoRenewStatus == .on)
      #expect(h.renewals.first?.productID == "pass.premium")
    }
    if let h = try Self.history(Self.apple + "xcode-signed-app-transaction") {
      #expect(h.provenance.receipt?.receiptType == "Xcode")
      #expect(h.provenance.receipt?.bundleID == "com.example.naturelab.backyardbirds.example")
      #expect(h.transactions.isEmpty)
    }
  }

  @Test func offerTypesOtherThanIntroductoryAreNotIntroUse() throws {
    for (type, kind) in [(2, OfferUse.Kind.promotional), (3, .offerCode), (4, .winBack)] {
      let payload = #"{"transactionId":"9","productId":"p","offerType":\#(type),"offerDiscountType":"FREE_TRIAL"}"#
      let h = try FormatRegistry.standard.decode(Array(payload.utf8), source: "x")
      let offer = try #require(h.transactions.first?.offer)
      #expect(offer.kind == kind && offer.usesIntroductoryOffer == false && offer.pricing == .freeTrial)
    }
  }

  @Test func malformedJWSIsAOneLineMalformedErrorWithItsPlace() {
    let bad = Array("eyJhbGciOiJFUzI1NiJ9.not base64!.AAAA".utf8)
    do {
      _ = try FormatRegistry.standard.decode(bad, source: "bad.jws")
      Issue.record("expected an error")
    } catch {
      #expect(error.kind == .malformed)
      #expect(error.path == "payload")
      #expect(error.description.hasPrefix("bad.jws: payload: malformed JWS: "))
      #expect(!error.description.contains("\n"))
    }
    let badJSON = Array(SignedDataFixtures.jws("{\"transactionId\": }").utf8)
    do {
      _ = try FormatRegistry.standard.decode(badJSON, source: "j.jws")
      Issue.record("expected an error")
    } catch {
      #expect(error.kind == .malformed)
      // Inside the decoded payload, not the file's line and column: said in words (issue 30).
      #expect(error.position == nil)
      #expect(error.message.contains("(line 1, column 19 of the decoded payload)"))
    }
  }

  /// Two copies of one transaction: the later-signed one wins and the difference is noted.
  @Test func laterSignedCopyWinsAcrossDocuments() throws {
    let early = SignedDataFixtures.jws(
      #"{"transactionId":"7","productId":"p","expiresDate":1700000000000,"signedDate":1690000000000}"#)
    let late = SignedDataFixtures.jws(
      #"{"transactionId":"7","productId":"p","expiresDate":1700000000000,"signedDate":1695000000000,"revocationDate":1694000000000,"revocationReason":0}"#
    )
    var merger = CustomerHistoryMerger()
    merger.add(try FormatRegistry.standard.decode(Array(late.utf8), source: "late"), source: "late")
    merger.add(try FormatRegistry.standard.decode(Array(early.utf8), source: "early"), source: "early")
    let h = try #require(merger.history())
    #expect(h.transactions.count == 1)
    #expect(h.transactions.first?.revocation?.date.milliseconds == 1_694_000_000_000)
    #expect(h.warnings.count == 1)
    #expect(h.warnings.first?.message.contains("revocationDate") == true)
    #expect(h.moment?.time.milliseconds == 1_695_000_000_000)
  }

  /// The data's type and price win over a catalog's; each disagreement is one warning.
  @Test func catalogDisagreementsAreWarnedAndTheDataWins() throws {
    let payload =
      #"{"transactionId":"8","productId":"coins","type":"Consumable","quantity":3,"price":2970,"currency":"USD"}"#
    let h = try FormatRegistry.standard.decode(Array(SignedDataFixtures.jws(payload).utf8), source: "c")
    let t = try #require(h.transactions.first)
    let agreeing = Catalog([
      CatalogProduct(productID: "coins", type: .consumable, price: DecimalAmount(parsing: "0.99"), currency: "USD")
    ])
    #expect(catalogDisagreements(of: t, catalog: agreeing).isEmpty)
    let other = Catalog([
      CatalogProduct(productID: "coins", type: .nonConsumable, price: DecimalAmount(parsing: "1.99"), currency: "USD")
    ])
    let warnings = catalogDisagreements(of: t, catalog: other)
    #expect(warnings.count == 2)
    #expect(warnings.last?.contains("priced from the transaction at 2.97 USD") == true)
    #expect(resolveProductType(of: t, catalog: other)?.type == .consumable)
    // 3 coins for 2.97 USD (Apple's price already includes the quantity), with and without the catalog.
    for catalog in [Catalog(), other] {
      #expect(
        try valueOf(t, catalog: catalog) == .paid(Money(minorUnits: 297, currency: "USD"), basis: .transactionPrice))
    }
  }

  @Test func applesStatusIsComparedAndADifferenceExplained() throws {
    let payloads = [
      #"{"transactionId":"5","originalTransactionId":"5","productId":"p","purchaseDate":1680000000000,"expiresDate":1700000000000,"signedDate":1690000000000,"type":"Auto-Renewable Subscription"}"#,
      #"{"originalTransactionId":"5","productId":"p","autoRenewStatus":1,"signedDate":1690000000000}"#,
    ].map { SignedDataFixtures.jws($0) }
    let body =
      #"{"environment":"Sandbox","data":[{"subscriptionGroupIdentifier":"g","lastTransactions":[{"status":1,"originalTransactionId":"5","signedTransactionInfo":"\#(payloads[0])","signedRenewalInfo":"\#(payloads[1])"}]}]}"#
    let h = try FormatRegistry.standard.decode(Array(body.utf8), source: "s")
    let asked = try #require(Timestamp(milliseconds: 1_710_000_000_000))
    let results = entitlementStatuses(of: h, catalog: Catalog(), at: asked)
    let r = try #require(results.first)
    #expect(r.state == .expired)
    let c = try #require(compareWithStoreStatus(r, history: h, at: asked))
    #expect(!c.agrees && c.status.code == 1)
    #expect(c.explanation?.contains("older than the moment asked about") == true)
    let before = try #require(Timestamp(milliseconds: 1_690_000_000_000))
    let agreeing = try #require(entitlementStatuses(of: h, catalog: Catalog(), at: before).first)
    #expect(compareWithStoreStatus(agreeing, history: h, at: before)?.agrees == true)
  }
}

/// Every hand-written Family Sharing example and its StoreKit 2 twin (examples/storekit2/, made by
/// twin-of-verifyreceipt.py) give the same statuses, revenue amounts and intro eligibility.
@Suite struct StoreKit2TwinTests {
  static let examples = TestPaths.packageRoot.appendingPathComponent("examples")

  static func history(_ name: String) throws -> PurchaseHistory {
    let data = try Data(contentsOf: examples.appendingPathComponent(name))
    return try FormatRegistry.standard.decode([UInt8](data), source: name)
  }

  static func catalog(_ name: String) throws -> Catalog {
    let data = try Data(contentsOf: examples.appendingPathComponent(name))
    return try CatalogLoader.load([UInt8](data), source: name)
  }

  static let pairs: [(String, String)] = [
    ("family-revoked-but-purchased.json", "storekit2/family-revoked-but-purchased.jws"),
    ("family-revoked.json", "storekit2/family-revoked.jws"),
    ("family-shared-active.json", "storekit2/family-shared-active.jws"),
    ("family-trial.json", "storekit2/family-trial.jws"),
    ("entitlements-active.json", "storekit2/entitlements-active.jws"),
    ("entitlements-grace-period.json", "storekit2/entitlements-grace-period.jws"),
    ("entitlements-billing-retry.json", "storekit2/entitlements-billing-retry.jws"),
    ("entitlements-expired.json", "storekit2/entitlements-expired.jws"),
    ("entitlements-refunded.json", "storekit2/entitlements-refunded.jws"),
    ("entitlements-upgraded.json", "storekit2/entitlements-upgraded.jws"),
  ]

  @Test(arguments: pairs) func sameStatusesAndEligibility(_ receipt: String, _ twin: String) throws {
    let catalog = try Self.catalog("catalog.json")
    let (a, b) = (try Self.history(receipt), try Self.history(twin))
    // The twins are signed by the examples' test chain (examples/README.md), not hand-written any more.
    #expect(b.provenance.signature?.certificateCount == 3 && b.provenance.signature?.signer == nil)
    let moment = try #require(a.moment?.time)
    #expect(b.moment?.time == moment)
    for c in [catalog, Catalog()] {
      let mine = entitlementStatuses(of: a, catalog: c, at: moment).map { "\($0.id)=\($0.state.rawValue)" }
      let theirs = entitlementStatuses(of: b, catalog: c, at: moment).map { "\($0.id)=\($0.state.rawValue)" }
      #expect(mine == theirs, "\(twin)")
      #expect(!mine.isEmpty)
    }
    let when = EvaluationTime(time: moment, source: .given)
    let eligibility = { (h: PurchaseHistory) in
      decideIntroEligibility(products: nil, history: h, catalog: catalog, at: when).map {
        "\($0.productID)=\($0.status.rawValue)"
      }
    }
    #expect(eligibility(a) == eligibility(b), "\(twin)")
  }

  @Test func familyTrialTwinIsIneligibleForTheWholeGroup() throws {
    let h = try Self.history("storekit2/family-trial.jws")
    let results = decideIntroEligibility(
      products: ["com.acme.pro.monthly", "com.acme.pro.yearly"], history: h, catalog: try Self.catalog("catalog.json"),
      at: EvaluationTime(time: try #require(h.moment?.time), source: .given))
    #expect(results.map(\.status.rawValue) == ["ineligible", "ineligible"])
    #expect(results.first?.ownership == .familyShared)
  }

  @Test func revokeNotificationTwinIsRevoked() throws {
    let (a, b) = (
      try Self.history("family-revoke-notification-v1.json"),
      try Self.history("storekit2/family-revoke-notification-v2.json")
    )
    let at = try #require(Timestamp(milliseconds: 1_718_409_600_000))
    #expect(entitlementStatuses(of: a, catalog: Catalog(), at: at).map(\.state) == [.revoked])
    #expect(entitlementStatuses(of: b, catalog: Catalog(), at: at).map(\.state) == [.revoked])
    #expect(b.provenance.notification?.notificationType == "REVOKE")
  }

  /// The four revenue documents against their twins: the same amounts per currency and product, with the
  /// catalog and (for the twins, priced from the transaction) without it.
  @Test func revenueAmountsMatch() throws {
    let catalog = try Self.catalog("revenue-catalog.json")
    let names = [
      "revenue-family-purchaser", "revenue-family-purchaser-notification", "revenue-family-member-1",
      "revenue-family-member-2",
    ]
    func amounts(_ files: [String], _ catalog: Catalog) throws -> [String] {
      var ledger = PurchaseLedger()
      for f in files { ledger.add(try Self.history(f)) }
      let report = try ledger.report(catalog: catalog, grouping: .product)
      return report.currencies.flatMap { c in
        c.groups.map { "\(c.currency) \($0.key) \($0.units) \($0.trials) \($0.refunded) \($0.gross) \($0.refunds)" }
      } + ["counted \(report.counts.counted)", "family \(report.counts.familySharedExcluded)"]
    }
    let receipts = names.map { "\($0).json" }
    let twins = names.map { $0.hasSuffix("notification") ? "storekit2/\($0)-v2.json" : "storekit2/\($0).jws" }
    let expected = try amounts(receipts, catalog)
    // Hand-checked against revenue-catalog.json: 3 paid months of 9.99 (one refunded), the 29.99 lifetime,
    // 3 + 2 coins at 0.99, the 300 JPY theme.
    #expect(expected.contains("USD com.acme.pro.monthly 5 1 1 3996 999"))
    #expect(expected.contains("USD com.acme.coins.100 5 0 0 495 0"))
    #expect(expected.contains("JPY com.acme.theme.kyoto 1 0 0 300 0"))
    #expect(try amounts(twins, catalog) == expected)
    #expect(try amounts(twins, Catalog()) == expected)
  }
}
