import ReceiptModel

/// Whether a customer can still get a product's introductory offer.
public enum IntroEligibilityStatus: String, Sendable, CaseIterable {
  case eligible
  case ineligible
  case unknown
  case noIntroOffer = "no_intro_offer"
}

/// What decided a product's introductory-offer eligibility.
public enum IntroEligibilityFinding: Hashable, Sendable {
  /// The catalog lists the product as something other than an auto-renewable subscription.
  case notASubscription(type: ProductType, catalog: String)
  /// The catalog lists no introductory offer for it.
  case noOfferInCatalog(catalog: String)
  /// Not in the catalog, and none of its transactions has an expiry date.
  case notKnownToBeASubscription(vocabulary: FieldVocabulary)
  /// An introductory offer was used in the group (own or family-shared).
  case offerUsed(PurchaseTransaction)
  /// The customer is subscribed in the group.
  case subscribed(PurchaseTransaction)
  /// The newest period lapsed, but its renewal is in the billing grace period or billing retry.
  case renewalRetrying(PurchaseTransaction, RenewalState)
  /// The group cannot be determined, so neither can any offer used in it.
  /// `vocabulary` is that of the product's transactions; nil when the history holds none.
  case groupUnknown(catalog: String?, vocabulary: FieldVocabulary?)
  /// No offer used in the group as far as it is known, but `other` (a subscription whose group no id names)
  /// used one or is active, and may be in the same group.
  case otherGroupUndetermined(PurchaseTransaction)
  /// No offer used and not subscribed: `transactions` in the group, `familyShared` of them shared.
  /// `renewalStateUnknown` names the data when its transactions carry no renewal state (an on-device receipt).
  case neverUsed(transactions: Int, familyShared: Int, renewalStateUnknown: FieldVocabulary? = nil)

  /// The status this finding gives.
  public var status: IntroEligibilityStatus {
    switch self {
    case .notASubscription, .notKnownToBeASubscription, .groupUnknown, .otherGroupUndetermined: .unknown
    case .noOfferInCatalog: .noIntroOffer
    case .offerUsed, .subscribed, .renewalRetrying: .ineligible
    case .neverUsed: .eligible
    }
  }

  /// The transaction that decided the answer, if one did.
  public var deciding: PurchaseTransaction? {
    switch self {
    case .offerUsed(let t), .subscribed(let t), .renewalRetrying(let t, _): t
    default: nil
    }
  }
}

/// The answer for one product, with the reason a support person can read out.
public struct IntroEligibilityResult: Hashable, Sendable {
  /// The product asked about.
  public var productID: String
  /// The group's id (App Store id when the data revealed it, else the catalog's); nil when unknown or
  /// when the group is known only through its products (`groupInference`).
  public var subscriptionGroup: String?
  /// How the product was placed in its group when no id of its own does (a subscription continuing in
  /// another product), nil otherwise.
  public var groupInference: GroupInference?
  /// What decided the answer.
  public var finding: IntroEligibilityFinding
  /// Why, in a sentence a support person can read out.
  public var reason: String

  /// Eligible, ineligible, unknown, or no introductory offer.
  public var status: IntroEligibilityStatus { finding.status }
  /// The transaction that decided the answer, if one did.
  public var transactionID: String? { finding.deciding?.transactionID }
  /// Who owns the deciding transaction, if one decided.
  public var ownership: Ownership? { finding.deciding?.ownership }
}

/// The products `intro-eligibility` answers for when none are named: every auto-renewable product
/// the catalog lists, then every one the data shows (catalog order, then first appearance).
/// - Parameters:
///   - history: the customer's purchase history as known at the moment asked about.
///   - catalog: the products the app sells.
/// - Returns: product ids.
public func introEligibilityProducts(history: KnownHistory, catalog: Catalog) -> [String] {
  var ids: [String] = []
  var seen: Set<String> = []
  for product in catalog.allProducts where product.type == .autoRenewable && seen.insert(product.productID).inserted {
    ids.append(product.productID)
  }
  for t in history.transactions where !seen.contains(t.productID) {
    if resolveProductType(of: t, catalog: catalog)?.type == .autoRenewable {
      seen.insert(t.productID)
      ids.append(t.productID)
    }
  }
  return ids
}

/// Decides introductory-offer eligibility (reference §7.1) at the moment the history is known at. Every
/// transaction bought by then counts, whatever its ownership and whether or not it was refunded: an offer
/// used through Family Sharing closes the whole group for this family member too, and an active subscriber
/// changing plans gets no offer. Offers used later have not been used yet.
/// - Parameters:
///   - productID: the product asked about.
///   - history: the customer's purchase history as known at the moment asked about.
///   - catalog: the products the app sells.
///   - groups: subscription groups from the catalog and the known history.
/// - Returns: the status, the transaction that decided it, and the reason.
public func decideIntroEligibility(
  of productID: String, history: KnownHistory, catalog: Catalog, groups: SubscriptionGroups
) -> IntroEligibilityResult {
  let group = groups.group(of: productID)
  let finding = findIntroEligibility(
    of: productID, history: history, catalog: catalog, group: group, groups: groups, at: history.time)
  return IntroEligibilityResult(
    productID: productID, subscriptionGroup: group?.id, groupInference: group?.inference, finding: finding,
    reason: introEligibilityReason(
      finding, productID: productID, group: group, at: history.time, renewalsAreLater: history.renewalsAreLater))
}

