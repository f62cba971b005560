import ReceiptModel

/// What an entitlement's state is at a moment.
public enum EntitlementState: String, Sendable, CaseIterable {
  case active
  case gracePeriod = "grace_period"
  case billingRetry = "billing_retry"
  case expired
  case refunded
  case revoked
  case upgraded
  case unknown
  case notPurchased = "not_purchased"

  /// The customer may use it: active, or in Apple's billing grace period.
  public var isActive: Bool { self == .active || self == .gracePeriod }
}

/// One transaction considered for an entitlement, and the decision on it.
public struct ConsideredTransaction: Hashable, Sendable {
  public var transaction: PurchaseTransaction
  public var grant: AccessGrant
}

/// The answer for one entitlement.
public struct EntitlementResult: Hashable, Sendable {
  public var id: String
  public var state: EntitlementState
  /// The transaction the state rests on; nil for not_purchased.
  public var deciding: PurchaseTransaction?
  /// When the deciding transaction's access ends or ended: its expires_date, or purchase + duration for a
  /// non-renewing subscription; nil for access that does not expire.
  public var expiresDate: Timestamp?
  /// Set when the billing grace period matters to the answer.
  public var gracePeriodExpiresDate: Timestamp?
  public var reason: String
  /// Every transaction of the entitlement's products, in receipt order.
  public var considered: [ConsideredTransaction]

  public var isActive: Bool { state.isActive }
}

