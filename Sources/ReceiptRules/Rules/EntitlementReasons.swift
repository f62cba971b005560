import ReceiptModel

/// The sentence a support person reads out for an entitlement finding: every entitlement reason is
/// written here, from the finding alone, in the data's own field names (the rules behind each finding: §7.2-§7.4
/// [S30][S6b][S5][S34][S36][S33]).
/// - Parameters:
///   - finding: what decided the entitlement.
///   - t: the transaction the finding rests on (`EntitlementFinding.decidingCharge`), as known at `time`.
///   - definition: the entitlement and its products.
///   - time: the moment asked about.
///   - later: the data's moment, when renewal states describe a moment later than `time`.
/// - Returns: one or two sentences, quoting the data's own field names where they matter.
func entitlementReason(
  _ finding: EntitlementFinding, deciding t: PurchaseTransaction, definition: EntitlementDefinition,
  at time: Timestamp, renewalsAreLater later: DataMoment?
) -> String {
  guard let c = finding.decidingCharge else { return noPurchaseReason(definition, by: later.map { _ in time }) }
  var reason = findingReason(finding, of: t, definition: definition)
  // Only a charge of a commitment says where it stands: the renewal state is looked up for that one alone.
  if t.billing?.commitment != nil,
    let standing = commitmentStanding(of: t, renewal: c.table.renewal(ofRow: c.row), at: time)
  {
    reason += " " + standing
  }
  guard let later, dependsOnRenewal(finding) else { return reason }
  return reason + " " + renewalMomentNote(later)
}

/// The reason of a finding that rests on no transaction: nothing of the entitlement was bought.
func entitlementReason(
  _ finding: EntitlementFinding, definition: EntitlementDefinition, at time: Timestamp,
  renewalsAreLater later: DataMoment?
) -> String {
  // Asked about a moment before the data's own: what was bought later is not counted, so say by when.
  noPurchaseReason(definition, by: later.map { _ in time })
}

/// The reason when nothing of the entitlement was bought (by `time`, when the data's moment is later).
private func noPurchaseReason(_ definition: EntitlementDefinition, by time: Timestamp?) -> String {
  let products = definition.productIDs.joined(separator: " or ")
  let by = time.map { " by \($0.iso8601WholeSeconds)" } ?? ""
  return "The receipt holds no purchase of \(products.isEmpty ? definition.id : products)\(by)."
}

/// Whether the answer rests on a renewal state (grace period, billing retry, why it was not renewed).
private func dependsOnRenewal(_ finding: EntitlementFinding) -> Bool {
  switch finding {
  case .inGracePeriod, .inBillingRetry: true
  case .lost(let c, let renewal, _, _):
    if case .expired = c.grant { renewal != nil } else { false }
  default: false
  }
}

/// Renewal states are a snapshot of the data's own moment; said wherever an earlier answer rests on one.
func renewalMomentNote(_ moment: DataMoment) -> String {
  "The renewal state describes \(moment.description), \(moment.time.iso8601), later than the moment asked about; it may have been different then."
}

/// The warning for a FAMILY_SHARED transaction whose catalog type cannot be shared.
func catalogContradiction(_ t: PurchaseTransaction, _ resolved: ResolvedProductType) -> String {
  return
    "\(t.productID) (transaction \(t.transactionID)) is FAMILY_SHARED, but the catalog lists it as a \(resolved.type.description), which cannot be shared (only auto-renewable subscriptions and non-consumables can); the data contradicts the catalog, and the catalog's type is used."
}

/// The reason for a FAMILY_SHARED transaction with no expiry being taken as a non-consumable (`t` is `c`'s).
private func sharingInference(_ c: ConsideredTransaction, _ t: PurchaseTransaction) -> String {
  guard c.productType?.basis == .familyShared else { return "" }
  return
    " It is family-shared with no \(t.vocabulary.expiresDate): only non-consumables can be shared without one, so it is a non-consumable."
}

