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
///
/// It holds the known history's transactions (the data's shared array, or the copies of those the moment
/// changes) and a position, not a copy of the transaction: a copy would retain and release every field, once per
/// transaction per entitlement, and again when the answer is destroyed.
public struct ConsideredTransaction: Hashable, Sendable {
  /// `KnownTransactions.data`, or `.patched` when the moment changes the transaction, shared.
  private let transactions: [PurchaseTransaction]
  /// The transaction's position in `transactions`.
  private let position: Int
  /// The transaction's index in the known history.
  let index: Int
  /// Taken as upgraded though `transactions` does not flag it (`KnownTransactions.isMarkedUpgraded(at:)`).
  private let markedUpgraded: Bool
  /// Whether it gives access at the moment, and if not, why.
  public var grant: AccessGrant
  /// How the product's type is known, when it is.
  public var productType: ResolvedProductType?

  /// The transaction as known, read in place (a copy only when it is taken as upgraded).
  public var transaction: PurchaseTransaction {
    _read {
      if markedUpgraded {
        var t = transactions[position]
        t.isUpgraded = true
        yield t
      } else {
        yield transactions[position]
      }
    }
  }

  /// `transaction`, copied once, for a caller that keeps it: from another module, `let t = transaction` is a
  /// coroutine call and an allocation, and two copies of a transaction taken as upgraded.
  public func copiedTransaction() -> PurchaseTransaction {
    var t = transactions[position]
    if markedUpgraded { t.isUpgraded = true }
    return t
  }

  // Fields the rules read of every considered transaction, read in place (none of them is marked).
  var purchaseDate: Timestamp? { transactions[position].purchaseDate }
  var expiresDate: Timestamp? { transactions[position].expiresDate }
  var ownership: Ownership { transactions[position].ownership }

  init(_ known: KnownHistory, index: Int, catalog: Catalog, at time: Timestamp) {
    self = known.transactions.data.withUnsafeBufferPointer {
      ConsideredTransaction(known.transactions, $0, index: index, catalog: catalog, at: time)
    }
  }

  /// The same, `known.data` read through `data`.
  init(
    _ known: KnownTransactions, _ data: UnsafeBufferPointer<PurchaseTransaction>, index: Int, catalog: Catalog,
    at time: Timestamp
  ) {
    let p = known.position(of: index)
    (transactions, position) = p < 0 ? (known.patched, ~p) : (known.data, p)
    self.index = index
    markedUpgraded = known.isMarkedUpgraded(at: index)
    // The fields read in place: `transactions[position]` as an argument is a copy (every field retained and released).
    let fields = GrantFields(known, data, at: index)
    (grant, productType) = (
      accessGrant(of: fields, catalog: catalog, at: time), resolveProductType(of: fields, catalog: catalog)
    )
  }

  /// A considered transaction from its parts: the transaction is `transactions[position]`.
  private init(
    _ transactions: [PurchaseTransaction], position: Int, index: Int, markedUpgraded: Bool, grant: AccessGrant,
    productType: ResolvedProductType?
  ) {
    (self.transactions, self.position, self.index, self.markedUpgraded) = (
      transactions, position, index, markedUpgraded
    )
    (self.grant, self.productType) = (grant, productType)
  }