/// Decides an entitlement's state at `time` from every transaction of its products, whatever their ownership:
/// a customer can lose Family Sharing access and still own the product.
///
/// 1. Some transaction grants: active; the longest-lasting grant is reported (non-expiring first, then
///    PURCHASED before FAMILY_SHARED).
/// 2. The newest subscription transaction expired and its pending renewal is in the billing grace period: grace_period.
/// 3. A transaction whose answer cannot be told: unknown.
/// 4. The same subscription is in billing retry: billing_retry.
/// 5. Otherwise the newest event decides: refunded, revoked, upgraded or expired.
public func entitlementStatus(
  _ definition: EntitlementDefinition, document: ReceiptDocument, catalog: Catalog, at time: Timestamp
) -> EntitlementResult {
  var considered: [ConsideredTransaction] = []
  for t in document.transactions where definition.productIDs.contains(t.productID) {
    considered.append(ConsideredTransaction(transaction: t, grant: accessGrant(of: t, catalog: catalog, at: time)))
  }
  var result = EntitlementResult(
    id: definition.id, state: .notPurchased, deciding: nil, expiresDate: nil, gracePeriodExpiresDate: nil, reason: "", considered: considered)

  guard !considered.isEmpty else {
    let products = definition.productIDs.joined(separator: " or ")
    result.reason = "The receipt holds no purchase of \(products.isEmpty ? definition.id : products)."
    return result
  }

  if let best = longestGrant(considered), case .grants(let until) = best.grant {
    result.state = .active
    result.deciding = best.transaction
    result.expiresDate = until
    result.reason = activeReason(best.transaction, until: until, lost: newestLoss(considered, at: time))
    return result
  }

  let renewal = latestSubscription(considered).flatMap { c -> (ConsideredTransaction, PendingRenewal, Timestamp)? in
    guard case .expired(let expired) = c.grant,
      let pending = document.pendingRenewal(originalTransactionID: c.transaction.originalTransactionID ?? c.transaction.transactionID)
    else { return nil }
    return (c, pending, expired)
  }
  if let (c, pending, expired) = renewal, let grace = pending.gracePeriodExpiresDate, grace > time {
    result.state = .gracePeriod
    result.deciding = c.transaction
    result.gracePeriodExpiresDate = grace
    result.expiresDate = expired
    result.reason =
      "\(c.transaction.productID) could not be renewed on \(expired.iso8601) because the payment failed; Apple's billing grace period keeps access until \(grace.iso8601) while it retries the charge."
    return result
  }

  if let unknown = considered.first(where: { $0.grant.isUnknown }) {
    result.state = .unknown
    result.deciding = unknown.transaction
    result.expiresDate = unknown.transaction.expiresDate
    result.reason = unknown.grant.explanation(of: unknown.transaction)
    return result
  }

  if let (c, pending, expired) = renewal, pending.isInBillingRetryPeriod == true {
    result.state = .billingRetry
    result.deciding = c.transaction
    result.gracePeriodExpiresDate = pending.gracePeriodExpiresDate
    result.expiresDate = expired
    var reason = "\(c.transaction.productID) expired on \(expired.iso8601) because the payment failed"
    if let grace = pending.gracePeriodExpiresDate { reason += " and the billing grace period ended on \(grace.iso8601)" }
    result.reason = reason + "; Apple is still retrying the charge, and access returns if it succeeds."
    return result
  }

  guard let newest = newestEvent(considered) else {
    // Every transaction was bought after `time` (or is a consumable).
    let first = considered.compactMap(\.transaction.purchaseDate).min()
    result.reason = "Nothing was bought by \(time.iso8601WholeSeconds)" + (first.map { "; the first purchase is on \($0.iso8601)." } ?? ".")
    return result
  }
  result.deciding = newest.transaction
  let t = newest.transaction
  result.expiresDate = t.expiresDate
  switch newest.grant {
  case .refunded(let at):
    result.state = .refunded
    result.reason = "\(t.productID) (transaction \(t.transactionID)) was refunded on \(at.iso8601)\(cancellationCause(t)), so it counts as never bought."
  case .revoked(let at):
    result.state = .revoked
    result.reason = "Family Sharing access to \(t.productID) (transaction \(t.transactionID)) was revoked on \(at.iso8601): the family member who bought it stopped sharing it, left the family or was refunded."
  case .upgraded:
    result.state = .upgraded
    let target = upgradeTarget(of: t, in: document, excluding: definition.productIDs)
    result.reason = "\(t.productID) (transaction \(t.transactionID)) was upgraded to \(target ?? "another product of its subscription group"), which does not give \(definition.id)."
  case .expired(let at):
    result.state = .expired
    var reason = "\(t.productID) expired on \(at.iso8601)"
    let pending = document.pendingRenewal(originalTransactionID: t.originalTransactionID ?? t.transactionID)
    if let intent = pending?.expirationIntent {
      reason += " and was not renewed: \(PendingRenewal.describe(expirationIntent: intent))"
    } else {
      reason += " and has not been renewed"
    }
    if let grace = pending?.gracePeriodExpiresDate {
      reason += "; the billing grace period ended on \(grace.iso8601)"
      result.gracePeriodExpiresDate = grace
    }
    result.reason = reason + "."
  case .durationEnded(let end, let duration):
    result.state = .expired
    result.expiresDate = end
    result.reason = "\(t.productID) is a non-renewing subscription of \(duration.text) bought on \(t.purchaseDate.display); it ended on \(end.iso8601)."
  default:
    result.state = .unknown
    result.reason = newest.grant.explanation(of: t)
  }
  return result
}

/// The grant that lasts longest: non-expiring first, then the latest end; on a tie PURCHASED before FAMILY_SHARED.
func longestGrant(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  func rank(_ c: ConsideredTransaction) -> (Int64, Int) {
    guard case .grants(let until) = c.grant else { return (-1, 0) }
    return (until?.milliseconds ?? Int64.max, c.transaction.ownership == .familyShared ? 0 : 1)
  }
  var best: ConsideredTransaction?
  for c in considered where c.grant.grantsAccess {
    if let b = best, rank(b) >= rank(c) { continue }
    best = c
  }
  return best
}

