import ReceiptModel

/// Everything `entitlements` answers about one history at one moment: each entitlement's status, Apple's own
/// status beside it, and what a support person should hear about besides.
public struct EntitlementsAnswer: Sendable {
  /// Each entitlement's status, as `entitlementStatuses` gives them.
  public var results: [EntitlementResult]
  /// Apple's status for the subscription that decided each result, compared with it (nil where Apple gives
  /// none); one per result.
  public var appleStatuses: [StoreStatusComparison?]
  /// Apple's statuses of subscriptions none of whose transactions could be read.
  public var unreadStatuses: [StoreStatusWithoutTransaction]
  /// Why there is nothing to answer, when no purchase gives an entitlement (nil otherwise).
  public var nothing: String?
  /// Family Sharing contradictions, catalog disagreements, each result Apple's status disagrees with, and each
  /// status without a readable transaction.
  public var findings: [String]
  /// Whether buying the app before it went free grants the catalog's `paid_app` entitlement (nil without one); its
  /// result's state and reason include it.
  public var paidApp: PaidAppDecision?

  /// - Parameters:
  ///   - results: each entitlement's status.
  ///   - appleStatuses: Apple's status compared with each result (nil where Apple gives none).
  ///   - unreadStatuses: Apple's statuses of subscriptions without a readable transaction.
  ///   - nothing: why there is nothing to answer, when there is not.
  ///   - findings: what a support person should hear about besides.
  ///   - paidApp: the paid-app decision, when the catalog has one.
  public init(
    results: [EntitlementResult], appleStatuses: [StoreStatusComparison?] = [],
    unreadStatuses: [StoreStatusWithoutTransaction] = [], nothing: String? = nil, findings: [String] = [],
    paidApp: PaidAppDecision? = nil
  ) {
    self.results = results
    self.appleStatuses = appleStatuses
    self.unreadStatuses = unreadStatuses
    self.nothing = nothing
    self.findings = findings
    self.paidApp = paidApp
  }
}

/// The whole `entitlements` answer for `history` at `time`, with `catalog`'s products and entitlements (§7.2-§7.4,
/// §7.7 [S30][S36][S33]: each rule cites its own).
public func answerEntitlements(of history: PurchaseHistory, catalog: Catalog, at time: Timestamp) -> EntitlementsAnswer
{
  // Built once: the results and the Family Sharing contradictions read the same table and catalog entries.
  let table = PurchaseTable(history)
  let entries = catalogEntries(of: table, catalog)
  let products = entitlementStatuses(of: table, entries: entries, catalog: catalog, at: time)
  var (results, decided) = (products, products)
  let paidApp = catalog.paidApp.map { paidAppDecision($0, history: history, at: time) }
  if let terms = catalog.paidApp, let paidApp {
    results = joiningPaidApp(paidApp, terms: terms, to: results, table: table, catalog: catalog, at: time)
    // Apple's status is a subscription's: the paid-app entitlement's products' answer is what it is compared with.
    let own = products.first { $0.id == terms.entitlement }
    decided = results.map { $0.id == terms.entitlement ? own ?? $0 : $0 }
  }
  // Each result's fields are read where it lies: a result is not copied to be compared.
  var apple: [StoreStatusComparison?] = []
  var disagreements: [String] = []
  apple.reserveCapacity(decided.count)
  for i in decided.indices {
    let comparison = compareWithStoreStatus(
      decided[i].state, chain: decided[i].decidingRow?.chainID, history: history, at: time)
    if let why = comparison?.explanation {
      disagreements.append("\(decided[i].id): receipt-tool says \(decided[i].state.rawValue), but \(why)")
    }
    apple.append(comparison)
  }
  let unread = storeStatusesWithoutTransaction(in: history)
  let findings =
    sharingContradictions(of: table, entries: entries, at: time) + catalogDisagreements(of: history, catalog: catalog)
    + disagreements + unread.map(\.sentence)
  let nothing =
    results.isEmpty
    ? nothingToAnswerReason(of: history, at: time, kind: "non-consumable or subscription purchase") : nil
  return EntitlementsAnswer(
    results: results, appleStatuses: apple, unreadStatuses: unread, nothing: nothing, findings: findings,
    paidApp: paidApp)
}
