import ReceiptModel

/// What the `timeline` renderers draw: one input document's purchase history on a shared time axis.
///
/// A plain value built by the caller (from the transactions and the entitlement rules); the renderers
/// decide nothing about entitlements, they only draw what the chart says. Every string may come from
/// the input and is escaped by each renderer for its medium.
package struct TimelineChart: Hashable, Sendable {
  /// A heading for the chart, e.g. the file name or "customer 1234".
  package var title: String
  /// Where the data came from.
  package var provenance: TimelineProvenance
  /// The moment the statuses were evaluated at, drawn as a vertical marker.
  package var evaluationMoment: Timestamp
  /// How that moment was chosen ("given with --as-of", "the receipt's request_date"), or nil.
  package var evaluationMomentSource: String?
  /// One lane per entitlement (or per product without a catalog), drawn in this order.
  package var lanes: [TimelineLane]

  package init(
    title: String, provenance: TimelineProvenance = TimelineProvenance(), evaluationMoment: Timestamp,
    evaluationMomentSource: String? = nil, lanes: [TimelineLane]
  ) {
    self.title = title
    self.provenance = provenance
    self.evaluationMoment = evaluationMoment
    self.evaluationMomentSource = evaluationMomentSource
    self.lanes = lanes
  }

  /// Every bar of every lane, in lane order.
  package var allBars: [TimelineBar] { lanes.flatMap(\.bars) }
}

/// The input's provenance, shown above the chart.
package struct TimelineProvenance: Hashable, Sendable {
  /// The file name or path as the user gave it, "-" for standard input, with a line number in a batch.
  package var file: String?
  /// What the document is, e.g. "verifyReceipt response", "App Store Server Notification v2".
  package var inputKind: String?
  /// "Production", "Sandbox", ...
  package var environment: String?
  /// The document's signature verdict; nil when not given.
  package var signature: SignatureCheck?
  /// Anything else worth stating (label, value), e.g. ("bundle id", "com.acme.notes").
  package var extra: [TimelineField]

  package init(
    file: String? = nil, inputKind: String? = nil, environment: String? = nil, signature: SignatureCheck? = nil,
    extra: [TimelineField] = []
  ) {
    self.file = file
    self.inputKind = inputKind
    self.environment = environment
    self.signature = signature
    self.extra = extra
  }

  /// The provenance as (label, value) pairs in display order; the signature line only where it applies.
  package var fields: [TimelineField] {
    var out: [TimelineField] = []
    if let file { out.append(TimelineField("file", file)) }
    if let inputKind { out.append(TimelineField("input", inputKind)) }
    if let environment { out.append(TimelineField("environment", environment)) }
    if let signature { out.append(TimelineField("signature", signature.summary)) }
    if let device = signature?.device { out.append(TimelineField("device", device.summary)) }
    return out + extra
  }
}