/// The subscription transaction with the latest expires_date (the newest period of the subscription).
func latestSubscription(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  var latest: ConsideredTransaction?
  for c in considered {
    guard let e = c.transaction.expiresDate else { continue }
    if let l = latest, let le = l.transaction.expiresDate, le >= e { continue }
    latest = c
  }
  return latest
}

/// When the decision took effect, for finding the newest event.
func eventTime(_ c: ConsideredTransaction) -> Timestamp? {
  switch c.grant {
  case .refunded(let at), .revoked(let at), .expired(let at): at
  case .durationEnded(let end, _): end
  case .upgraded: c.transaction.purchaseDate
  default: nil
  }
}

/// The transaction whose loss of access happened last.
func newestEvent(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  var newest: (ConsideredTransaction, Timestamp)?
  for c in considered {
    guard let at = eventTime(c) else { continue }
    if let n = newest, n.1 > at { continue }
    newest = (c, at)
  }
  return newest?.0
}

/// The latest refund or revocation, to explain why access rests on another transaction.
func newestLoss(_ considered: [ConsideredTransaction], at time: Timestamp) -> ConsideredTransaction? {
  var newest: (ConsideredTransaction, Timestamp)?
  for c in considered {
    switch c.grant {
    case .refunded(let at), .revoked(let at):
      if let n = newest, n.1 > at { continue }
      newest = (c, at)
    default: continue
    }
  }
  return newest?.0
}

func activeReason(_ t: PurchaseTransaction, until: Timestamp?, lost: ConsideredTransaction?) -> String {
  let keeps = until.map { "keeps it active until \($0.iso8601)" } ?? "keeps it active; it does not expire"
  // The product is named unless the sentence already did.
  let id = lost?.transaction.productID == t.productID ? "transaction \(t.transactionID)" : "transaction \(t.transactionID), \(t.productID)"
  let source: String
  switch t.ownership {
  case .familyShared: source = "Family Sharing (\(id))"
  case .purchased where t.ownershipAssumed:
    source = "the customer's own purchase (\(id); the receipt has no in_app_ownership_type, so it is taken as bought by the customer)"
  case .purchased: source = "the customer's own purchase (\(id))"
  case .unrecognized(let raw): source = "\(id) (ownership \(raw))"
  }
  guard let lost else {
    return source.prefix(1).uppercased() + source.dropFirst() + " " + keeps + "."
  }
  let l = lost.transaction
  switch lost.grant {
  case .revoked(let at):
    return "Family Sharing access to \(l.productID) was revoked on \(at.iso8601); \(source) \(keeps)."
  case .refunded(let at):
    return "\(l.productID) (transaction \(l.transactionID)) was refunded on \(at.iso8601); \(source) \(keeps)."
  default:
    return source.prefix(1).uppercased() + source.dropFirst() + " " + keeps + "."
  }
}

func cancellationCause(_ t: PurchaseTransaction) -> String {
  switch t.cancellationReason {
  case "1": " (the customer reported a problem with the app)"
  case "0": " (for a reason other than a problem with the app)"
  default: ""
  }
}

/// The product an upgraded transaction was replaced by: the next purchase in its subscription group outside the entitlement.
func upgradeTarget(of t: PurchaseTransaction, in document: ReceiptDocument, excluding products: [String]) -> String? {
  guard let group = t.subscriptionGroup, let bought = t.purchaseDate else { return nil }
  return document.transactions
    .filter { $0.subscriptionGroup == group && !products.contains($0.productID) && ($0.purchaseDate ?? bought) >= bought }
    .min { ($0.purchaseDate ?? bought) < ($1.purchaseDate ?? bought) }?.productID
}

/// Every entitlement of a receipt at `time`, in `entitlementDefinitions` order.
public func entitlementStatuses(of document: ReceiptDocument, catalog: Catalog, at time: Timestamp) -> [EntitlementResult] {
  entitlementDefinitions(for: document, catalog: catalog).map {
    entitlementStatus($0, document: document, catalog: catalog, at: time)
  }
}
