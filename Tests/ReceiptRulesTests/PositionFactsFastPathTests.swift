import ReceiptModel
import ReceiptModelTestSupport
import Testing

// The rules' replacing purchases are internal.
@testable import ReceiptRules

/// The known history read from the index's per-position facts and the ids' keys (FAST-PATHS.md) against the
/// transactions they are read from: the facts are each transaction's own fields, the keys tell ids apart as their
/// texts do, and a history indexed without facts, or known without keys, is the same history.
struct PositionFactsFastPathTests {
  /// Transactions the shapes do not make: undated, without expiry, revoked, every ownership and stated type.
  static func oddTransactions() -> [PurchaseTransaction] {
    let ownerships: [Ownership] = [.purchased, .familyShared, .unknown, .unrecognized("FRIEND"), .unrecognized("X")]
    let types: [ProductType?] = [nil] + ProductType.allCases
    return (0..<40).map { n in
      var t = PurchaseTransaction(
        transactionID: "\(900 + n)", originalTransactionID: n % 3 == 0 ? nil : "\(900 + n % 4)",
        productID: "p\(n % 3)", ownership: ownerships[n % ownerships.count],
        purchaseDate: n % 7 == 0 ? nil : Timestamp(milliseconds: 1_600_000_000_000 + Int64(n % 9) * 86_400_000),
        expiresDate: n % 2 == 0 ? nil : Timestamp(milliseconds: 1_600_000_000_000 + Int64(n % 9 + 30) * 86_400_000),
        revocation: n % 5 == 0 ? Revocation(date: Timestamp.epoch, reason: .unrecognized("7"), type: "T") : nil,
        isUpgraded: n % 4 == 1, subscriptionGroup: n % 6 == 0 ? nil : "g\(n % 2)", productType: types[n % types.count],
        vocabulary: .test)
      if n % 11 == 0 { t.purchaseDate = Timestamp(unchecked: -5) }
      return t
    }
  }

  /// The facts as the transaction's fields say them.
  static func expectFacts(_ f: PositionFacts, of t: PurchaseTransaction, _ name: String) {
    #expect(f.purchaseDate == t.purchaseDate, "\(name)")
    #expect(f.expiresDate == t.expiresDate, "\(name)")
    #expect(f.isUpgraded == t.isUpgraded && f.isRevoked == (t.revocation != nil), "\(name)")
    #expect(f.productType == t.productType, "\(name)")
    let kind: PositionFacts.OwnershipKind =
      switch t.ownership {
      case .purchased: .purchased
      case .familyShared: .familyShared
      case .unknown: .unknown
      case .unrecognized: .unrecognized
      }
    #expect(f.ownership == kind, "\(name)")
  }

  static func histories() throws -> [(name: String, history: PurchaseHistory)] {
    // Hand-built: no format makes these.
    var odd = PurchaseHistory(format: .handBuilt)
    odd.transactions = oddTransactions()
    return try RuleFastPathTests.histories().map { ($0.name, $0.history) }
      + RuleFastPathTests.historiesWithRepeatedIDs()
      + [("odd transactions", odd)]
  }

  @Test func factsAreEachTransactionsOwnFields() throws {
    var checked = 0
    for (name, history) in try Self.histories() {
      let all = history.transactions
      let purchases = DatedPurchases(all)
      #expect(purchases.facts == PositionFacts.of(all), "\(name)")
      for i in all.indices { Self.expectFacts(purchases.facts[i], of: all[i], "\(name) \(i)") }
      // Narrowed to a moment: the facts of the known transactions, in their order.
      for time in RuleFastPathTests.moments {
        let known = knownHistory(of: history, at: time)
        #expect(known.purchases.facts.count == known.transactions.count, "\(name)")
        for k in known.transactions.indices {
          Self.expectFacts(known.purchases.facts[k], of: known.transactions[stated: k], "\(name) at \(time) \(k)")
          checked += 1
        }
      }
    }
    #expect(checked > 10_000)
  }

