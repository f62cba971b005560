import Foundation
import ReceiptModel
import ReceiptModelTestSupport
import Testing

// The rules' internal fast paths are compared with the scans they replace, on histories built by hand.
@testable import ReceiptRules

/// The rules' fast paths (FAST-PATHS.md) against the scans they replace, on small histories of every shape the
/// benchmark measures: many chains and products, shuffled, upgraded, refunded and family-shared.
struct RuleFastPathTests {
  static let shapes: [ReceiptShape] = [
    ReceiptShape(name: "one-chain", transactions: 120),
    ReceiptShape(
      name: "many-chains", transactions: 300, chains: 20, products: 5, shuffled: true, randomIDs: true,
      familySharedPercent: 25),
    ReceiptShape(
      name: "many-upgrades", transactions: 300, chains: 12, products: 12, shuffled: true, familySharedPercent: 25,
      upgradedPercent: 30, refundedPercent: 5, seed: 41),
    ReceiptShape(
      name: "many-products", transactions: 400, chains: 40, products: 60, shuffled: true, randomIDs: true,
      familySharedPercent: 50, upgradedPercent: 10, seed: 7),
    ReceiptShape(
      name: "long-chains", transactions: 200, chains: 2, products: 5, familySharedPercent: 90, upgradedPercent: 20,
      refundedPercent: 10, seed: 5),
  ]

  /// Each shape with three seeds, its catalog, and the moments asked about (start, middle, end).
  static func histories() throws -> [(name: String, history: PurchaseHistory, catalog: Catalog)] {
    var out: [(String, PurchaseHistory, Catalog)] = []
    for base in shapes {
      for offset in 0..<3 as Range<UInt64> {
        var shape = base
        shape.seed += offset
        out.append(("\(shape.name) seed \(shape.seed)", shape.history(index: Int(offset)), catalog(of: shape)))
      }
    }
    return out
  }

  /// The catalog `ReceiptShape.catalog()` writes, built directly: three products per entitlement, priced.
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

  static let moments: [Timestamp] = [
    ReceiptShape.start + 40 * 86_400_000, ReceiptShape.middleOfHistory, ReceiptShape.endOfHistory,
  ].compactMap { Timestamp(milliseconds: $0) }

  /// The scan `UpgradeMoments` replaced: every transaction read for every upgraded one.
  static func scannedUpgradeMoments(_ transactions: [PurchaseTransaction]) -> [Timestamp?] {
    transactions.map { t -> Timestamp? in
      guard t.isUpgraded, let bought = t.purchaseDate else { return nil }
      var first: Timestamp?
      for other in transactions where other.transactionID != t.transactionID {
        guard let at = other.purchaseDate, at > bought else { continue }
        let sameChain = other.chainID == t.chainID
        let sameGroup = t.subscriptionGroup != nil && other.subscriptionGroup == t.subscriptionGroup
        guard sameChain || sameGroup else { continue }
        if let f = first, f <= at { continue }
        first = at
      }
      return first
    }
  }

  /// The scan `markingReplacedPeriods` replaced: the whole chain and group read for every period.
  static func scannedReplacedPeriods(_ all: [PurchaseTransaction]) -> [Bool] {
    all.indices.map { i in
      guard !all[i].isUpgraded, let bought = all[i].purchaseDate, let expires = all[i].expiresDate else {
        return all[i].isUpgraded
      }
      return all.indices.contains { j in
        guard j != i, all[j].productID != all[i].productID, all[j].ownership == all[i].ownership,
          let at = all[j].purchaseDate, at > bought, at < expires
        else { return false }
        let sameChain = all[j].chainID == all[i].chainID
        let sameGroup = all[i].subscriptionGroup != nil && all[j].subscriptionGroup == all[i].subscriptionGroup
        return sameChain || sameGroup
      }
    }
  }

