import ReceiptModel

/// What the `timeline` renderers draw: one input document's purchase history on a shared time axis.
///
/// A plain value built by the caller (from the transactions and the entitlement rules); the renderers
/// decide nothing about entitlements, they only draw what the chart says. Every string may come from
/// the input and is escaped by each renderer for its medium.
public struct TimelineChart: Hashable, Sendable {
  /// A heading for the chart, e.g. the file name or "customer 1234".
  public var title: String
  /// Where the data came from.
  public var provenance: TimelineProvenance
  /// The moment the statuses were evaluated at, drawn as a vertical marker.
  public var evaluationMoment: Timestamp
  /// How that moment was chosen ("given with --as-of", "the receipt's request_date"), or nil.
  public var evaluationMomentSource: String?
  /// One lane per entitlement (or per product without a catalog), drawn in this order.
  public var lanes: [TimelineLane]

  public init(
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
  public var allBars: [TimelineBar] { lanes.flatMap(\.bars) }
}

/// The input's provenance, shown above the chart.
public struct TimelineProvenance: Hashable, Sendable {
  /// The file name or path as the user gave it, "-" for standard input, with a line number in a batch.
  public var file: String?
  /// What the document is, e.g. "verifyReceipt response", "App Store Server Notification v2".
  public var inputKind: String?
  /// "Production", "Sandbox", ...
  public var environment: String?
  /// False prints "signature not verified"; nil when the input carries no signature at all.
  public var signatureVerified: Bool?
  /// Anything else worth stating (label, value), e.g. ("bundle id", "com.acme.notes").
  public var extra: [TimelineField]

  public init(
    file: String? = nil, inputKind: String? = nil, environment: String? = nil, signatureVerified: Bool? = nil,
    extra: [TimelineField] = []
  ) {
    self.file = file
    self.inputKind = inputKind
    self.environment = environment
    self.signatureVerified = signatureVerified
    self.extra = extra
  }

  /// The provenance as (label, value) pairs in display order; the signature line only where it applies.
  public var fields: [TimelineField] {
    var out: [TimelineField] = []
    if let file { out.append(TimelineField("file", file)) }
    if let inputKind { out.append(TimelineField("input", inputKind)) }
    if let environment { out.append(TimelineField("environment", environment)) }
    if let signatureVerified {
      out.append(TimelineField("signature", signatureVerified ? "verified" : "signature not verified"))
    }
    return out + extra
  }
}

/// A label and a value, e.g. one field of a transaction for its hover title.
public struct TimelineField: Hashable, Sendable {
  public var name: String
  public var value: String

  public init(_ name: String, _ value: String) {
    self.name = name
    self.value = value
  }
}

/// How a lane's status word is coloured: the renderers know no entitlement states.
public enum TimelineTone: String, Hashable, Sendable {
  case good, warning, bad, neutral
}

/// One entitlement (or product): its transactions and its status at the evaluation moment.
public struct TimelineLane: Hashable, Sendable {
  /// The entitlement id, or the product id without a catalog.
  public var label: String
  /// The status word, as `entitlements` prints it (`active`, `revoked`, `grace_period`, ...).
  public var status: String
  /// The colour of the status word.
  public var tone: TimelineTone
  /// The sentence explaining the status, as `entitlements` prints it.
  public var reason: String
  /// One bar per transaction; the renderers sort them by start and stack overlapping ones.
  public var bars: [TimelineBar]

  public init(label: String, status: String, tone: TimelineTone = .neutral, reason: String, bars: [TimelineBar]) {
    self.label = label
    self.status = status
    self.tone = tone
    self.reason = reason
    self.bars = bars
  }
}

/// One transaction drawn from its purchase to its expiry.
public struct TimelineBar: Hashable, Sendable {
  public var transactionID: String
  public var productID: String
  /// The purchase date.
  public var start: Timestamp
  /// The expiry, or why there is none.
  public var end: TimelineBarEnd
  public var ownership: TimelineOwnership
  /// Free trial, introductory offer or a regular price.
  public var period: TimelinePeriod
  /// A refund or revocation, drawn as a marker at its date; the bar stops there.
  public var cancellation: TimelineCancellation?
  /// Grace-period and billing-retry zones from the renewal info, usually after `end`.
  public var zones: [TimelineZone]
  /// True when an upgrade to another product superseded this transaction.
  public var upgraded: Bool
  /// The transaction's fields (label, value) for the hover title and the data table.
  public var fields: [TimelineField]

  public init(
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
  public var expiry: Timestamp? {
    if case .expires(let t) = end { return t }
    return nil
  }

  /// Where access from this transaction stopped (the cancellation if earlier than the expiry), nil when open.
  public var effectiveEnd: Timestamp? {
    switch (expiry, cancellation?.date) {
    case (let e?, let c?): return min(e, max(c, start))
    case (nil, let c?): return max(c, start)
    case (let e?, nil): return max(e, start)
    case (nil, nil): return nil
    }
  }
}

/// How a bar ends.
public enum TimelineBarEnd: Hashable, Sendable {
  /// An expiry date.
  case expires(Timestamp)
  /// A purchase that never expires (non-consumable, non-renewing without end): drawn to the right edge.
  case noExpiry
  /// A subscription whose expiry the input does not give: drawn to the right edge and flagged.
  case unknown
}

/// Whose purchase a bar is.
public enum TimelineOwnership: String, Hashable, Sendable, CaseIterable {
  case owned
  case familyShared = "family-shared"
  case unknown = "ownership-unknown"
}

/// The price period of a transaction.
public enum TimelinePeriod: String, Hashable, Sendable, CaseIterable {
  case regular
  case freeTrial = "trial"
  case introductoryOffer = "intro"
}

/// A refund or revocation.
public struct TimelineCancellation: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    /// Apple refunded the purchase.
    case refund
    /// Access was withdrawn without a refund, e.g. the family organiser stopped sharing.
    case revocation
  }

  public var date: Timestamp
  public var kind: Kind
  /// E.g. "cancellation_reason 1 (issue in the app)"; nil when the input says nothing more.
  public var detail: String?

  public init(date: Timestamp, kind: Kind, detail: String? = nil) {
    self.date = date
    self.kind = kind
    self.detail = detail
  }
}

/// A period from the renewal info during which access continues (grace) or Apple retries billing.
public struct TimelineZone: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    case gracePeriod = "grace-period"
    case billingRetry = "billing-retry"
  }

  public var kind: Kind
  public var start: Timestamp
  /// Nil while it is still going on: drawn to the evaluation moment.
  public var end: Timestamp?

  public init(kind: Kind, start: Timestamp, end: Timestamp? = nil) {
    self.kind = kind
    self.start = start
    self.end = end
  }
}
