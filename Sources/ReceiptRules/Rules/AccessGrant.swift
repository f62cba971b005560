import ReceiptModel

/// Why one transaction does or does not give access at a moment.
public enum AccessGrant: Hashable, Sendable {
  /// Grants access; `until` is nil for access that does not expire (non-consumables).
  case grants(until: Timestamp?)
  /// Bought after the moment asked about.
  case notYetPurchased(Timestamp)
  /// Refunded at or before the moment: from then on, as if never bought (Apple, Receipt Fields).
  case refunded(Timestamp)
  /// A FAMILY_SHARED copy taken away at or before the moment (the purchaser stopped sharing, left, or was refunded).
  case revoked(Timestamp)
  /// `is_upgraded`: the App Store replaced it with another product of the subscription group.
  case upgraded
  /// An auto-renewable subscription whose expires_date is at or before the moment.
  case expired(Timestamp)
  /// A non-renewing subscription past purchase + the catalog's duration.
  case durationEnded(Timestamp, ISOPeriod)
  /// Consumables never give lasting access.
  case consumable
  /// No catalog entry and no expiry date: consumable, non-consumable or non-renewing cannot be told apart.
  case unknownType
  /// A non-renewing subscription the catalog gives no duration for.
  case unknownDuration
  /// The catalog says auto-renewable, but the transaction has no expires_date.
  case missingExpiresDate
  /// No purchase_date, so whether it was bought by the moment cannot be told.
  case missingPurchaseDate

  /// Whether the transaction gives access at the moment.
  public var grantsAccess: Bool {
    if case .grants = self { return true }
    return false
  }

  /// The answer cannot be told from the receipt (and catalog).
  public var isUnknown: Bool {
    switch self {
    case .unknownType, .unknownDuration, .missingExpiresDate, .missingPurchaseDate: true
    default: false
    }
  }

  /// A stable code for JSON.
  public var code: String {
    switch self {
    case .grants: "grants"
    case .notYetPurchased: "not_yet_purchased"
    case .refunded: "refunded"
    case .revoked: "revoked"
    case .upgraded: "upgraded"
    case .expired: "expired"
    case .durationEnded: "duration_ended"
    case .consumable: "consumable"
    case .unknownType: "unknown_product_type"
    case .unknownDuration: "unknown_duration"
    case .missingExpiresDate: "missing_expires_date"
    case .missingPurchaseDate: "missing_purchase_date"
    }
  }
}

/// Decides whether `transaction` gives access at `time`.
///
/// Order matters: the upgrade flag is checked before a verifyReceipt revocation date because old receipts also
/// set cancellation_date on upgrades (signed data's revocationDate never means an upgrade, so it comes first); a
/// revocation after `time`, or one Apple reversed by `time`, does not matter.
/// - Parameters:
///   - transaction: the transaction to judge.
///   - catalog: product types and durations the data does not carry.
///   - time: the moment asked about.
/// - Returns: whether it grants access then, and why not when it does not.
public func accessGrant(of transaction: PurchaseTransaction, catalog: Catalog, at time: Timestamp) -> AccessGrant {
  accessGrant(of: GrantFields(transaction), catalog: catalog, at: time)
}

/// The fields of a transaction its access and product type rest on. Read from an array one field at a time
/// (`init(_:at:)`) they cost a retain or two; a whole transaction passed as an argument is a copy, every field
/// retained and released (twice per considered transaction, per entitlement).
struct GrantFields {
  var productID: String
  var ownership: Ownership
  /// The rest, plain values (what a caller that looked up the product's catalog entry already reads).
  var facts: GrantFacts

  var purchaseDate: Timestamp? { facts.purchaseDate }
  var expiresDate: Timestamp? { facts.expiresDate }
  /// The revocation's dates and kind: plain values, where a `Revocation` copy retains its texts.
  var revocation: RevocationMoments? { facts.revocation }
  var isUpgraded: Bool { facts.isUpgraded }
  var productType: ProductType? { facts.productType }

  init(_ t: PurchaseTransaction) { (productID, ownership, facts) = (t.productID, t.ownership, GrantFacts(t)) }

  /// The fields of `all[index]`, read in place.
  init(_ all: [PurchaseTransaction], at index: Int) {
    self = all.withUnsafeBufferPointer { GrantFields($0, at: index) }
  }

  /// The fields of `all[index]`, read through the pointer: an array element read field by field can be copied
  /// whole on the way (every field retained and released).
  @inline(__always) init(_ all: UnsafeBufferPointer<PurchaseTransaction>, at index: Int) {
    facts = GrantFacts(all, at: index)
    (productID, ownership) = (all[index].productID, all[index].ownership)
  }

  /// The fields of the known transaction at `index`, as known (what the moment changes applied).
  @inline(__always) init(_ known: KnownTransactions, at index: Int) {
    let p = known.position(of: index)
    // Only the position goes into the closure: `known` captured would be copied (four arrays retained).
    self =
      p < 0 ? GrantFields(known.patched, at: ~p) : known.data.withUnsafeBufferPointer { GrantFields($0, at: p) }
    if known.isMarkedUpgraded(at: index) { facts.isUpgraded = true }
  }

