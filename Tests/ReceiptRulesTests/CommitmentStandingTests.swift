import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// A charge of a commitment plan gives access through its billing period, and the reason says where the commitment
/// stands; samples after Apple's JWSTransactionDecodedPayload and JWSRenewalInfoDecodedPayload (App Store Server API
/// 1.21: `billingPlanType`, `commitmentInfo`).
struct CommitmentStandingTests {
  static let at = CrossgradeChain.at

  /// The third monthly charge of a year's commitment, 9.99 a month, 119.88 in all, and what follows it.
  static func history(renewsAfter: AutoRenewStatus? = .on, withCommitment: Bool = true) -> PurchaseHistory {
    var t = CrossgradeChain.row(
      "303", chain: "101", "pro.yearly", from: "2026-03-05T12:00:00Z", to: "2026-04-05T12:00:00Z")
    if withCommitment {
      t.billing = BillingTerms(
        plan: .monthly,
        commitment: TransactionCommitment(
          billingPeriodNumber: 3, totalBillingPeriods: 12, expiresDate: at("2027-01-05T12:00:00Z"),
          price: StatedPrice(amount: DecimalAmount(units: 119_880, scale: 3), currency: "USD")))
    }
    var renewal = RenewalState(
      productID: "pro.yearly", originalTransactionID: "101", autoRenewStatus: .on, vocabulary: .test)
    renewal.commitment = RenewalCommitment(
      autoRenewProductID: "pro.yearly", autoRenewStatus: renewsAfter, billingPlan: .billedUpfront,
      renewalDate: at("2027-01-05T12:00:00Z"))
    var h = PurchaseHistory(format: .handBuilt)
    h.transactions = [t]
    h.renewals = [renewal]
    return h
  }

  static func answer(_ h: PurchaseHistory, at time: String) -> EntitlementResult? {
    answerEntitlements(of: h, catalog: Catalog(), at: at(time)).results.first
  }

  @Test func accessRunsThroughTheBillingPeriodPaidFor() throws {
    let during = try #require(Self.answer(Self.history(), at: "2026-04-01T00:00:00Z"))
    #expect(during.state == .active)
    #expect(during.expiresDate == Self.at("2026-04-05T12:00:00Z"))
    // Past the period paid for the commitment does not keep access: the next charge would.
    let after = try #require(Self.answer(Self.history(), at: "2026-04-06T00:00:00Z"))
    #expect(after.state == .expired)
  }

  @Test func theReasonSaysWhereTheCommitmentStands() throws {
    let r = try #require(Self.answer(Self.history(), at: "2026-04-01T00:00:00Z")).reason
    #expect(
      r.hasSuffix(
        "Transaction 303 is billing period 3 of 12 (billingPeriodNumber, totalBillingPeriods) of a MONTHLY commitment"
          + " that runs until 2027-01-05T12:00:00Z (commitmentExpiresDate), 119.88 USD in all (commitmentPrice);"
          + " after it the subscription renews into pro.yearly on the BILLED_UPFRONT plan on 2027-01-05T12:00:00Z"
          + " (the renewal info's commitmentInfo)."))
  }

  @Test func aCommitmentThatEndedBeforeTheMomentSaysSo() throws {
    let r = try #require(Self.answer(Self.history(renewsAfter: .off), at: "2027-02-01T00:00:00Z")).reason
    #expect(r.contains("that ended on 2027-01-05T12:00:00Z (commitmentExpiresDate)"))
    #expect(r.contains("after it the subscription does not renew (commitmentAutoRenewStatus 0)"))
  }

  @Test func aChargeOutsideACommitmentSaysNothingOfOne() throws {
    let r = try #require(Self.answer(Self.history(withCommitment: false), at: "2026-04-01T00:00:00Z")).reason
    #expect(!r.contains("commitment"))
  }
}
