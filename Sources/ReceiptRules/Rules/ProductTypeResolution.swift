import ReceiptModel

/// A product's type and how it is known.
public struct ResolvedProductType: Hashable, Sendable {
  /// How the type is known.
  public enum Basis: String, Sendable {
    /// The catalog says so.
    case catalog
    /// The transaction itself says so (signed transactions' `type`).
    case transaction
    /// Only auto-renewable subscriptions carry expires_date.
    case expiresDate = "expires_date"
    /// Family-shared with no expiry date: only auto-renewable subscriptions and non-consumables can be shared.
    case familyShared = "family_shared"
  }

  /// The product's type.
  public var type: ProductType
  /// How that type is known.
  public var basis: Basis
  /// Set when the transaction is FAMILY_SHARED but the catalog gives a type that cannot be shared
  /// (a consumable or a non-renewing subscription): the catalog's type is used, and the contradiction reported.
  public var catalogContradictsSharing: Bool = false
}

/// Decides a transaction's product type: the data's own word first, then the catalog's; without
/// either, an expiry date means an auto-renewable subscription, and a FAMILY_SHARED transaction without one is
/// a non-consumable (§7.7 [S33]: only auto-renewable subscriptions and non-consumables can be shared; §7.5 [S34]
/// [S30]: only auto-renewable subscriptions carry `expires_date`); otherwise it is unknown (it could be a consumable, a non-consumable or a non-renewing
/// subscription, which receipts do not tell apart).
/// - Parameters:
///   - transaction: the transaction.
///   - catalog: the products the app sells.
/// - Returns: the type and how it is known, or nil when it cannot be told.
public func resolveProductType(of transaction: PurchaseTransaction, catalog: Catalog) -> ResolvedProductType? {
  // The data's own word needs no catalog lookup.
  if let stated = transaction.productType { return ResolvedProductType(type: stated, basis: .transaction) }
  return resolveProductType(of: transaction, product: catalog.product(transaction.productID))
}

/// `resolveProductType(of:catalog:)` with the transaction's catalog entry already looked up.
func resolveProductType(of transaction: PurchaseTransaction, product: CatalogProduct?) -> ResolvedProductType? {
  resolveProductType(
    stated: transaction.productType, familyShared: transaction.ownership == .familyShared,
    hasExpiresDate: transaction.expiresDate != nil, catalogType: product?.type)
}

/// `resolveProductType(of:catalog:)` of a table's row, the catalog's entry of each product symbol given
/// (`catalogEntries(of:_:)`; read in place, not copied for each row).
func resolveProductType(ofRow row: Int, in table: PurchaseTable, catalogEntries: [CatalogProduct?])
  -> ResolvedProductType?
{
  resolveProductType(
    stated: table.productType[row], familyShared: table.ownership[row] == .familyShared,
    hasExpiresDate: table.expiry[row] != nil, catalogType: catalogEntries[Int(table.product[row])]?.type)
}

/// The decision itself, on what it reads of the transaction and the catalog's type (nil: no entry).
private func resolveProductType(
  stated: ProductType?, familyShared: Bool, hasExpiresDate: Bool, catalogType: ProductType?
) -> ResolvedProductType? {
  if let stated { return ResolvedProductType(type: stated, basis: .transaction) }
  if let catalogType {
    let unshareable = catalogType == .consumable || catalogType == .nonRenewing
    return ResolvedProductType(
      type: catalogType, basis: .catalog, catalogContradictsSharing: unshareable && familyShared)
  }
  if hasExpiresDate { return ResolvedProductType(type: .autoRenewable, basis: .expiresDate) }
  if familyShared { return ResolvedProductType(type: .nonConsumable, basis: .familyShared) }
  return nil
}