  /// What `DatedPurchases` answers, read by scans of `transactions`: each one's chain, group (dated, sorted by
  /// date then index; undated in index order) and product, by id.
  static func expectIndexAgreesWithScans(
    _ purchases: DatedPurchases, _ all: [PurchaseTransaction], _ name: String
  ) {
    func byDate(_ same: (Int) -> Bool) -> [DatedPurchases.Purchase] {
      all.indices.filter(same).compactMap { j in all[j].purchaseDate.map { .init(at: $0, index: j) } }
        .sorted { ($0.at, $0.index) < ($1.at, $1.index) }
    }
    #expect(purchases.chainNumbers.count == all.count, "\(name)")
    var firstOfProduct: [String] = []
    for i in all.indices where !firstOfProduct.contains(all[i].productID) { firstOfProduct.append(all[i].productID) }
    let products = purchases.productsInOrder.map { p in
      purchases.positions(ofProduct: p).first.map { all[$0].productID }
    }
    #expect(products == firstOfProduct, "\(name): products in the order of their first transaction")
    for i in all.indices {
      let chain = Array(purchases.chain(number: Int(purchases.chainNumbers[i])))
      #expect(chain == byDate { all[$0].chainID == all[i].chainID }, "\(name) chain of \(i)")
      let positions = Array(purchases.positions(ofProduct: Int(purchases.productNumbers[i])))
      #expect(positions == all.indices.filter { all[$0].productID == all[i].productID }, "\(name) product of \(i)")
      guard let group = all[i].subscriptionGroup else {
        #expect(purchases.groupNumbers[i] == -1, "\(name)")
        continue
      }
      let g = Int(purchases.groupNumbers[i])
      #expect(Array(purchases.group(number: g)) == byDate { all[$0].subscriptionGroup == group }, "\(name) group")
      let undated = all.indices.filter { all[$0].subscriptionGroup == group && all[$0].purchaseDate == nil }
      #expect(Array(purchases.undated(inGroup: g)) == undated, "\(name) undated of the group")
      if let bought = all[i].purchaseDate {
        let after = purchases.group(of: i, after: bought).map(\.index)
        #expect(after == byDate { all[$0].subscriptionGroup == group }.filter { $0.at > bought }.map(\.index))
      }
    }
  }

  @Test func theIndexBuiltOnceGivesWhatEachRuleBuiltForItself() throws {
    var cut = 0
    var marked = 0
    for (name, history, _) in try Self.histories() {
      Self.expectIndexAgreesWithScans(DatedPurchases(history.transactions), history.transactions, name)
      for time in Self.moments {
        // Indexed once and narrowed to the moment, against the marked history cut and indexed afresh.
        let once = knownHistory(of: history, at: time)
        let apart = markingReplacedPeriods(history).known(at: time)
        // Taken as upgraded beside the data's array: the same transactions as known.
        let known = once.transactions.indices.map { once.transaction(at: $0) }
        #expect(known == Array(apart.transactions), "\(name) at \(time.iso8601)")
        #expect(once.transactions.indices.map(once.isUpgraded(at:)) == apart.transactions.map(\.isUpgraded))
        if once.transactions.indices.contains(where: { once.transactions.overrides(at: $0).contains(.upgraded) }) {
          marked += 1
        }
        Self.expectIndexAgreesWithScans(once.purchases, known, "\(name) at \(time.iso8601)")
        if once.transactions.count < history.transactions.count { cut += 1 }
      }
    }
    #expect(cut > 10, "moments that leave purchases out narrow the index")
    #expect(marked > 5, "replaced periods are marked beside the data's array")
  }

