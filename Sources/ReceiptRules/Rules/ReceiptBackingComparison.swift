import ReceiptModel

/// Compares a JSON body's purchase history (verifyReceipt, Notification v1) with the history of the signed app
/// receipt it carries: each JSON transaction is backed (same id, same product and dates), contradicts the signed
/// receipt (same id, other facts: each differing field named with both values) or is not in it (with the
/// legitimate reason when there is one); signed transactions the JSON lacks are named.
/// - Parameters:
///   - json: The JSON body's history.
///   - signed: The signed receipt's history (its creation date in `provenance.receipt`).
/// - Returns: The comparison.
public func receiptBacking(of json: PurchaseHistory, by signed: PurchaseHistory) -> ReceiptBacking {
  var byID: [String: PurchaseTransaction] = [:]
  byID.reserveCapacity(signed.transactions.count)
  for t in signed.transactions where byID[t.transactionID] == nil { byID[t.transactionID] = t }
  let created = signed.provenance.receipt?.receiptCreationDate
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
  return ReceiptBacking(
    outcome: outcome, entries: entries, onlyInReceipt: onlyInReceipt, receiptCreationDate: created)
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
  if let a = json.quantity, let b = receipt.quantity { compare("quantity", "\(a)", "\(b)") }
  return out
}