  /// The known transactions at `indices`, considered: what `init(_:_:index:catalog:at:)` gives for each, each
  /// product's catalog entry read from `facts` (looked up once per product) and each transaction's fields as plain
  /// values (`GrantFacts`: nothing retained). In loops over buffers: `known` handed to a call per transaction
  /// was copied (its six arrays retained and released).
  static func considering(
    _ indices: [Int], in known: KnownTransactions, facts: ProductCatalogFacts, at time: Timestamp
  ) -> (considered: [ConsideredTransaction], picks: ConsideredPicks) {
    // First a block of transactions' fields, in a loop that only reads, then their decisions: the transactions lie
    // far apart (a cache miss or more each), and the loop that also decided and appended (a retain, a locked
    // instruction, per transaction) overlapped few of those misses; this one overlaps many. A block at a time, so
    // that the fields read stay in the cache until decided.
    var gathered: [GrantFacts] = []
    gathered.reserveCapacity(min(indices.count, gatheredAtOnce))
    var considered: [ConsideredTransaction] = []
    considered.reserveCapacity(indices.count)
    var picks = ConsideredPicks()
    let (data, patched, numbers, types, durations) = (
      known.data, known.patched, facts.numbers, facts.types, facts.durations
    )
    for start in stride(from: 0, to: indices.count, by: gatheredAtOnce) {
      let block = start..<min(start + gatheredAtOnce, indices.count)
      gatherFacts(indices[block], in: known, into: &gathered)
      for k in block {
        let index = indices[k]
        let p = known.position(of: index)
        let fields = gathered[k - start]
        let product = Int(numbers[index])
        let type = types[product]
        let grant = accessGrant(of: fields, catalogType: type, duration: { durations[product] }, at: time)
        picks.add(k, grant: grant, facts: fields)
        considered.append(
          ConsideredTransaction(
            p < 0 ? patched : data, position: p < 0 ? ~p : p, index: index,
            markedUpgraded: known.isMarkedUpgraded(at: index), grant: grant,
            productType: resolveProductType(of: fields, catalogType: type)))
      }
    }
    return (considered, picks)
  }

  /// How many transactions' fields `considering` reads before deciding them: enough to overlap the misses, few
  /// enough (18 KiB) to stay in the cache.
  static let gatheredAtOnce = 256

  /// The facts of the known transactions at `indices`, as known (`GrantFacts(_:_:at:)` of each), in `facts`
  /// (emptied first, its storage kept).
  static func gatherFacts(_ indices: ArraySlice<Int>, in known: KnownTransactions, into facts: inout [GrantFacts]) {
    facts.removeAll(keepingCapacity: true)
    known.data.withUnsafeBufferPointer { data in
      known.patched.withUnsafeBufferPointer { patched in
        for index in indices {
          let p = known.position(of: index)
          var fields = p < 0 ? GrantFacts(patched, at: ~p) : GrantFacts(data, at: p)
          if known.isMarkedUpgraded(at: index) { fields.isUpgraded = true }
          facts.append(fields)
        }
      }
    }
  }

  /// Equal when the transaction and the decision are: which array holds the transaction does not matter.
  public static func == (a: Self, b: Self) -> Bool {
    a.grant == b.grant && a.productType == b.productType && a.transaction == b.transaction
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(transaction)
    hasher.combine(grant)
    hasher.combine(productType)
  }
}

/// What decided an entitlement's state: the finding its state and reason are read from.
public enum EntitlementFinding: Hashable, Sendable {
  /// No transaction of the entitlement's products at all.
  case noPurchase
  /// Some transaction grants access; `lost` is the newest refund or revocation, when one explains why
  /// access rests on this transaction.
  case granted(ConsideredTransaction, until: Timestamp?, lost: ConsideredTransaction?)
  /// The newest subscription period expired, and Apple's billing grace period still keeps access.
  case inGracePeriod(ConsideredTransaction, expired: Timestamp, graceEnds: Timestamp)
  /// A transaction whose answer cannot be told from the data (and catalog).
  case undecided(ConsideredTransaction)
  /// The newest subscription period expired and Apple is still retrying the charge.
  case inBillingRetry(ConsideredTransaction, expired: Timestamp, graceEnded: Timestamp?)
  /// The newest loss of access decides: refunded, revoked, upgraded or expired. `continuedAs` is the purchase
  /// that continued an expired period's subscription in another product (then `renewal` is nil).
  case lost(
    ConsideredTransaction, renewal: RenewalState?, upgradeTarget: String?, continuedAs: PurchaseTransaction? = nil)
}

/// The answer for one entitlement.
public struct EntitlementResult: Hashable, Sendable {
  /// The entitlement's name.
  public var id: String
  /// What decided the state.
  public var finding: EntitlementFinding
  /// The entitlement's state at the moment.
  public var state: EntitlementState
  /// The transaction the state rests on; nil for not_purchased.
  public var deciding: PurchaseTransaction?
  /// When the deciding transaction's access ends or ended: its expiry date, or purchase + duration for a
  /// non-renewing subscription; nil for access that does not expire.
  public var expiresDate: Timestamp?
  /// Set when the billing grace period matters to the answer.
  public var gracePeriodExpiresDate: Timestamp?
  /// Why, in a sentence a support person can read out.
  public var reason: String
  /// Every transaction of the entitlement's products known at the moment, in the data's order.
  public var considered: [ConsideredTransaction]