  @Test func subscriptionGroupsLinkedBySizeGiveTheListsGroups() throws {
    var grouped = 0
    for (name, history, catalog) in try Self.histories() {
      for catalog in [catalog, Catalog()] {
        let fast = SubscriptionGroups(catalog: catalog, transactions: history.transactions)
        let slow = LinkedSubscriptionGroups(catalog: catalog, transactions: history.transactions)
        let products = Set(history.transactions.map(\.productID)).union(catalog.allProducts.map(\.productID))
        for product in products.sorted() + ["not.in.the.data"] {
          #expect(fast.group(of: product) == slow.group(of: product), "\(name): \(product)")
          if fast.group(of: product) != nil { grouped += 1 }
        }
      }
    }
    #expect(grouped > 100, "the shapes' subscriptions are in groups to compare")
  }

  @Test func upgradeMomentsByBinarySearchGiveTheScansAnswer() throws {
    var upgraded = 0
    for (name, history, _) in try Self.histories() {
      for transactions in [history.transactions, markingReplacedPeriods(history).transactions] {
        let fast = UpgradeMoments(transactions)
        let scanned = Self.scannedUpgradeMoments(transactions)
        #expect(transactions.indices.map { fast.moment(of: $0) } == scanned, "\(name)")
        upgraded += scanned.compactMap { $0 }.count
      }
    }
    #expect(upgraded > 100, "the shapes hold upgrades to compare")
  }

  /// `UpgradeMoments` as it was before it read the two lists' first purchases (the slow path): both lists
  /// sliced and read on to the first purchase with another transaction id, for every upgraded transaction.
  static func slicedUpgradeMoments(
    _ transactions: [PurchaseTransaction], purchases: DatedPurchases, isUpgraded: (Int) -> Bool
  ) -> [Timestamp?] {
    transactions.indices.map { i in
      guard isUpgraded(i) else { return nil }
      func first(_ later: ArraySlice<DatedPurchases.Purchase>) -> Timestamp? {
        later.first { $0.index != i && transactions[$0.index].transactionID != transactions[i].transactionID }?.at
      }
      let inChain = first(purchases.chainAfterItsPurchase(of: i))
      let inGroup = first(purchases.groupAfterItsPurchase(of: i))
      return inChain.map { c in inGroup.map { min(c, $0) } ?? c } ?? inGroup
    }
  }

  /// Every shape's history with copies of some transactions bought again later under the same id (in its chain
  /// and group, and outside both), and ids of equal text in other bytes (é as one scalar and as two).
  static func historiesWithRepeatedIDs() throws -> [(name: String, history: PurchaseHistory)] {
    try histories().map { name, history, _ in
      var h = history
      let all = h.transactions
      for i in stride(from: 0, to: all.count, by: 7) {
        guard let bought = all[i].purchaseDate else { continue }
        var copy = all[i]
        let later: Int64 = Int64(i % 3) * 3_600_000 + 1
        copy.purchaseDate = Timestamp(milliseconds: bought.milliseconds + later)
        if i % 21 == 0 { copy.originalTransactionID = "elsewhere" }
        h.transactions.append(copy)
      }
      for i in stride(from: 3, to: all.count, by: 11) {
        h.transactions[i].transactionID = "caf\u{E9}-\(i)"
        guard let bought = all[i].purchaseDate else { continue }
        var copy = all[i]
        copy.transactionID = "cafe\u{301}-\(i)"
        copy.purchaseDate = Timestamp(milliseconds: bought.milliseconds + 60_000)
        h.transactions.append(copy)
      }
      return ("\(name) with repeated ids", h)
    }
  }

