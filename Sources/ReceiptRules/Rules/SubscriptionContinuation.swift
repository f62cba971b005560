import ReceiptModel

/// The purchase that continues `t`'s subscription in a product outside `products`: the first one bought
/// after it with the same `original_transaction_id`. A renewal state describes a subscription's newest
/// period, so when the subscription went on in another product (a crossgrade or downgrade), it says nothing
/// about why `t`'s product ended, and `t`'s product ended because the subscription moved on.
/// - Parameters:
///   - t: the transaction whose period ended.
///   - history: the history as known at the moment asked about.
///   - products: the products of the entitlement asked about.
/// - Returns: the continuing purchase, or nil when the subscription did not go on in another product.
func subscriptionContinuation(
  of t: PurchaseTransaction, in history: KnownHistory, outside products: [String]
) -> PurchaseTransaction? {
  guard let bought = t.purchaseDate else { return nil }
  let chain = t.chainID
  // By index, read in place: only the one returned is copied.
  let all = history.transactions
  var first: (index: Int, at: Timestamp)?
  for i in all.indices where all[stated: i].chainID == chain && !products.contains(all[stated: i].productID) {
    guard let at = all[stated: i].purchaseDate, at > bought else { continue }
    if let f = first, f.at <= at { continue }
    first = (i, at)
  }
  return first.map { all[$0.index] }
}