  /// Whether the customer may use it: active, or in the billing grace period.
  public var isActive: Bool { state.isActive }

  /// What would decide an unknown answer, when product facts are missing.
  public var missingKnowledge: MissingKnowledge? {
    if case .undecided(let c) = finding { return c.grant.missingKnowledge }
    return nil
  }
}

/// Decides an entitlement's state at `time` from every transaction of its products, whatever their ownership:
/// a customer can lose Family Sharing access and still own the product.
///
/// 1. Some transaction grants: active; the longest-lasting grant is reported (non-expiring first, then
///    PURCHASED before FAMILY_SHARED).
/// 2. The newest subscription transaction expired and its renewal is in the billing grace period: grace_period.
/// 3. A transaction whose answer cannot be told: unknown.
/// 4. The same subscription is in billing retry: billing_retry.
/// 5. Otherwise the newest event decides: refunded, revoked, upgraded or expired.
///
/// Only the history as known at `time` counts: later purchases, refunds and upgrades have not happened yet.
/// - Parameters:
///   - definition: the entitlement and the products that give it.
///   - history: the customer's purchase history as known at the moment asked about.
///   - catalog: product facts the data does not carry.
/// - Returns: the state, the transaction it rests on, and the reason.
public func entitlementStatus(
  _ definition: EntitlementDefinition, history: KnownHistory, catalog: Catalog
) -> EntitlementResult {
  let all = history.transactions
  // By index: a transaction of another product is not copied (every field retained and released) to be skipped.
  return entitlementStatus(
    definition, considering: all.indices.filter { definition.productIDs.contains(all[stated: $0].productID) },
    history: history, catalog: catalog, facts: nil,
    upgradeTarget: { upgradeTarget(of: all[$0], in: history, excluding: $1) },
    continuation: { subscriptionContinuation(of: all[$0], in: history, outside: $1) })
}

/// `entitlementStatus` on the transactions at `indices` (those of the definition's products, in the data's order),
/// finding an upgrade's target with `upgradeTarget` and the purchase a subscription went on as with
/// `continuation` (each given the transaction's index in the known history and the entitlement's products), and
/// each product's catalog entry in `facts` (nil: looked up per transaction).
func entitlementStatus(
  _ definition: EntitlementDefinition, considering indices: [Int], history: KnownHistory, catalog: Catalog,
  facts: ProductCatalogFacts?, upgradeTarget: (Int, [String]) -> String?,
  continuation: (Int, [String]) -> PurchaseTransaction?
) -> EntitlementResult {
  let time = history.time
  let known = history.transactions
  let (considered, picks) =
    facts.map { ConsideredTransaction.considering(indices, in: known, facts: $0, at: time) }
    ?? known.data.withUnsafeBufferPointer { data in
      let considered = indices.map { ConsideredTransaction(known, data, index: $0, catalog: catalog, at: time) }
      return (considered, ConsideredPicks(scanning: considered))
    }
  let finding = findEntitlement(
    definition, considered: considered, picks: picks, history: history, at: time, upgradeTarget: upgradeTarget,
    continuation: continuation)
  var result = EntitlementResult(
    id: definition.id, finding: finding, state: .notPurchased, deciding: nil, expiresDate: nil,
    gracePeriodExpiresDate: nil,
    reason: entitlementReason(finding, definition: definition, at: time, renewalsAreLater: history.renewalsAreLater),
    considered: considered)
  switch finding {
  case .noPurchase:
    break
  case .granted(let c, let until, _):
    (result.state, result.deciding, result.expiresDate) = (.active, c.transaction, until)
  case .inGracePeriod(let c, let expired, let grace):
    (result.state, result.deciding, result.expiresDate) = (.gracePeriod, c.transaction, expired)
    result.gracePeriodExpiresDate = grace
  case .undecided(let c):
    (result.state, result.deciding, result.expiresDate) = (.unknown, c.transaction, c.transaction.expiresDate)
  case .inBillingRetry(let c, let expired, let graceEnded):
    (result.state, result.deciding, result.expiresDate) = (.billingRetry, c.transaction, expired)
    result.gracePeriodExpiresDate = graceEnded
  case .lost(let c, let renewal, _, _):
    (result.state, result.deciding, result.expiresDate) = (lostState(c.grant), c.transaction, c.transaction.expiresDate)
    if case .durationEnded(let end, _) = c.grant { result.expiresDate = end }
    if case .expired = c.grant { result.gracePeriodExpiresDate = renewal?.gracePeriodExpiresDate }
  }
  return result
}

