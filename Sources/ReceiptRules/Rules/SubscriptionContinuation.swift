import ReceiptModel

/// The row that continues `row`'s subscription in a product outside `products`: the first one known at `time`
/// bought after it with the same `original_transaction_id`. A renewal state describes a subscription's newest
/// period, so when the subscription went on in another product (a crossgrade or downgrade, §7.2 [S34]), it says
/// nothing about why `row`'s product ended, and `row`'s product ended because the subscription moved on.
/// - Parameters:
///   - row: the row whose period ended.
///   - table: the customer's purchases.
///   - time: the moment asked about.
///   - products: the products of the entitlement asked about.
/// - Returns: the continuing row, or nil when the subscription did not go on in another product.
func subscriptionContinuation(
  ofRow row: Int, in table: PurchaseTable, at time: Timestamp, outside products: [String]
) -> Int? {
  guard let bought = table.purchase[row] else { return nil }
  // The chain's rows are in date order, then the data's: the first later one outside the products is the answer.
  return table.rows(ofChain: table.chain[row]).first { other in
    guard let at = table.purchase[other], at > bought, table.isKnown(other, at: time) else { return false }
    return !products.contains(table.productID(of: other))
  }
}
