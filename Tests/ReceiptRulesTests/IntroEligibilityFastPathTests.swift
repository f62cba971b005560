import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// `intro-eligibility` read by position from the known history's product index (FAST-PATHS.md) against the
/// filtered copies it replaced, kept below as they were: every product of every benchmark shape and seed, with
/// offers used and none, with and without subscription group ids, with no catalog, the shapes' catalog and one
/// listing an introductory offer for every subscription, at three moments.
struct IntroEligibilityFastPathTests {
  /// The history with no offer used, or also without group ids on every other product (groups then known
  /// only through the subscriptions they share, or not at all).
  static func variants(_ history: PurchaseHistory) -> [(String, PurchaseHistory)] {
    var noOffers = history
    for i in noOffers.transactions.indices { noOffers.transactions[i].offer = nil }
    var noGroups = noOffers
    for i in noGroups.transactions.indices where noGroups.transactions[i].productID.utf8.count % 2 == 0 {
      noGroups.transactions[i].subscriptionGroup = nil
    }
    return [("as made", history), ("no offers", noOffers), ("no offers, some groups unnamed", noGroups)]
  }

  @Test func readByPositionGivesWhatTheFilteredCopiesGave() throws {
    var findings: Set<String> = []
    for (name, history, shapeCatalog) in try RuleFastPathTests.histories() {
      // A subscription of a group of its own that nobody bought, beside the shape's products.
      let other = CatalogProduct(
        productID: "com.example.other.monthly", type: .autoRenewable, subscriptionGroup: "99",
        introOffer: IntroOffer(paymentMode: .freeTrial, period: "P1W"))
      let offers = Catalog(
        shapeCatalog.allProducts.map { p in
          var p = p
          if p.type == .autoRenewable { p.introOffer = IntroOffer(paymentMode: .freeTrial, period: "P1W") }
          return p
        } + [other])
      for (variant, history) in Self.variants(history) {
        for (catalogName, catalog) in [("no catalog", Catalog()), ("catalog", shapeCatalog), ("offers", offers)] {
          for time in RuleFastPathTests.moments {
            let known = history.known(at: time)
            let groups = SubscriptionGroups(catalog: catalog, transactions: known.transactions)
            let products = scannedIntroEligibilityProducts(history: known, catalog: catalog)
            let place = "\(name), \(variant), \(catalogName), \(time.iso8601)"
            #expect(introEligibilityProducts(history: known, catalog: catalog) == products, "\(place)")
            // Every product the data shows (consumables too), the other group's and one nobody knows.
            var asked = products
            for t in known.transactions where !asked.contains(t.productID) { asked.append(t.productID) }
            for product in asked + [other.productID, "com.example.absent"] {
              let group = groups.group(of: product)
              let fast = findIntroEligibility(
                of: product, history: known, catalog: catalog, group: group, groups: groups, at: time)
              let slow = scannedFindIntroEligibility(
                of: product, history: known, catalog: catalog, group: group, groups: groups, at: time)
              #expect(fast == slow, "\(place): \(product)")
              findings.insert("\(slow)".prefix { $0 != "(" }.description)
            }
          }
        }
      }
    }
    // The histories reach every way of deciding but a renewal in billing retry (the shapes state no renewals).
    #expect(findings.count >= 8, "\(findings.sorted())")
  }
}

// The slow path: `intro-eligibility` as it read the history before, one filtered copy per product asked.

private func scannedIntroEligibilityProducts(history: KnownHistory, catalog: Catalog) -> [String] {
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
private func scannedFindIntroEligibility(
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
  if let used = scannedEarliest(relevant.filter { $0.offer?.usesIntroductoryOffer == true }) { return .offerUsed(used) }
  if let current = scannedCurrentSubscription(in: relevant, at: time) { return .subscribed(current) }
  if let (lapsed, renewal) = scannedRetryingRenewal(of: relevant, history: history, at: time) {
    return .renewalRetrying(lapsed, renewal)
  }
  guard let group else {
    return .groupUnknown(catalog: catalog.product(productID)?.origin, vocabulary: relevant.first?.vocabulary)
  }
  if let other = scannedUndeterminedSubscription(
    outside: group, history: history, catalog: catalog, groups: groups, at: time)
  {
    return .otherGroupUndetermined(other)
  }
  return .neverUsed(
    transactions: relevant.count, familyShared: relevant.filter { $0.ownership == .familyShared }.count,
    renewalStateUnknown: relevant.first { !$0.vocabulary.holdsRenewalState }?.vocabulary)
}
private func scannedUndeterminedSubscription(
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
    if let used = scannedEarliest(own.filter { $0.offer?.usesIntroductoryOffer == true }) { return used }
    if let current = scannedCurrentSubscription(in: own, at: time) { return current }
  }
  return nil
}
private func scannedCurrentSubscription(in transactions: [PurchaseTransaction], at time: Timestamp)
  -> PurchaseTransaction?
{
  let active = transactions.filter { t in
    guard let expires = t.expiresDate, time < expires, !t.isUpgraded else { return false }
    if let start = t.purchaseDate, time < start { return false }
    if let revoked = t.revocation?.date, !(time < revoked) { return false }
    return true
  }
  return active.max { ($0.expiresDate ?? .epoch) < ($1.expiresDate ?? .epoch) }
}
private func scannedRetryingRenewal(
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
private func scannedEarliest(_ transactions: [PurchaseTransaction]) -> PurchaseTransaction? {
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
