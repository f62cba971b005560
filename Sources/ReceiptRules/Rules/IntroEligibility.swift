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
/// the catalog lists, then every one the data shows at `time` (catalog order, then first appearance).
/// - Parameters:
///   - table: the customer's purchases.
///   - catalog: the products the app sells.
///   - time: the moment asked about.
/// - Returns: product ids.
public func introEligibilityProducts(table: PurchaseTable, catalog: Catalog, at time: Timestamp) -> [String] {
  var ids: [String] = []
  var seen: Set<String> = []
  for product in catalog.allProducts where product.type == .autoRenewable && seen.insert(product.productID).inserted {
    ids.append(product.productID)
  }
  // Each product of the data placed at its first auto-renewable row known at `time`.
  let entries = catalogEntries(of: table, catalog)
  var firstSubscription: [(row: Int, id: String)] = []
  for product in table.productsInOrder where !seen.contains(table.productIDs[Int(product)]) {
    let first = table.rows(ofProduct: product).first {
      table.isKnown($0, at: time)
        && resolveProductType(ofRow: $0, in: table, catalogEntries: entries)?.type == .autoRenewable
    }
    if let first { firstSubscription.append((first, table.productIDs[Int(product)])) }
  }
  firstSubscription.sort { $0.row < $1.row }
  return ids + firstSubscription.map(\.id)
}

/// Decides introductory-offer eligibility (§7.1 [S31][S6h]) at `time`. Every transaction bought by then counts,
/// whatever its ownership and whether or not it was refunded: an offer used through Family Sharing closes the whole
/// group for this family member too (§7.1 [S33], the project's reading of "all in-app purchase transactions"), and
/// an active subscriber changing plans gets no offer ([S31]). Offers used later have not been used yet.
/// - Parameters:
///   - productID: the product asked about.
///   - table: the customer's purchases.
///   - catalog: the products the app sells.
///   - groups: subscription groups from the catalog and the rows known at `time`.
///   - time: the moment asked about.
/// - Returns: the status, the transaction that decided it, and the reason.
public func decideIntroEligibility(
  of productID: String, table: PurchaseTable, catalog: Catalog, groups: SubscriptionGroups, at time: Timestamp
) -> IntroEligibilityResult {
  let group = groups.group(of: productID)
  let finding = findIntroEligibility(
    of: productID, table: table, catalog: catalog, group: group, groups: groups, at: time)
  return IntroEligibilityResult(
    productID: productID, subscriptionGroup: group?.id, groupInference: group?.inference, finding: finding,
    reason: introEligibilityReason(
      finding, productID: productID, group: group, at: time, renewalsAreLater: table.renewalsAreLater(than: time)))
}

/// Which finding decides, in the order of Apple's rule: product facts, offer used, subscribed, retrying, group known,
/// no other subscription that may share the group.
func findIntroEligibility(
  of productID: String, table: PurchaseTable, catalog: Catalog, group: SubscriptionGroup?,
  groups: SubscriptionGroups, at time: Timestamp
) -> IntroEligibilityFinding {
  if let product = catalog.product(productID) {
    guard product.type == .autoRenewable else { return .notASubscription(type: product.type, catalog: product.origin) }
    if product.introOffer == nil { return .noOfferInCatalog(catalog: product.origin) }
  } else {
    let own = table.rows(ofProducts: [productID]).filter { table.isKnown($0, at: time) }
    if let first = own.first, !own.contains(where: { table.expiry[$0] != nil }) {
      return .notKnownToBeASubscription(vocabulary: table.transactions[first].vocabulary)
    }
  }
  let relevant = table.rows(ofProducts: group?.productIDs ?? [productID]).filter { table.isKnown($0, at: time) }
  if let used = earliest(relevant.filter { table.usesIntroductoryOffer[$0] }, in: table) {
    return .offerUsed(table.transaction(used, at: time))
  }
  if let current = currentSubscription(in: relevant, of: table, at: time) {
    return .subscribed(table.transaction(current, at: time))
  }
  if let (lapsed, renewal) = retryingRenewal(of: relevant, in: table, at: time) {
    return .renewalRetrying(table.transaction(lapsed, at: time), renewal)
  }
  guard let group else {
    return .groupUnknown(
      catalog: catalog.product(productID)?.origin, vocabulary: relevant.first.map { table.transactions[$0].vocabulary })
  }
  if let other = undeterminedSubscription(outside: group, table: table, catalog: catalog, groups: groups, at: time) {
    return .otherGroupUndetermined(table.transaction(other, at: time))
  }
  return .neverUsed(
    transactions: relevant.count, familyShared: relevant.filter { table.ownership[$0] == .familyShared }.count,
    renewalStateUnknown: relevant.first { !table.transactions[$0].vocabulary.holdsRenewalState }.map {
      table.transactions[$0].vocabulary
    })
}

