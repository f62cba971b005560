import ReceiptModel

/// Why a command has nothing to answer at `time`: every purchase is dated after it, or the data holds
/// none of the kind asked about. Said so that a support person does not read "no purchase" for a customer
/// whose purchases come later than the moment asked about (§7.2 [S6c][S4]: access is judged at a moment).
/// - Parameters:
///   - history: everything the data says.
///   - time: the moment asked about.
///   - kind: what was looked for, `non-consumable or subscription purchase`.
/// - Returns: `9 purchases are dated after 2019-01-01T00:00:00Z, and none before it`, or
///   `the receipt holds no non-consumable or subscription purchase`.
public func nothingToAnswerReason(of history: PurchaseHistory, at time: Timestamp, kind: String) -> String {
  let later = history.transactions.count { t in t.purchaseDate.map { $0 > time } ?? false }
  let document = history.transactions.first?.vocabulary.document ?? "the receipt"
  let moment = time.iso8601WholeSeconds
  let dated = later == 1 ? "1 purchase is dated after" : "\(later) purchases are dated after"
  guard later > 0 else { return "\(document) holds no \(kind)" }
  guard later < history.transactions.count else { return "\(dated) \(moment), and none before it" }
  return "\(document) holds no \(kind) by \(moment); \(dated) it"
}
