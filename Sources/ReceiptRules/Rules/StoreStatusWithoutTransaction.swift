import ReceiptModel

/// Apple's status of a subscription whose transaction the data does not hold: a Get All Subscription Statuses
/// item or a notification whose `signedTransactionInfo` is missing or could not be read. No answer can rest on
/// it, and it is never dropped: it is shown as Apple's word, with what could not be read ([S29a], [S24]).
public struct StoreStatusWithoutTransaction: Hashable, Sendable {
  /// `originalTransactionId`, when the data names the subscription.
  public var originalTransactionID: String?
  /// The product, when the renewal info names it.
  public var productID: String?
  /// Apple's status.
  public var status: StoreSubscriptionStatus

  /// One sentence for standard error and the text output.
  public var sentence: String {
    let which = originalTransactionID.map { "originalTransactionId \($0)" } ?? "a subscription the data does not name"
    let product = productID.map { " (\($0))" } ?? ""
    return
      "Apple's status for \(which)\(product) is \(status.code) (\(status.meaning)), but no transaction of it could "
      + "be read, so receipt-tool cannot say what it grants"
  }
}

/// Every Apple status of a subscription none of whose transactions is in `history`, in the data's order.
/// - Parameter history: the purchase history.
/// - Returns: the statuses no answer rests on.
public func storeStatusesWithoutTransaction(in history: PurchaseHistory) -> [StoreStatusWithoutTransaction] {
  // Most data carries no Apple status: the chains are not collected for nothing (a copy of every id).
  guard history.renewals.contains(where: { $0.storeStatus != nil }) else { return [] }
  let chains = Set(history.transactions.map(\.chainID))
  return history.renewals.compactMap { r in
    guard let status = r.storeStatus else { return nil }
    if let chain = r.originalTransactionID, chains.contains(chain) { return nil }
    return StoreStatusWithoutTransaction(
      originalTransactionID: r.originalTransactionID, productID: r.productID, status: status)
  }
}
