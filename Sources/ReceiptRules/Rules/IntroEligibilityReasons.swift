import ReceiptModel

/// The sentence for an intro-eligibility finding: every intro-eligibility reason is written here (§7.1
/// [S31][S6h][S33]).
/// - Parameters:
///   - finding: what decided the answer.
///   - productID: the product asked about.
///   - group: its subscription group, when known.
///   - time: the moment asked about.
///   - later: the data's moment, when renewal states describe a moment later than `time`.
/// - Returns: `status: why`, quoting the data's own field names where they matter.
func introEligibilityReason(
  _ finding: IntroEligibilityFinding, productID: String, group: SubscriptionGroup?, at time: Timestamp,
  renewalsAreLater later: DataMoment?
) -> String {
  var reason = findingReason(finding, productID: productID, group: group, at: time)
  // A group placed only through a subscription's chain says so: no id in the data names it for this product.
  if let inference = group?.inference { reason += "; \(productID)'s subscription group is \(inference.sentence)" }
  guard let later, case .renewalRetrying = finding else { return reason }
  return reason + "; " + lowercasedFirst(String(renewalMomentNote(later).dropLast()))
}

private func lowercasedFirst(_ s: String) -> String { s.prefix(1).lowercased() + s.dropFirst() }

private func findingReason(
  _ finding: IntroEligibilityFinding, productID: String, group: SubscriptionGroup?, at time: Timestamp
) -> String {
  let status = finding.status.rawValue
  switch finding {
  case .notASubscription(let type, let catalog):
    return
      "\(status): the catalog (\(catalog)) lists \(productID) as a \(type.description), not an auto-renewable subscription; only those have introductory offers"
  case .noOfferInCatalog(let catalog):
    return "\(status): the catalog (\(catalog)) lists no introductory offer for \(productID)"
  case .notKnownToBeASubscription(let names):
    return
      "\(status): \(productID) is not in the catalog and none of its transactions has an \(names.expiresDate), so it is not known to be an auto-renewable subscription"
  case .offerUsed(let used):
    let what = used.offer?.isFreeTrial == true ? "a free trial" : "in an introductory price period"
    var reason =
      "\(status): \(describe(used, group: group)) was \(what) from \(used.purchaseDate.map(\.iso8601) ?? "an unknown date")"
    if let revoked = used.revocation?.date {
      reason += "; it was cancelled on \(revoked.iso8601), but a used offer still counts"
    }
    return reason
  case .subscribed(let current):
    // Changing plans is about another product of the group; a subscriber to this very product is simply not new.
    let rule =
      current.productID == productID
      ? "the customer already subscribes to \(productID), and introductory offers are for new subscribers"
      : "active subscribers changing plans get no introductory offer"
    return "\(status): \(describe(current, group: group)) is active until \(current.expiresDate.display); \(rule)"
  case .renewalRetrying(let lapsed, let renewal):
    let state =
      renewal.gracePeriodExpiresDate.map { $0 > time } == true
      ? "in Apple's billing grace period until \(renewal.gracePeriodExpiresDate.display)"
      : "in billing retry"
    let rule =
      lapsed.productID == productID
      ? "introductory offers are for new subscribers"
      : "active subscribers changing plans get no introductory offer"
    return
      "\(status): \(describe(lapsed, group: group)) expired on \(lapsed.expiresDate.display) but its renewal is \(state), so the customer is still a subscriber; \(rule)"
  case .groupUnknown(let catalog, let names):
    let evidence =
      names.map { "none of its transactions carries \($0.subscriptionGroup)" } ?? "the receipt has no transaction of it"
    let catalogSays =
      catalog.map { "the catalog (\($0)) gives no subscription group for \(productID)" }
      ?? "\(productID) is not in the catalog"
    return
      "\(status): \(catalogSays) and \(evidence), so its subscription group (and any offer used in it) cannot be determined"
  case .otherGroupUndetermined(let other):
    let what =
      other.offer?.usesIntroductoryOffer == true
      ? "used an introductory offer from \(other.purchaseDate.map(\.iso8601) ?? "an unknown date")"
      : "is active until \(other.expiresDate.display)"
    return
      "\(status): no transaction in \(place(of: group, productID: productID)) used an introductory offer, but \(describe(other, group: nil)) \(what), and no \(other.vocabulary.subscriptionGroup) or catalog entry tells whether \(other.productID) is in the same subscription group"
  case .neverUsed(let count, let shared, let blind):
    let place = place(of: group, productID: productID)
    guard count > 0 else {
      return "\(status): the receipt has no transaction in \(place); new subscribers get the introductory offer"
    }
    let transactions = count == 1 ? "the 1 transaction" : "none of the \(count) transactions"
    let verb =
      count == 1 ? "did not use an introductory offer, and it is not" : "used an introductory offer, and none is"
    let reason =
      "\(status): \(transactions) in \(place) (\(shared) family-shared) \(verb) active at \(time.iso8601WholeSeconds)"
    // A lapsed subscription in billing retry or grace still makes the customer a subscriber; a local receipt cannot show it.
    guard let blind else { return reason }
    return reason
      + "; \(blind.document) holds no renewal state, so a lapsed renewal still in billing retry or a grace period (which would make the customer ineligible) cannot be seen"
  }
}

/// `group 21000111`, or for a group no id names, `the subscription group of original_transaction_id 1000…`.
private func place(of group: SubscriptionGroup?, productID: String) -> String {
  guard let group else { return "product \(productID)" }
  if let id = group.id { return "group \(id)" }
  guard let inference = group.inference else { return "the subscription group of \(productID)" }
  return "the subscription group of \(inference.field) \(inference.originalTransactionIDs.joined(separator: ", "))"
}

/// `family-shared transaction 11001 (com.acme.pro.monthly, group 21000111)`.
private func describe(_ t: PurchaseTransaction, group: SubscriptionGroup?) -> String {
  let owner: String
  switch t.ownership {
  case .purchased: owner = t.ownershipAssumed ? "purchased (ownership not stated)" : "purchased"
  case .familyShared: owner = "family-shared"
  case .unknown: owner = "ownership-unknown"
  case .unrecognized(let raw): owner = "\(Excerpt.quoted(raw))-owned"
  }
  let place = group?.id.map { ", group \($0)" } ?? ""
  return "\(owner) transaction \(t.transactionID) (\(t.productID)\(place))"
}
