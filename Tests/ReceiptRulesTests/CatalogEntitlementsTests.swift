import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// The catalog keeps its entitlements as products are added (`Catalog.definedEntitlements`): after any sequence of
/// additions, replacements and merges they are what the catalog's products give when read in order, the plain
/// way `entitlementDefinitions` once read them for every document.
@Suite struct CatalogEntitlementsTests {
  /// The former reading: every non-consumable and subscription product in definition order, each entitlement
  /// where its first product is, each product once.
  static func plainEntitlements(_ catalog: Catalog) -> [EntitlementDefinition] {
    var order: [String] = []
    var products: [String: [String]] = [:]
    for product in catalog.allProducts where product.type != .consumable {
      for entitlement in product.entitlements {
        if products[entitlement] == nil {
          order.append(entitlement)
          products[entitlement] = []
        }
        if products[entitlement]?.contains(product.productID) == false {
          products[entitlement]?.append(product.productID)
        }
      }
    }
    return order.map { EntitlementDefinition(id: $0, productIDs: products[$0] ?? []) }
  }

  @Test func keptEntitlementsAreThePlainReading() {
    var random = SplitMix64(seed: 18)
    let types: [ProductType] = [.autoRenewable, .nonConsumable, .consumable, .nonRenewing]
    var checked = (replaced: 0, merged: 0)
    for _ in 0..<300 {
      var catalog = Catalog()
      for _ in 0..<Int(random.below(12)) {
        let id = "p\(random.below(6))"
        let names = (0..<Int(random.below(3))).map { _ in random.below(4) == 0 ? id : "e\(random.below(4))" }
        if catalog.product(id) != nil { checked.replaced += 1 }
        let product = CatalogProduct(
          productID: id, type: types[Int(random.below(4))], entitlements: random.below(5) == 0 ? nil : names + names)
        if random.below(4) == 0 {
          catalog.merge(Catalog([product]))
          checked.merged += 1
        } else {
          catalog.add(product)
        }
      }
      #expect(catalog.definedEntitlements == Self.plainEntitlements(catalog))
      for (place, definition) in catalog.definedEntitlements.enumerated() {
        #expect(catalog.place(ofEntitlement: definition.id) == place)
      }
    }
    #expect(checked.replaced > 100 && checked.merged > 100)
  }
}
