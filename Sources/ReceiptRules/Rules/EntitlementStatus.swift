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

/// One transaction considered for an entitlement, and the decision on it: the table, the row and the moment, not a
/// copy of the transaction (an answer keeps every row it considered).
public struct ConsideredTransaction: Hashable, Sendable {
  /// The table the row is in.
  let table: PurchaseTable
  /// The row.
  let row: Int
  /// The moment the row is known at.
  let time: Timestamp
  /// Whether it gives access at the moment, and if not, why.
  public var grant: AccessGrant
  /// How the product's type is known, when it is.
  public var productType: ResolvedProductType?

  /// The transaction as known at the moment.
  public var transaction: PurchaseTransaction { table.transaction(row, at: time) }

  // What does not change with the moment, read from the row in place: no transaction is made for it.
  /// `product_id`.
  public var productID: String { table.transactions[row].productID }
  /// `transaction_id`.
  public var transactionID: String { table.transactions[row].transactionID }
  /// `original_transaction_id`, when the data gives one.
  public var originalTransactionID: String? { table.transactions[row].originalTransactionID }
  /// The chain: `original_transaction_id`, or `transaction_id` without one.
  public var chainID: String { table.transactions[row].chainID }
  /// Who owns it.
  public var ownership: Ownership { table.ownership[row] }
  /// `purchase_date`.
  public var purchaseDate: Timestamp? { table.purchase[row] }

  /// The row's expiry date, when it has one.
  var expiry: Timestamp? { table.expiry[row] }

  /// Equal when the transaction and the decision are.
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
  /// The row the state rests on, as known at the moment; nil for not_purchased. Kept as the row: the answer shows
  /// a few of its fields, read in place, and `deciding` makes the transaction only when asked.
  public var decidingRow: ConsideredTransaction?
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

  /// The transaction the state rests on, as known at the moment; nil for not_purchased.
  public var deciding: PurchaseTransaction? { decidingRow?.transaction }

  /// What would decide an unknown answer, when product facts are missing.
  public var missingKnowledge: MissingKnowledge? {
    if case .undecided(let c) = finding { return c.grant.missingKnowledge }
    return nil
  }
}

/// Decides an entitlement's state at `time` from every transaction of its products known then, whatever their
/// ownership: a customer can lose Family Sharing access and still own the product (§7.7 [S33]).
///
/// 1. Some transaction grants: active; the longest-lasting grant is reported (non-expiring first, then PURCHASED
///    before FAMILY_SHARED).
/// 2. The newest subscription transaction expired and its renewal is in the billing grace period: grace_period
///    (§7.3 [S36]).
/// 3. A transaction whose answer cannot be told: unknown.
/// 4. The same subscription is in billing retry: billing_retry (§7.3 [S36][S7]).
/// 5. Otherwise the newest event decides: refunded or revoked (§7.4 [S30][S6b][S33][S38]), upgraded (§7.2
///    [S5][S34]) or expired (§7.2 [S6c][S4]).
/// - Parameters:
///   - definition: the entitlement and the products that give it.
///   - table: the customer's purchases.
///   - catalog: product facts the data does not carry.
///   - time: the moment asked about.
/// - Returns: the state, the transaction it rests on, and the reason.
public func entitlementStatus(
  _ definition: EntitlementDefinition, table: PurchaseTable, catalog: Catalog, at time: Timestamp
) -> EntitlementResult {
  entitlementStatus(definition, table: table, entries: catalogEntries(of: table, catalog), at: time)
}

