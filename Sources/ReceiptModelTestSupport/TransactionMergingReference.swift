import ReceiptModel

/// The copying merge `PurchaseTransaction.merge` replaced (FAST-PATHS.md: duplicate rows merged in place): the
/// slow path that TransactionMergingTests and DuplicateRowMergeTests hold the in-place merge to.
public enum TransactionMergingReference {
  /// The preferred copy, with what it lacks copied from the other.
  public static func copyingMerge(_ held: PurchaseTransaction, _ other: PurchaseTransaction, otherWins: Bool)
    -> PurchaseTransaction
  {
    var m = otherWins ? other : held
    let s = otherWins ? held : other
    if m.originalTransactionID == nil { m.originalTransactionID = s.originalTransactionID }
    if m.ownershipAssumed && !s.ownershipAssumed {
      m.ownership = s.ownership
      m.ownershipAssumed = false
    }
    if m.quantity == nil { m.quantity = s.quantity }
    if m.purchaseDate == nil { m.purchaseDate = s.purchaseDate }
    if m.originalPurchaseDate == nil { m.originalPurchaseDate = s.originalPurchaseDate }
    if m.expiresDate == nil { m.expiresDate = s.expiresDate }
    if m.signedDate == nil || s.signedDate == nil {
      if m.revocation == nil { m.revocation = s.revocation }
      if m.revocation?.reason == nil, let reason = s.revocation?.reason { m.revocation?.reason = reason }
    } else if m.revocation == nil, var earlier = s.revocation, let at = m.signedDate, let then = s.signedDate,
      then < at
    {
      if earlier.reversedAt.map({ $0 > at }) ?? true { earlier.reversedAt = at }
      m.revocation = earlier
    }
    if m.offer == nil { m.offer = s.offer }
    m.isUpgraded = m.isUpgraded || s.isUpgraded
    if m.subscriptionGroup == nil { m.subscriptionGroup = s.subscriptionGroup }
    if m.webOrderLineItemID == nil { m.webOrderLineItemID = s.webOrderLineItemID }
    if m.productType == nil { m.productType = s.productType }
    if m.price == nil { m.price = s.price }
    if m.signedDate == nil { m.signedDate = s.signedDate }
    if m.billing == nil { m.billing = s.billing }
    m.sources = m.sources.union(s.sources)
    if m.carriedFields.isEmpty { m.carriedFields = s.carriedFields }
    if m.statedFields.isEmpty { m.statedFields = s.statedFields }
    return m
  }
}
