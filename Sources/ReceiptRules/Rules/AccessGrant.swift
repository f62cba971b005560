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

/// Decides whether `transaction` gives access at `time`, `transaction` being as known then (its refund and upgrade
/// flag as they stood: `PurchaseTable.transaction(_:at:)`).
/// - Parameters:
///   - transaction: the transaction to judge.
///   - catalog: product types and durations the data does not carry.
///   - time: the moment asked about.
/// - Returns: whether it grants access then, and why not when it does not.
public func accessGrant(of transaction: PurchaseTransaction, catalog: Catalog, at time: Timestamp) -> AccessGrant {
  let revocation = transaction.revocation.flatMap { $0.isInForce(at: time) ? RevocationMoments($0) : nil }
  return accessGrant(
    purchased: transaction.purchaseDate, expires: transaction.expiresDate, revocation: revocation,
    isUpgraded: transaction.isUpgraded,
    productType: resolveProductType(of: transaction, catalog: catalog)?.type,
    familyShared: transaction.ownership == .familyShared, duration: catalog.product(transaction.productID)?.duration,
    at: time)
}

/// `accessGrant` of a table's row at `time`, its product's catalog entry given.
func accessGrant(ofRow row: Int, in table: PurchaseTable, catalogEntries: [CatalogProduct?], at time: Timestamp)
  -> AccessGrant
{
  accessGrant(
    purchased: table.purchase[row], expires: table.expiry[row], revocation: table.revocation(row, at: time),
    isUpgraded: table.isUpgraded(row, at: time),
    productType: resolveProductType(ofRow: row, in: table, catalogEntries: catalogEntries)?.type,
    familyShared: table.ownership[row] == .familyShared,
    duration: catalogEntries[Int(table.product[row])]?.duration, at: time)
}

/// The decision, on what it reads: a refund or revocation in force at `time`, the upgrade as known then, the
/// resolved product type and a non-renewing subscription's catalog duration.
///
/// Order matters: the upgrade flag is checked before a verifyReceipt revocation date because old receipts also set
/// cancellation_date on upgrades (signed data's revocationDate never means an upgrade, so it comes first). A
/// refunded transaction counts as never bought (§7.2 [S30]); a revoked FAMILY_SHARED copy no longer counts (§7.4
/// [S33][S38]); an upgraded one was replaced (§7.2 [S5][S27]); a subscription runs until `expires_date` (§7.2
/// [S6c][S4]); a non-renewing subscription for the catalog's duration (§7.5 [S34][S30]); a consumable never gives
/// lasting access (§7.5 [S4][S35]).
private func accessGrant(
  purchased: Timestamp?, expires: Timestamp?, revocation: RevocationMoments?, isUpgraded: Bool,
  productType: ProductType?, familyShared: Bool, duration: ISOPeriod?, at time: Timestamp
) -> AccessGrant {
  guard let purchased else { return .missingPurchaseDate }
  if purchased > time { return .notYetPurchased(purchased) }
  if let r = revocation, r.excludesUpgrade { return familyShared ? .revoked(r.date) : .refunded(r.date) }
  if isUpgraded { return .upgraded }
  if let r = revocation { return familyShared ? .revoked(r.date) : .refunded(r.date) }
  guard let productType else { return .unknownType }
  switch productType {
  case .consumable:
    return .consumable
  case .nonConsumable:
    return .grants(until: nil)
  case .autoRenewable:
    guard let expires else { return .missingExpiresDate }
    return expires > time ? .grants(until: expires) : .expired(expires)
  case .nonRenewing:
    guard let duration else { return .unknownDuration }
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
