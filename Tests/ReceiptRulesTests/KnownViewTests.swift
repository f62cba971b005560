import ReceiptModel
import ReceiptModelTestSupport
import Testing

// GrantFields and ConsideredTransaction are read through the view as the rules read them.
@testable import ReceiptRules

/// The history known at a moment read in place (`KnownTransactions`: the data's array, positions and overrides)
/// against the copy `KnownHistory` used to build, every known transaction copied and edited: every benchmark
/// shape, three seeds, moments at the start, middle and end, and refunds and reversals on both sides of them.
struct KnownViewTests {
  /// The shapes' histories, with refunds moved about and some reversed, so that refunds and reversals fall on
  /// both sides of each moment (the shapes refund a day after the purchase, and reverse none).
  static func histories() throws -> [(name: String, history: PurchaseHistory, catalog: Catalog)] {
    try RuleFastPathTests.histories().map { name, history, catalog in
      var moved = history
      let day: Int64 = 86_400_000
      for i in moved.transactions.indices {
        guard var r = moved.transactions[i].revocation else { continue }
        r.date = Timestamp(milliseconds: r.date.milliseconds + Int64(i % 5) * 300 * day) ?? r.date
        if i % 3 != 0 { r.reversedAt = Timestamp(milliseconds: r.date.milliseconds + Int64(i % 4 + 1) * 200 * day) }
        r.excludesUpgrade = i % 2 == 0
        moved.transactions[i].revocation = r
      }
      return (name, moved, catalog)
    }
  }

  /// The fast-path tests' moments, one before every purchase (nothing known) and two more in between.
  static let moments: [Timestamp] =
    RuleFastPathTests.moments
    + [
      ReceiptShape.start - 86_400_000, ReceiptShape.start + 500 * 86_400_000, ReceiptShape.start + 1_300 * 86_400_000,
    ].compactMap {
      Timestamp(milliseconds: $0)
    }

  /// The old construction, kept as the slow path: every known transaction copied, its upgrade flag and
  /// revocation edited in the copy.
  static func copiedKnownTransactions(
    _ history: PurchaseHistory, at time: Timestamp, upgrading: [Int], purchases: DatedPurchases
  ) -> (transactions: [PurchaseTransaction], purchases: DatedPurchases) {
    let all = history.transactions
    var marked = [Bool](repeating: false, count: all.count)
    for i in upgrading { marked[i] = true }
    func isUpgraded(_ i: Int) -> Bool { all[i].isUpgraded || marked[i] }
    let upgrades = UpgradeMoments(all, purchases: purchases, isUpgraded: isUpgraded)
    var known: [PurchaseTransaction] = []
    var newPosition: [Int] = []
    for i in all.indices {
      if all[i].purchaseDate.map({ $0 > time }) ?? false {
        newPosition.append(-1)
        continue
      }
      newPosition.append(known.count)
      var t = all[i]
      t.isUpgraded = isUpgraded(i)
      if let r = t.revocation, r.date > time || r.reversedAt != nil {
        if r.date <= time, let reversed = r.reversedAt, reversed > time {
          t.revocation?.reversedAt = nil
        } else {
          t.revocation = nil
        }
      }
      if isUpgraded(i) && upgrades.moment(of: i).map({ $0 > time }) == true { t.isUpgraded = false }
      known.append(t)
    }
    return (known, known.count == all.count ? purchases : purchases.keeping(newPosition))
  }

