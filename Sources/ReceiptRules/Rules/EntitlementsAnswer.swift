import ReceiptModel

/// Everything `entitlements` answers about one history at one moment: each entitlement's status, Apple's own
/// status beside it, and what a support person should hear about besides.
public struct EntitlementsAnswer: Sendable {
  /// Each entitlement's status, as `entitlementStatuses` gives them.
  public var results: [EntitlementResult]
  /// Apple's status for the subscription that decided each result, compared with it (nil where Apple gives
  /// none); one per result.
  public var appleStatuses: [StoreStatusComparison?]
  /// Family Sharing contradictions, catalog disagreements, and each result Apple's status disagrees with.
  public var findings: [String]

  /// - Parameters:
  ///   - results: each entitlement's status.
  ///   - appleStatuses: Apple's status compared with each result (nil where Apple gives none).
  ///   - findings: what a support person should hear about besides.
  public init(results: [EntitlementResult], appleStatuses: [StoreStatusComparison?] = [], findings: [String] = []) {
    self.results = results
    self.appleStatuses = appleStatuses
    self.findings = findings
  }
}

/// The whole `entitlements` answer for `history` at `time`, with `catalog`'s products and entitlements.
public func answerEntitlements(of history: PurchaseHistory, catalog: Catalog, at time: Timestamp) -> EntitlementsAnswer
{
  let results = entitlementStatuses(of: history, catalog: catalog, at: time)
  let apple = results.map { compareWithStoreStatus($0, history: history, at: time) }
  let disagreements = zip(results, apple).compactMap { r, c in
    c?.explanation.map { "\(r.id): receipt-tool says \(r.state.rawValue), but \($0)" }
  }
  let findings =
    sharingContradictions(of: history, catalog: catalog, at: time) + catalogDisagreements(of: history, catalog: catalog)
    + disagreements
  return EntitlementsAnswer(results: results, appleStatuses: apple, findings: findings)
}