/// Which finding decides, in the order the rule above lists; `picks` are the considered transactions each step
/// reads (`ConsideredPicks`).
func findEntitlement(
  _ definition: EntitlementDefinition, considered: [ConsideredTransaction], picks: ConsideredPicks,
  history: KnownHistory, at time: Timestamp, upgradeTarget: (Int, [String]) -> String?,
  continuation: (Int, [String]) -> PurchaseTransaction?
) -> EntitlementFinding {
  guard !considered.isEmpty else { return .noPurchase }
  if let best = picks.longestGrant, case .grants(let until) = considered[best].grant {
    return .granted(considered[best], until: until, lost: picks.newestLoss.map { considered[$0] })
  }
  let lapse = picks.latestSubscription.flatMap { i -> (ConsideredTransaction, RenewalState, Timestamp)? in
    guard case .expired(let expired) = considered[i].grant,
      continuation(considered[i].index, definition.productIDs) == nil,
      let renewal = history.renewal(originalTransactionID: considered[i].transaction.chainID)
    else { return nil }
    return (considered[i], renewal, expired)
  }
  if let (c, renewal, expired) = lapse, let grace = renewal.gracePeriodExpiresDate, grace > time {
    return .inGracePeriod(c, expired: expired, graceEnds: grace)
  }
  if let undecided = picks.firstUndecided { return .undecided(considered[undecided]) }
  if let (c, renewal, expired) = lapse, renewal.isInBillingRetryPeriod == true {
    return .inBillingRetry(c, expired: expired, graceEnded: renewal.gracePeriodExpiresDate)
  }
  // Everything considered was bought by then, so some event decides (undated ones were undecided above).
  guard let newestPlace = picks.newestEvent else { return .undecided(considered[0]) }
  let newest = considered[newestPlace]
  let target = newest.grant == .upgraded ? upgradeTarget(newest.index, definition.productIDs) : nil
  // A subscription that went on in another product: its renewal state is about that product, not this one.
  if case .expired = newest.grant,
    let next = continuation(newest.index, definition.productIDs)
  {
    return .lost(newest, renewal: nil, upgradeTarget: nil, continuedAs: next)
  }
  return .lost(
    newest, renewal: history.renewal(originalTransactionID: newest.transaction.chainID), upgradeTarget: target)
}

/// The considered transactions the steps of `findEntitlement` read, by their place in the considered list: what
/// `longestGrant`, `newestLoss`, `latestSubscription`, the first undecided one and `newestEvent` find. Found in one
/// pass as the transactions are considered (`add`), from the fields that pass reads anyway, instead of five passes
/// over the list that read the transactions again.
struct ConsideredPicks: Equatable {
  var longestGrant: Int?
  var newestLoss: Int?
  var latestSubscription: Int?
  var firstUndecided: Int?
  var newestEvent: Int?
  /// What the picks so far were chosen by: the grant's rank (as `longestGrant` ranks), the others' moments.
  private var grantRank: (until: Int64, purchased: Int) = (0, 0)
  private var lossAt = Timestamp.epoch
  private var latestExpiry = Timestamp.epoch
  private var eventAt = Timestamp.epoch

  init() {}

  /// The picks of `considered`, made by each step's own scan.
  init(scanning considered: [ConsideredTransaction]) {
    func place(_ c: ConsideredTransaction?) -> Int? { c.flatMap { c in considered.firstIndex { $0.index == c.index } } }
    longestGrant = place(ReceiptRules.longestGrant(considered))
    newestLoss = place(ReceiptRules.newestLoss(considered))
    latestSubscription = place(ReceiptRules.latestSubscription(considered))
    firstUndecided = considered.firstIndex { $0.grant.isUnknown }
    newestEvent = place(ReceiptRules.newestEvent(considered))
  }

