import ReceiptModel

/// A product's type and how it is known.
public struct ResolvedProductType: Hashable, Sendable {
  public enum Basis: String, Sendable {
    /// The catalog says so.
    case catalog
    /// Only auto-renewable subscriptions carry expires_date.
    case expiresDate = "expires_date"
  }

  public var type: ProductType
  public var basis: Basis
}

/// Decides a transaction's product type: the catalog's word first; without one, an expires_date
/// means an auto-renewable subscription; otherwise it is unknown (it could be a consumable,
/// a non-consumable or a non-renewing subscription, which receipts do not tell apart).
public func resolveProductType(of transaction: PurchaseTransaction, catalog: Catalog) -> ResolvedProductType? {
  if let product = catalog.product(transaction.productID) {
    return ResolvedProductType(type: product.type, basis: .catalog)
  }
  if transaction.expiresDate != nil {
    return ResolvedProductType(type: .autoRenewable, basis: .expiresDate)
  }
  return nil
}
