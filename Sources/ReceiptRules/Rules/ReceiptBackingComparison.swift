import ReceiptModel

/// Compares a JSON body's purchase history (verifyReceipt, Notification v1) with the history of the signed app
/// receipt it carries in `latest_receipt`, transaction by transaction (same `transaction_id`), in both directions
/// (§9 [S51][S52]: the on-device receipt's signature vouches for its in-app sets; §1.3 [S2]: the JSON is unsigned).
/// The rules, by whether the two describe the same moment (the JSON's `receipt_creation_date` is the signed
/// receipt's) or the signed receipt is older:
///
/// - A changed row (same id, another value of a field the receipt covers: product, original id, the dates,
///   cancellation, quantity, the trial and intro flags, `web_order_line_item_id` where both state it) is an edit
///   at any moment: `contradicted`, naming each field with both values. A transaction's signed facts never change.
/// - An added row (in the JSON, not in the receipt): bought after the receipt was made, it is genuine but not
///   backed (`newer-than-receipt`, `partly-backed`) at any moment: Apple fills `latest_receipt_info` at request
///   time, after the receipt of the same `receipt_creation_date` (seen in real pairs). Bought before, at the same
///   moment it is an edit (`contradicted`, as a `transaction_id` the receipt lacks): the receipt the JSON describes
///   holds every purchase made by then that the app has not finished, and a finished one leaves the JSON too. With
///   an older receipt it is not backed (`partly-backed`): a consumable the app may have finished, or unexplained.
/// - A missing row (in the receipt, not in the JSON): at any moment the answers take it from the signed receipt
///   (`onlyInReceipt`, added by `backedTransactions(of:by:)`): a deleted row must not change an answer under a
///   verified verdict (a deleted intro trial would make the customer eligible again).
///
/// The fields a receipt does not cover (ownership, price, currency) are not compared; an answer that draws on
/// them says so (`uncoveredFields(readBy:in:)`).
/// - Parameters:
///   - json: The JSON body's history (its `receipt_creation_date` in `provenance.receipt`).
///   - signed: The signed receipt's history (its creation date in `provenance.receipt`).
/// - Returns: The comparison.
public func receiptBacking(of json: PurchaseHistory, by signed: PurchaseHistory) -> ReceiptBacking {
  var byID: [String: PurchaseTransaction] = [:]
  byID.reserveCapacity(signed.transactions.count)
  for t in signed.transactions where byID[t.transactionID] == nil { byID[t.transactionID] = t }
  let created = signed.provenance.receipt?.receiptCreationDate
  let sameMoment = created != nil && json.provenance.receipt?.receiptCreationDate == created
  var entries: [ReceiptBacking.Entry] = []
  entries.reserveCapacity(json.transactions.count)
  var seen: Set<String> = []
  for t in json.transactions {
    seen.insert(t.transactionID)
    let standing: ReceiptBacking.Standing
    if let held = byID[t.transactionID] {
      let differences = backingDifferences(json: t, receipt: held)
      standing = differences.isEmpty ? .backed : .contradicted(differences)
    } else if let created, let bought = t.purchaseDate, bought > created {
      standing = .notInReceipt(.newerThanReceipt)
    } else if sameMoment, let created {
      let absent = "absent (bought before the signed receipt of the JSON's own moment, \(created.iso8601), was made)"
      standing = .contradicted([
        ReceiptBacking.Difference(field: "transaction_id", json: t.transactionID, receipt: absent)
      ])
    } else if t.expiresDate == nil {
      standing = .notInReceipt(.mayBeFinishedConsumable)
    } else {
      standing = .notInReceipt(.unexplained)
    }
    entries.append(ReceiptBacking.Entry(transactionID: t.transactionID, productID: t.productID, standing: standing))
  }
  let onlyInReceipt = signed.transactions.filter { !seen.contains($0.transactionID) }.map {
    ReceiptBacking.ReceiptOnly(transactionID: $0.transactionID, productID: $0.productID)
  }
  let outcome: ReceiptBacking.Outcome
  if entries.contains(where: { if case .contradicted = $0.standing { true } else { false } }) {
    outcome = .contradicted
  } else if entries.allSatisfy({ $0.standing == .backed }) {
    outcome = .backed
  } else {
    outcome = .partlyBacked
  }
  var backing = ReceiptBacking(
    outcome: outcome, entries: entries, onlyInReceipt: onlyInReceipt, receiptCreationDate: created)
  backing.sameMoment = sameMoment
  return backing
}

/// The facts both formats state, by the JSON's field names: a value one side has and the other lacks differs.
private func backingDifferences(json: PurchaseTransaction, receipt: PurchaseTransaction) -> [ReceiptBacking.Difference]
{
  var out: [ReceiptBacking.Difference] = []
  func compare(_ field: String, _ a: String?, _ b: String?) {
    if a != b { out.append(ReceiptBacking.Difference(field: field, json: a ?? "absent", receipt: b ?? "absent")) }
  }
  func ms(_ t: Timestamp?) -> String? { t.map { "\($0.milliseconds) (\($0.iso8601))" } }
  compare("product_id", json.productID, receipt.productID)
  compare("original_transaction_id", json.originalTransactionID, receipt.originalTransactionID)
  compare("purchase_date_ms", ms(json.purchaseDate), ms(receipt.purchaseDate))
  compare("original_purchase_date_ms", ms(json.originalPurchaseDate), ms(receipt.originalPurchaseDate))
  compare("expires_date_ms", ms(json.expiresDate), ms(receipt.expiresDate))
  compare("cancellation_date_ms", ms(json.revocation?.date), ms(receipt.revocation?.date))
  // An absent quantity is read as one, as Apple's usual value.
  if json.quantity != nil || receipt.quantity != nil {
    compare("quantity", "\(json.quantity ?? 1)", "\(receipt.quantity ?? 1)")
  }
  compare("is_trial_period", "\(json.offer?.isFreeTrial == true)", "\(receipt.offer?.isFreeTrial == true)")
  compare(
    "is_in_intro_offer_period", "\(json.offer?.pricing == .introductoryPrice)",
    "\(receipt.offer?.pricing == .introductoryPrice)")
  if let a = json.webOrderLineItemID, let b = receipt.webOrderLineItemID, a != "0", b != "0" {
    compare("web_order_line_item_id", a, b)
  }
  return out
}
