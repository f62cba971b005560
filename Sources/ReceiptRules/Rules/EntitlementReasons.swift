import ReceiptModel

/// The sentence a support person reads out for an entitlement finding: every entitlement reason is
/// written here, from the finding alone, in the data's own field names (the rules behind each finding: §7.2-§7.4
/// [S30][S6b][S5][S34][S36][S33]).
/// - Parameters:
///   - finding: what decided the entitlement.
///   - t: the transaction the finding rests on, as known at `time` (`EntitlementFinding.decidingCharge`, made once
///     for the result and its reason); nil when nothing was bought.
///   - definition: the entitlement and its products.
///   - time: the moment asked about.
///   - later: the data's moment, when renewal states describe a moment later than `time`.
/// - Returns: one or two sentences, quoting the data's own field names where they matter.
func entitlementReason(
  _ finding: EntitlementFinding, deciding t: PurchaseTransaction?, definition: EntitlementDefinition,
  at time: Timestamp, renewalsAreLater later: DataMoment?
) -> String {
  // Asked about a moment before the data's own: what was bought later is not counted, so say by when.
  guard let t, let c = finding.decidingCharge else { return noPurchaseReason(definition, by: later.map { _ in time }) }
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
    return grantedReason(t, until: until, lost: lost) + sharingInference(c, t)
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
    let notRenewed: String
    if let intent = renewal?.expirationIntent {
      notRenewed = " and was not renewed: \(intent.description)"
    } else if !t.vocabulary.holdsRenewalState {
      notRenewed =
        "; \(t.vocabulary.document) holds no renewal state, so whether it renews, is in billing retry or in a grace period cannot be told from it (server data says)"
    } else {
      notRenewed = " and has not been renewed"
    }
    let graceEnded = renewal?.gracePeriodExpiresDate.map { "; the billing grace period ended on \($0.iso8601)" } ?? ""
    // Made in one go: appended to piece by piece, the sentence was grown and copied four times.
    return "\(t.productID) expired on \(at.iso8601)\(notRenewed)\(graceEnded)."
  case .durationEnded(let end, let duration):
    return
      "\(t.productID) is a non-renewing subscription of \(duration.text) bought on \(t.purchaseDate.display); it ended on \(end.iso8601)."
  default:
    return c.grant.explanation(of: t)
  }
}

private func grantedReason(_ t: PurchaseTransaction, until: Timestamp?, lost: ConsideredTransaction?) -> String {
  let keeps = until.map { "keeps it active until \($0.iso8601)" } ?? "keeps it active; it does not expire"
  // The product is named unless the sentence already did.
  let l = lost?.transaction
  let id =
    l?.productID == t.productID
    ? "transaction \(t.transactionID)" : "transaction \(t.transactionID), \(t.productID)"
  let source: String
  switch t.ownership {
  case .familyShared: source = "Family Sharing (\(id))"
  case .purchased where t.ownershipAssumed:
    source =
      "the customer's own purchase (\(id); \(t.vocabulary.document) has no \(t.vocabulary.ownership), so it is taken as bought by the customer)"
  case .purchased: source = "the customer's own purchase (\(id))"
  case .unknown:
    source = "\(id) (\(t.vocabulary.document) cannot say whether the customer or a family member bought it)"
  case .unrecognized(let raw): source = "\(id) (ownership \(raw))"
  }
  let sentence = source.prefix(1).uppercased() + source.dropFirst() + " " + keeps + "."
  guard let lost, let l else { return sentence }
  switch lost.grant {
  case .revoked(let at):
    return "Family Sharing access to \(l.productID) was revoked on \(at.iso8601); \(source) \(keeps)."
  case .refunded(let at):
    return "\(l.productID) (transaction \(l.transactionID)) was refunded on \(at.iso8601); \(source) \(keeps)."
  default:
    return sentence
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
