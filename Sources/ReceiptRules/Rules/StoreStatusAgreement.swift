import ReceiptModel

/// Apple's own status of the subscription an entitlement rests on, beside receipt-tool's answer ([S29a]: Get All
/// Subscription Statuses' `status`).
public struct StoreStatusComparison: Hashable, Sendable {
  /// Apple's status of the subscription.
  public var status: StoreSubscriptionStatus
  /// Whether Apple's status matches receipt-tool's answer.
  public var agrees: Bool
  /// Why the two differ, when they do: one sentence.
  public var explanation: String?
}

/// The Apple status code that means the same as an entitlement state: 1 active, 2 expired, 3 billing retry,
/// 4 grace period, 5 revoked (Apple revokes refunded subscriptions too); nil for states Apple has no status for.
func storeStatusCode(of state: EntitlementState) -> Int64? {
  switch state {
  case .active: 1
  case .expired: 2
  case .billingRetry: 3
  case .gracePeriod: 4
  case .refunded, .revoked: 5
  case .upgraded, .unknown, .notPurchased: nil
  }
}

/// Compares receipt-tool's answer with Apple's status of the deciding transaction's chain (Get All Subscription
/// Statuses, a V2 notification), when the data carries one. Apple's status never changes the answer: it is
/// shown beside it, and a difference is explained.
/// - Parameters:
///   - result: an entitlement's answer.
///   - history: the purchase history it was decided from.
///   - time: the moment asked about.
/// - Returns: the comparison, or nil when the data has no Apple status for that chain.
public func compareWithStoreStatus(
  _ result: EntitlementResult, history: PurchaseHistory, at time: Timestamp
) -> StoreStatusComparison? {
  compareWithStoreStatus(result.state, chain: result.deciding?.chainID, history: history, at: time)
}

/// `compareWithStoreStatus` on what it reads of a result: its state and its deciding transaction's chain (a result
/// read from an array is then not copied whole to be compared).
func compareWithStoreStatus(
  _ state: EntitlementState, chain: String?, history: PurchaseHistory, at time: Timestamp
) -> StoreStatusComparison? {
  // An upgraded plan's chain goes on in the plan it was upgraded to: Apple's status is that plan's.
  guard state != .upgraded, let chain, let status = history.renewal(originalTransactionID: chain)?.storeStatus
  else { return nil }
  let ours = storeStatusCode(of: state)
  if ours == status.code { return StoreStatusComparison(status: status, agrees: true, explanation: nil) }
  let why: String
  if ours == nil {
    why = "Apple's status \(status.code) (\(status.meaning)) has no counterpart for \(state.rawValue)"
  } else if let asOf = status.asOf, asOf < time {
    why =
      "Apple's status \(status.code) (\(status.meaning)) is as of \(asOf.iso8601), older than the moment asked about (\(time.iso8601)), so it may be out of date"
  } else if let asOf = status.asOf, asOf > time {
    why =
      "Apple's status \(status.code) (\(status.meaning)) is as of \(asOf.iso8601), later than the moment asked about (\(time.iso8601))"
  } else if status.asOf == nil {
    why = "Apple's status \(status.code) (\(status.meaning)) carries no date, so it may describe another moment"
  } else {
    why =
      "Apple's status \(status.code) (\(status.meaning)) disagrees at the same moment; the transactions and renewal info are what receipt-tool's answer rests on"
  }
  return StoreStatusComparison(status: status, agrees: false, explanation: why)
}