  @Test func upgradeMomentsFromTheListsFirstPurchasesGiveTheSlicedAnswer() throws {
    var compared = 0
    var repeated = 0
    let shapes = try Self.histories().map { ($0.name, $0.history) } + Self.historiesWithRepeatedIDs()
    for (name, history) in shapes {
      let all = history.transactions
      let purchases = DatedPurchases(all)
      var marked = [Bool](repeating: false, count: all.count)
      for i in replacedPeriods(of: all, purchases: purchases) { marked[i] = true }
      let isUpgraded = { (i: Int) in all[i].isUpgraded || marked[i] }
      let sliced = Self.slicedUpgradeMoments(all, purchases: purchases, isUpgraded: isUpgraded)
      let fast = UpgradeMoments(all, purchases: purchases, isUpgraded: isUpgraded)
      #expect(all.indices.map { fast.moment(of: $0) } == sliced, "\(name)")
      // Known at a moment: only those bought by then have one.
      for time in Self.moments {
        let known = UpgradeMoments(all, purchases: purchases, boughtBy: time, isUpgraded: isUpgraded)
        let expected = all.indices.map { i in all[i].purchaseDate.map { $0 <= time } == true ? sliced[i] : nil }
        #expect(all.indices.map { known.moment(of: $0) } == expected, "\(name) at \(time.iso8601)")
      }
      compared += sliced.compactMap { $0 }.count
      // A copy bought later under the same id is no replacement: the slow path reads past it.
      for i in all.indices where isUpgraded(i) {
        if let next = purchases.firstInChainAfterItsPurchase(of: i),
          all[next.index].transactionID == all[i].transactionID
        {
          repeated += 1
        }
      }
    }
    #expect(compared > 1_000, "the shapes hold upgrade moments to compare")
    #expect(repeated > 20, "repeated ids come first after their transaction")
  }

