import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import Testing

// Issue 30, "One subscription, one answer": transactions continuing one original_transaction_id are one
// subscription and so one subscription group (reference §7.1, §7.2), whether or not a row carries the group id.
// Fixtures are hand-written here, in the shapes of levibostian/dollabill-apple's exclude_old_transactions.json
// (group id only on the latest_receipt_info row) and RevenueCat's receipt pair (a crossgrade inside one chain).

private let at = CrossgradeChain.at

private func history(_ transactions: [PurchaseTransaction]) -> PurchaseHistory {
  var h = PurchaseHistory(format: .handBuilt)
  h.provenance.status = ReceiptStatus(0)
  h.transactions = transactions
  return h
}

private func decide(_ products: [String]?, _ h: PurchaseHistory, at moment: String) -> [IntroEligibilityResult] {
  decideIntroEligibility(
    products: products, history: h, catalog: Catalog(), at: EvaluationTime(time: at(moment), source: .given))
}

/// The crossgrade chain; the on-device twin has no renewal state and names the group nowhere.
private func crossgradeChain(appReceipt: Bool) -> PurchaseHistory {
  CrossgradeChain.history(
    vocabulary: appReceipt ? .testWithoutRenewalState : .test, format: .handBuilt, namesGroup: !appReceipt)
}

/// The rules' half of issue 30 on hand-built histories; the app receipt's and the real pairs' half, which read
/// documents, is in ReceiptCLITests/OneSubscriptionOneAnswerTests.swift.
@Suite struct OneSubscriptionOneAnswerTests {
  /// dollabill's shape: `test_sub2` continues `test_subscription`'s chain but none of its rows names the group.
  @Test func aProductContinuingAChainIsInThatChainsGroup() throws {
    let h = history(
      [
        CrossgradeChain.row(
          "1000000741421650", chain: "1000000741421650", "test_subscription", from: "2020-11-13T01:09:23Z",
          to: "2020-11-13T01:12:23Z", trial: true),
        CrossgradeChain.row(
          "1000000741424335", chain: "1000000741421650", "test_sub2", from: "2020-11-13T01:29:30Z",
          to: "2020-11-13T01:34:30Z"),
        CrossgradeChain.row(
          "1000000743048389", chain: "1000000741421650", "test_subscription", from: "2020-11-17T20:07:06Z",
          to: "2020-11-17T20:10:06Z", group: "20708462"),
      ])
    let results = decide(nil, h, at: "2020-11-29T16:58:35Z")
    let sub2 = try #require(results.first { $0.productID == "test_sub2" })
    #expect(sub2.status == .ineligible)
    #expect(sub2.transactionID == "1000000741421650")
    #expect(sub2.subscriptionGroup == "20708462")
    // Said to be inferred, with the chain that placed it.
    #expect(sub2.groupInference?.originalTransactionIDs == ["1000000741421650"])
    #expect(sub2.groupInference?.linkedProductIDs == ["test_subscription"])
    #expect(sub2.reason.contains("inferred from original_transaction_id 1000000741421650"), "\(sub2.reason)")
    // The product whose own row names the group is not inferred.
    let main = try #require(results.first { $0.productID == "test_subscription" })
    #expect(main.groupInference == nil)
    #expect(main.status == .ineligible)
  }

  /// A second subscription whose group nothing names may share the group: its trial leaves the answer unknown.
  @Test func anUnlinkedSubscriptionThatUsedAnOfferLeavesTheGroupOpen() throws {
    let h = history(
      [
        CrossgradeChain.row(
          "1", chain: "1", "a", from: "2020-01-01T00:00:00Z", to: "2020-02-01T00:00:00Z",
          vocabulary: .testWithoutRenewalState),
        CrossgradeChain.row(
          "9", chain: "9", "b", from: "2020-03-01T00:00:00Z", to: "2020-03-08T00:00:00Z", trial: true,
          vocabulary: .testWithoutRenewalState),
      ])
    #expect(decide(["a"], h, at: "2020-02-15T00:00:00Z").first?.status == .eligible)
    let later = try #require(decide(["a"], h, at: "2020-04-01T00:00:00Z").first)
    #expect(later.status == .unknown)
    #expect(later.reason.contains("transaction 9 (b)"), "\(later.reason)")
  }

