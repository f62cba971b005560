import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import Testing

private func ms(_ iso: String) -> Timestamp? { Timestamp.parse(formatted: iso) }

private func document(_ transactions: [PurchaseTransaction]) -> PurchaseHistory {
  var doc = PurchaseHistory(format: .handBuilt)
  doc.provenance.status = ReceiptStatus(0)
  doc.transactions = transactions
  return doc
}

private let at = EvaluationTime(time: Timestamp.parse(formatted: "2024-03-01T00:00:00Z") ?? .epoch, source: .given)

private let trial = IntroOffer(paymentMode: .freeTrial, period: "P1W")
private let acme = Catalog([
  CatalogProduct(
    productID: "com.acme.pro.monthly", type: .autoRenewable, subscriptionGroup: "21000111", introOffer: trial,
    origin: "c.json"),
  CatalogProduct(
    productID: "com.acme.pro.yearly", type: .autoRenewable, subscriptionGroup: "21000111", introOffer: trial,
    origin: "c.json"),
  CatalogProduct(
    productID: "com.acme.photos.monthly", type: .autoRenewable, subscriptionGroup: "21000222", introOffer: trial,
    origin: "c.json"),
  CatalogProduct(productID: "com.acme.coins.100", type: .consumable, origin: "c.json"),
])

private func sub(
  _ id: String, _ product: String, from: String, to: String, trial: Bool = false, intro: Bool = false,
  ownership: Ownership = .purchased, group: String? = "21000111", cancelled: String? = nil
) -> PurchaseTransaction {
  PurchaseTransaction(
    transactionID: id, productID: product, ownership: ownership, purchaseDate: ms(from), expiresDate: ms(to),
    revocation: cancelled.flatMap(ms).map { Revocation(date: $0) },
    offer: trial ? .freeTrial : intro ? .introductoryPrice : nil, subscriptionGroup: group, vocabulary: .test)
}

private func decide(_ products: [String]?, _ transactions: [PurchaseTransaction], catalog: Catalog = acme)
  -> [IntroEligibilityResult]
{
  decideIntroEligibility(products: products, history: document(transactions), catalog: catalog, at: at)
}