/// `entitlementStatus`, each product's catalog entry given by product symbol.
func entitlementStatus(
  _ definition: EntitlementDefinition, table: PurchaseTable, entries: [CatalogProduct?], at time: Timestamp
) -> EntitlementResult {
  let rows = table.rows(ofProducts: definition.productIDs)
  var considered: [ConsideredTransaction] = []
  considered.reserveCapacity(rows.count)
  for row in rows where table.isKnown(row, at: time) {
    considered.append(
      ConsideredTransaction(
        table: table, row: row, time: time,
        grant: accessGrant(ofRow: row, in: table, catalogEntries: entries, at: time),
        productType: resolveProductType(ofRow: row, in: table, catalogEntries: entries)))
  }
  let finding = findEntitlement(definition, considered: considered, table: table, at: time)
  // The result keeps the deciding row; the reason reads its transaction as known at the moment, lent by the table.
  let decidingRow = finding.decidingCharge
  let (state, expiresDate, gracePeriodExpiresDate) = entitlementState(of: finding, expiry: decidingRow?.expiry)
  let later = table.renewalsAreLater(than: time)
  let reason =
    decidingRow.map { c in
      table.withTransaction(c.row, at: time) { deciding in
        entitlementReason(finding, deciding: deciding, definition: definition, at: time, renewalsAreLater: later)
      }
    } ?? entitlementReason(finding, definition: definition, at: time, renewalsAreLater: later)
  return EntitlementResult(
    id: definition.id, finding: finding, state: state, decidingRow: decidingRow, expiresDate: expiresDate,
    gracePeriodExpiresDate: gracePeriodExpiresDate, reason: reason, considered: considered)
}

/// The state a finding leaves the entitlement in, and the dates the answer gives with it: when the deciding
/// transaction's access ends or ended (`expiry`, the `expires_date` of the finding's `decidingCharge`), and the
/// grace period's end where it matters.
private func entitlementState(of finding: EntitlementFinding, expiry: Timestamp?) -> (
  EntitlementState, expires: Timestamp?, graceEnds: Timestamp?
) {
  switch finding {
  case .noPurchase:
    return (.notPurchased, nil, nil)
  case .granted(_, let until, _):
    return (.active, until, nil)
  case .inGracePeriod(_, let expired, let grace):
    return (.gracePeriod, expired, grace)
  case .undecided:
    return (.unknown, expiry, nil)
  case .inBillingRetry(_, let expired, let graceEnded):
    return (.billingRetry, expired, graceEnded)
  case .lost(let c, let renewal, _, _):
    switch c.grant {
    case .durationEnded(let end, _): return (lostState(c.grant), end, nil)
    case .expired: return (lostState(c.grant), expiry, renewal?.gracePeriodExpiresDate)
    default: return (lostState(c.grant), expiry, nil)
    }
  }
}

extension EntitlementFinding {
  /// The transaction the finding rests on; nil when nothing was bought.
  var decidingCharge: ConsideredTransaction? {
    switch self {
    case .noPurchase: nil
    case .granted(let c, _, _), .inGracePeriod(let c, _, _), .undecided(let c), .inBillingRetry(let c, _, _),
      .lost(let c, _, _, _):
      c
    }
  }
}

