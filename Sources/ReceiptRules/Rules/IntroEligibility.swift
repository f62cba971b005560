import ReceiptModel

/// Whether a customer can still get a product's introductory offer.
public enum IntroEligibilityStatus: String, Sendable, CaseIterable {
  case eligible
  case ineligible
  case unknown
  case noIntroOffer = "no_intro_offer"
}

/// The answer for one product, with the reason a support person can read out.
public struct IntroEligibilityResult: Hashable, Sendable {
  public var productID: String
  /// The group's display id (App Store id when a receipt revealed it, else the catalog's); nil when unknown.
  public var subscriptionGroup: String?
  public var status: IntroEligibilityStatus
  public var reason: String
  /// The transaction that decided the answer, if one did.
  public var transactionID: String?
  public var ownership: Ownership?
}

/// The products `intro-eligibility` answers for when none are named: every auto-renewable product
/// the catalog lists, then every one the receipt shows (catalog order, then first appearance).
public func introEligibilityProducts(document: ReceiptDocument, catalog: Catalog) -> [String] {
  var ids: [String] = []
  var seen: Set<String> = []
  for product in catalog.allProducts where product.type == .autoRenewable && seen.insert(product.productID).inserted {
    ids.append(product.productID)
  }
  for t in document.transactions where !seen.contains(t.productID) {
    if resolveProductType(of: t, catalog: catalog)?.type == .autoRenewable {
      seen.insert(t.productID)
      ids.append(t.productID)
    }
  }
  return ids
}

/// Decides introductory-offer eligibility (reference §7.1). Every transaction counts, whatever its
/// ownership and whether or not it was refunded: an offer used through Family Sharing closes the
/// whole group for this family member too, and an active subscriber changing plans gets no offer.
public func decideIntroEligibility(
  of productID: String, document: ReceiptDocument, catalog: Catalog, groups: SubscriptionGroups, at time: EvaluationTime
) -> IntroEligibilityResult {
  let group = groups.group(of: productID)
  var result = IntroEligibilityResult(
    productID: productID, subscriptionGroup: group?.displayID, status: .unknown, reason: "",
    transactionID: nil, ownership: nil)

  if let product = catalog.product(productID) {
    guard product.type == .autoRenewable else {
      result.reason = "unknown: the catalog (\(product.origin)) lists \(productID) as a \(product.type.description), not an auto-renewable subscription; only those have introductory offers"
      return result
    }
    if product.introOffer == nil {
      result.status = .noIntroOffer
      result.reason = "no_intro_offer: the catalog (\(product.origin)) lists no introductory offer for \(productID)"
      return result
    }
  } else {
    let own = document.transactions.filter { $0.productID == productID }
    if !own.isEmpty, !own.contains(where: { $0.expiresDate != nil }) {
      result.reason = "unknown: \(productID) is not in the catalog and none of its transactions has an expires_date, so it is not known to be an auto-renewable subscription"
      return result
    }
  }

  let members = Set(group?.productIDs ?? [productID])
  let relevant = document.transactions.filter { members.contains($0.productID) }
  let where_ = group.map { "group \($0.displayID)" } ?? "product \(productID)"

  if let used = earliest(relevant.filter { $0.isTrialPeriod || $0.isInIntroOfferPeriod }) {
    result.status = .ineligible
    result.transactionID = used.transactionID
    result.ownership = used.ownership
    let what = used.isTrialPeriod ? "a free trial" : "in an introductory price period"
    var reason = "ineligible: \(describe(used, group: group)) was \(what) from \(used.purchaseDate.map(\.iso8601) ?? "an unknown date")"
    if let refunded = used.cancellationDate {
      reason += "; it was cancelled on \(refunded.iso8601), but a used offer still counts"
    }
    result.reason = reason
    return result
  }

  let active = relevant.filter { t in
    guard let expires = t.expiresDate, time.time < expires, !t.isUpgraded else { return false }
    if let start = t.purchaseDate, time.time < start { return false }
    if let cancelled = t.cancellationDate, !(time.time < cancelled) { return false }
    return true
  }
  if let current = active.max(by: { ($0.expiresDate ?? .epoch) < ($1.expiresDate ?? .epoch) }) {
    result.status = .ineligible
    result.transactionID = current.transactionID
    result.ownership = current.ownership
    result.reason = "ineligible: \(describe(current, group: group)) is active until \(current.expiresDate.display); active subscribers changing plans get no introductory offer"
    return result
  }

  // A renewal Apple is still trying to charge keeps the customer a subscriber of the group.
  if let (lapsed, pending) = retryingRenewal(of: relevant, document: document, at: time.time) {
    result.status = .ineligible
    result.transactionID = lapsed.transactionID
    result.ownership = lapsed.ownership
    let state = pending.gracePeriodExpiresDate.map { $0 > time.time } == true
      ? "in Apple's billing grace period until \(pending.gracePeriodExpiresDate.display)"
      : "in billing retry"
    result.reason = "ineligible: \(describe(lapsed, group: group)) expired on \(lapsed.expiresDate.display) but its renewal is \(state), so the customer is still a subscriber; active subscribers changing plans get no introductory offer"
    return result
  }

  guard group != nil else {
    let evidence = relevant.isEmpty
      ? "the receipt has no transaction of it"
      : "none of its transactions carries subscription_group_identifier"
    let catalogSays = catalog.product(productID).map { "the catalog (\($0.origin)) gives no subscription group for \(productID)" }
      ?? "\(productID) is not in the catalog"
    result.reason = "unknown: \(catalogSays) and \(evidence), so its subscription group (and any offer used in it) cannot be determined"
    return result
  }
  result.status = .eligible
  if relevant.isEmpty {
    result.reason = "eligible: the receipt has no transaction in \(where_); new subscribers get the introductory offer"
  } else {
    let shared = relevant.filter { $0.ownership == .familyShared }.count
    let transactions = relevant.count == 1 ? "the 1 transaction" : "none of the \(relevant.count) transactions"
    let verb = relevant.count == 1 ? "did not use an introductory offer, and it is not" : "used an introductory offer, and none is"
    result.reason = "eligible: \(transactions) in \(where_) (\(shared) family-shared) \(verb) active at \(time.time.iso8601WholeSeconds)"
  }
  return result
}

