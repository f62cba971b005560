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
  // Product by product from the known history's index, each placed at its first auto-renewable transaction:
  // a pass over every transaction copied each one and hashed its product id.
  let all = history.transactions
  var firstSubscription: [(position: Int, id: String)] = []
  for (id, positions) in productPositions(in: history) where !seen.contains(id) {
    let first = positions.first {
      resolveProductType(of: GrantFields(all, at: $0), catalog: catalog)?.type == .autoRenewable
    }
    if let first { firstSubscription.append((first, id)) }
  }
  firstSubscription.sort { $0.position < $1.position }
  return ids + firstSubscription.map(\.id)
}

/// Every product of the known history with its positions (in the data's order), in the order of its first
/// one: read from the history's product index (slices of it, not copies).
func productPositions(in history: KnownHistory) -> [(id: String, positions: ArraySlice<Int>)] {
  let all = history.transactions
  let purchases = history.purchases
  guard purchases.productNumbers.count == all.count else {
    // An index built without products: grouped here.
    var order: [String] = []
    var positions: [String: [Int]] = [:]
    for i in all.indices {
      if positions[all[stated: i].productID] == nil { order.append(all[stated: i].productID) }
      positions[all[stated: i].productID, default: []].append(i)
    }
    return order.map { ($0, ArraySlice(positions[$0] ?? [])) }
  }
  return purchases.productsInOrder.compactMap { p in
    let positions = purchases.positions(ofProduct: p)
    return positions.first.map { (all[stated: $0].productID, positions) }
  }
}

/// The positions, in the data's order, of the known history's transactions of `products`: several products' read
/// off the index's product numbers in one pass (their lists concatenated and sorted cost a sort per product asked).
func positions(ofProducts products: Set<String>, in history: KnownHistory) -> [Int] {
  let all = history.transactions
  let numbers = history.purchases.productNumbers
  guard numbers.count == all.count else {
    var out: [Int] = []
    var parts = 0
    for (id, positions) in productPositions(in: history) where products.contains(id) {
      out += positions
      parts += 1
    }
    if parts > 1 { out.sort() }
    return out
  }
  var member: [Bool] = []
  var parts = 0
  var only: ArraySlice<Int> = []
  for p in history.purchases.productsInOrder {
    let positions = history.purchases.positions(ofProduct: p)
    guard let first = positions.first, products.contains(all[stated: first].productID) else { continue }
    if member.count <= p { member += Array(repeating: false, count: p + 1 - member.count) }
    member[p] = true
    parts += 1
    only = positions
  }
  guard parts > 1 else { return Array(only) }
  var out: [Int] = []
  numbers.withUnsafeBufferPointer { numbers in
    for i in numbers.indices {
      let n = Int(numbers[i])
      if n >= 0, n < member.count, member[n] { out.append(i) }
    }
  }
  return out
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
  // By position in the known history: the group's transactions are read in place, and only the deciding one
  // is copied (a filtered copy retained and released every field of every transaction, per product asked).
  let all = history.transactions
  if let product = catalog.product(productID) {
    guard product.type == .autoRenewable else { return .notASubscription(type: product.type, catalog: product.origin) }
    if product.introOffer == nil { return .noOfferInCatalog(catalog: product.origin) }
  } else {
    let own = positions(ofProducts: [productID], in: history)
    if let first = own.first, !own.contains(where: { all[stated: $0].expiresDate != nil }) {
      return .notKnownToBeASubscription(vocabulary: all[stated: first].vocabulary)
    }
  }
  let members = Set(group?.productIDs ?? [productID])
  let relevant = positions(ofProducts: members, in: history)
  if let used = earliest(relevant.filter { all[stated: $0].offer?.usesIntroductoryOffer == true }, of: all) {
    return .offerUsed(all[used])
  }
  if let current = currentSubscription(in: relevant, of: all, at: time) { return .subscribed(all[current]) }
  if let (lapsed, renewal) = retryingRenewal(of: relevant, history: history, at: time) {
    return .renewalRetrying(all[lapsed], renewal)
  }
  guard let group else {
    return .groupUnknown(
      catalog: catalog.product(productID)?.origin, vocabulary: relevant.first.map { all[stated: $0].vocabulary })
  }
  if let other = undeterminedSubscription(
    outside: group, history: history, catalog: catalog, groups: groups, at: time)
  {
    return .otherGroupUndetermined(all[other])
  }
  return .neverUsed(
    transactions: relevant.count, familyShared: relevant.filter { all[stated: $0].ownership == .familyShared }.count,
    renewalStateUnknown: relevant.first { !all[stated: $0].vocabulary.holdsRenewalState }.map {
      all[stated: $0].vocabulary
    })
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
  let groups = SubscriptionGroups(catalog: catalog, history: known)
  let ids = products ?? introEligibilityProducts(history: known, catalog: catalog)
  return ids.map { decideIntroEligibility(of: $0, history: known, catalog: catalog, groups: groups) }
}