/// A label and a value, e.g. one field of a transaction for its hover title.
package struct TimelineField: Hashable, Sendable {
  package var name: String
  package var value: String

  package init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// How a lane's status word is coloured: the renderers know no entitlement states.
package enum TimelineTone: String, Hashable, Sendable {
  case good, warning, bad, neutral
}

/// One entitlement (or product): its transactions and its status at the evaluation moment.
package struct TimelineLane: Hashable, Sendable {
  /// The entitlement id, or the product id without a catalog.
  package var label: String
  /// The status word, as `entitlements` prints it (`active`, `revoked`, `grace_period`, ...).
  package var status: String
  /// The colour of the status word.
  package var tone: TimelineTone
  /// The sentence explaining the status, as `entitlements` prints it.
  package var reason: String
  /// One bar per transaction; the renderers sort them by start and stack overlapping ones.
  package var bars: [TimelineBar]

  package init(label: String, status: String, tone: TimelineTone = .neutral, reason: String, bars: [TimelineBar]) {
    self.label = label
    self.status = status
    self.tone = tone
    self.reason = reason
    self.bars = bars
  }
}

/// One transaction drawn from its purchase to its expiry.
package struct TimelineBar: Hashable, Sendable {
  package var transactionID: String
  package var productID: String
  /// The purchase date.
  package var start: Timestamp
  /// The expiry, or why there is none.
  package var end: TimelineBarEnd
  package var ownership: TimelineOwnership
  /// Free trial, introductory offer or a regular price.
  package var period: TimelinePeriod
  /// A refund or revocation, drawn as a marker at its date; the bar stops there.
  package var cancellation: TimelineCancellation?
  /// Grace-period and billing-retry zones from the renewal info, usually after `end`.
  package var zones: [TimelineZone]
  /// True when an upgrade to another product superseded this transaction.
  package var upgraded: Bool
  /// The transaction's fields (label, value) for the hover title and the data table.
  package var fields: [TimelineField]

  package init(
    transactionID: String, productID: String, start: Timestamp, end: TimelineBarEnd,
    ownership: TimelineOwnership = .owned, period: TimelinePeriod = .regular,
    cancellation: TimelineCancellation? = nil, zones: [TimelineZone] = [], upgraded: Bool = false,
    fields: [TimelineField] = []
  ) {
    self.transactionID = transactionID
    self.productID = productID
    self.start = start
    self.end = end
    self.ownership = ownership
    self.period = period
    self.cancellation = cancellation
    self.zones = zones
    self.upgraded = upgraded
    self.fields = fields
  }

  /// The expiry date, nil when the bar is open-ended.
  package var expiry: Timestamp? {
    if case .expires(let t) = end { return t }
    return nil
  }

  /// Where access from this transaction stopped (the cancellation if earlier than the expiry), nil when open.
  package var effectiveEnd: Timestamp? {
    switch (expiry, cancellation?.date) {
    case (let e?, let c?): return min(e, max(c, start))
    case (nil, let c?): return max(c, start)
    case (let e?, nil): return max(e, start)
    case (nil, nil): return nil
    }
  }
}

/// How a bar ends.
package enum TimelineBarEnd: Hashable, Sendable {
  /// An expiry date.
  case expires(Timestamp)
  /// A purchase that never expires (non-consumable, non-renewing without end): drawn to the right edge.
  case noExpiry
  /// A subscription whose expiry the input does not give: drawn to the right edge and flagged.
  case unknown
}

/// Whose purchase a bar is.
package enum TimelineOwnership: String, Hashable, Sendable, CaseIterable {
  case owned
  case familyShared = "family-shared"
  case unknown = "ownership-unknown"
}

/// The price period of a transaction.
package enum TimelinePeriod: String, Hashable, Sendable, CaseIterable {
  case regular
  case freeTrial = "trial"
  case introductoryOffer = "intro"
}

/// A refund or revocation.
package struct TimelineCancellation: Hashable, Sendable {
  package enum Kind: String, Hashable, Sendable, CaseIterable {
    /// Apple refunded the purchase.
    case refund
    /// Access was withdrawn without a refund, e.g. the family organiser stopped sharing.
    case revocation
  }

  package var date: Timestamp
  package var kind: Kind
  /// E.g. "cancellation_reason 1 (issue in the app)"; nil when the input says nothing more.
  package var detail: String?

  package init(date: Timestamp, kind: Kind, detail: String? = nil) {
    self.date = date
    self.kind = kind
    self.detail = detail
  }
}

/// A period from the renewal info during which access continues (grace) or Apple retries billing.
package struct TimelineZone: Hashable, Sendable {
  package enum Kind: String, Hashable, Sendable, CaseIterable {
    case gracePeriod = "grace-period"
    case billingRetry = "billing-retry"
  }

  package var kind: Kind
  package var start: Timestamp
  /// Nil while it is still going on: drawn to the evaluation moment.
  package var end: Timestamp?

  package init(kind: Kind, start: Timestamp, end: Timestamp? = nil) {
    self.kind = kind
    self.start = start
    self.end = end
  }
}