  /// Takes in the considered transaction at `place` (places in order), decided `grant`, read as `facts`: each
  /// pick as its scan makes it (the first of equal ranks and expiries, the last of equal moments).
  @inline(__always) mutating func add(_ place: Int, grant: AccessGrant, facts: GrantFacts) {
    switch grant {
    case .grants(let until):
      let rank = (until?.milliseconds ?? Int64.max, facts.isFamilyShared ? 0 : 1)
      if longestGrant == nil || rank > grantRank { (longestGrant, grantRank) = (place, rank) }
    case .refunded(let at), .revoked(let at):
      if newestLoss == nil || at >= lossAt { (newestLoss, lossAt) = (place, at) }
      takeEvent(place, at: at)
    case .expired(let at), .durationEnded(let at, _):
      takeEvent(place, at: at)
    case .upgraded:
      if let at = facts.purchaseDate { takeEvent(place, at: at) }
    default:
      if firstUndecided == nil, grant.isUnknown { firstUndecided = place }
    }
    if let e = facts.expiresDate, latestSubscription == nil || e > latestExpiry {
      (latestSubscription, latestExpiry) = (place, e)
    }
  }

  @inline(__always) private mutating func takeEvent(_ place: Int, at: Timestamp) {
    if newestEvent == nil || at >= eventAt { (newestEvent, eventAt) = (place, at) }
  }

  /// Equal when they pick the same places.
  static func == (a: Self, b: Self) -> Bool {
    (a.longestGrant, a.newestLoss, a.latestSubscription) == (b.longestGrant, b.newestLoss, b.latestSubscription)
      && (a.firstUndecided, a.newestEvent) == (b.firstUndecided, b.newestEvent)
  }
}

/// The state a lost grant leaves the entitlement in.
func lostState(_ grant: AccessGrant) -> EntitlementState {
  switch grant {
  case .refunded: .refunded
  case .revoked: .revoked
  case .upgraded: .upgraded
  case .expired, .durationEnded: .expired
  default: .unknown
  }
}

// These searches go by index and copy only what they return: each element holds a whole transaction, and a
// `for c in considered` would copy every one (every field retained and released).

/// The grant that lasts longest: non-expiring first, then the latest end; on a tie PURCHASED before FAMILY_SHARED.
func longestGrant(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  func rank(_ i: Int) -> (Int64, Int) {
    guard case .grants(let until) = considered[i].grant else { return (-1, 0) }
    return (until?.milliseconds ?? Int64.max, considered[i].ownership == .familyShared ? 0 : 1)
  }
  var best: Int?
  for i in considered.indices where considered[i].grant.grantsAccess {
    if let b = best, rank(b) >= rank(i) { continue }
    best = i
  }
  return best.map { considered[$0] }
}

/// The subscription transaction with the latest expiry date (the newest period of the subscription).
func latestSubscription(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  var latest: (index: Int, expires: Timestamp)?
  for i in considered.indices {
    guard let e = considered[i].expiresDate else { continue }
    if let l = latest, l.expires >= e { continue }
    latest = (i, e)
  }
  return latest.map { considered[$0.index] }
}

/// When the decision took effect, for finding the newest event.
func eventTime(_ c: ConsideredTransaction) -> Timestamp? {
  switch c.grant {
  case .refunded(let at), .revoked(let at), .expired(let at): at
  case .durationEnded(let end, _): end
  case .upgraded: c.purchaseDate
  default: nil
  }
}

/// The transaction whose loss of access happened last.
func newestEvent(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  var newest: (index: Int, at: Timestamp)?
  for i in considered.indices {
    guard let at = eventTime(considered[i]) else { continue }
    if let n = newest, n.at > at { continue }
    newest = (i, at)
  }
  return newest.map { considered[$0.index] }
}

/// The latest refund or revocation, to explain why access rests on another transaction.
func newestLoss(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  var newest: (index: Int, at: Timestamp)?
  for i in considered.indices {
    switch considered[i].grant {
    case .refunded(let at), .revoked(let at):
      if let n = newest, n.at > at { continue }
      newest = (i, at)
    default: continue
    }
  }
  return newest.map { considered[$0.index] }
}

