extension PurchaseTransaction {
  /// Whether `other`, a copy of this transaction, should win over it: it was signed later.
  public func isSignedEarlier(than other: PurchaseTransaction) -> Bool {
    guard let theirs = other.signedDate else { return false }
    guard let mine = signedDate else { return true }
    return theirs > mine
  }

  /// The fields two copies of this transaction disagree on, in the data's own field names.
  public func differences(from other: PurchaseTransaction) -> [String] {
    var fields: [String] = []
    if revocation != other.revocation { fields.append(vocabulary.revocationDate) }
    if expiresDate != other.expiresDate { fields.append(vocabulary.expiresDate) }
    if ownership != other.ownership { fields.append(vocabulary.ownership) }
    if productID != other.productID { fields.append("product") }
    if price != other.price { fields.append("price") }
    if isUpgraded != other.isUpgraded { fields.append(vocabulary.isUpgraded) }
    return fields
  }
}

extension RenewalState {
  /// Two copies of one chain's renewal info: the later-signed copy's values win, the other fills gaps, and
  /// Apple's newest status is kept.
  public func merged(with other: RenewalState) -> RenewalState {
    let otherWins = (other.signedDate ?? Timestamp.epoch) >= (signedDate ?? Timestamp.epoch)
    let (p, s) = otherWins ? (other, self) : (self, other)
    var m = p
    m.productID = p.productID ?? s.productID
    m.autoRenewProductID = p.autoRenewProductID ?? s.autoRenewProductID
    m.autoRenewStatus = p.autoRenewStatus ?? s.autoRenewStatus
    m.expirationIntent = p.expirationIntent ?? s.expirationIntent
    m.isInBillingRetryPeriod = p.isInBillingRetryPeriod ?? s.isInBillingRetryPeriod
    m.gracePeriodExpiresDate = p.gracePeriodExpiresDate ?? s.gracePeriodExpiresDate
    m.priceConsentStatus = p.priceConsentStatus ?? s.priceConsentStatus
    m.renewalDate = p.renewalDate ?? s.renewalDate
    m.signedDate = p.signedDate ?? s.signedDate
    m.billingPlan = p.billingPlan ?? s.billingPlan
    m.commitment = p.commitment ?? s.commitment
    let statuses = [p.storeStatus, s.storeStatus].compactMap { $0 }
    m.storeStatus = statuses.max { ($0.asOf ?? Timestamp.epoch) < ($1.asOf ?? Timestamp.epoch) }
    return m
  }
}

/// One customer's history read from several documents (history pages, a statuses response, notifications):
/// transactions merge by id with the later-signed copy winning and any difference noted; renewals merge by
/// original transaction id; the moment is the newest any document names.
public struct CustomerHistoryMerger: Sendable {
  private var collector = TransactionCollector()
  private var renewals: [RenewalState] = []
  private var first: PurchaseHistory?
  private var moment: DataMoment?
  private var warnings: [DataWarning] = []
  private var duplicates = 0
  private var signatureCheck: SignatureCheck?
  /// The pages of paged responses added, in order.
  private var pages: [ResponsePage] = []
  private var deliveries: [DeliveredNotification] = []
  /// How many documents were merged.
  public private(set) var documents = 0

  /// A merger with no documents yet.
  public init() {}

  /// Adds one document's history.
  /// - Parameters:
  ///   - history: the document's history.
  ///   - source: the document's name, prefixed to its warnings.
  public mutating func add(_ history: PurchaseHistory, source: String) {
    documents += 1
    if first == nil { first = history }
    duplicates += history.provenance.duplicateRowsMerged
    if let page = history.provenance.page { pages.append(page) }
    deliveries += history.provenance.deliveries
    // The merged answer is as trustworthy as its weakest document; a failure names the document it is in.
    var check = history.provenance.signatureCheck
    for i in check.failures.indices {
      check.failures[i].path = check.failures[i].path.isEmpty ? source : "\(source): \(check.failures[i].path)"
    }
    signatureCheck = signatureCheck.map { SignatureCheck.combining([$0, check], none: check) } ?? check
    for w in history.warnings { warnings.append(DataWarning(path: "\(source): \(w.path)", message: w.message)) }
    if let m = history.moment, m.time > (moment?.time ?? Timestamp.epoch) || moment == nil { moment = m }
    for t in history.transactions {
      if let held = collector.transactions.first(where: { $0.transactionID == t.transactionID }) {
        let fields = held.differences(from: t)
        if !fields.isEmpty {
          let winner = held.isSignedEarlier(than: t) ? "the copy in \(source)" : "the copy read earlier"
          warnings.append(
            DataWarning(
              path: "\(source): \(t.vocabulary.transactionID) \(t.transactionID)",
              message:
                "two copies differ in \(fields.joined(separator: ", ")); \(winner) was signed later and is used"))
        }
      }
      collector.add(t) { held, new in held.isSignedEarlier(than: new) }
    }
    for r in history.renewals {
      if let chain = r.originalTransactionID, let i = renewals.firstIndex(where: { $0.originalTransactionID == chain })
      {
        renewals[i] = renewals[i].merged(with: r)
      } else {
        renewals.append(r)
      }
    }
  }

  /// The merged history; nil when no document was added.
  public func history() -> PurchaseHistory? {
    guard let first else { return nil }
    var merged = PurchaseHistory(
      format: FormatIdentity(
        name: "one_customer",
        description: "one customer's history from \(documents) document\(documents == 1 ? "" : "s")"
          + " (first: \(first.provenance.format.description))"))
    merged.transactions = collector.transactions
    merged.renewals = renewals
    merged.moment = moment
    merged.environment = first.environment
    merged.warnings = warnings
    merged.provenance.signature = first.provenance.signature
    merged.provenance.signatureCheck = signatureCheck ?? first.provenance.signatureCheck
    merged.provenance.receipt = first.provenance.receipt
    merged.provenance.duplicateRowsMerged = duplicates + collector.duplicates
    merged.provenance.deliveries = deliveries
    // Pages read up to the last one (hasMore false) make a whole history; otherwise the last partial page speaks.
    if !pages.contains(where: { $0.hasMore == false }), let partial = pages.last(where: \.isPartial) {
      merged.provenance.page = partial
    }
    return merged
  }
}