/// Every product's answer, for the products named (or all known ones), at `time`.
/// - Parameters:
///   - products: the products asked about; nil for every known one.
///   - history: the customer's purchase history.
///   - catalog: the products the app sells.
///   - time: the moment asked about.
/// - Returns: one result per product.
public func decideIntroEligibility(
  products: [String]?, history: PurchaseHistory, catalog: Catalog, at time: EvaluationTime
) -> [IntroEligibilityResult] {
  let table = PurchaseTable(history)
  let groups = SubscriptionGroups(catalog: catalog, table: table, at: time.time)
  let ids = products ?? introEligibilityProducts(table: table, catalog: catalog, at: time.time)
  return ids.map { decideIntroEligibility(of: $0, table: table, catalog: catalog, groups: groups, at: time.time) }
}

/// A subscription outside `group` that used an introductory offer or is active at `time`, where no id tells
/// its group from `group` (one of the two is named by no id), so it may be in the same group: its row.
private func undeterminedSubscription(
  outside group: SubscriptionGroup, table: PurchaseTable, catalog: Catalog, groups: SubscriptionGroups,
  at time: Timestamp
) -> Int? {
  let members = Set(group.productIDs)
  let entries = catalogEntries(of: table, catalog)
  var candidates: [String: [Int]] = [:]
  // Product by product: whether its group is named is a fact of the product, asked once.
  for product in table.productsInOrder where !members.contains(table.productIDs[Int(product)]) {
    let id = table.productIDs[Int(product)]
    guard group.id == nil || groups.group(of: id)?.id == nil else { continue }
    let subscriptions = table.rows(ofProduct: product).filter {
      table.isKnown($0, at: time)
        && resolveProductType(ofRow: $0, in: table, catalogEntries: entries)?.type == .autoRenewable
    }
    if !subscriptions.isEmpty { candidates[id] = subscriptions }
  }
  for id in candidates.keys.sorted() {
    let own = candidates[id] ?? []
    if let used = earliest(own.filter { table.usesIntroductoryOffer[$0] }, in: table) { return used }
    if let current = currentSubscription(in: own, of: table, at: time) { return current }
  }
  return nil
}

/// The row of the subscription active at `time` that lasts longest (the first of equals): not expired, not
/// upgraded and not refunded or revoked as known then.
private func currentSubscription(in rows: [Int], of table: PurchaseTable, at time: Timestamp) -> Int? {
  let active = rows.filter { row in
    guard let expires = table.expiry[row], time < expires else { return false }
    return !table.isUpgraded(row, at: time) && table.revocation(row, at: time) == nil
  }
  return active.max { (table.expiry[$0] ?? .epoch) < (table.expiry[$1] ?? .epoch) }
}

/// The row of the newest expired transaction whose renewal is in the billing grace period or billing retry at
/// `time` (§7.3 [S36]), and that renewal.
private func retryingRenewal(of rows: [Int], in table: PurchaseTable, at time: Timestamp) -> (Int, RenewalState)? {
  let expired = rows.filter { row in
    table.expiry[row].map { $0 <= time } == true && table.revocation(row, at: time) == nil
      && !table.isUpgraded(row, at: time)
  }
  guard let newest = expired.max(by: { (table.expiry[$0] ?? .epoch) < (table.expiry[$1] ?? .epoch) }),
    let renewal = table.renewal(ofRow: newest),
    renewal.isInBillingRetryPeriod == true || renewal.gracePeriodExpiresDate.map({ $0 > time }) == true
  else { return nil }
  return (newest, renewal)
}

/// The first row by purchase date (undated ones last, then the data's order).
private func earliest(_ rows: [Int], in table: PurchaseTable) -> Int? {
  var best: Int?
  for row in rows {
    guard let b = best else {
      best = row
      continue
    }
    if let d = table.purchase[row], table.purchase[b].map({ d < $0 }) ?? true { best = row }
  }
  return best
}