/// The product an upgraded transaction was replaced by: the next purchase in its subscription group outside the entitlement.
func upgradeTarget(of t: PurchaseTransaction, in history: KnownHistory, excluding products: [String]) -> String? {
  guard let group = t.subscriptionGroup, let bought = t.purchaseDate else { return nil }
  var target: (String, Timestamp)?
  let all = history.transactions
  for i in all.indices
  where all[stated: i].subscriptionGroup == group && !products.contains(all[stated: i].productID) {
    let at = all[stated: i].purchaseDate ?? bought
    guard at >= bought else { continue }
    if let current = target, current.1 <= at { continue }
    target = (all[stated: i].productID, at)
  }
  return target?.0
}

/// `upgradeTarget` by binary search in the group's purchases sorted by date (the known history's
/// `purchases`, with the group's undated transactions in the data's order), instead of a pass over every
/// transaction per entitlement. Same answer: the earliest purchase bought no earlier than `t`, the first in the
/// data's order on a tie.
func upgradeTarget(ofTransactionAt index: Int, in history: KnownHistory, excluding products: [String]) -> String? {
  let all = history.transactions
  guard all[stated: index].subscriptionGroup != nil, let bought = all[stated: index].purchaseDate else {
    return nil
  }
  let purchases = history.purchases
  let dated = purchases.groupFromItsPurchase(of: index).first { !products.contains(all[stated: $0.index].productID) }
  let firstUndated = purchases.undated(inGroup: Int(purchases.groupNumbers[index])).first {
    !products.contains(all[stated: $0].productID)
  }
  switch (dated, firstUndated) {
  case (nil, nil): return nil
  case (let d?, nil): return all[stated: d.index].productID
  case (nil, let u?): return all[stated: u].productID
  case (let d?, let u?):
    return d.at == bought && d.index < u ? all[stated: d.index].productID : all[stated: u].productID
  }
}

/// Every entitlement of a purchase history at `time`, in `entitlementDefinitions` order, read from the
/// history as known at `time`.
/// - Parameters:
///   - history: the customer's purchase history.
///   - catalog: product facts the data does not carry.
///   - time: the moment asked about.
/// - Returns: one result per entitlement.
public func entitlementStatuses(of history: PurchaseHistory, catalog: Catalog, at time: Timestamp)
  -> [EntitlementResult]
{
  entitlementStatuses(of: knownHistory(of: history, at: time), catalog: catalog)
}

/// Every entitlement of a history as known at a moment, in `entitlementDefinitions` order.
/// - Parameters:
///   - known: the history as known at the moment asked about (with replaced periods marked).
///   - catalog: product facts the data does not carry.
/// - Returns: one result per entitlement, each what `entitlementStatus` gives.
public func entitlementStatuses(of known: KnownHistory, catalog: Catalog) -> [EntitlementResult] {
  // Each product's transactions from the known history's index, not one pass per entitlement (a receipt of 400
  // products would read every transaction 400 times); RuleFastPathTests compares it with `entitlementStatus`.
  let all = known.transactions
  var productNumber: [String: Int] = [:]
  for product in known.purchases.productsInOrder {
    if let first = known.purchases.positions(ofProduct: product).first {
      productNumber[all[stated: first].productID] = product
    }
  }
  // Catalog entries looked up once per product (RuleFastPathTests compares the lookup per transaction).
  let facts = ProductCatalogFacts(known, catalog: catalog)
  // Upgrade targets and continuations by binary search in the known history's date index (RuleFastPathTests
  // compares the scans).
  return entitlementDefinitions(for: known, catalog: catalog).map { definition in
    let indices = mergedInOrder(
      Set(definition.productIDs).compactMap { productNumber[$0].map(known.purchases.positions(ofProduct:)) })
    return entitlementStatus(
      definition, considering: indices, history: known, catalog: catalog, facts: facts,
      upgradeTarget: { i, products in upgradeTarget(ofTransactionAt: i, in: known, excluding: products) },
      continuation: { i, products in
        // The scan's answer: the earliest later purchase of the chain outside the products, first on a tie.
        let next = known.purchases.chainAfterItsPurchase(of: i).first {
          !products.contains(all[stated: $0.index].productID)
        }
        return next.map { all[$0.index] }
      })
  }
}