@Suite struct IntroEligibilityTests {
  @Test func familySharedFreeTrialClosesTheWholeGroup() throws {
    let history = [
      sub(
        "11001", "com.acme.pro.monthly", from: "2023-01-01T10:00:00Z", to: "2023-01-08T10:00:00Z", trial: true,
        ownership: .familyShared),
      sub(
        "11002", "com.acme.pro.monthly", from: "2023-01-08T10:00:00Z", to: "2023-02-08T10:00:00Z",
        ownership: .familyShared),
    ]
    let r = try #require(decide(["com.acme.pro.yearly"], history).first)
    #expect(r.status == .ineligible)
    #expect(r.transactionID == "11001")
    #expect(r.ownership == .familyShared)
    #expect(r.subscriptionGroup == "21000111")
    #expect(
      r.reason
        == "ineligible: family-shared transaction 11001 (com.acme.pro.monthly, group 21000111) was a free trial from 2023-01-01T10:00:00Z"
    )
  }

  @Test func introPricePeriodMakesIneligible() throws {
    let history = [
      sub("5", "com.acme.pro.monthly", from: "2023-05-02T00:00:00Z", to: "2023-06-02T00:00:00Z", intro: true)
    ]
    let r = try #require(decide(["com.acme.pro.monthly"], history).first)
    #expect(r.status == .ineligible)
    #expect(r.ownership == .purchased)
    #expect(
      r.reason
        == "ineligible: purchased transaction 5 (com.acme.pro.monthly, group 21000111) was in an introductory price period from 2023-05-02T00:00:00Z"
    )
  }

  @Test func refundedTrialStillCounts() throws {
    let history = [
      sub(
        "6", "com.acme.pro.monthly", from: "2023-05-02T00:00:00Z", to: "2023-05-09T00:00:00Z", trial: true,
        cancelled: "2023-05-03T00:00:00Z")
    ]
    let r = try #require(decide(["com.acme.pro.yearly"], history).first)
    #expect(r.status == .ineligible)
    #expect(r.reason.contains("cancelled on 2023-05-03T00:00:00Z, but a used offer still counts"))
  }

  @Test func anotherGroupIsUnaffected() throws {
    let history = [
      sub(
        "11001", "com.acme.pro.monthly", from: "2023-01-01T00:00:00Z", to: "2023-01-08T00:00:00Z", trial: true,
        ownership: .familyShared)
    ]
    let r = try #require(decide(["com.acme.photos.monthly"], history).first)
    #expect(r.status == .eligible)
    #expect(r.subscriptionGroup == "21000222")
    #expect(r.transactionID == nil)
  }

  @Test func activeSubscriberIsIneligible() throws {
    let history = [sub("7", "com.acme.pro.monthly", from: "2024-02-15T00:00:00Z", to: "2024-03-15T00:00:00Z")]
    let r = try #require(decide(["com.acme.pro.yearly"], history).first)
    #expect(r.status == .ineligible)
    #expect(r.transactionID == "7")
    #expect(r.reason.contains("is active until 2024-03-15T00:00:00Z"))
  }

  /// One known view for every rule (issue 40): a period another product of the group replaced is upgraded for
  /// intro eligibility as it is for entitlements, so the current subscription is the replacing one. The shape of
  /// imdhemy/laravel-in-app-purchases' iOS-receipt.json, where year_premium (15:56 to 16:56) is replaced by
  /// month_premium bought at 16:00 in its chain: before, intro eligibility named year_premium "active until 16:56"
  /// while entitlements called it upgraded.
  @Test func aReplacedPeriodIsNotTheCurrentSubscription() throws {
    var yearly = sub("1", "com.acme.pro.yearly", from: "2024-02-29T15:56:24Z", to: "2025-02-28T15:56:24Z")
    var monthly = sub("2", "com.acme.pro.monthly", from: "2024-02-29T16:00:24Z", to: "2024-03-29T16:05:24Z")
    (yearly.originalTransactionID, monthly.originalTransactionID) = ("1", "1")
    let r = try #require(decide(["com.acme.pro.yearly"], [yearly, monthly]).first)
    #expect(r.status == .ineligible)
    #expect(r.transactionID == "2")
    #expect(r.reason.contains("is active until 2024-03-29T16:05:24Z"))
    let entitlements = entitlementStatuses(of: document([yearly, monthly]), catalog: Catalog(), at: at.time)
    #expect(entitlements.map(\.state) == [.upgraded, .active])
  }

  @Test func lapsedSubscriberWhoNeverUsedAnOfferIsEligible() throws {
    let history = [
      sub("8", "com.acme.pro.monthly", from: "2023-01-01T00:00:00Z", to: "2023-02-01T00:00:00Z"),
      sub(
        "9", "com.acme.pro.monthly", from: "2023-02-01T00:00:00Z", to: "2023-03-01T00:00:00Z", ownership: .familyShared),
    ]
    let r = try #require(decide(["com.acme.pro.yearly"], history).first)
    #expect(r.status == .eligible)
    #expect(
      r.reason
        == "eligible: none of the 2 transactions in group 21000111 (1 family-shared) used an introductory offer, and none is active at 2024-03-01T00:00:00Z"
    )
  }

  @Test func receiptGroupIdLinksProductsWithoutCatalog() throws {
    let history = [
      sub("1", "x.monthly", from: "2023-01-01T00:00:00Z", to: "2023-01-08T00:00:00Z", trial: true, group: "42"),
      sub("2", "x.yearly", from: "2023-01-08T00:00:00Z", to: "2023-02-08T00:00:00Z", group: "42"),
    ]
    let results = decide(nil, history, catalog: Catalog())
    #expect(results.map(\.productID) == ["x.monthly", "x.yearly"])
    #expect(results.map(\.status) == [.ineligible, .ineligible])
  }

  @Test func unknownWithoutCatalog() throws {
    let history = [
      sub("4", "com.acme.pro.monthly", from: "2023-01-01T00:00:00Z", to: "2023-02-01T00:00:00Z", group: nil)
    ]
    // Issue 30: the subscription's own chain places it in a group no id names; that group is the customer's
    // whole history in it, so the answer is decided, and says the group was inferred.
    let results = decide(nil, history, catalog: Catalog())
    #expect(results.map(\.status) == [.eligible])
    #expect(results.first?.reason.contains("subscription group is inferred from original_transaction_id 4") == true)
    #expect(decide(["never.seen"], [], catalog: Catalog()).first?.status == .unknown)
    #expect(
      decide(["never.seen"], [], catalog: Catalog()).first?.reason.contains(
        "subscription group (and any offer used in it) cannot be determined") == true)
    let groupless = Catalog([CatalogProduct(productID: "g", type: .autoRenewable, introOffer: trial, origin: "c.json")])
    let r = try #require(decide(["g"], [], catalog: groupless).first)
    #expect(r.status == .unknown)
    #expect(
      r.reason
        == "unknown: the catalog (c.json) gives no subscription group for g and the receipt has no transaction of it, so its subscription group (and any offer used in it) cannot be determined"
    )
  }

  @Test func nonSubscriptionIsUnknown() throws {
    let r = try #require(decide(["com.acme.coins.100"], []).first)
    #expect(r.status == .unknown)
    #expect(r.reason.contains("consumable, not an auto-renewable subscription"))
  }

  @Test func newSubscriberIsEligible() throws {
    let r = try #require(decide(["com.acme.pro.monthly"], []).first)
    #expect(r.status == .eligible)
    #expect(r.reason.contains("new subscribers get the introductory offer"))
  }

  @Test func defaultProductsAreCatalogAutoRenewablesThenReceiptOnes() {
    let history = [sub("1", "other.sub", from: "2023-01-01T00:00:00Z", to: "2023-02-01T00:00:00Z", group: "9")]
    #expect(
      decide(nil, history).map(\.productID) == [
        "com.acme.pro.monthly", "com.acme.pro.yearly", "com.acme.photos.monthly", "other.sub",
      ])
  }

  @Test func aRenewalInBillingRetryOrGraceKeepsTheCustomerASubscriber() throws {
    let lapsed = sub("5001", "com.acme.pro.monthly", from: "2024-01-20T00:00:00Z", to: "2024-02-20T00:00:00Z")
    for (retry, grace, status) in [
      (true, nil as String?, IntroEligibilityStatus.ineligible), (false, "2024-03-05T00:00:00Z", .ineligible),
      (false, "2024-02-25T00:00:00Z", .eligible), (false, nil, .eligible),
    ] {
      var doc = document([lapsed])
      doc.renewals = [
        RenewalState(
          productID: "com.acme.pro.monthly", originalTransactionID: "5001", isInBillingRetryPeriod: retry,
          gracePeriodExpiresDate: grace.flatMap(ms), vocabulary: .test)
      ]
      let r = try #require(
        decideIntroEligibility(products: ["com.acme.pro.yearly"], history: doc, catalog: acme, at: at).first)
      #expect(r.status == status, "retry \(retry), grace \(grace ?? "none")")
      if status == .ineligible {
        #expect(r.transactionID == "5001")
        #expect(r.reason.contains(retry ? "in billing retry" : "billing grace period until 2024-03-05T00:00:00Z"))
      } else {
        #expect(
          r.reason.hasPrefix(
            "eligible: the 1 transaction in group 21000111 (0 family-shared) did not use an introductory offer, and it is not active at"
          ))
      }
    }
  }
}
