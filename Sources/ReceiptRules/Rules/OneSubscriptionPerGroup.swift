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
  let replaced = replacedPeriods(of: history.transactions, purchases: DatedPurchases(history.transactions))
  guard !replaced.isEmpty else { return history }
  var marked = history
  for i in replaced { marked.transactions[i].isUpgraded = true }
  return marked
}

/// The history as known at `time` with replaced periods marked (`markingReplacedPeriods(history).known(at:)`),
/// indexed once: the replaced periods and the history known at the moment read the same `DatedPurchases`.
/// - Parameters:
///   - history: the customer's purchase history.
///   - time: the moment asked about.
/// - Returns: what every entitlement rule reads.
public func knownHistory(of history: PurchaseHistory, at time: Timestamp) -> KnownHistory {
  let purchases = DatedPurchases(history.transactions)
  // Replacing purchases matter only when something was bought after the moment (`KnownHistory`).
  let boughtLater = purchases.latestPurchase.map { $0 > time } ?? false
  let replaced = replacingPurchases(of: history.transactions, purchases: purchases, keepingReplacers: boughtLater)
  return KnownHistory(
    history, at: time, upgrading: replaced.periods, replacedBy: replaced.by, purchases: purchases)
}

/// The indices, ascending, of the periods `markingReplacedPeriods` marks (not already upgraded ones).
/// - Parameters:
///   - all: the history's transactions.
///   - purchases: their index.
/// - Returns: the replaced periods' indices.
func replacedPeriods(of all: [PurchaseTransaction], purchases: DatedPurchases) -> [Int] {
  replacingPurchases(of: all, purchases: purchases, keepingReplacers: false).periods
}

/// `replacedPeriods`, and when `keepingReplacers`, for each period the index of a purchase that replaced it
/// (bought inside it, later; else `by` is empty).
func replacingPurchases(
  of all: [PurchaseTransaction], purchases: DatedPurchases, keepingReplacers: Bool = true
) -> (periods: [Int], by: [Int]) {
  // One product: nothing can replace another (checked without copying a transaction; it stops at the first
  // other product, most often the second transaction).
  guard let first = all.indices.first, all.indices.contains(where: { all[$0].productID != all[first].productID })
  else { return ([], []) }
  // Products numbered (by the index): the comparisons below are of integers, not of product ids.
  var products = purchases.productNumbers
  if products.count != all.count {
    var numbering = KeyNumbering()
    products = all.indices.map { Int32(truncatingIfNeeded: numbering.number(of: all[$0].productID)) }
  }
  // Most histories have one product per chain and group: nothing to compare.
  func mixes(_ list: ArraySlice<DatedPurchases.Purchase>) -> Bool {
    guard let head = list.first else { return false }
    return list.contains { products[$0.index] != products[head.index] }
  }
  let mixed =
    (0..<purchases.chainCount).contains { mixes(purchases.chain(number: $0)) }
    || (0..<purchases.groupCount).contains { mixes(purchases.group(number: $0)) }
  guard mixed else { return ([], []) }
  // What is read of each transaction (dates, the upgrade flag, ownership), in 24 bytes a position: the
  // transactions (368 bytes) are read only to compare an unrecognized ownership's text.
  let facts = purchases.facts.count == all.count ? purchases.facts : PositionFacts.of(all)
  // The later purchases are read in date order, at scattered positions: their owners in a byte each (100 KB for
  // 100,000, beside 400 KB of product numbers, held in the core's own cache where the facts are not).
  let owners = facts.map(\.ownership)
  var replaced: [Int] = []
  var replacing: [Int] = []
  let byChain = purchases.chainPurchases
  let byGroup = purchases.groupPurchases
  // Through buffers: an element read from an array can be copied whole on the way (every field retained).
  all.withUnsafeBufferPointer { all in
    facts.withUnsafeBufferPointer { facts in
      owners.withUnsafeBufferPointer { owners in
        products.withUnsafeBufferPointer { products in
          byChain.withUnsafeBufferPointer { byChain in
            byGroup.withUnsafeBufferPointer { byGroup in
              for i in facts.indices where !facts[i].isUpgraded {
                guard facts[i].purchaseDate != nil, let expires = facts[i].expiresDate else { continue }
                // Each chain's and group's purchases sorted by date: the purchases inside a period are read from
                // where it stands in them, not by reading the whole group for every period (N² on one group of
                // many products). Bought inside the period (after its purchase, before `expires`), another
                // product, the same ownership.
                func replacer(_ list: UnsafeBufferPointer<DatedPurchases.Purchase>, _ later: Range<Int>) -> Int? {
                  for r in later {
                    guard list[r].at < expires else { return nil }
                    let j = list[r].index
                    if j != i, products[j] != products[i], sameOwnership(j, i, owners, all) { return j }
                  }
                  return nil
                }
                if let j = replacer(byGroup, purchases.groupRangeAfterItsPurchase(of: i))
                  ?? replacer(byChain, purchases.chainRangeAfterItsPurchase(of: i))
                {
                  replaced.append(i)
                  if keepingReplacers { replacing.append(j) }
                }
              }
            }
          }
        }
      }
    }
  }
  return (replaced, replacing)
}

/// `all[a].ownership == all[b].ownership`, told by their kinds (`owners`); only two unrecognized values are
/// compared by their text.
@inline(__always) private func sameOwnership(
  _ a: Int, _ b: Int, _ owners: UnsafeBufferPointer<PositionFacts.OwnershipKind>,
  _ all: UnsafeBufferPointer<PurchaseTransaction>
) -> Bool {
  guard owners[a] == owners[b] else { return false }
  return owners[a] != .unrecognized || sameOwnership(all[a].ownership, all[b].ownership)
}

/// `a == b`, the documented values matched without copying an unrecognized one's text.
private func sameOwnership(_ a: Ownership, _ b: Ownership) -> Bool {
  switch (a, b) {
  case (.purchased, .purchased), (.familyShared, .familyShared), (.unknown, .unknown): true
  case (.unrecognized, .unrecognized): a == b
  default: false
  }
}