  /// The same, `known.data` read through `data`.
  @inline(__always) init(_ known: KnownTransactions, _ data: UnsafeBufferPointer<PurchaseTransaction>, at index: Int) {
    let p = known.position(of: index)
    // A transaction the moment changes is read from its patched copy (a handful per history).
    self = p < 0 ? GrantFields(known.patched, at: ~p) : GrantFields(data, at: p)
    if known.isMarkedUpgraded(at: index) { facts.isUpgraded = true }
  }
}

/// What of a `Revocation` decides access: when, whether it can mean an upgrade, and when it was reversed.
struct RevocationMoments {
  var date: Timestamp
  var excludesUpgrade: Bool
  var reversedAt: Timestamp?

  init(_ r: Revocation) { (date, excludesUpgrade, reversedAt) = (r.date, r.excludesUpgrade, r.reversedAt) }

  /// `Revocation.isInForce(at:)`.
  func isInForce(at time: Timestamp) -> Bool { date <= time && !(reversedAt.map { $0 <= time } ?? false) }
}

/// What access and product type rest on but the product id, ownership as whether it is FAMILY_SHARED (all the
/// rules ask of it): plain values, nothing retained or released, for a caller that looked up the product's catalog
/// entry once per product (`ProductCatalogFacts`) rather than by the product id's text per transaction.
struct GrantFacts {
  var isFamilyShared: Bool
  var purchaseDate: Timestamp?
  var expiresDate: Timestamp?
  var revocation: RevocationMoments?
  var isUpgraded: Bool
  var productType: ProductType?

  init(_ t: PurchaseTransaction) {
    (isFamilyShared, purchaseDate, expiresDate) = (t.ownership == .familyShared, t.purchaseDate, t.expiresDate)
    (revocation, isUpgraded) = (t.revocation.map(RevocationMoments.init), t.isUpgraded)
    productType = t.productType
  }

  /// The facts of `all[index]`, read through the pointer: an array element read field by field can be copied
  /// whole on the way (every field retained and released).
  @inline(__always) init(_ all: UnsafeBufferPointer<PurchaseTransaction>, at index: Int) {
    // The bounds check the array's subscript makes (a buffer's is gone in release builds). No input reaches it:
    // every caller's index is one of the array's own (its `indices`, or a known history's positions and patched
    // places, which are written from them).
    precondition(index >= 0 && index < all.count, "Index out of range")
    (isFamilyShared, purchaseDate) = (all[index].ownership == .familyShared, all[index].purchaseDate)
    (expiresDate, revocation) = (all[index].expiresDate, all[index].revocation.map(RevocationMoments.init))
    (isUpgraded, productType) = (all[index].isUpgraded, all[index].productType)
  }

  /// The facts of the known transaction at `index`, as known, `known.data` read through `data`.
  @inline(__always) init(_ known: KnownTransactions, _ data: UnsafeBufferPointer<PurchaseTransaction>, at index: Int) {
    let p = known.position(of: index)
    // A transaction the moment changes is read from its patched copy (a handful per history).
    self = p < 0 ? known.patched.withUnsafeBufferPointer { GrantFacts($0, at: ~p) } : GrantFacts(data, at: p)
    if known.isMarkedUpgraded(at: index) { isUpgraded = true }
  }
}

/// Each product's catalog entry as access grants and product types read it (its type, and a non-renewing
/// subscription's duration), by the known history's product number: looked up once per product instead of by the
/// product id's text for every transaction (a String hashed, a `CatalogProduct` copied and destroyed).
struct ProductCatalogFacts {
  /// The product number of each known transaction (`DatedPurchases.productNumbers`).
  let numbers: [Int32]
  /// By product number: the catalog's type (nil: no entry) and duration.
  let types: [ProductType?]
  let durations: [ISOPeriod?]

  /// The facts of `known`'s products, nil when its index numbers no products (or not every known transaction):
  /// then each transaction's entry is looked up by its product id.
  init?(_ known: KnownHistory, catalog: Catalog) {
    let purchases = known.purchases
    guard purchases.productNumbers.count == known.transactions.count else { return nil }
    var count = 0
    for n in purchases.productNumbers where Int(n) >= count { count = Int(n) + 1 }
    var types = [ProductType?](repeating: nil, count: count)
    var durations = [ISOPeriod?](repeating: nil, count: count)
    if !catalog.isEmpty {
      for product in purchases.productsInOrder where product >= 0 && product < count {
        guard let first = purchases.positions(ofProduct: product).first,
          let entry = catalog.product(known.transactions[stated: first].productID)
        else { continue }
        (types[product], durations[product]) = (entry.type, entry.duration)
      }
    }
    (numbers, self.types, self.durations) = (purchases.productNumbers, types, durations)
  }
}

