import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// Turns one document's purchase history and its entitlement results into the chart the timeline
/// renderers draw: one lane per entitlement (per product without a catalog), one bar per transaction.
///
/// The lanes' statuses and reasons are the `entitlements` command's own (with the command-line hints);
/// the bars only restate what the data says, so a bar never contradicts the rule: a transaction the
/// rule treats as upgraded is drawn upgraded even when the data also gives a cancellation date.
enum TimelineChartBuilding {
  /// The chart of `history` evaluated at `evaluation`.
  /// - Parameters:
  ///   - history: the decoded document.
  ///   - results: `entitlementStatuses(of: history, ...)` at `evaluation.time`, hints already added.
  ///   - catalog: product facts, for the end of a bar whose transaction has no expiry date.
  ///   - evaluation: the moment asked about and where it came from.
  ///   - label: how the input is named (`file.json`, `batch.ndjson:3`).
  /// - Returns: the chart, lanes in the results' order.
  static func chart(
    history: PurchaseHistory, results: [EntitlementResult], catalog: Catalog, evaluation: EvaluationTime,
    label: String
  ) -> TimelineChart {
    var undrawn: [String] = []
    var lanes: [TimelineLane] = []
    for result in results {
      var bars: [TimelineBar] = []
      for considered in result.considered {
        let t = considered.transaction
        guard let bar = bar(t, history: history, catalog: catalog) else {
          if !undrawn.contains(t.transactionID) { undrawn.append(t.transactionID) }
          continue
        }
        bars.append(bar)
      }
      lanes.append(
        TimelineLane(
          label: result.id, status: result.state.rawValue, tone: tone(result.state), reason: result.reason, bars: bars))
    }
    var extra: [TimelineField] = []
    if let bundle = history.provenance.receipt?.bundleID ?? history.provenance.notification?.bundleID {
      extra.append(TimelineField("bundle id", bundle))
    }
    if let type = history.provenance.notification?.notificationType {
      extra.append(TimelineField("notification", type))
    }
    // An undrawn transaction is one of the history's, so the history has a first transaction to name fields.
    if !undrawn.isEmpty, let vocabulary = history.transactions.first?.vocabulary {
      extra.append(
        TimelineField(
          "not drawn",
          "transaction \(undrawn.joined(separator: ", ")) (no \(vocabulary.purchaseDate), so no place on the axis)"))
    }
    let provenance = TimelineProvenance(
      file: label, inputKind: history.provenance.format.description, environment: history.environment,
      signature: history.provenance.signatureCheck, extra: extra)
    return TimelineChart(
      title: label, provenance: provenance, evaluationMoment: evaluation.time,
      evaluationMomentSource: EntitlementsTextRenderer.sourceDescription(evaluation.source), lanes: lanes)
  }

  /// The status word's colour, as `entitlements` colours it.
  static func tone(_ state: EntitlementState) -> TimelineTone {
    switch state {
    case .active: .good
    case .gracePeriod, .billingRetry, .unknown: .warning
    case .notPurchased: .neutral
    case .expired, .refunded, .revoked, .upgraded: .bad
    }
  }

  /// One transaction's bar; nil when it has no purchase date and so no place on the axis.
  static func bar(_ t: PurchaseTransaction, history: PurchaseHistory, catalog: Catalog) -> TimelineBar? {
    guard let start = t.purchaseDate else { return nil }
    // A signed refund stands beside an upgrade; a refund Apple reversed took nothing away.
    let cancellation: TimelineCancellation? =
      (t.isUpgraded && t.revocation?.excludesUpgrade != true) || t.revocation?.reversedAt != nil
      ? nil
      : t.revocation.map { r in
        TimelineCancellation(
          date: r.date, kind: t.ownership == .familyShared ? .revocation : .refund,
          detail: r.reason.map { "\(describe($0)), \(t.vocabulary.revocationReason) \($0.code)" })
      }
    return TimelineBar(
      transactionID: t.transactionID, productID: t.productID, start: start,
      end: end(of: t, purchased: start, catalog: catalog), ownership: ownership(t.ownership), period: period(t.offer),
      cancellation: cancellation, zones: zones(of: t, history: history), upgraded: t.isUpgraded,
      fields: fields(t))
  }

  /// The expiry date; for a transaction without one, what the catalog says about its product.
  static func end(of t: PurchaseTransaction, purchased: Timestamp, catalog: Catalog) -> TimelineBarEnd {
    if let expires = t.expiresDate { return .expires(expires) }
    switch resolveProductType(of: t, catalog: catalog)?.type {
    case .nonConsumable?:
      return .noExpiry
    case .consumable?:
      // Used up when bought: a mark at the purchase, never a bar to the right edge.
      return .expires(purchased)
    case .nonRenewing?:
      guard let duration = catalog.product(t.productID)?.duration else { return .unknown }
      return duration.added(to: purchased).map(TimelineBarEnd.expires) ?? .noExpiry
    case .autoRenewable?, nil:
      return .unknown
    }
  }

