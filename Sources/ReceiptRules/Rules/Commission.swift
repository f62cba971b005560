import ReceiptModel

/// Which App Store commission to estimate proceeds with.
public enum CommissionPlan: String, Sendable, CaseIterable {
  /// No estimate.
  case none
  /// 30%; 15% on a subscription's transactions once it has a year of paid service.
  case standard
  /// App Store Small Business Program: 15%.
  case smallBusiness = "small-business"
}

/// One year of paid service, after which the standard plan charges 15% on a subscription.
let paidServiceYear: Int64 = 365 * 86_400_000

/// The commission rate in percent for one transaction [S47][S49] §7.8: 30%, 15% once the subscription has a year
/// of paid service; 15% on the Small Business Program. `paidServiceBefore` is how much paid service
/// (milliseconds) the same original_transaction_id had before this transaction; nil for anything that
/// is not an auto-renewable subscription.
public func commissionPercent(plan: CommissionPlan, paidServiceBefore: Int64?) -> Int64 {
  switch plan {
  case .none: return 0
  case .smallBusiness: return 15
  case .standard:
    guard let paidServiceBefore else { return 30 }
    return paidServiceBefore >= paidServiceYear ? 15 : 30
  }
}

/// The proceeds of `amount` minor units at `percent` commission. The commission is rounded half-up
/// to a whole minor unit per transaction, so parts merged with --merge add up to the same totals.
public func proceeds(of amount: Int64, commissionPercent percent: Int64) throws(ReceiptError) -> Int64 {
  let (scaled, overflow) = amount.multipliedReportingOverflow(by: percent)
  if overflow { throw .data(source: nil, message: "commission estimate: the amount is too large to compute exactly") }
  let commission = scaled >= 0 ? (scaled + 50) / 100 : -((-scaled + 50) / 100)
  return amount - commission
}

/// Paid service a transaction adds to its subscription: purchase to expiry. Free trials, refunded
/// transactions and transactions without both dates add nothing.
public func paidService(of transaction: PurchaseTransaction, isTrial: Bool) -> Int64 {
  guard !isTrial, transaction.revocation == nil,
    let start = transaction.purchaseDate, let end = transaction.expiresDate, end > start
  else { return 0 }
  return end.milliseconds - start.milliseconds
}

/// A subscription's paid service so far [S47] §7.8 (free trials and refunded periods count none), in purchase
/// order: a running total, and the refunded periods apart, since a refund counts against a later sale only once
/// it had happened. Refunds are few, so a sale costs one pass over them rather than over the whole subscription.
struct PaidServiceSoFar {
  var total: Int64 = 0
  var refunded: [(milliseconds: Int64, at: Timestamp)] = []

  mutating func add(milliseconds: Int64, refunded at: Timestamp?) {
    total = total &+ milliseconds
    if let at { refunded.append((milliseconds, at)) }
  }

  /// Paid service before a sale, counting only refunds that had happened by then (every refund, when the
  /// sale has no date).
  func before(sale: Timestamp?) -> Int64 {
    var paid = total
    for r in refunded where sale.map({ r.at <= $0 }) ?? true { paid = paid &- r.milliseconds }
    return paid
  }
}
