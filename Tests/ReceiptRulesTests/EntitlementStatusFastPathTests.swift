import ReceiptModel
import ReceiptModelTestSupport
import Testing

// The entitlement rules' internal fast paths are compared with the scans they replace.
@testable import ReceiptRules

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? Timestamp.epoch }

/// `ConsideredTransaction.considering` (fields gathered first, the picks made in the same pass) and
/// `sharingContradictions(of:facts:)` against the scans they replace (FAST-PATHS.md).
struct EntitlementStatusFastPathTests {
  /// The positions of `definition`'s products in `known`, in order: what `entitlementStatus` considers.
  static func positions(of definition: EntitlementDefinition, in known: KnownHistory) -> [Int] {
    known.transactions.indices.filter { definition.productIDs.contains(known.transactions[stated: $0].productID) }
  }

  /// Considers every entitlement of `known` both ways; returns how many picks of each step were compared.
  static func compareConsidering(
    _ known: KnownHistory, catalog: Catalog, _ note: String, counts: inout [String: Int]
  ) throws {
    let facts = try #require(ProductCatalogFacts(known, catalog: catalog), "\(note): the index numbers products")
    for definition in entitlementDefinitions(for: known, catalog: catalog) {
      let indices = positions(of: definition, in: known)
      let (considered, picks) = ConsideredTransaction.considering(
        indices, in: known.transactions, facts: facts, at: known.time)
      let oneByOne = indices.map { ConsideredTransaction(known, index: $0, catalog: catalog, at: known.time) }
      #expect(considered == oneByOne, "\(note): \(definition.id)")
      #expect(considered.map(\.index) == indices, "\(note): \(definition.id)")
      #expect(picks == ConsideredPicks(scanning: considered), "\(note): \(definition.id)")
      if indices.count > ConsideredTransaction.gatheredAtOnce { counts["several blocks", default: 0] += 1 }
      for (name, pick) in [
        ("grant", picks.longestGrant), ("loss", picks.newestLoss), ("subscription", picks.latestSubscription),
        ("undecided", picks.firstUndecided), ("event", picks.newestEvent),
      ] where pick != nil {
        counts[name, default: 0] += 1
      }
    }
  }

  /// The benchmark's shapes, and two products over many transactions: entitlements of several blocks of
  /// `ConsideredTransaction.gatheredAtOnce`.
  static func histories() throws -> [(name: String, history: PurchaseHistory, catalog: Catalog)] {
    let long = ReceiptShape(
      name: "two products", transactions: 1_100, chains: 30, products: 2, shuffled: true, randomIDs: true,
      familySharedPercent: 25, upgradedPercent: 10, refundedPercent: 5, seed: 3)
    return try RuleFastPathTests.histories()
      + (0..<2).map { ("two products \($0)", long.history(index: $0), RuleFastPathTests.catalog(of: long)) }
  }

  @Test func consideringInOnePassGivesEachTransactionsOwnDecisionAndTheScansPicks() throws {
    var counts: [String: Int] = [:]
    for (name, history, catalog) in try Self.histories() {
      for catalog in [catalog, Catalog(), RuleFastPathTests.nonRenewingCatalog(catalog)] {
        for time in RuleFastPathTests.moments {
          // Replaced periods marked beside the data (`KnownTransactions.isMarkedUpgraded`), and in it.
          let known = knownHistory(of: history, at: time)
          try Self.compareConsidering(known, catalog: catalog, "\(name) at \(time.iso8601)", counts: &counts)
          let marked = markingReplacedPeriods(history).known(at: time)
          try Self.compareConsidering(marked, catalog: catalog, "\(name) marked at \(time.iso8601)", counts: &counts)
          let markedBeside = known.transactions.indices.filter { known.transactions.isMarkedUpgraded(at: $0) }.count
          counts["marked beside", default: 0] += markedBeside
        }
      }
    }
    for step in ["grant", "loss", "subscription", "undecided", "event", "marked beside", "several blocks"] {
      #expect(counts[step, default: 0] > 20, "the shapes make \(step) picks")
    }
  }

  /// Ties everywhere: equal ends of access of both ownerships, refunds, revocations, upgrades and expiries at one
  /// moment, several undecided transactions, undated ones. Each its own chain, so that no period is taken as
  /// replaced by another.
  static let ties: PurchaseHistory = {
    let monthly = "com.acme.monthly"
    func t(
      _ id: String, _ product: String = monthly, owner ownership: Ownership = .purchased, bought: String?,
      expires: String? = nil, refunded: String? = nil, upgraded: Bool = false
    ) -> PurchaseTransaction {
      PurchaseTransaction(
        transactionID: id, originalTransactionID: id, productID: product, ownership: ownership,
        purchaseDate: bought.map(at), expiresDate: expires.map(at),
        revocation: refunded.map { Revocation(date: at($0)) },
        isUpgraded: upgraded, vocabulary: .test)
    }
    var h = PurchaseHistory(format: .handBuilt)
    h.transactions = [
      t("shared", owner: .familyShared, bought: "2024-01-01", expires: "2024-07-01"),
      t("own", bought: "2024-01-01", expires: "2024-07-01"),
      t("own-later", bought: "2024-02-01", expires: "2024-07-01"),
      t("refunded", bought: "2024-02-01", expires: "2024-04-01", refunded: "2024-03-01"),
      t("revoked", owner: .familyShared, bought: "2024-02-01", expires: "2024-04-01", refunded: "2024-03-01"),
      t("upgraded", bought: "2024-03-01", expires: "2024-03-15", upgraded: true),
      t("expired", bought: "2024-02-01", expires: "2024-03-01"),
      t("pass", "com.acme.pass", bought: "2024-01-01"),
      t("pass-again", "com.acme.pass", bought: "2024-01-01"),
      t("lifetime", "com.acme.lifetime", bought: "2024-01-01"),
      t("undated", bought: nil, expires: "2024-07-01"),
      t("undated-too", "com.acme.pass", bought: nil),
      t("late", bought: "2024-09-01", expires: "2024-10-01"),
    ]
    return h
  }()

