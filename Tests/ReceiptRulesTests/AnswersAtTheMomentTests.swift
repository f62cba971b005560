import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import Testing

// Issue 21: answers true at the moment asked. Expected values come from Apple's rules (reference §7.1, §7.4,
// §7.7) and hand arithmetic, not from the tool's output. These tests use only API that existed before the
// change, so that they can be run against the old rules and seen to fail.

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? Timestamp.epoch }
private func moment(_ text: String) -> EvaluationTime { EvaluationTime(time: at(text), source: .given) }

private func history(_ transactions: [PurchaseTransaction], renewals: [RenewalState] = [], asOf: String? = nil)
  -> PurchaseHistory
{
  var h = PurchaseHistory(format: .handBuilt)
  h.transactions = transactions
  h.renewals = renewals
  h.moment = asOf.map { DataMoment(time: at($0), field: "request_date", description: "the receipt's request_date") }
  return h
}

private let proMonthly = "com.acme.pro.monthly"
private let photos = "com.acme.photos.monthly"
private let lifetime = "com.acme.family.lifetime"
private let trialCatalog = Catalog([
  CatalogProduct(
    productID: proMonthly, type: .autoRenewable, subscriptionGroup: "21000111",
    introOffer: IntroOffer(paymentMode: .freeTrial, period: "P1W")),
  CatalogProduct(
    productID: photos, type: .autoRenewable, subscriptionGroup: "21000222",
    introOffer: IntroOffer(paymentMode: .freeTrial, period: "P1W")),
])

@Suite struct NoTimeTravelTests {
  /// An own trial in one group (2022) and a family-shared trial in another (2024).
  let twoGroups = history(
    [
      PurchaseTransaction(
        transactionID: "1", productID: proMonthly, purchaseDate: at("2022-03-01T00:00:00Z"),
        expiresDate: at("2022-03-08T00:00:00Z"), offer: .freeTrial, subscriptionGroup: "21000111", vocabulary: .test),
      PurchaseTransaction(
        transactionID: "2", productID: photos, ownership: .familyShared, purchaseDate: at("2024-02-01T00:00:00Z"),
        expiresDate: at("2024-02-08T00:00:00Z"), offer: .freeTrial, subscriptionGroup: "21000222", vocabulary: .test),
    ], asOf: "2024-06-15T00:00:00Z")

  @Test func offerUsedLaterDoesNotCountYet() throws {
    let results = decideIntroEligibility(
      products: [proMonthly, photos], history: twoGroups, catalog: trialCatalog, at: moment("2023-01-01T00:00:00Z"))
    #expect(results.map(\.status) == [.ineligible, .eligible])
    #expect(results.last?.reason.contains("2024") == false)
  }

  @Test func beforeAnyOfferEveryGroupIsEligible() {
    let results = decideIntroEligibility(
      products: [proMonthly, photos], history: twoGroups, catalog: trialCatalog, at: moment("2020-01-01T00:00:00Z"))
    #expect(results.map(\.status) == [.eligible, .eligible])
  }

  @Test func afterBothOffersBothGroupsAreClosed() {
    let results = decideIntroEligibility(
      products: [proMonthly, photos], history: twoGroups, catalog: trialCatalog, at: moment("2024-06-01T00:00:00Z"))
    #expect(results.map(\.status) == [.ineligible, .ineligible])
  }

