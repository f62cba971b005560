import ReceiptModel
import ReceiptRules

/// `revenue`'s report made in parts, one core each: the command cuts the ledger's positions into parts, the rule
/// makes each part's report (`PurchaseLedger.report(of:inPurchaseOrder:...)`), and the parts are summed here. The
/// sum is the one pass's report exactly; when it may not be, there is no sum and the caller makes the one pass.
///
/// Without proceeds no fact of a transaction needs the sales before it, so the positions are cut in the order the
/// ledger keeps them (each part read in that order: no sort, and no cache miss per transaction). With proceeds the
/// commission year counts a subscription's paid service before each sale, so each subscription chain goes whole to
/// one part (by its chain number), and each part is read in purchase order.
///
/// Without a negative price every total but proceeds only grows, so a part or the sum overflows exactly when one
/// pass does. Proceeds also fall (refunds, upgrade prorations): there is no sum when they could have left Int64
/// in some order. On any error there is no sum either, so the error is the one the one pass meets first.
struct RevenueParts {
  let ledger: PurchaseLedger
  let commission: CommissionPlan
  /// Each part's positions, ascending.
  let positions: [[Int]]
  /// The ledger's upgrade moments and, with proceeds, its chain numbers: storage facts every part reads.
  let upgrades: [Timestamp?]
  let chains: [Int32]

  /// `count` parts of `ledger`; nil when the report is made in one pass (too few transactions, or a negative
  /// stated price).
  init?(_ ledger: PurchaseLedger, count: Int, commission: CommissionPlan) {
    let total = ledger.distinctTransactions
    guard count >= 1, total >= count, !ledger.hasNegativeStatedPrice else { return nil }
    (self.ledger, self.commission) = (ledger, commission)
    guard commission != .none else {
      (upgrades, chains) = (ledger.upgradeMoments(), [])
      positions = (0..<count).map { i in Array(total * i / count..<total * (i + 1) / count) }
      return
    }
    chains = ledger.chainNumbers()
    upgrades = ledger.upgradeMoments(chains: chains)
    var parts = [[Int]](repeating: [], count: count)
    for i in parts.indices { parts[i].reserveCapacity(total / count + total / 8) }
    // Chains are numbered in the order first met, so this deals them out in turn.
    for p in 0..<total { parts[Int(chains[p]) % count].append(p) }
    positions = parts
  }

  /// The report of part `i` alone.
  func report(ofPart i: Int, catalog: Catalog, grouping: RevenueGrouping, range: PurchaseDateRange)
    throws(ReceiptError) -> RevenueReport
  {
    try ledger.report(
      of: positions[i], inPurchaseOrder: commission != .none, upgrades: upgrades, chains: chains, catalog: catalog,
      grouping: grouping, range: range,
      commission: commission)
  }

  /// Every part's report, one core each, summed (`sum`).
  func report(catalog: Catalog, grouping: RevenueGrouping, range: PurchaseDateRange) -> RevenueReport? {
    let reports = Cores.map(Array(positions.indices)) { i in
      try? report(ofPart: i, catalog: catalog, grouping: grouping, range: range)
    }
    guard var sum = Self.sum(reports) else { return nil }
    sum.counts.duplicatesMerged = ledger.duplicatesMerged
    return sum
  }

  /// The parts' reports summed; nil when a part failed (nil) or a sum overflows, or when proceeds could have: one
  /// pass adds a currency's sales, refunds and prorations in another order than the parts do, and proceeds fall
  /// by at most its refunds and estimated proration refunds and rise by at most its gross, so only when those fit
  /// is every order's sum inside Int64.
  static func sum(_ reports: [RevenueReport?]) -> RevenueReport? {
    guard var sum = reports.first ?? nil else { return nil }
    do throws(ReceiptError) {
      for other in reports.dropFirst() {
        guard let other else { return nil }
        try sum.merge(other)
      }
    } catch {
      return nil
    }
    let couldOverflow = sum.currencies.contains {
      $0.total.refunds.addingReportingOverflow($0.total.estimatedProrationRefunds).overflow
    }
    return sum.hasProceeds && couldOverflow ? nil : sum
  }
}