  /// "Changing plans" is about another product of the group, never the one the customer already holds.
  @Test func anActiveSubscriberIsNotToldAboutChangingToTheirOwnProduct() throws {
    let h = history(
      [
        CrossgradeChain.row(
          "1", chain: "1", "monthly", from: "2020-07-01T00:00:00Z", to: "2020-07-08T00:00:00Z", group: "7"),
        CrossgradeChain.row(
          "2", chain: "1", "annual", from: "2020-07-08T00:00:00Z", to: "2021-07-08T00:00:00Z", group: "7"),
      ])
    let results = decide(["annual", "monthly"], h, at: "2020-07-22T17:30:00Z")
    #expect(results.map(\.status) == [.ineligible, .ineligible])
    let own = try #require(results.first)
    #expect(own.reason.contains("changing plans") == false, "\(own.reason)")
    #expect(own.reason.contains("already subscribes to annual"), "\(own.reason)")
    // The other product of the group is a change of plan.
    let other = try #require(results.last)
    #expect(other.reason.contains("active subscribers changing plans get no introductory offer"), "\(other.reason)")
  }

  /// The README's promise: a receipt and its verifyReceipt twin give the same intro eligibility at every moment.
  @Test func receiptAndTwinAgreeAtEveryMoment() {
    let local = crossgradeChain(appReceipt: true)
    let server = crossgradeChain(appReceipt: false)
    let all = CrossgradeChain.moments(of: server)
    #expect(all.count > 20)
    for moment in all {
      for products in [nil, ["monthly", "annual"]] {
        let l = decide(products, local, at: moment).map {
          "\($0.productID)=\($0.status.rawValue) \($0.transactionID ?? "-")"
        }
        let s = decide(products, server, at: moment).map {
          "\($0.productID)=\($0.status.rawValue) \($0.transactionID ?? "-")"
        }
        #expect(l == s, "at \(moment)")
      }
    }
  }

  /// A renewal state is about a subscription's newest period: a product the subscription moved on from did
  /// not lapse for the renewal's expiration_intent, nor is it in billing retry; it ended because the
  /// subscription went on in another product.
  @Test func aProductTheSubscriptionMovedOnFromIsNotJudgedByTheRenewalState() throws {
    var h = history(
      [
        CrossgradeChain.row("1", chain: "1", "monthly", from: "2020-11-13T01:09:23Z", to: "2020-11-13T01:34:30Z"),
        CrossgradeChain.row(
          "2", chain: "1", "annual", from: "2020-11-17T19:51:43Z", to: "2020-11-17T20:10:06Z", group: "7"),
      ])
    h.renewals = [
      RenewalState(
        productID: "annual", originalTransactionID: "1", expirationIntent: ExpirationIntent(code: "1"),
        isInBillingRetryPeriod: false, vocabulary: .test)
    ]
    let results = entitlementStatuses(of: h, catalog: Catalog(), at: at("2020-11-29T00:00:00Z"))
    let monthly = try #require(results.first { $0.id == "monthly" })
    #expect(monthly.state == .expired)
    #expect(!monthly.reason.contains("cancelled"), "\(monthly.reason)")
    #expect(monthly.reason.contains("went on as annual from 2020-11-17T19:51:43Z"), "\(monthly.reason)")
    // The renewal's own product keeps its reason.
    let annual = try #require(results.first { $0.id == "annual" })
    #expect(annual.reason.contains("cancelled"), "\(annual.reason)")

    // Billing retry of the subscription is about annual, not about the monthly plan left behind.
    h.renewals[0].isInBillingRetryPeriod = true
    h.renewals[0].expirationIntent = ExpirationIntent(code: "2")
    let retry = entitlementStatuses(of: h, catalog: Catalog(), at: at("2020-11-29T00:00:00Z"))
    #expect(retry.first { $0.id == "annual" }?.state == .billingRetry)
    #expect(retry.first { $0.id == "monthly" }?.state == .expired)
  }

}
