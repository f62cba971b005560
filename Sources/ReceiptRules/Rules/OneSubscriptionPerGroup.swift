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
  // Each chain's and group's purchases sorted by date: the purchases inside a period are found by binary
  // search, not by reading the whole group for every period (N² on one group of many products).
  let purchases = DatedPurchases(all)
  // Most histories have one product per chain and group: nothing to compare.
  let mixed = purchases.allGroupings.contains { list in
    list.contains { all[$0.index].productID != all[list[0].index].productID }
  }
  guard mixed else { return history }
  var replaced: [Int] = []
  for i in all.indices where !all[i].isUpgraded {
    guard let bought = all[i].purchaseDate, let expires = all[i].expiresDate else { continue }
    // Bought inside the period (after `bought`, before `expires`), another product, the same ownership.
    func replaces(_ later: ArraySlice<DatedPurchases.Purchase>) -> Bool {
      for p in later {
        guard p.at < expires else { return false }
        let j = p.index
        if j != i, all[j].productID != all[i].productID, all[j].ownership == all[i].ownership { return true }
      }
      return false
    }
    let inChain = replaces(purchases.chain(all[i].chainID, after: bought))
    if inChain || all[i].subscriptionGroup.map({ replaces(purchases.group($0, after: bought)) }) == true {
      replaced.append(i)
    }
  }
  guard !replaced.isEmpty else { return history }
  var marked = history
  for i in replaced { marked.transactions[i].isUpgraded = true }
  return marked
}
