import ReceiptModel

/// One entitlement and the products that give it.
public struct EntitlementDefinition: Hashable, Sendable {
  /// The entitlement's name, as output shows it.
  public var id: String
  /// In catalog order, then in the order the receipt first shows them.
  public var productIDs: [String]

  /// Defines an entitlement.
  /// - Parameters:
  ///   - id: The entitlement's name.
  ///   - productIDs: The products that give it.
  public init(id: String, productIDs: [String]) {
    self.id = id
    self.productIDs = productIDs
  }
}

/// Decides which entitlements to report for a receipt (consumables never give lasting access, §7.5 [S4][S35]).
///
/// The catalog's entitlement names come first, each with every non-consumable and subscription product that
/// names it, whether or not the receipt holds a transaction for it (those end up `not_purchased`).
/// A product the catalog does not list is its own entitlement, named by its product id, so that nothing in
/// the receipt is left out; without a catalog that is every product. Consumables are never entitlements.
/// Products first bought after `time` are not in it yet.
public func entitlementDefinitions(for table: PurchaseTable, catalog: Catalog, at time: Timestamp)
  -> [EntitlementDefinition]
{
  var order: [String] = []
  var products: [String: [String]] = [:]
  func add(_ entitlement: String, _ productID: String) {
    if products[entitlement] == nil {
      order.append(entitlement)
      products[entitlement] = []
    }
    if products[entitlement]?.contains(productID) == false { products[entitlement]?.append(productID) }
  }
  for product in catalog.allProducts where product.type != .consumable {
    for entitlement in product.entitlements { add(entitlement, product.productID) }
  }
  // Each product of the data once, in the order of its first row known at `time`.
  let firstKnown = table.productsInOrder.compactMap { product in
    table.rows(ofProduct: product).first { table.isKnown($0, at: time) }.map { (row: $0, product: product) }
  }
  for (_, product) in firstKnown.sorted(by: { $0.row < $1.row }) {
    let id = table.productIDs[Int(product)]
    if catalog.product(id) == nil { add(id, id) }
  }
  return order.map { EntitlementDefinition(id: $0, productIDs: products[$0] ?? []) }
}
