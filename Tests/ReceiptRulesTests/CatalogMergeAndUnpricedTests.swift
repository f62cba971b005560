import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// A report's unpriced units summed per product, and a catalog merged into an empty one.
struct CatalogMergeAndUnpricedTests {
  /// The benchmark shapes' catalogs: three products per entitlement, priced.
  static let shapes: [ReceiptShape] = [
    ReceiptShape(name: "one-chain", transactions: 120),
    ReceiptShape(name: "many-upgrades", transactions: 300, chains: 12, products: 12, seed: 41),
    ReceiptShape(name: "many-products", transactions: 400, chains: 40, products: 60, seed: 7),
  ]

  /// The catalog `ReceiptShape.catalog()` writes, built directly.
  static func catalog(of shape: ReceiptShape) -> Catalog {
    Catalog(
      (0..<shape.products).map { j in
        let product = ReceiptShape.productID(j)
        let type: ProductType =
          product.hasSuffix("ly") ? .autoRenewable : product.contains("coins") ? .consumable : .nonConsumable
        return CatalogProduct(
          productID: product, type: type,
          subscriptionGroup: type == .autoRenewable ? ReceiptShape.subscriptionGroup : nil,
          entitlements: ["e\(j / 3)"], price: DecimalAmount(units: Int64(j % 20) * 100 + 99, scale: 2),
          currency: "USD")
      })
  }

  /// Catalogs beside the shape's own: none; one whose groups are local to their file (a `.storekit` file) and
  /// that moves one subscription to a group of its own; one of non-renewing subscriptions, with and without a
  /// duration, consumables and a product the data never shows.
  static func catalogs(_ shape: Catalog) -> [(String, Catalog)] {
    let products = shape.allProducts
    let local = Catalog(
      products.enumerated().map { n, p in
        var p = p
        if p.subscriptionGroup != nil {
          p.groupIsLocalToFile = true
          p.origin = "Products.storekit"
          p.subscriptionGroup = n == 1 ? "Other" : "Main"
        }
        return p
      })
    let kinds = Catalog(
      products.enumerated().map { n, p in
        var p = p
        switch n % 4 {
        case 0:
          p.type = .nonRenewing
          p.duration = ISOPeriod("P1M")
        case 1: p.type = .nonRenewing
        case 2: p.type = .consumable
        default: break
        }
        return p
      } + [CatalogProduct(productID: "com.example.unbought", type: .autoRenewable, subscriptionGroup: "77")])
    return [("no catalog", Catalog()), ("catalog", shape), ("storekit groups", local), ("other kinds", kinds)]
  }

  /// Unpriced units are each product's sum: ids as one shared String, as equal texts in other Strings, in other
  /// bytes (`==` joins them), many ids, and a report merged into another.
  @Test func unpricedUnitsAreEachProductsSum() throws {
    var ids = (0..<200).map { "com.example.product\($0)" } + ["caf\u{E9}", "cafe\u{301}", "", "a"]
    ids += ids.map { String(decoding: Array($0.utf8), as: UTF8.self) }
    var report = RevenueReport(hasProceeds: false)
    var expected: [String: Int64] = [:]
    var generator = SystemRandomNumberGenerator()
    for step in 0..<20_000 {
      let id = ids[step < 10_000 ? step % 7 : Int.random(in: ids.indices, using: &generator)]
      let units = Int64.random(in: 1...5, using: &generator)
      try report.addUnpriced(productID: id, units: units)
      expected[id, default: 0] += units
    }
    #expect(report.unpriced == expected)
    var merged = RevenueReport(hasProceeds: false)
    try merged.addUnpriced(productID: "a", units: 1)
    try merged.merge(report)
    try merged.merge(report)
    expected = expected.mapValues { $0 * 2 }
    expected["a", default: 0] += 1
    #expect(merged.unpriced == expected)
  }

  /// A catalog merged into an empty one is taken as it is: the same as adding its products one by one, then
  /// merging more over it.
  @Test func mergingIntoAnEmptyCatalogIsAddingEachProduct() throws {
    for shape in Self.shapes {
      let (name, shapeCatalog) = (shape.name, Self.catalog(of: shape))
      for (catalogName, catalog) in Self.catalogs(shapeCatalog) {
        var other = catalog
        other.warnings = ["a warning"]
        var merged = Catalog()
        merged.merge(other)
        var added = Catalog()
        for id in other.order { if let p = other.products[id] { added.add(p) } }
        added.warnings += other.warnings
        #expect(merged.products == added.products, "\(name), \(catalogName)")
        #expect(merged.order == added.order && merged.warnings == added.warnings, "\(name), \(catalogName)")
        let over = Catalog([CatalogProduct(productID: "com.example.p0.monthly", type: .consumable)])
        merged.merge(over)
        added.merge(over)
        #expect(merged.products == added.products && merged.order == added.order, "\(name), \(catalogName)")
      }
    }
  }
}