  @Test func upgradesKnownByTheirReplacingPurchaseGiveWhatTheirMomentsGive() throws {
    var shortcuts = 0
    var refused = 0
    let shapes = try Self.histories().map { ($0.name, $0.history) } + Self.historiesWithRepeatedIDs()
    for (name, base) in shapes {
      // Some replacing purchases given their period's transaction id: those are no replacement by then.
      var history = base
      let first = replacingPurchases(of: base.transactions, purchases: DatedPurchases(base.transactions))
      for (k, (i, j)) in zip(first.periods, first.by).enumerated() where k % 5 == 0 {
        history.transactions[j].transactionID = history.transactions[i].transactionID
      }
      let all = history.transactions
      let purchases = DatedPurchases(all)
      let replaced = replacingPurchases(of: all, purchases: purchases)
      #expect(replaced.periods == replacedPeriods(of: all, purchases: purchases), "\(name)")
      for time in Self.moments {
        let fast = KnownHistory(
          history, at: time, upgrading: replaced.periods, replacedBy: replaced.by, purchases: purchases)
        let slow = KnownHistory(history, at: time, upgrading: replaced.periods, purchases: purchases)
        #expect(Array(fast.transactions) == Array(slow.transactions), "\(name) at \(time.iso8601)")
        #expect(
          fast.transactions.indices.map { fast.transactions.overrides(at: $0) }
            == slow.transactions.indices.map { slow.transactions.overrides(at: $0) })
        for (i, j) in zip(replaced.periods, replaced.by) where all[j].purchaseDate.map({ $0 <= time }) == true {
          if all[j].transactionID == all[i].transactionID { refused += 1 } else { shortcuts += 1 }
        }
      }
    }
    #expect(shortcuts > 1_000, "upgrades known by their replacing purchase")
    #expect(refused > 50, "replacing purchases under the period's own id are refused")
  }

  @Test func replacedPeriodsByBinarySearchGiveTheScansAnswer() throws {
    var replaced = 0
    for (name, history, _) in try Self.histories() {
      let marked = markingReplacedPeriods(history).transactions.map(\.isUpgraded)
      #expect(marked == Self.scannedReplacedPeriods(history.transactions), "\(name)")
      replaced += zip(marked, history.transactions).filter { $0 && !$1.isUpgraded }.count
    }
    #expect(replaced > 100, "the shapes hold replaced periods to compare")
  }

  @Test func replacedPeriodsReadInPlaceGiveTheScansAnswerWithEveryOwnership() throws {
    var replaced = 0
    let owners: [Ownership] = [.unknown, .unrecognized("SHARED_LATER"), .unrecognized("OTHER"), .purchased]
    for (name, history, _) in try Self.histories() {
      var h = history
      for i in stride(from: 0, to: h.transactions.count, by: 3) { h.transactions[i].ownership = owners[i / 3 % 4] }
      let marked = replacedPeriods(of: h.transactions, purchases: DatedPurchases(h.transactions))
      let scanned = Self.scannedReplacedPeriods(h.transactions)
      #expect(marked == h.transactions.indices.filter { scanned[$0] && !h.transactions[$0].isUpgraded }, "\(name)")
      replaced += marked.filter { h.transactions[$0].ownership != .purchased }.count
    }
    #expect(replaced > 20, "periods of other ownerships are replaced too")
  }

  /// The scan `sharingContradictions` replaced: every FAMILY_SHARED transaction's resolved type, one sentence per
  /// product.
  static func scannedSharingContradictions(of known: KnownHistory, catalog: Catalog) -> [String] {
    var seen = Set<String>()
    var scanned: [String] = []
    for i in known.transactions.indices {
      let t = known.transaction(at: i)
      guard t.ownership == .familyShared, let resolved = resolveProductType(of: t, catalog: catalog),
        resolved.catalogContradictsSharing, seen.insert(t.productID).inserted
      else { continue }
      scanned.append(catalogContradiction(t, resolved))
    }
    return scanned
  }

  @Test func sharingContradictionsOnlyWhereTheCatalogHasAnUnshareableTypeGiveTheScansAnswer() throws {
    var contradictions = 0
    for (name, history, catalog) in try Self.histories() {
      // The shape's catalog (consumables), none, one whose products can all be shared, one non-renewing.
      let shareable = Catalog(
        catalog.allProducts.map { p in
          var p = p
          if p.type == .consumable { p.type = .nonConsumable }
          return p
        })
      var nonRenewing = shareable
      if var first = shareable.allProducts.first {
        first.type = .nonRenewing
        nonRenewing.add(first)
      }
      for catalog in [catalog, Catalog(), shareable, nonRenewing] {
        for time in Self.moments {
          let known = knownHistory(of: history, at: time)
          let scanned = Self.scannedSharingContradictions(of: known, catalog: catalog)
          #expect(sharingContradictions(of: known, catalog: catalog) == scanned, "\(name) at \(time.iso8601)")
          contradictions += scanned.count
        }
      }
    }
    #expect(contradictions > 20, "the shapes' catalogs contradict family sharing")
  }

  @Test func entitlementsByProductIndexGiveEachEntitlementsOwnAnswer() throws {
    var upgradedAnswers = 0
    for (name, history, catalog) in try Self.histories() {
      for catalog in [catalog, Catalog()] {
        for time in Self.moments {
          let known = markingReplacedPeriods(history).known(at: time)
          let indexed = entitlementStatuses(of: known, catalog: catalog)
          let oneByOne = entitlementDefinitions(for: known, catalog: catalog).map {
            entitlementStatus($0, history: known, catalog: catalog)
          }
          #expect(indexed == oneByOne, "\(name) at \(time.iso8601)")
          #expect(indexed.contains { !$0.considered.isEmpty }, "\(name): something to compare")
          upgradedAnswers += indexed.filter { $0.state == .upgraded }.count
        }
      }
    }
    #expect(upgradedAnswers > 10, "upgrade targets found by binary search are compared too")
  }

  /// The shape's catalog with its consumables as non-renewing subscriptions, every other one with a duration
  /// (one of them running past year 9999), and a product the data does not have.
  static func nonRenewingCatalog(_ catalog: Catalog) -> Catalog {
    var changed = Catalog(
      catalog.allProducts.enumerated().map { k, p in
        var p = p
        if p.type == .consumable || k % 4 == 1 {
          p.type = .nonRenewing
          p.duration = k % 3 == 0 ? nil : ISOPeriod(k % 5 == 0 ? "P9000Y" : "P1M")
        }
        return p
      })
    changed.add(CatalogProduct(productID: "not.in.the.data", type: .nonRenewing, duration: ISOPeriod("P1W")))
    return changed
  }

  @Test func catalogFactsPerProductGiveEachTransactionsOwnLookup() throws {
    var nonRenewingGrants = 0
    for (name, history, catalog) in try Self.histories() {
      for catalog in [catalog, Catalog(), Self.nonRenewingCatalog(catalog)] {
        for time in Self.moments {
          let known = knownHistory(of: history, at: time)
          let facts = try #require(ProductCatalogFacts(known, catalog: catalog), "\(name): the index numbers products")
          let indices = Array(known.transactions.indices)
          // The facts' loop against a considered transaction each, its product looked up by its text.
          let fast = ConsideredTransaction.considering(indices, in: known.transactions, facts: facts, at: time)
            .considered
          let slow = indices.map { ConsideredTransaction(known, index: $0, catalog: catalog, at: time) }
          #expect(fast == slow, "\(name) at \(time.iso8601)")
          #expect(fast.map(\.index) == indices)
          nonRenewingGrants +=
            fast.filter {
              if case .durationEnded = $0.grant { return true }
              return $0.grant == .unknownDuration
            }.count
          // And every rule that reads them.
          let oneByOne = entitlementDefinitions(for: known, catalog: catalog).map {
            entitlementStatus($0, history: known, catalog: catalog)
          }
          #expect(entitlementStatuses(of: known, catalog: catalog) == oneByOne, "\(name) at \(time.iso8601)")
        }
      }
    }
    #expect(nonRenewingGrants > 50, "durations and their absence are read from the facts")
    // An index that numbers no products: no facts, every transaction's entry looked up by its text.
    let (_, history, catalog) = try #require(try Self.histories().last)
    let plain = DatedPurchases(
      chainNumbers: history.transactions.map { _ in 0 }, groupNumbers: history.transactions.map { _ in -1 }
    ) { history.transactions[$0].purchaseDate }
    let unnumbered = KnownHistory(history, at: ReceiptShape.endOfHistory.timestamp, upgrading: [], purchases: plain)
    let nonRenewing = Self.nonRenewingCatalog(catalog)
    #expect(ProductCatalogFacts(unnumbered, catalog: nonRenewing) == nil)
    let scanned = Self.scannedSharingContradictions(of: unnumbered, catalog: nonRenewing)
    #expect(!scanned.isEmpty, "the catalog contradicts family sharing")
    #expect(sharingContradictions(of: unnumbered, catalog: nonRenewing) == scanned)
  }

  @Test func theAnswerKnowsTheHistoryOnceAndSaysWhatEachRuleSays() throws {
    for (name, history, catalog) in try Self.histories() {
      for time in Self.moments {
        let answer = answerEntitlements(of: history, catalog: catalog, at: time)
        #expect(answer.results == entitlementStatuses(of: history, catalog: catalog, at: time), "\(name)")
        let contradictions = sharingContradictions(of: history, catalog: catalog, at: time)
        #expect(Array(answer.findings.prefix(contradictions.count)) == contradictions, "\(name)")
      }
    }
  }

  @Test func rowKeysByDayGiveTheGroupingsKey() {
    var dates: [Timestamp?] = [nil]
    let edges: [Int64] = [
      Int64.min, -86_400_001, -86_400_000, -1, 0, 1, 86_399_999, 86_400_000, Timestamp.maximumMilliseconds,
      Timestamp.maximumMilliseconds + 1, Int64.max,
    ]
    dates += edges.map { Timestamp(unchecked: $0) }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<3_000 {
      dates.append(Timestamp(unchecked: Int64.random(in: 0...Timestamp.maximumMilliseconds, using: &generator)))
    }
    var report = RevenueReport(hasProceeds: false)
    // One report asked in every grouping in turn: a key remembered for one grouping never answers another.
    for round in 0..<2 {
      for grouping in RevenueGrouping.allCases {
        for date in dates + dates.reversed() {
          #expect(
            report.rowKey(grouping, productID: "p", date: date) == grouping.key(productID: "p", date: date),
            "\(grouping) \(date?.milliseconds ?? 0) round \(round)")
        }
      }
    }
  }

  /// `sameBytes`, the shortcut before a lookup, says yes only for the same UTF-8 bytes: equal texts made apart
  /// (one object or two, short and long, eight bytes and a tail), and never for texts that differ in a byte or a
  /// length, nor for canonically equal texts of other bytes (those are left to the lookup's `==`).
  @Test func sameBytesIsByteEquality() {
    let texts = [
      "", "a", "USD", "1000000123456789", "10000001234567890", "com.example.pro.monthly", "com.example.pro.yearly",
      "com.example.pro.monthlz", "caf\u{E9}", "cafe\u{301}", String(repeating: "x", count: 40),
      String(repeating: "x", count: 39) + "y",
    ]
    for a in texts {
      for b in texts {
        let apart = String(decoding: Array(b.utf8), as: UTF8.self)
        #expect(sameBytes(a, b) == (Array(a.utf8) == Array(b.utf8)), "\(a) \(b)")
        #expect(sameBytes(a, apart) == (Array(a.utf8) == Array(b.utf8)), "\(a) \(b) made apart")
      }
    }
    #expect("caf\u{E9}" == "cafe\u{301}")
    #expect(!sameBytes("caf\u{E9}", "cafe\u{301}"))
  }

  @Test func grantFieldsReadARevocationAsItIs() throws {
    // Every order of the revocation, its reversal and the moment, both kinds, with texts that are not read.
    let at = { (ms: Int64) in ms.timestamp }
    for date in [100, 200] as [Int64] {
      for reversed in [nil, 50, 100, 150, 250] as [Int64?] {
        for excludes in [false, true] {
          let r = Revocation(
            date: at(date), reason: .unrecognized("7"), type: "REFUND_FULL", excludesUpgrade: excludes,
            reversedAt: reversed.map(at))
          for time in [0, 99, 100, 101, 150, 200, 300] as [Int64] {
            let moments = ReceiptRules.RevocationMoments(r)
            #expect(moments.isInForce(at: at(time)) == r.isInForce(at: at(time)), "\(date) \(reversed ?? -1) \(time)")
            #expect(moments.excludesUpgrade == r.excludesUpgrade && moments.date == r.date)
          }
        }
      }
    }
    // Whole transactions: the grant read from the buffer is the grant of the transaction as it is.
    for (name, history, catalog) in try Self.histories() {
      for time in Self.moments {
        history.transactions.withUnsafeBufferPointer { all in
          for i in all.indices {
            var t = history.transactions[i]
            let slow = GrantFields(t)
            let fast = GrantFields(all, at: i)
            #expect(
              accessGrant(of: fast, catalog: catalog, at: time) == accessGrant(of: slow, catalog: catalog, at: time))
            t.revocation = t.revocation ?? Revocation(date: time, excludesUpgrade: i % 2 == 0, reversedAt: nil)
            #expect(
              accessGrant(of: GrantFields(t), catalog: catalog, at: time)
                == Self.grantReadingTheRevocation(t, catalog: catalog, at: time), "\(name) \(i)")
          }
        }
      }
    }
  }

  /// `accessGrant` as it read the whole `Revocation` (the slow path of `RevocationMoments`).
  static func grantReadingTheRevocation(_ t: PurchaseTransaction, catalog: Catalog, at time: Timestamp) -> AccessGrant {
    guard let purchased = t.purchaseDate else { return .missingPurchaseDate }
    if purchased > time { return .notYetPurchased(purchased) }
    if let r = t.revocation, r.excludesUpgrade, r.isInForce(at: time) {
      return t.ownership == .familyShared ? .revoked(r.date) : .refunded(r.date)
    }
    if t.isUpgraded { return .upgraded }
    if let r = t.revocation, r.isInForce(at: time) {
      return t.ownership == .familyShared ? .revoked(r.date) : .refunded(r.date)
    }
    var unrevoked = t
    unrevoked.revocation = nil
    return accessGrant(of: unrevoked, catalog: catalog, at: time)
  }

  @Test func aConsideredTransactionReadsTheTransactionItWasGiven() throws {
    for (name, history, catalog) in try Self.histories().prefix(3) {
      let known = history.known(at: ReceiptShape.endOfHistory.timestamp)
      for result in entitlementStatuses(of: known, catalog: catalog) {
        let expected = known.transactions.filter { t in result.considered.contains { $0.transaction == t } }
        #expect(result.considered.map(\.transaction) == expected, "\(name) \(result.id)")
      }
    }
  }
}