/// The finding's own sentence, `t` being the transaction it rests on.
private func findingReason(
  _ finding: EntitlementFinding, of t: PurchaseTransaction, definition: EntitlementDefinition
) -> String {
  switch finding {
  case .noPurchase:
    return noPurchaseReason(definition, by: nil)
  case .granted(let c, let until, let lost):
    return grantedReason(t, until: until, lost: lost?.transaction, lostBy: lost?.grant) + sharingInference(c, t)
  case .inGracePeriod(_, let expired, let grace):
    return
      "\(t.productID) could not be renewed on \(expired.iso8601) because the payment failed; Apple's billing grace period keeps access until \(grace.iso8601) while it retries the charge."
  case .undecided(let c):
    return c.grant.explanation(of: t)
  case .inBillingRetry(_, let expired, let graceEnded):
    var reason = "\(t.productID) expired on \(expired.iso8601) because the payment failed"
    if let grace = graceEnded { reason += " and the billing grace period ended on \(grace.iso8601)" }
    return reason + "; Apple is still retrying the charge, and access returns if it succeeds."
  case .lost(let c, let renewal, let target, let next):
    if let next, case .expired(let at) = c.grant {
      return
        "\(t.productID) expired on \(at.iso8601): its subscription (\(t.vocabulary.originalTransactionID) \(t.chainID)) went on as \(next.productID) from \(next.purchaseDate.display) (transaction \(next.transactionID)), which does not give \(definition.id)."
    }
    return lostReason(c, t, renewal: renewal, upgradeTarget: target, definition: definition)
  }
}

private func lostReason(
  _ c: ConsideredTransaction, _ t: PurchaseTransaction, renewal: RenewalState?, upgradeTarget target: String?,
  definition: EntitlementDefinition
) -> String {
  switch c.grant {
  case .refunded(let at):
    return
      "\(t.productID) (transaction \(t.transactionID)) was refunded on \(at.iso8601)\(revocationCause(t)), so it counts as never bought."
  case .revoked(let at):
    return
      "Family Sharing access to \(t.productID) (transaction \(t.transactionID)) was revoked on \(at.iso8601): the family member who bought it stopped sharing it, left the family or was refunded."
      + sharingInference(c, t)
  case .upgraded:
    return
      "\(t.productID) (transaction \(t.transactionID)) was upgraded to \(target ?? "another product of its subscription group"), which does not give \(definition.id)."
  case .expired(let at):
    return expiredReason(
      t.productID, at: at, intent: renewal?.expirationIntent?.description,
      silentDocument: t.vocabulary.holdsRenewalState ? nil : t.vocabulary.document,
      graceEnded: renewal?.gracePeriodExpiresDate)
  case .durationEnded(let end, let duration):
    return
      "\(t.productID) is a non-renewing subscription of \(duration.text) bought on \(t.purchaseDate.display); it ended on \(end.iso8601)."
  default:
    return c.grant.explanation(of: t)
  }
}

/// The reason of an expired period: when it expired, why it was not renewed (`intent`, the expiration intent's
/// words; else the document that holds no renewal state; else not renewed) and when its grace period ended.
/// Written in one go (`SentenceText`): an interpolation grew and copied the sentence at each piece, and this is the
/// reason of most one-transaction documents. `ReasonSentenceTests` holds it to the interpolation.
func expiredReason(
  _ productID: String, at: Timestamp, intent: String?, silentDocument: String?, graceEnded: Timestamp?
) -> String {
  let expiredOn = " expired on "
  let notRenewedBecause = " and was not renewed: "
  let holdsNoRenewalState =
    " holds no renewal state, so whether it renews, is in billing retry or in a grace period cannot be told from it (server data says)"
  let notRenewed = " and has not been renewed"
  let graceEndedOn = "; the billing grace period ended on "
  // Literals come to 240 bytes at most (two dates included); the data's text is counted.
  let capacity = 240 + productID.utf8.count + (intent?.utf8.count ?? 0) + (silentDocument?.utf8.count ?? 0)
  return SentenceText.make(capacity: capacity) { text in
    text.append(productID)
    text.append(expiredOn)
    text.append(iso8601: at)
    if let intent {
      text.append(notRenewedBecause)
      text.append(intent)
    } else if let silentDocument {
      text.append("; ")
      text.append(silentDocument)
      text.append(holdsNoRenewalState)
    } else {
      text.append(notRenewed)
    }
    if let graceEnded {
      text.append(graceEndedOn)
      text.append(iso8601: graceEnded)
    }
    text.append(".")
  }
}

