import ReceiptModel

/// A subscription group has one active subscription: a purchase of another product of the group (or of the
/// same subscription chain) made before a period's expiry ends that period when it is bought, which is what an
/// upgrade or an immediate crossgrade is (`DID_CHANGE_RENEWAL_PREF` / `UPGRADE`). The old transaction in hand
/// may not carry `isUpgraded` (it was read before the upgrade); this marks it upgraded all the same. A
/// downgrade is bought at the old period's expiry, so it ends nothing early.
///
/// Only copies of one ownership replace each other: a FAMILY_SHARED copy and the customer's own purchase are two
/// subscriptions.
/// - Parameter history: the customer's purchase history.
/// - Returns: the history with every replaced period marked `isUpgraded`; the same history when none is.
public func markingReplacedPeriods(_ history: PurchaseHistory) -> PurchaseHistory {
  let all = history.transactions
  // One product: nothing can replace another (checked without copying a transaction).
  guard let first = all.indices.first, all.indices.contains(where: { all[$0].productID != all[first].productID })
  else { return history }
  // Most histories have one product per chain and group: nothing to compare.
  var productsByKey: [String: Set<String>] = [:]
  for i in all.indices {
    productsByKey["c:" + all[i].chainID, default: []].insert(all[i].productID)
    if let g = all[i].subscriptionGroup { productsByKey["g:" + g, default: []].insert(all[i].productID) }
  }
  guard productsByKey.values.contains(where: { $0.count > 1 }) else { return history }
  var members: [String: [Int]] = [:]
  for i in all.indices where all[i].purchaseDate != nil {
    members["c:" + all[i].chainID, default: []].append(i)
    if let g = all[i].subscriptionGroup { members["g:" + g, default: []].append(i) }
  }
  var replaced: [Int] = []
  for i in all.indices where !all[i].isUpgraded {
    guard let bought = all[i].purchaseDate, let expires = all[i].expiresDate else { continue }
    let keys = ["c:" + all[i].chainID] + (all[i].subscriptionGroup.map { ["g:" + $0] } ?? [])
    let isReplaced = keys.contains { key in
      (members[key] ?? []).contains { j in
        guard j != i, all[j].productID != all[i].productID, all[j].ownership == all[i].ownership,
          let at = all[j].purchaseDate
        else { return false }
        return at > bought && at < expires
      }
    }
    if isReplaced { replaced.append(i) }
  }
  guard !replaced.isEmpty else { return history }
  var marked = history
  for i in replaced { marked.transactions[i].isUpgraded = true }
  return marked
}