/// Lists of positions each in ascending order (each product's, `DatedPurchases.positions(ofProduct:)`) merged into
/// one in ascending order: what concatenating and sorting them gives, without the sort (a merge sort of the
/// concatenation per entitlement of several products).
func mergedInOrder(_ lists: [ArraySlice<Int>]) -> [Int] {
  guard var merged = lists.first.map(Array.init) else { return [] }
  for list in lists.dropFirst() {
    var both: [Int] = []
    both.reserveCapacity(merged.count + list.count)
    var (i, j) = (merged.startIndex, list.startIndex)
    while i < merged.endIndex, j < list.endIndex {
      if list[j] < merged[i] {
        both.append(list[j])
        j += 1
      } else {
        both.append(merged[i])
        i += 1
      }
    }
    both += merged[i...]
    both += list[j...]
    merged = both
  }
  return merged
}

/// Warnings for FAMILY_SHARED transactions known at `time` whose catalog type cannot be shared: the catalog's
/// type is used, and the data contradicts it. One per product.
/// - Parameters:
///   - history: the customer's purchase history.
///   - catalog: product facts the data does not carry.
///   - time: the moment asked about.
/// - Returns: one sentence per contradicted product.
public func sharingContradictions(of history: PurchaseHistory, catalog: Catalog, at time: Timestamp) -> [String] {
  sharingContradictions(of: history.known(at: time), catalog: catalog)
}

/// `sharingContradictions` of a history already known at the moment: the entitlements answer computes the
/// known history once and hands it to both.
/// - Parameters:
///   - known: the history as known at the moment asked about.
///   - catalog: product facts the data does not carry.
/// - Returns: one sentence per contradicted product.
public func sharingContradictions(of known: KnownHistory, catalog: Catalog) -> [String] {
  // Only a catalog entry of a type that cannot be shared contradicts FAMILY_SHARED (`resolveProductType`): a
  // catalog without one has nothing to contradict, and no transaction is read.
  guard catalog.products.values.contains(where: { $0.type == .consumable || $0.type == .nonRenewing }) else {
    return []
  }
  let facts = ProductCatalogFacts(known, catalog: catalog)
  if let facts { return sharingContradictions(of: known, facts: facts) }
  var seen = Set<String>()
  var sentences: [String] = []
  // By index, and only FAMILY_SHARED ones read whole: only they can contradict the catalog.
  let all = known.transactions
  all.data.withUnsafeBufferPointer { data in
    for i in all.indices where all[stated: i].ownership == .familyShared {
      guard let resolved = resolveProductType(of: GrantFields(all, data, at: i), catalog: catalog),
        resolved.catalogContradictsSharing, seen.insert(all[stated: i].productID).inserted
      else { continue }
      sentences.append(catalogContradiction(all[i], resolved))
    }
  }
  return sentences
}

/// `sharingContradictions(of:catalog:)` reading only the transactions of products whose catalog type cannot be
/// shared (`facts`: the index numbers every known transaction's product), each product's positions from the index:
/// the others cannot contradict the catalog, and the scan read every transaction's ownership (a cache miss each).
/// A product's sentence is its first contradicting transaction's, the sentences in the order of those.
func sharingContradictions(of known: KnownHistory, facts: ProductCatalogFacts) -> [String] {
  let all = known.transactions
  var firsts: [(index: Int, productID: String, resolved: ResolvedProductType)] = []
  all.data.withUnsafeBufferPointer { data in
    for product in facts.types.indices {
      guard let type = facts.types[product], type == .consumable || type == .nonRenewing else { continue }
      for i in known.purchases.positions(ofProduct: product) where all[stated: i].ownership == .familyShared {
        guard let resolved = resolveProductType(of: GrantFacts(all, data, at: i), catalogType: type),
          resolved.catalogContradictsSharing
        else { continue }
        firsts.append((i, all[stated: i].productID, resolved))
        break
      }
    }
  }
  // Product ids of other bytes can be one text (`==`), as the scan's `seen` takes them: the first one stands.
  var seen = Set<String>()
  return firsts.sorted { $0.index < $1.index }.compactMap { i, product, resolved in
    seen.insert(product).inserted ? catalogContradiction(all[i], resolved) : nil
  }
}