/// `accessGrant(of:catalog:at:)` on a transaction's fields.
func accessGrant(of transaction: GrantFields, catalog: Catalog, at time: Timestamp) -> AccessGrant {
  // The catalog's type matters only when the data states none (`resolveProductType`).
  let catalogType = transaction.productType == nil ? catalog.product(transaction.productID)?.type : nil
  return accessGrant(
    of: transaction.facts, catalogType: catalogType,
    duration: { catalog.product(transaction.productID)?.duration }, at: time)
}

/// `accessGrant(of:catalog:at:)` on a transaction's facts, with its product's catalog type (nil: no entry) and
/// `duration` giving the catalog's duration of a non-renewing subscription. Inlined: what `duration` captures is
/// then read in place, not retained per call.
@inline(__always) func accessGrant(
  of transaction: GrantFacts, catalogType: ProductType?, duration: () -> ISOPeriod?, at time: Timestamp
) -> AccessGrant {
  guard let purchased = transaction.purchaseDate else { return .missingPurchaseDate }
  if purchased > time { return .notYetPurchased(purchased) }
  // Signed data's revocationDate is never an upgrade: a refund of an upgraded transaction is still a refund.
  if let r = transaction.revocation, r.excludesUpgrade, r.isInForce(at: time) {
    return transaction.isFamilyShared ? .revoked(r.date) : .refunded(r.date)
  }
  if transaction.isUpgraded { return .upgraded }
  if let r = transaction.revocation, r.isInForce(at: time) {
    return transaction.isFamilyShared ? .revoked(r.date) : .refunded(r.date)
  }
  guard let type = resolveProductType(of: transaction, catalogType: catalogType)?.type else { return .unknownType }
  switch type {
  case .consumable:
    return .consumable
  case .nonConsumable:
    return .grants(until: nil)
  case .autoRenewable:
    guard let expires = transaction.expiresDate else { return .missingExpiresDate }
    return expires > time ? .grants(until: expires) : .expired(expires)
  case .nonRenewing:
    guard let duration = duration() else { return .unknownDuration }
    // A period that runs past year 9999 never ends within what can be written down.
    guard let end = duration.added(to: purchased) else { return .grants(until: nil) }
    return end > time ? .grants(until: end) : .durationEnded(end, duration)
  }
}

/// What a command line could add to make an undecided answer decidable.
public enum MissingKnowledge: Hashable, Sendable {
  /// The product's type (consumable, non-consumable, non-renewing), which a catalog gives.
  case productType
  /// A non-renewing subscription's duration, which a catalog gives.
  case duration
}

extension AccessGrant {
  /// What would decide this grant, when it is undecided for want of product facts.
  public var missingKnowledge: MissingKnowledge? {
    switch self {
    case .unknownType: .productType
    case .unknownDuration: .duration
    default: nil
    }
  }

  /// One sentence on `transaction` under this decision, for --explain.
  /// - Parameter t: the transaction the decision is about.
  /// - Returns: the sentence, quoting the transaction's own field names.
  public func explanation(of t: PurchaseTransaction) -> String {
    let what = "\(t.productID) (transaction \(t.transactionID), \(ownershipPhrase(t)))"
    let names = t.vocabulary
    switch self {
    case .grants(let until):
      if let until { return "\(what) grants access until \(until.iso8601)." }
      return "\(what) grants access that does not expire."
    case .notYetPurchased(let at):
      return "\(what) was bought later, on \(at.iso8601)."
    case .refunded(let at):
      return "\(what) was refunded on \(at.iso8601), so it counts as never bought."
    case .revoked(let at):
      return "\(what) was revoked from Family Sharing on \(at.iso8601), so it no longer counts."
    case .upgraded:
      return "\(what) was replaced by an upgrade to another product in its subscription group."
    case .expired(let at):
      return "\(what) expired on \(at.iso8601)."
    case .durationEnded(let end, let duration):
      return "\(what) is a non-renewing subscription of \(duration.text) that ended on \(end.iso8601)."
    case .consumable:
      return "\(what) is a consumable, which never gives lasting access."
    case .unknownType:
      return
        "\(what) has no \(names.expiresDate), so it could be a consumable, a non-consumable or a non-renewing subscription."
    case .unknownDuration:
      return
        "\(what) is a non-renewing subscription and the catalog gives no duration for it, so how long it lasts is unknown."
    case .missingExpiresDate:
      return
        "\(what) is an auto-renewable subscription in the catalog, but \(names.document) gives no \(names.expiresDate) for it."
    case .missingPurchaseDate:
      return "\(what) has no \(names.purchaseDate), so whether it was bought by then cannot be told."
    }
  }
}

/// "PURCHASED", "FAMILY_SHARED", or "PURCHASED assumed" when the data did not say.
func ownershipPhrase(_ t: PurchaseTransaction) -> String {
  t.ownershipAssumed ? "\(t.ownership.raw) assumed: no \(t.vocabulary.ownership)" : t.ownership.raw
}