/// The reason of a grant: whose purchase keeps the entitlement, until when, and the newest refund or revocation
/// (`lost`, `lostBy`) when one explains why access rests on this transaction. Written in one go (`SentenceText`):
/// the interpolations grew and copied it piece by piece, and this is the reason of most signed documents.
/// `ReasonSentenceTests` holds it to the interpolation.
func grantedReason(
  _ t: PurchaseTransaction, until: Timestamp?, lost l: PurchaseTransaction?, lostBy grant: AccessGrant?
) -> String {
  // Literals come to 200 bytes at most (two dates included); the data's text is counted.
  var capacity = 256 + 2 * t.productID.utf8.count + t.transactionID.utf8.count + t.vocabulary.document.utf8.count
  capacity += t.vocabulary.ownership.utf8.count
  if case .unrecognized(let raw) = t.ownership { capacity += raw.utf8.count }
  if let l { capacity += l.productID.utf8.count + l.transactionID.utf8.count }
  return SentenceText.make(capacity: capacity) { text in
    let lostAt: Timestamp?
    switch grant {
    case .revoked(let at)? where l != nil: lostAt = at
    case .refunded(let at)? where l != nil: lostAt = at
    default: lostAt = nil
    }
    if let l, let lostAt, case .revoked? = grant {
      text.append("Family Sharing access to ")
      text.append(l.productID)
      text.append(" was revoked on ")
      text.append(iso8601: lostAt)
      text.append("; ")
    } else if let l, let lostAt {
      text.append(l.productID)
      text.append(" (transaction ")
      text.append(l.transactionID)
      text.append(") was refunded on ")
      text.append(iso8601: lostAt)
      text.append("; ")
    }
    // The sentence starts with the source, capitalised, unless the loss above started it.
    appendGrantSource(of: t, namingProduct: l?.productID != t.productID, capitalised: lostAt == nil, to: &text)
    if let until {
      text.append(" keeps it active until ")
      text.append(iso8601: until)
    } else {
      text.append(" keeps it active; it does not expire")
    }
    text.append(".")
  }
}

/// Whose purchase `t` is, naming the transaction (and its product unless the sentence already did).
private func appendGrantSource(
  of t: PurchaseTransaction, namingProduct: Bool, capitalised: Bool, to text: inout SentenceText
) {
  func appendID(_ first: String) {
    text.append(first)
    text.append(t.transactionID)
    if namingProduct {
      text.append(", ")
      text.append(t.productID)
    }
  }
  let transaction = capitalised ? "Transaction " : "transaction "
  switch t.ownership {
  case .familyShared:
    text.append("Family Sharing (")
    appendID("transaction ")
    text.append(")")
  case .purchased:
    text.append(capitalised ? "The customer's own purchase (" : "the customer's own purchase (")
    appendID("transaction ")
    if t.ownershipAssumed {
      text.append("; ")
      text.append(t.vocabulary.document)
      text.append(" has no ")
      text.append(t.vocabulary.ownership)
      text.append(", so it is taken as bought by the customer")
    }
    text.append(")")
  case .unknown:
    appendID(transaction)
    text.append(" (")
    text.append(t.vocabulary.document)
    text.append(" cannot say whether the customer or a family member bought it)")
  case .unrecognized(let raw):
    appendID(transaction)
    text.append(" (ownership ")
    text.append(raw)
    text.append(")")
  }
}

private func revocationCause(_ t: PurchaseTransaction) -> String {
  let reason = revocationReasonPhrase(t)
  guard let share = refundSharePhrase(t) else { return reason }
  return reason.isEmpty ? " (\(share))" : reason.dropLast() + "; \(share))"
}

/// A partial refund's share, in signed data's words: `revocationPercentage` 50000 is 50%.
private func refundSharePhrase(_ t: PurchaseTransaction) -> String? {
  guard let share = t.revocation?.percentage, share < 100_000 else { return nil }
  let whole = share / 1000
  let rest = share % 1000
  let percent = rest == 0 ? "\(whole)" : "\(whole).\(String(1000 + rest).dropFirst())"
  let type = t.revocation?.type.map { "\($0): " } ?? ""
  return "\(type)revocationPercentage \(share), \(percent)% of the price refunded"
}

private func revocationReasonPhrase(_ t: PurchaseTransaction) -> String {
  switch t.revocation?.reason {
  case .appIssue: " (the customer reported a problem with the app)"
  case .other: " (for a reason other than a problem with the app)"
  case .unrecognized: ""
  case nil where !t.vocabulary.holdsRenewalState:
    " (\(t.vocabulary.document) does not say why: \(t.vocabulary.revocationReason))"
  case nil: ""
  }
}