/// Which finding decides, in the order the rule above lists.
func findEntitlement(
  _ definition: EntitlementDefinition, considered: [ConsideredTransaction], table: PurchaseTable, at time: Timestamp
) -> EntitlementFinding {
  guard !considered.isEmpty else { return .noPurchase }
  if let best = longestGrant(considered), case .grants(let until) = best.grant {
    return .granted(best, until: until, lost: newestLoss(considered))
  }
  let products = definition.productIDs
  let lapse = latestSubscription(considered).flatMap { c -> (ConsideredTransaction, RenewalState, Timestamp)? in
    guard case .expired(let expired) = c.grant,
      subscriptionContinuation(ofRow: c.row, in: table, at: time, outside: products) == nil,
      let renewal = table.renewal(ofRow: c.row)
    else { return nil }
    return (c, renewal, expired)
  }
  if let (c, renewal, expired) = lapse, let grace = renewal.gracePeriodExpiresDate, grace > time {
    return .inGracePeriod(c, expired: expired, graceEnds: grace)
  }
  if let undecided = considered.first(where: { $0.grant.isUnknown }) { return .undecided(undecided) }
  if let (c, renewal, expired) = lapse, renewal.isInBillingRetryPeriod == true {
    return .inBillingRetry(c, expired: expired, graceEnded: renewal.gracePeriodExpiresDate)
  }
  // Everything considered was bought by then, so some event decides (undated ones were undecided above).
  guard let newest = newestEvent(considered) else { return .undecided(considered[0]) }
  // The lapsed period decides: it did not go on in another product, and its renewal state was read above.
  if let (c, renewal, _) = lapse, c.row == newest.row {
    return .lost(newest, renewal: renewal, upgradeTarget: nil)
  }
  // A subscription that went on in another product: its renewal state is about that product, not this one.
  if case .expired = newest.grant,
    let next = subscriptionContinuation(ofRow: newest.row, in: table, at: time, outside: products)
  {
    return .lost(newest, renewal: nil, upgradeTarget: nil, continuedAs: table.transaction(next, at: time))
  }
  let target =
    newest.grant == .upgraded ? upgradeTarget(ofRow: newest.row, in: table, at: time, excluding: products) : nil
  return .lost(
    newest, renewal: table.renewal(ofRow: newest.row), upgradeTarget: target)
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

/// The grant that lasts longest: non-expiring first, then the latest end; on a tie PURCHASED before FAMILY_SHARED,
/// then the first.
func longestGrant(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  func rank(_ c: ConsideredTransaction) -> (Int64, Int) {
    guard case .grants(let until) = c.grant else { return (-1, 0) }
    return (until?.milliseconds ?? Int64.max, c.table.ownership[c.row] == .familyShared ? 0 : 1)
  }
  var best: ConsideredTransaction?
  for c in considered where c.grant.grantsAccess {
    if let b = best, rank(b) >= rank(c) { continue }
    best = c
  }
  return best
}

/// The subscription transaction with the latest expiry date (the newest period of the subscription); the first of
/// equals.
func latestSubscription(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  // The place is kept, not a copy of each better one: the answer is copied once.
  var latest: (place: Int, expires: Timestamp)?
  for place in considered.indices {
    guard let e = considered[place].expiry else { continue }
    if let l = latest, l.expires >= e { continue }
    latest = (place, e)
  }
  return latest.map { considered[$0.place] }
}

/// When the decision took effect, for finding the newest event.
func eventTime(_ c: ConsideredTransaction) -> Timestamp? {
  switch c.grant {
  case .refunded(let at), .revoked(let at), .expired(let at): at
  case .durationEnded(let end, _): end
  case .upgraded: c.table.purchase[c.row]
  default: nil
  }
}

/// The transaction whose loss of access happened last; the last of equals.
func newestEvent(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  // The place is kept, not a copy of each newer one: the answer is copied once.
  var newest: (place: Int, at: Timestamp)?
  for place in considered.indices {
    guard let at = eventTime(considered[place]) else { continue }
    if let n = newest, n.at > at { continue }
    newest = (place, at)
  }
  return newest.map { considered[$0.place] }
}

/// The latest refund or revocation, to explain why access rests on another transaction; the last of equals.
func newestLoss(_ considered: [ConsideredTransaction]) -> ConsideredTransaction? {
  var newest: (c: ConsideredTransaction, at: Timestamp)?
  for c in considered {
    switch c.grant {
    case .refunded(let at), .revoked(let at):
      if let n = newest, n.at > at { continue }
      newest = (c, at)
    default: continue
    }
  }
  return newest?.c
}

/// The product an upgraded row was replaced by: the earliest purchase known at `time` in its subscription group,
/// outside the entitlement, bought no earlier than it (an undated one counts as bought with it), the first row of
/// equals (§7.2 [S5][S27]: look for the other transaction in the group).
func upgradeTarget(
  ofRow row: Int, in table: PurchaseTable, at time: Timestamp, excluding products: [String]
) -> String? {
  guard table.group[row] >= 0, let bought = table.purchase[row] else { return nil }
  func isTarget(_ other: Int) -> Bool {
    table.isKnown(other, at: time) && !products.contains(table.productID(of: other))
  }
  let (dated, undated) = table.rows(ofGroup: table.group[row], boughtFrom: bought)
  switch (dated.first(where: isTarget), undated.first(where: isTarget)) {
  case (nil, nil): return nil
  case (let d?, nil): return table.productID(of: d)
  case (nil, let u?): return table.productID(of: u)
  case (let d?, let u?): return table.productID(of: table.purchase[d] == bought && d < u ? d : u)
  }
}

/// Every entitlement of `history` at `time`, in `entitlementDefinitions` order.
/// - Parameters:
///   - history: the customer's purchase history.
///   - catalog: product facts the data does not carry.
///   - time: the moment asked about.
/// - Returns: one result per entitlement.
public func entitlementStatuses(of history: PurchaseHistory, catalog: Catalog, at time: Timestamp)
  -> [EntitlementResult]
{
  entitlementStatuses(of: PurchaseTable(history), catalog: catalog, at: time)
}

/// Every entitlement of a table at `time`, in `entitlementDefinitions` order.
/// - Parameters:
///   - table: the customer's purchases.
///   - catalog: product facts the data does not carry.
///   - time: the moment asked about.
/// - Returns: one result per entitlement, each what `entitlementStatus` gives.
public func entitlementStatuses(of table: PurchaseTable, catalog: Catalog, at time: Timestamp) -> [EntitlementResult] {
  entitlementStatuses(of: table, entries: catalogEntries(of: table, catalog), catalog: catalog, at: time)
}

/// `entitlementStatuses`, each product's catalog entry given by product symbol.
func entitlementStatuses(
  of table: PurchaseTable, entries: [CatalogProduct?], catalog: Catalog, at time: Timestamp
) -> [EntitlementResult] {
  entitlementDefinitions(for: table, catalog: catalog, at: time).map {
    entitlementStatus($0, table: table, entries: entries, at: time)
  }
}

/// Each product symbol's catalog entry (nil: none): looked up once per product, not per row.
func catalogEntries(of table: PurchaseTable, _ catalog: Catalog) -> [CatalogProduct?] {
  catalog.isEmpty ? Array(filling: nil, count: table.productCount) : table.productIDs.map { catalog.product($0) }
}

/// Warnings for FAMILY_SHARED transactions known at `time` whose catalog type cannot be shared (§7.7 [S33]: only
/// auto-renewable subscriptions and non-consumables can be): the catalog's type is used, and the data contradicts
/// it. One per product, in the order of each product's first such row.
/// - Parameters:
///   - table: the customer's purchases.
///   - catalog: product facts the data does not carry.
///   - time: the moment asked about.
/// - Returns: one sentence per contradicted product.
public func sharingContradictions(of table: PurchaseTable, catalog: Catalog, at time: Timestamp) -> [String] {
  sharingContradictions(of: table, entries: catalogEntries(of: table, catalog), at: time)
}

/// `sharingContradictions`, each product's catalog entry given by product symbol.
func sharingContradictions(of table: PurchaseTable, entries: [CatalogProduct?], at time: Timestamp) -> [String] {
  // Only a catalog entry of a type that cannot be shared contradicts FAMILY_SHARED (`resolveProductType`): the
  // entries of the data's products are looked through, not every product of the catalog copied out for each document.
  guard entries.contains(where: { $0?.type == .consumable || $0?.type == .nonRenewing }) else { return [] }
  var seen = Set<Int32>()
  var sentences: [String] = []
  for row in table.rows where table.ownership[row] == .familyShared && table.isKnown(row, at: time) {
    guard let resolved = resolveProductType(ofRow: row, in: table, catalogEntries: entries),
      resolved.catalogContradictsSharing, seen.insert(table.product[row]).inserted
    else { continue }
    sentences.append(catalogContradiction(table.transaction(row, at: time), resolved))
  }
  return sentences
}

/// `sharingContradictions` of a history.
public func sharingContradictions(of history: PurchaseHistory, catalog: Catalog, at time: Timestamp) -> [String] {
  sharingContradictions(of: PurchaseTable(history), catalog: catalog, at: time)
}
