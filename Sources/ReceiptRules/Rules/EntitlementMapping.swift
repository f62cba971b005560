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
  // The catalog's own entitlements do not depend on the document: the catalog keeps them.
  var definitions = catalog.definedEntitlements
  // Each product of the data once, in the order of its first row known at `time` (sorted in place, not copied).
  var firstKnown: [(row: Int, product: Int32)] = []
  firstKnown.reserveCapacity(table.productCount)
  for product in table.productsInOrder {
    if let row = table.rows(ofProduct: product).first(where: { table.isKnown($0, at: time) }) {
      firstKnown.append((row, product))
    }
  }
  firstKnown.sort { $0.row < $1.row }
  for (_, product) in firstKnown {
    let id = table.productIDs[Int(product)]
    guard catalog.product(id) == nil else { continue }
    // An unlisted product is its own entitlement, or joins the catalog's entitlement of that name.
    if let place = catalog.place(ofEntitlement: id) {
      if !definitions[place].productIDs.contains(id) { definitions[place].productIDs.append(id) }
    } else {
      definitions.append(EntitlementDefinition(id: id, productIDs: [id]))
    }
  }
  return definitions
}