  static func ownership(_ ownership: Ownership) -> TimelineOwnership {
    switch ownership {
    case .purchased: .owned
    case .familyShared: .familyShared
    case .unknown, .unrecognized: .unknown
    }
  }

  /// A free trial (of any offer), an introductory price, or the regular price.
  static func period(_ offer: OfferUse?) -> TimelinePeriod {
    guard let offer else { return .regular }
    if offer.isFreeTrial { return .freeTrial }
    return offer.kind == .introductory ? .introductoryOffer : .regular
  }

  /// Grace-period and billing-retry zones from the chain's renewal info, on the chain's newest period
  /// only: the renewal info speaks of the renewal after it. Billing retry runs from the expiry, and the
  /// grace period (drawn over it) is its first part.
  static func zones(of t: PurchaseTransaction, history: PurchaseHistory) -> [TimelineZone] {
    guard let expires = t.expiresDate, let renewal = history.renewal(originalTransactionID: t.chainID) else {
      return []
    }
    let newest = history.transactions.filter { $0.chainID == t.chainID }.compactMap(\.expiresDate).max()
    guard newest == expires else { return [] }
    var zones: [TimelineZone] = []
    if renewal.isInBillingRetryPeriod == true { zones.append(TimelineZone(kind: .billingRetry, start: expires)) }
    if let grace = renewal.gracePeriodExpiresDate, grace > expires {
      zones.append(TimelineZone(kind: .gracePeriod, start: expires, end: grace))
    }
    return zones
  }

  /// The transaction's fields under the data's own names, for the hover title and the data table.
  static func fields(_ t: PurchaseTransaction) -> [TimelineField] {
    let names = t.vocabulary
    var out = [TimelineField(names.transactionID, t.transactionID)]
    if let original = t.originalTransactionID { out.append(TimelineField(names.originalTransactionID, original)) }
    out.append(TimelineField("product", t.productID))
    if let p = t.purchaseDate { out.append(TimelineField(names.purchaseDate, p.iso8601)) }
    if let e = t.expiresDate { out.append(TimelineField(names.expiresDate, e.iso8601)) }
    out.append(
      TimelineField(names.ownership, t.ownership.raw + (t.ownershipAssumed ? " (assumed: the field is absent)" : "")))
    if let r = t.revocation {
      out.append(TimelineField(names.revocationDate, r.date.iso8601))
      if let reason = r.reason { out.append(TimelineField(names.revocationReason, reason.code)) }
      if let reversed = r.reversedAt { out.append(TimelineField("refund reversed", reversed.iso8601)) }
    }
    if let offer = t.offer { out.append(TimelineField("offer", describe(offer))) }
    if t.isUpgraded { out.append(TimelineField(names.isUpgraded, "true")) }
    if let group = t.subscriptionGroup { out.append(TimelineField(names.subscriptionGroup, group)) }
    if let quantity = t.quantity, quantity != 1 { out.append(TimelineField("quantity", String(quantity))) }
    if let price = t.price { out.append(TimelineField("price", "\(price.amount.text) \(price.currency)")) }
    if !t.sources.names.isEmpty { out.append(TimelineField("found in", t.sources.names.joined(separator: ", "))) }
    return out
  }

  static func describe(_ reason: RevocationReason) -> String {
    switch reason {
    case .appIssue: "the customer reported a problem with the app"
    case .other: "another reason"
    case .unrecognized: "a code Apple does not document"
    }
  }

  static func describe(_ offer: OfferUse) -> String {
    let kind: String
    switch offer.kind {
    case .introductory: kind = "introductory offer"
    case .promotional: kind = "promotional offer"
    case .offerCode: kind = "offer code"
    case .winBack: kind = "win-back offer"
    case .unrecognized(let raw): kind = "offer type \(raw)"
    }
    var pricing: String?
    switch offer.pricing {
    case .freeTrial?: pricing = "free trial"
    case .payAsYouGo?: pricing = "pay as you go"
    case .payUpFront?: pricing = "pay up front"
    case .introductoryPrice?: pricing = "reduced price"
    case nil: pricing = nil
    }
    return kind + (pricing.map { ", " + $0 } ?? "") + (offer.identifier.map { " (" + $0 + ")" } ?? "")
  }
}