/// Which finding decides, in the order of Apple's rule: product facts, offer used, subscribed, retrying, group known,
/// no other subscription that may share the group.
func findIntroEligibility(
  of productID: String, history: KnownHistory, catalog: Catalog, group: SubscriptionGroup?,
  groups: SubscriptionGroups, at time: Timestamp
) -> IntroEligibilityFinding {
  if let product = catalog.product(productID) {
    guard product.type == .autoRenewable else { return .notASubscription(type: product.type, catalog: product.origin) }
    if product.introOffer == nil { return .noOfferInCatalog(catalog: product.origin) }
  } else {
    let own = history.transactions.filter { $0.productID == productID }
    if let first = own.first, !own.contains(where: { $0.expiresDate != nil }) {
      return .notKnownToBeASubscription(vocabulary: first.vocabulary)
    }
  }
  let members = Set(group?.productIDs ?? [productID])
  let relevant = history.transactions.filter { members.contains($0.productID) }
  if let used = earliest(relevant.filter { $0.offer?.usesIntroductoryOffer == true }) { return .offerUsed(used) }
  if let current = currentSubscription(in: relevant, at: time) { return .subscribed(current) }
  if let (lapsed, renewal) = retryingRenewal(of: relevant, history: history, at: time) {
    return .renewalRetrying(lapsed, renewal)
  }
  guard let group else {
    return .groupUnknown(catalog: catalog.product(productID)?.origin, vocabulary: relevant.first?.vocabulary)
  }
  if let other = undeterminedSubscription(
    outside: group, history: history, catalog: catalog, groups: groups, at: time)
  {
    return .otherGroupUndetermined(other)
  }
  return .neverUsed(
    transactions: relevant.count, familyShared: relevant.filter { $0.ownership == .familyShared }.count,
    renewalStateUnknown: relevant.first { !$0.vocabulary.holdsRenewalState }?.vocabulary)
}

/// Every product's answer, for the products named (or all known ones), from the history as known at `time`.
/// - Parameters:
///   - products: the products asked about; nil for every known one.
///   - history: the customer's purchase history.
///   - catalog: the products the app sells.
///   - time: the moment asked about.
/// - Returns: one result per product.
public func decideIntroEligibility(
  products: [String]?, history: PurchaseHistory, catalog: Catalog, at time: EvaluationTime
) -> [IntroEligibilityResult] {
  let known = history.known(at: time.time)
  let groups = SubscriptionGroups(catalog: catalog, transactions: known.transactions)
  let ids = products ?? introEligibilityProducts(history: known, catalog: catalog)
  return ids.map { decideIntroEligibility(of: $0, history: known, catalog: catalog, groups: groups) }
}

/// A subscription outside `group` that used an introductory offer or is active at `time`, where no id tells
/// its group from `group` (one of the two is named by no id), so it may be in the same group.
private func undeterminedSubscription(
  outside group: SubscriptionGroup, history: KnownHistory, catalog: Catalog, groups: SubscriptionGroups,
  at time: Timestamp
) -> PurchaseTransaction? {
  let members = Set(group.productIDs)
  var candidates: [String: [PurchaseTransaction]] = [:]
  for t in history.transactions where !members.contains(t.productID) {
    guard resolveProductType(of: t, catalog: catalog)?.type == .autoRenewable else { continue }
    guard group.id == nil || groups.group(of: t.productID)?.id == nil else { continue }
    candidates[t.productID, default: []].append(t)
  }
  for id in candidates.keys.sorted() {
    let own = candidates[id] ?? []
    if let used = earliest(own.filter { $0.offer?.usesIntroductoryOffer == true }) { return used }
    if let current = currentSubscription(in: own, at: time) { return current }
  }
  return nil
}

/// The subscription active at `time` that lasts longest.
private func currentSubscription(in transactions: [PurchaseTransaction], at time: Timestamp) -> PurchaseTransaction? {
  let active = transactions.filter { t in
    guard let expires = t.expiresDate, time < expires, !t.isUpgraded else { return false }
    if let start = t.purchaseDate, time < start { return false }
    if let revoked = t.revocation?.date, !(time < revoked) { return false }
    return true
  }
  return active.max { ($0.expiresDate ?? .epoch) < ($1.expiresDate ?? .epoch) }
}

/// The newest expired transaction whose renewal is in the billing grace period or billing retry at `time`.
private func retryingRenewal(
  of transactions: [PurchaseTransaction], history: KnownHistory, at time: Timestamp
) -> (PurchaseTransaction, RenewalState)? {
  let expired = transactions.filter { t in
    t.expiresDate.map { $0 <= time } == true && t.revocation == nil && !t.isUpgraded
  }
  guard let newest = expired.max(by: { ($0.expiresDate ?? .epoch) < ($1.expiresDate ?? .epoch) }),
    let renewal = history.renewal(originalTransactionID: newest.chainID),
    renewal.isInBillingRetryPeriod == true || renewal.gracePeriodExpiresDate.map({ $0 > time }) == true
  else { return nil }
  return (newest, renewal)
}

/// The first transaction by purchase date (undated ones last, then the data's order).
private func earliest(_ transactions: [PurchaseTransaction]) -> PurchaseTransaction? {
  var best: PurchaseTransaction?
  for t in transactions {
    guard let b = best else {
      best = t
      continue
    }
    if let d = t.purchaseDate, b.purchaseDate.map({ d < $0 }) ?? true { best = t }
  }
  return best
}
