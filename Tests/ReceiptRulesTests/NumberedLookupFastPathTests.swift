import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// Lookups by the known history's numbers and other shortcuts (FAST-PATHS.md) against what they replaced:
/// subscription groups linked by number, unpriced units found by a hash of the id's bytes, the ledger's upgrade
/// moments by position, purchase dates sorted packed, a catalog merged into an empty one.
struct NumberedLookupFastPathTests {
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

  /// The shape's history with stated product types (as signed data states them: every type, and none), some
  /// expiry dates gone and some transactions FAMILY_SHARED, so that one product's transactions resolve to
  /// different types.
  static func statedTypes(_ history: PurchaseHistory) -> PurchaseHistory {
    var h = history
    let types: [ProductType?] = [nil] + ProductType.allCases
    for i in h.transactions.indices {
      h.transactions[i].productType = types[i % types.count]
      if i % 4 == 1 { h.transactions[i].expiresDate = nil }
      if i % 3 == 2 { h.transactions[i].ownership = .familyShared }
    }
    return h
  }

  /// The shape's history with ids of equal text in other bytes: some products, groups and chains spelled with
  /// `é` as one scalar and others as `e` and a combining accent (`==` joins them, their bytes differ).
  static func canonicallyEqualIDs(_ history: PurchaseHistory) -> PurchaseHistory {
    var h = history
    for i in h.transactions.indices {
      let accent = i % 2 == 0 ? "\u{E9}" : "e\u{301}"
      switch i % 7 {
      case 0: h.transactions[i].productID += accent
      case 1: h.transactions[i].subscriptionGroup = h.transactions[i].subscriptionGroup.map { $0 + accent }
      case 2: h.transactions[i].originalTransactionID = h.transactions[i].originalTransactionID.map { $0 + accent }
      default: break
      }
    }
    return h
  }

  @Test func subscriptionGroupsByNumberGiveTheTextsGroups() throws {
    var grouped = 0
    var inferred = 0
    for (name, history, shapeCatalog) in try RuleFastPathTests.histories() {
      let variants =
        IntroEligibilityFastPathTests.variants(history) + [
          ("equal texts in other bytes", Self.canonicallyEqualIDs(history)),
          ("stated types", Self.statedTypes(history)),
        ]
      for (variant, history) in variants {
        for (catalogName, catalog) in Self.catalogs(shapeCatalog) {
          for time in RuleFastPathTests.moments {
            let known = history.known(at: time)
            let fast = SubscriptionGroups(catalog: catalog, history: known)
            let slow = SubscriptionGroups(catalog: catalog, transactions: known.transactions)
            // The version that made each group from its nodes when asked, and linked above the root.
            let linked = LinkedSubscriptionGroups(catalog: catalog, transactions: Array(known.transactions))
            let products = Set(history.transactions.map(\.productID)).union(catalog.allProducts.map(\.productID))
            for product in products.sorted() + ["com.example.absent", "com.example.p0.monthly\u{E9}"] {
              let group = fast.group(of: product)
              let place = "\(name), \(variant), \(catalogName), \(time.iso8601): \(product)"
              #expect(group == slow.group(of: product), "\(place)")
              #expect(group == linked.group(of: product), "\(place)")
              if group != nil { grouped += 1 }
              if group?.inference != nil { inferred += 1 }
            }
          }
        }
      }
    }
    #expect(grouped > 1_000, "the shapes' subscriptions are in groups to compare")
    #expect(inferred > 10, "groups known only through shared subscriptions are compared too")
  }

  /// A catalog id of equal text in other bytes than the data's (the Kelvin sign, which `==` takes for `K`), and a
  /// history whose index numbers no products: both give the texts' groups.
  @Test func subscriptionGroupsOfOddIDsGiveTheTextsGroups() throws {
    let (_, history, _) = try #require(try RuleFastPathTests.histories().first)
    var h = history
    for i in h.transactions.indices where i % 3 == 0 { h.transactions[i].productID = "com.example.K" }
    for i in h.transactions.indices where i % 3 == 1 { h.transactions[i].subscriptionGroup = nil }
    let catalog = Catalog([
      CatalogProduct(productID: "com.example.\u{212A}", type: .autoRenewable, subscriptionGroup: "5"),
      CatalogProduct(productID: "com.example.alone", type: .autoRenewable, subscriptionGroup: "6"),
    ])
    // The same history under an index of chains and groups only.
    let full = DatedPurchases(h.transactions)
    let chainsAndGroups = DatedPurchases(chainNumbers: full.chainNumbers, groupNumbers: full.groupNumbers) {
      h.transactions[$0].purchaseDate
    }
    for time in RuleFastPathTests.moments {
      for known in [h.known(at: time), KnownHistory(h, at: time, upgrading: [], purchases: chainsAndGroups)] {
        let fast = SubscriptionGroups(catalog: catalog, history: known)
        let slow = SubscriptionGroups(catalog: catalog, transactions: known.transactions)
        let products = Set(known.transactions.map(\.productID)).sorted()
        for product in products + ["com.example.\u{212A}", "com.example.alone"] {
          #expect(fast.group(of: product) == slow.group(of: product), "\(product) at \(time.iso8601)")
        }
      }
    }
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
    for (name, _, shapeCatalog) in try RuleFastPathTests.histories() {
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