extension Int64 {
  /// This many milliseconds as a timestamp (test moments are all in range).
  fileprivate var timestamp: Timestamp { Timestamp(milliseconds: self) ?? Timestamp.epoch }
}

/// `SubscriptionGroups` as it was: each new subscription linked above the root, a list as long as the
/// subscriptions to walk per transaction (the slow path `subscriptionGroupsLinkedBySizeGiveTheListsGroups` compares).
struct LinkedSubscriptionGroups {
  private var parent: [String: String] = [:]
  private var placedByID: Set<String> = []
  private var chains: [String: Set<String>] = [:]
  private var chainField: [String: String] = [:]

  init(catalog: Catalog, transactions: [PurchaseTransaction]) {
    for product in catalog.allProducts {
      guard let group = product.subscriptionGroup else { continue }
      let node = product.groupIsLocalToFile ? "c:\(product.origin)\u{0}\(group)" : "r:\(group)"
      union("p:\(product.productID)", node)
      placedByID.insert(product.productID)
    }
    for t in transactions {
      if let group = t.subscriptionGroup {
        union("p:\(t.productID)", "r:\(group)")
        placedByID.insert(t.productID)
      }
      // Only subscriptions continue a chain into a group; a one-time purchase's id is its own.
      guard resolveProductType(of: t, catalog: catalog)?.type == .autoRenewable else { continue }
      union("p:\(t.productID)", "o:\(t.chainID)")
      chains[t.productID, default: []].insert(t.chainID)
      chainField[t.productID] = t.vocabulary.originalTransactionID
    }
  }