  /// A refund after the moment has not happened yet: the reason must not mention it.
  @Test func laterRefundIsNotMentioned() throws {
    var refunded = twoGroups
    refunded.transactions[0].revocation = Revocation(date: at("2023-06-01T00:00:00Z"))
    let before = try #require(
      decideIntroEligibility(
        products: [proMonthly], history: refunded, catalog: trialCatalog, at: moment("2022-04-01T00:00:00Z")
      ).first)
    #expect(before.status == .ineligible)
    #expect(!before.reason.contains("cancelled"))
  }

  /// Before the upgrade's replacing purchase, the old plan still gives access.
  @Test func upgradeHasNotHappenedBeforeItsReplacement() throws {
    let h = history([
      PurchaseTransaction(
        transactionID: "10", originalTransactionID: "10", productID: proMonthly,
        purchaseDate: at("2024-05-20T00:00:00Z"),
        expiresDate: at("2024-06-20T00:00:00Z"), isUpgraded: true, subscriptionGroup: "21000111", vocabulary: .test),
      PurchaseTransaction(
        transactionID: "11", originalTransactionID: "11", productID: "com.acme.team.monthly",
        purchaseDate: at("2024-06-01T00:00:00Z"), expiresDate: at("2024-07-01T00:00:00Z"),
        subscriptionGroup: "21000111", vocabulary: .test),
    ])
    let before = entitlementStatuses(of: h, catalog: Catalog(), at: at("2024-05-25T00:00:00Z"))
    #expect(before.map(\.state) == [.active])
    let after = entitlementStatuses(of: h, catalog: Catalog(), at: at("2024-06-05T00:00:00Z"))
    #expect(after.first { $0.id == proMonthly }?.state == .upgraded)
  }

  /// A renewal state is a snapshot of the data's moment; an earlier answer resting on it says so.
  @Test func renewalStateLaterThanTheMomentIsSaid() throws {
    let h = history(
      [
        PurchaseTransaction(
          transactionID: "20", productID: proMonthly, purchaseDate: at("2024-05-10T00:00:00Z"),
          expiresDate: at("2024-06-10T00:00:00Z"), vocabulary: .test)
      ],
      renewals: [RenewalState(originalTransactionID: "20", isInBillingRetryPeriod: true, vocabulary: .test)],
      asOf: "2024-06-15T00:00:00Z")
    let earlier = try #require(entitlementStatuses(of: h, catalog: Catalog(), at: at("2024-06-12T00:00:00Z")).first)
    #expect(earlier.state == .billingRetry)
    #expect(earlier.reason.contains("later than the moment asked about"))
    let atData = try #require(entitlementStatuses(of: h, catalog: Catalog(), at: at("2024-06-15T00:00:00Z")).first)
    #expect(!atData.reason.contains("later than the moment asked about"))
    // Active then: the answer does not rest on the renewal state, so nothing is said.
    let active = try #require(entitlementStatuses(of: h, catalog: Catalog(), at: at("2024-05-20T00:00:00Z")).first)
    #expect(active.state == .active)
    #expect(!active.reason.contains("renewal state"))
  }
}

@Suite struct FamilySharedWithoutExpiryTests {
  func shared(revoked: String? = nil, ownership: Ownership = .familyShared) -> PurchaseHistory {
    history([
      PurchaseTransaction(
        transactionID: "30", productID: lifetime, ownership: ownership, purchaseDate: at("2023-11-20T00:00:00Z"),
        revocation: revoked.map { Revocation(date: at($0)) }, vocabulary: .test)
    ])
  }

  @Test func isANonConsumable() throws {
    let r = try #require(entitlementStatuses(of: shared(), catalog: Catalog(), at: at("2024-06-15T00:00:00Z")).first)
    #expect(r.state == .active)
    #expect(r.expiresDate == nil)
    #expect(r.reason.contains("only non-consumables can be shared without one"))
  }

  @Test func revokedAsItsCancellationSays() throws {
    let h = shared(revoked: "2024-04-02T00:00:00Z")
    #expect(entitlementStatuses(of: h, catalog: Catalog(), at: at("2024-06-15T00:00:00Z")).first?.state == .revoked)
    #expect(entitlementStatuses(of: h, catalog: Catalog(), at: at("2024-01-01T00:00:00Z")).first?.state == .active)
  }

  @Test func purchasedStaysUnknownWithoutCatalog() throws {
    let r = try #require(
      entitlementStatuses(of: shared(ownership: .purchased), catalog: Catalog(), at: at("2024-06-15T00:00:00Z")).first)
    #expect(r.state == .unknown)
    let noField = try #require(
      entitlementStatuses(of: shared(ownership: .unknown), catalog: Catalog(), at: at("2024-06-15T00:00:00Z")).first)
    #expect(noField.state == .unknown)
  }

  /// The catalog's word wins over the inference.
  @Test func catalogSayingNonRenewingWins() throws {
    let catalog = Catalog([CatalogProduct(productID: lifetime, type: .nonRenewing, duration: ISOPeriod("P1M"))])
    let r = try #require(entitlementStatuses(of: shared(), catalog: catalog, at: at("2024-06-15T00:00:00Z")).first)
    #expect(r.state == .expired)
  }
}
