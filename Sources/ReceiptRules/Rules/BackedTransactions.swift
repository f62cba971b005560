import ReceiptModel

/// The transactions the answers of a receipt-backed JSON body are drawn from: the JSON's, then each transaction
/// of the signed receipt the JSON lacks (`backing.onlyInReceipt`), taken from the signed receipt as it stands
/// (its ownership unknown, as an on-device receipt's is). A row deleted from the JSON thus cannot change an answer
/// given under the receipt's verdict; the JSON's other rows agree with the signed ones on every covered field or
/// the verdict is invalid (`receiptBacking(of:by:)`). (§9 [S51][S52]: the signed receipt is what the App Store
/// vouches for; verifyReceipt's JSON is not signed [S2].)
/// - Parameters:
///   - json: The JSON body's transactions.
///   - signed: The signed receipt's transactions.
///   - backing: Their comparison.
/// - Returns: The JSON's transactions and the signed ones it lacks, in that order.
public func backedTransactions(
  of json: [PurchaseTransaction], by signed: [PurchaseTransaction], backing: ReceiptBacking
) -> [PurchaseTransaction] {
  guard !backing.onlyInReceipt.isEmpty else { return json }
  let missing = Set(backing.onlyInReceipt.map(\.transactionID))
  var out = json
  var taken: Set<String> = []
  for t in signed where missing.contains(t.transactionID) && taken.insert(t.transactionID).inserted {
    out.append(t)
  }
  return out
}