/// Every product's answer, for the products named (or all known ones).
public func decideIntroEligibility(
  products: [String]?, document: ReceiptDocument, catalog: Catalog, at time: EvaluationTime
) -> [IntroEligibilityResult] {
  let groups = SubscriptionGroups(catalog: catalog, transactions: document.transactions)
  let ids = products ?? introEligibilityProducts(document: document, catalog: catalog)
  return ids.map { decideIntroEligibility(of: $0, document: document, catalog: catalog, groups: groups, at: time) }
}

/// The newest expired transaction whose pending renewal is in the billing grace period or billing retry at `time`.
private func retryingRenewal(of transactions: [PurchaseTransaction], document: ReceiptDocument, at time: Timestamp) -> (PurchaseTransaction, PendingRenewal)? {
  let expired = transactions.filter { t in t.expiresDate.map { $0 <= time } == true && t.cancellationDate == nil && !t.isUpgraded }
  guard let newest = expired.max(by: { ($0.expiresDate ?? .epoch) < ($1.expiresDate ?? .epoch) }),
    let pending = document.pendingRenewal(originalTransactionID: newest.originalTransactionID ?? newest.transactionID),
    pending.isInBillingRetryPeriod == true || pending.gracePeriodExpiresDate.map({ $0 > time }) == true
  else { return nil }
  return (newest, pending)
}

/// The first transaction by purchase date (undated ones last, then receipt order).
private func earliest(_ transactions: [PurchaseTransaction]) -> PurchaseTransaction? {
  var best: PurchaseTransaction?
  for t in transactions {
    guard let b = best else { best = t; continue }
    if let d = t.purchaseDate, b.purchaseDate.map({ d < $0 }) ?? true { best = t }
  }
  return best
}

/// `family-shared transaction 11001 (com.acme.pro.monthly, group 21000111)`.
private func describe(_ t: PurchaseTransaction, group: SubscriptionGroup?) -> String {
  let owner: String
  switch t.ownership {
  case .purchased: owner = t.ownershipAssumed ? "purchased (ownership not stated)" : "purchased"
  case .familyShared: owner = "family-shared"
  case .unrecognized(let raw): owner = "\(Excerpt.quoted(raw))-owned"
  }
  let place = group.map { ", group \($0.displayID)" } ?? ""
  return "\(owner) transaction \(t.transactionID) (\(t.productID)\(place))"
}
