import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import Testing

// Issue 30, "One subscription, one answer": transactions continuing one original_transaction_id are one
// subscription and so one subscription group (reference §7.1, §7.2), whether or not a row carries the group id.
// Fixtures are hand-written here, in the shapes of levibostian/dollabill-apple's exclude_old_transactions.json
// (group id only on the latest_receipt_info row) and RevenueCat's receipt pair (a crossgrade inside one chain).

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? .epoch }

private func row(
  _ id: String, chain: String, _ product: String, from: String, to: String, trial: Bool = false,
  group: String? = nil, vocabulary: FieldVocabulary = .test
) -> PurchaseTransaction {
  PurchaseTransaction(
    transactionID: id, originalTransactionID: chain, productID: product,
    ownership: vocabulary.holdsRenewalState ? .purchased : .unknown, purchaseDate: at(from), expiresDate: at(to),
    offer: trial ? .freeTrial : nil, subscriptionGroup: group, vocabulary: vocabulary)
}

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

/// One chain: a trial of `monthly`, two renewals, a crossgrade to `annual`. Only the newest row names the
/// group, as in verifyReceipt's latest_receipt_info; the on-device twin names it nowhere.
private func crossgradeChain(appReceipt: Bool) -> PurchaseHistory {
  let v: FieldVocabulary = appReceipt ? .testWithoutRenewalState : .test
  let g = appReceipt ? nil : "20662382"
  let rows = [
    row(
      "1", chain: "1", "monthly", from: "2020-07-14T19:33:26Z", to: "2020-07-14T19:36:26Z", trial: true, vocabulary: v),
    row("2", chain: "1", "monthly", from: "2020-07-14T19:36:26Z", to: "2020-07-14T19:41:26Z", vocabulary: v),
    row("3", chain: "1", "monthly", from: "2020-07-14T19:41:26Z", to: "2020-07-14T19:46:26Z", vocabulary: v),
    row("4", chain: "1", "annual", from: "2020-07-22T17:00:00Z", to: "2020-07-22T18:00:00Z", group: g, vocabulary: v),
  ]
  return history(rows)
}

/// Every moment a transaction starts or ends, a second either side, and moments between and after.
private func moments(of h: PurchaseHistory) -> [String] {
  var out: [String] = ["2019-01-01T00:00:00Z", "2020-08-01T00:00:00Z", "2030-01-01T00:00:00Z"]
  for t in h.transactions {
    for d in [t.purchaseDate, t.expiresDate].compactMap({ $0 }) {
      for delta: Int64 in [-1000, 0, 1000, 60_000] {
        if let m = Timestamp(milliseconds: d.milliseconds + delta) { out.append(m.iso8601) }
      }
    }
  }
  return out
}

/// The rules' half of issue 30 on hand-built histories; the app receipt's and the real pairs' half, which read
/// documents, is in ReceiptCLITests/OneSubscriptionOneAnswerTests.swift.
@Suite struct OneSubscriptionOneAnswerTests {
  /// dollabill's shape: `test_sub2` continues `test_subscription`'s chain but none of its rows names the group.
  @Test func aProductContinuingAChainIsInThatChainsGroup() throws {
    let h = history(
      [
        row(
          "1000000741421650", chain: "1000000741421650", "test_subscription", from: "2020-11-13T01:09:23Z",
          to: "2020-11-13T01:12:23Z", trial: true),
        row(
          "1000000741424335", chain: "1000000741421650", "test_sub2", from: "2020-11-13T01:29:30Z",
          to: "2020-11-13T01:34:30Z"),
        row(
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
        row(
          "1", chain: "1", "a", from: "2020-01-01T00:00:00Z", to: "2020-02-01T00:00:00Z",
          vocabulary: .testWithoutRenewalState),
        row(
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
        row("1", chain: "1", "monthly", from: "2020-07-01T00:00:00Z", to: "2020-07-08T00:00:00Z", group: "7"),
        row("2", chain: "1", "annual", from: "2020-07-08T00:00:00Z", to: "2021-07-08T00:00:00Z", group: "7"),
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
    let all = moments(of: server)
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
        row("1", chain: "1", "monthly", from: "2020-11-13T01:09:23Z", to: "2020-11-13T01:34:30Z"),
        row("2", chain: "1", "annual", from: "2020-11-17T19:51:43Z", to: "2020-11-17T20:10:06Z", group: "7"),
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
