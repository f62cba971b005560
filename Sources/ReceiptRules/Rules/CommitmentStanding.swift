import ReceiptModel

/// Where a commitment plan stands, said after the reason of an entitlement whose answer rests on a charge of one
/// (App Store Server API 1.21: `billingPlanType` `MONTHLY` with `commitmentInfo`, and renewal info's
/// `commitmentInfo`); nil for a charge outside a commitment.
///
/// Access is not changed by it: a monthly charge of a year's commitment pays for its billing period, which ends at
/// the charge's own `expiresDate`, as any auto-renewable subscription's period does (§7.2 [S6c][S4]). What the
/// commitment adds is where the customer stands in it: which billing period this is of how many, when the
/// commitment ends (before or after the moment asked about), its price, and what the renewal info says follows it.
/// Apple says nothing more about access during a commitment, so neither does this.
/// - Parameters:
///   - t: the charge the answer rests on, as known at `time`.
///   - renewal: the renewal state of its subscription, when the data has one.
///   - time: the moment asked about.
/// - Returns: one sentence, or nil when the charge states no commitment.
func commitmentStanding(of t: PurchaseTransaction, renewal: RenewalState?, at time: Timestamp) -> String? {
  guard let c = t.billing?.commitment else { return nil }
  var sentence = "Transaction \(t.transactionID) is "
  switch (c.billingPeriodNumber, c.totalBillingPeriods) {
  case (let k?, let n?): sentence += "billing period \(k) of \(n) (billingPeriodNumber, totalBillingPeriods) of "
  case (let k?, nil): sentence += "billing period \(k) (billingPeriodNumber) of "
  case (nil, let n?): sentence += "a charge of \(n) billing periods (totalBillingPeriods) of "
  case (nil, nil): sentence += "a charge of "
  }
  sentence += "a \(t.billing?.plan.map { "\($0.raw) " } ?? "")commitment"
  if let end = c.expiresDate {
    sentence +=
      end > time
      ? " that runs until \(end.iso8601) (commitmentExpiresDate)"
      : " that ended on \(end.iso8601) (commitmentExpiresDate)"
  }
  if let price = c.price { sentence += ", \(amount(price)) in all (commitmentPrice)" }
  if let after = renewal?.commitment, let next = afterCommitment(after) { sentence += "; " + next }
  return sentence + "."
}

/// What follows the commitment, in renewal info's words: whether it renews, into what, on which plan, when.
private func afterCommitment(_ c: RenewalCommitment) -> String? {
  if c.autoRenewStatus == .off {
    return "after it the subscription does not renew (commitmentAutoRenewStatus 0)"
  }
  guard c.autoRenewProductID != nil || c.billingPlan != nil || c.renewalDate != nil else { return nil }
  var next = "after it the subscription renews"
  if let product = c.autoRenewProductID { next += " into \(product)" }
  if let plan = c.billingPlan { next += " on the \(plan.raw) plan" }
  if let date = c.renewalDate { next += " on \(date.iso8601)" }
  if let price = c.renewalPrice { next += " at \(amount(price))" }
  return next + " (the renewal info's commitmentInfo)"
}

/// `119.88 USD`: the amount in its currency's minor digits.
private func amount(_ price: StatedPrice) -> String {
  "\(price.amountInMinorDigits) \(price.currency)"
}