  @Test func anIndexWithoutFactsKnowsTheSameHistory() throws {
    var compared = 0
    for (name, history) in try Self.histories() {
      let all = history.transactions
      let full = DatedPurchases(all)
      // The same index built from its numbers: no facts, so every rule reads them from the transactions.
      let bare = DatedPurchases(
        chainNumbers: full.chainNumbers, groupNumbers: full.groupNumbers, productNumbers: full.productNumbers
      ) { all[$0].purchaseDate }
      #expect(bare.facts.isEmpty)
      let withFacts = replacingPurchases(of: all, purchases: full)
      let without = replacingPurchases(of: all, purchases: bare)
      #expect(withFacts.periods == without.periods && withFacts.by == without.by, "\(name)")
      for time in RuleFastPathTests.moments {
        let a = KnownHistory(history, at: time, upgrading: withFacts.periods, replacedBy: withFacts.by, purchases: full)
        let b = KnownHistory(history, at: time, upgrading: without.periods, replacedBy: without.by, purchases: bare)
        #expect(Array(a.transactions) == Array(b.transactions), "\(name) at \(time.iso8601)")
        #expect(
          a.transactions.indices.map { a.transactions.overrides(at: $0) }
            == b.transactions.indices.map { b.transactions.overrides(at: $0) }, "\(name) at \(time.iso8601)")
        compared += a.transactions.count
      }
    }
    #expect(compared > 10_000)
  }

  @Test func idsComparedByTheirKeysAreEqualAsTheirTexts() {
    // Each text twice, in Strings made apart; digits with and without a leading zero, 19 and 20 digits (20 is
    // not numeric), text, é as one scalar and as two, empty.
    let texts = [
      "12", "012", "0", "00", "1000000000000000001", "9999999999999999999", "99999999999999999999",
      "18446744073709551615", "1000000000000000", "2000000000000000", "abc", "12a", "caf\u{E9}", "cafe\u{301}", "",
    ]
    let ids = texts.flatMap { [$0, String(decoding: Array($0.utf8), as: UTF8.self)] }
    let all = ids.map { PurchaseTransaction(transactionID: $0, productID: "p", vocabulary: .test) }
    let keys = TransactionIDKeys.of(all)
    #expect(keys[0] == 12 && keys[2] == TransactionIDKeys.textual && keys[12] == TransactionIDKeys.textual)
    all.withUnsafeBufferPointer { all in
      keys.withUnsafeBufferPointer { keys in
        for a in all.indices {
          for b in all.indices {
            let same = all[a].transactionID == all[b].transactionID
            #expect(TransactionIDKeys.same(a, b, keys, all) == same, "\(ids[a]) \(ids[b])")
            // Without keys: the texts.
            #expect(TransactionIDKeys.same(a, b, UnsafeBufferPointer(start: nil, count: 0), all) == same)
          }
        }
      }
    }
  }

  @Test func upgradeMomentsByKeysGiveWhatTextsGive() throws {
    var moments = 0
    for (name, history) in try Self.histories() {
      let all = history.transactions
      let purchases = DatedPurchases(all)
      var marked = [Bool](repeating: false, count: all.count)
      for i in replacedPeriods(of: all, purchases: purchases) { marked[i] = true }
      let isUpgraded = { (i: Int) in all[i].isUpgraded || marked[i] }
      for time in RuleFastPathTests.moments + [nil] {
        let byKeys = UpgradeMoments(
          all, facts: purchases.facts, keys: TransactionIDKeys.of(all), purchases: purchases, boughtBy: time,
          isUpgraded: isUpgraded)
        let byTexts = UpgradeMoments(
          all, facts: [], keys: [], purchases: purchases, boughtBy: time, isUpgraded: isUpgraded)
        #expect(byKeys == byTexts, "\(name) at \(time?.iso8601 ?? "no moment")")
        moments += all.indices.filter { byKeys.moment(of: $0) != nil }.count
      }
    }
    #expect(moments > 1_000)
  }
}