  @Test func picksAmongTiesAreTheScans() throws {
    let products = ["com.acme.monthly", "com.acme.pass", "com.acme.lifetime"]
    let withTypes = Catalog([
      CatalogProduct(productID: products[0], type: .autoRenewable, entitlements: ["pro"]),
      CatalogProduct(productID: products[1], type: .nonRenewing, entitlements: ["pro"], duration: ISOPeriod("P1M")),
      CatalogProduct(productID: products[2], type: .nonConsumable, entitlements: ["pro"]),
    ])
    var counts: [String: Int] = [:]
    for catalog in [withTypes, Catalog()] {
      for time in ["2024-02-15", "2024-03-01", "2024-06-15", "2024-07-01", "2024-08-01", "2024-12-01"] {
        let known = knownHistory(of: Self.ties, at: at(time))
        try Self.compareConsidering(known, catalog: catalog, "ties at \(time)", counts: &counts)
      }
    }
    // The ties decide: PURCHASED before FAMILY_SHARED, the first of equal ranks.
    let known = knownHistory(of: Self.ties, at: at("2024-06-15"))
    let facts = try #require(ProductCatalogFacts(known, catalog: Catalog()))
    let monthly = try #require(entitlementDefinitions(for: known, catalog: Catalog()).first { $0.id == products[0] })
    let (considered, picks) = ConsideredTransaction.considering(
      Self.positions(of: monthly, in: known), in: known.transactions, facts: facts, at: known.time)
    #expect(picks.longestGrant.map { considered[$0].transaction.transactionID } == "own")
    #expect(picks.newestLoss.map { considered[$0].transaction.transactionID } == "revoked")
    #expect(picks.latestSubscription.map { considered[$0].transaction.transactionID } == "shared")
    #expect(picks.newestEvent.map { considered[$0].transaction.transactionID } == "expired")
    #expect(picks.firstUndecided.map { considered[$0].transaction.transactionID } == "undated")
  }

  @Test func sharingContradictionsOfUnshareableProductsAloneAreTheScans() throws {
    func t(_ id: String, _ product: String, _ ownership: Ownership) -> PurchaseTransaction {
      PurchaseTransaction(
        transactionID: id, productID: product, ownership: ownership, purchaseDate: at("2024-01-0\(id.count % 9 + 1)"),
        vocabulary: .test)
    }
    // Product numbers follow first transactions (coins first), contradictions come the other way round; two
    // ids of one text in other bytes (é as one scalar and as two) are one product to the scan.
    var h = PurchaseHistory(format: .handBuilt)
    h.transactions = [
      t("1", "coins", .purchased), t("2", "pass", .familyShared), t("3", "caf\u{E9}.gems", .familyShared),
      t("4", "coins", .familyShared), t("5", "cafe\u{301}.gems", .familyShared), t("6", "lifetime", .familyShared),
      t("7", "pass", .familyShared), t("8", "coins", .familyShared),
    ]
    let catalog = Catalog([
      CatalogProduct(productID: "coins", type: .consumable),
      CatalogProduct(productID: "pass", type: .nonRenewing, duration: ISOPeriod("P1M")),
      CatalogProduct(productID: "caf\u{E9}.gems", type: .consumable),
      CatalogProduct(productID: "lifetime", type: .nonConsumable),
    ])
    let known = knownHistory(of: h, at: at("2024-06-01"))
    let facts = try #require(ProductCatalogFacts(known, catalog: catalog))
    let scanned = RuleFastPathTests.scannedSharingContradictions(of: known, catalog: catalog)
    #expect(sharingContradictions(of: known, facts: facts) == scanned)
    #expect(sharingContradictions(of: known, catalog: catalog) == scanned)
    #expect(scanned.count == 3, "pass, the gems once, coins")
    #expect(scanned.first?.contains("pass") == true)
  }
}

extension EntitlementStatusFastPathTests {
  @Test func positionsMergedInOrderAreTheSortedConcatenation() throws {
    var merged = 0
    for (name, history, catalog) in try RuleFastPathTests.histories() {
      for time in RuleFastPathTests.moments {
        let known = knownHistory(of: history, at: time)
        let purchases = known.purchases
        // Every entitlement's products, and every run of products in the order of their first transaction.
        var groups = entitlementDefinitions(for: known, catalog: catalog).map { definition in
          purchases.productsInOrder.filter { p in
            purchases.positions(ofProduct: p).first.map {
              definition.productIDs.contains(known.transactions[stated: $0].productID)
            } ?? false
          }
        }
        groups += (1...4).map { Array(purchases.productsInOrder.prefix($0)) }
        groups.append(purchases.productsInOrder.reversed())
        for products in groups {
          let lists = products.map(purchases.positions(ofProduct:))
          #expect(mergedInOrder(lists) == lists.flatMap { $0 }.sorted(), "\(name) at \(time.iso8601): \(products)")
          merged += lists.count > 1 ? 1 : 0
        }
      }
    }
    #expect(merged > 100, "lists of several products are merged")
    #expect(mergedInOrder([]) == [])
    #expect(mergedInOrder([[], [3, 9], [], [1, 2, 10], [4]]) == [1, 2, 3, 4, 9, 10])
    #expect(mergedInOrder([[5, 5], [5]]) == [5, 5, 5])
  }
}