  func group(of productID: String) -> SubscriptionGroup? {
    let start = "p:\(productID)"
    guard parent[start] != nil else { return nil }
    let root = find(start)
    var receiptIDs: [String] = []
    var catalogIDs: [String] = []
    var products: [String] = []
    for node in parent.keys where find(node) == root {
      if node.hasPrefix("r:") { receiptIDs.append(String(node.dropFirst(2))) }
      if node.hasPrefix("c:"), let id = node.split(separator: "\u{0}").last { catalogIDs.append(String(id)) }
      if node.hasPrefix("p:") { products.append(String(node.dropFirst(2))) }
    }
    var inference: GroupInference?
    if !placedByID.contains(productID), let own = chains[productID] {
      let linked = products.filter { $0 != productID && !(chains[$0] ?? []).isDisjoint(with: own) }
      inference = GroupInference(
        originalTransactionIDs: own.sorted(), linkedProductIDs: linked.sorted(),
        field: chainField[productID] ?? "original_transaction_id")
    }
    return SubscriptionGroup(
      receiptIDs: receiptIDs.sorted(), catalogIDs: catalogIDs.sorted(), productIDs: products.sorted(),
      inference: inference)
  }

  private func find(_ node: String) -> String {
    var current = node
    while let next = parent[current], next != current { current = next }
    return current
  }

  private mutating func union(_ a: String, _ b: String) {
    if parent[a] == nil { parent[a] = a }
    if parent[b] == nil { parent[b] = b }
    let ra = find(a)
    let rb = find(b)
    if ra != rb { parent[ra] = rb }
  }
}