/// A subscription outside `group` that used an introductory offer or is active at `time`, where no id tells
/// its group from `group` (one of the two is named by no id), so it may be in the same group: its position.
private func undeterminedSubscription(
  outside group: SubscriptionGroup, history: KnownHistory, catalog: Catalog, groups: SubscriptionGroups,
  at time: Timestamp
) -> Int? {
  let members = Set(group.productIDs)
  let all = history.transactions
  var candidates: [String: [Int]] = [:]
  // Product by product: whether its group is named is a fact of the product, asked once.
  for (id, positions) in productPositions(in: history) where !members.contains(id) {
    guard group.id == nil || groups.group(of: id)?.id == nil else { continue }
    let subscriptions = positions.filter {
      resolveProductType(of: GrantFields(all, at: $0), catalog: catalog)?.type == .autoRenewable
    }
    if !subscriptions.isEmpty { candidates[id] = subscriptions }
  }
  for id in candidates.keys.sorted() {
    let own = candidates[id] ?? []
    if let used = earliest(own.filter { all[stated: $0].offer?.usesIntroductoryOffer == true }, of: all) {
      return used
    }
    if let current = currentSubscription(in: own, of: all, at: time) { return current }
  }
  return nil
}

/// The position of the subscription active at `time` that lasts longest (the first of equals).
private func currentSubscription(in positions: [Int], of all: KnownTransactions, at time: Timestamp) -> Int? {
  let active = positions.filter { i in
    guard let expires = all[stated: i].expiresDate, time < expires, !all.isUpgraded(at: i) else { return false }
    if let start = all[stated: i].purchaseDate, time < start { return false }
    if let revoked = all.revocation(at: i)?.date, !(time < revoked) { return false }
    return true
  }
  return active.max { (all[stated: $0].expiresDate ?? .epoch) < (all[stated: $1].expiresDate ?? .epoch) }
}

/// The position of the newest expired transaction whose renewal is in the billing grace period or billing
/// retry at `time`, and that renewal.
private func retryingRenewal(
  of positions: [Int], history: KnownHistory, at time: Timestamp
) -> (Int, RenewalState)? {
  let all = history.transactions
  let expired = positions.filter { i in
    all[stated: i].expiresDate.map { $0 <= time } == true && all.revocation(at: i) == nil && !all.isUpgraded(at: i)
  }
  guard
    let newest = expired.max(by: {
      (all[stated: $0].expiresDate ?? .epoch) < (all[stated: $1].expiresDate ?? .epoch)
    }),
    let renewal = history.renewal(originalTransactionID: all[stated: newest].chainID),
    renewal.isInBillingRetryPeriod == true || renewal.gracePeriodExpiresDate.map({ $0 > time }) == true
  else { return nil }
  return (newest, renewal)
}

/// The position of the first transaction by purchase date (undated ones last, then the data's order).
private func earliest(_ positions: [Int], of all: KnownTransactions) -> Int? {
  var best: Int?
  for i in positions {
    guard let b = best else {
      best = i
      continue
    }
    if let d = all[stated: i].purchaseDate, all[stated: b].purchaseDate.map({ d < $0 }) ?? true { best = i }
  }
  return best
}