  @Test func theViewGivesWhatTheCopyGave() throws {
    var (cut, patched, reversalsKept, refundsDropped, upgradesUndone, marked) = (0, 0, 0, 0, 0, 0)
    for (name, history, catalog) in try Self.histories() {
      let purchases = DatedPurchases(history.transactions)
      let replaced = replacedPeriods(of: history.transactions, purchases: purchases)
      for time in Self.moments {
        for upgrading in [[], replaced] {
          let view = KnownHistory(history, at: time, upgrading: upgrading, purchases: purchases)
          let slow = Self.copiedKnownTransactions(history, at: time, upgrading: upgrading, purchases: purchases)
          let what = "\(name) at \(time.iso8601), \(upgrading.count) taken as upgraded"
          #expect(view.transactions.count == slow.transactions.count, "\(what)")
          guard view.transactions.count == slow.transactions.count else { continue }
          if view.transactions.count < history.transactions.count { cut += 1 }
          for i in slow.transactions.indices {
            let (known, copied) = (view.transactions[i], slow.transactions[i])
            #expect(known == copied, "\(what): transaction \(i)")
            #expect(known.transactionID == copied.transactionID && known.productID == copied.productID)
            #expect(known.purchaseDate == copied.purchaseDate && known.expiresDate == copied.expiresDate)
            #expect(known.isUpgraded == copied.isUpgraded && view.isUpgraded(at: i) == copied.isUpgraded)
            #expect(known.revocation == copied.revocation && known.ownership == copied.ownership)
            #expect(view.transaction(at: i) == copied)
            // As the data states it: the data's transaction, the same but for what the moment changes.
            var stated = view.transactions[stated: i]
            #expect(stated == history.transactions[view.transactions.dataPosition(of: i)])
            #expect(view.transactions.revocation(at: i) == copied.revocation, "\(what): transaction \(i)")
            (stated.isUpgraded, stated.revocation) = (copied.isUpgraded, copied.revocation)
            #expect(stated == copied, "\(what): transaction \(i) as stated")
            // As the rules read it: field by field, and as a considered transaction.
            let fields = GrantFields(view.transactions, at: i)
            #expect(
              accessGrant(of: fields, catalog: catalog, at: time) == accessGrant(of: copied, catalog: catalog, at: time)
            )
            #expect(fields.isUpgraded == copied.isUpgraded, "\(what): transaction \(i)")
            #expect(fields.revocation?.reversedAt == copied.revocation?.reversedAt)
            #expect(ConsideredTransaction(view, index: i, catalog: catalog, at: time).transaction == copied)
            let o = view.transactions.overrides(at: i)
            if !o.isEmpty { patched += 1 }
            if o.contains(.withoutReversal) { reversalsKept += 1 }
            if o.contains(.withoutRevocation) { refundsDropped += 1 }
            if o.contains(.notUpgraded) { upgradesUndone += 1 }
            if o.contains(.upgraded) { marked += 1 }
          }
          RuleFastPathTests.expectIndexAgreesWithScans(view.purchases, slow.transactions, what)
          #expect(view.purchases.productNumbers == slow.purchases.productNumbers, "\(what)")
          #expect(view.purchases.chainNumbers == slow.purchases.chainNumbers, "\(what)")
          #expect(view.purchases.groupNumbers == slow.purchases.groupNumbers, "\(what)")
        }
      }
    }
    #expect(cut > 10, "moments that leave purchases out")
    #expect(patched > 100, "transactions the moment changes")
    #expect(reversalsKept > 10, "refunds whose reversal is later")
    #expect(refundsDropped > 10, "refunds later, or reversed by then")
    #expect(upgradesUndone > 10, "upgrades whose replacement is later")
    #expect(marked > 10, "replaced periods taken as upgraded")
  }

  @Test func theRulesAnswerOnTheViewAsOnTheCopy() throws {
    for (name, history, catalog) in try Self.histories() {
      let purchases = DatedPurchases(history.transactions)
      let replaced = replacedPeriods(of: history.transactions, purchases: purchases)
      for time in Self.moments {
        // The copy holds nothing later: known at `time`, it is itself.
        var copied = history
        copied.transactions =
          Self.copiedKnownTransactions(history, at: time, upgrading: replaced, purchases: purchases).transactions
        let slow = KnownHistory(copied, at: time)
        let view = knownHistory(of: history, at: time)
        for catalog in [catalog, Catalog()] {
          #expect(
            entitlementStatuses(of: view, catalog: catalog) == entitlementStatuses(of: slow, catalog: catalog),
            "\(name) at \(time.iso8601)")
          #expect(
            sharingContradictions(of: view, catalog: catalog) == sharingContradictions(of: slow, catalog: catalog))
          // Intro eligibility reads the history known at the moment without replaced periods.
          var plain = history
          plain.transactions =
            Self.copiedKnownTransactions(history, at: time, upgrading: [], purchases: purchases).transactions
          let at = EvaluationTime(time: time, source: .given)
          #expect(
            decideIntroEligibility(products: nil, history: history, catalog: catalog, at: at)
              == decideIntroEligibility(products: nil, history: plain, catalog: catalog, at: at),
            "\(name) at \(time.iso8601)")
        }
      }
    }
  }
}
