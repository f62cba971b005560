extension PurchaseTransaction {
  /// One transaction from two copies of it (two arrays of a receipt, two files of one customer).
  ///
  /// A field present in only one copy is kept; where both have a value, the preferred copy's wins.
  /// Flags are true when either copy sets them, and the sources are the union.
  /// - Parameters:
  ///   - other: another copy of the same transaction.
  ///   - otherWins: whether `other`'s values win where both copies have one.
  /// - Returns: the merged transaction.
  public func merged(with other: PurchaseTransaction, otherWins: Bool) -> PurchaseTransaction {
    let (p, s) = otherWins ? (other, self) : (self, other)
    var m = p
    m.originalTransactionID = p.originalTransactionID ?? s.originalTransactionID
    if p.ownershipAssumed && !s.ownershipAssumed {
      m.ownership = s.ownership
      m.ownershipAssumed = false
    }
    m.quantity = p.quantity ?? s.quantity
    m.purchaseDate = p.purchaseDate ?? s.purchaseDate
    m.originalPurchaseDate = p.originalPurchaseDate ?? s.originalPurchaseDate
    m.expiresDate = p.expiresDate ?? s.expiresDate
    m.revocation = p.revocation ?? s.revocation
    if m.revocation?.reason == nil, let reason = s.revocation?.reason { m.revocation?.reason = reason }
    // Two signed copies are each the whole transaction at their signedDate: a later one without a
    // revocation means it was reversed, so the preferred copy's word stands.
    if p.signedDate != nil, s.signedDate != nil { m.revocation = p.revocation }
    m.offer = p.offer ?? s.offer
    m.isUpgraded = p.isUpgraded || s.isUpgraded
    m.subscriptionGroup = p.subscriptionGroup ?? s.subscriptionGroup
    m.webOrderLineItemID = p.webOrderLineItemID ?? s.webOrderLineItemID
    m.productType = p.productType ?? s.productType
    m.price = p.price ?? s.price
    m.signedDate = p.signedDate ?? s.signedDate
    m.sources = p.sources.union(s.sources)
    if m.carriedFields.isEmpty { m.carriedFields = s.carriedFields }
    return m
  }
}

/// Collects transactions by id, merging copies of one transaction, in the order first seen: the one
/// place every format merges rows.
public struct TransactionCollector: Sendable {
  public private(set) var transactions: [PurchaseTransaction] = []
  /// How many copies were merged into a transaction already seen.
  public private(set) var duplicates = 0
  private var index = TransactionIDIndex()

  public init() {}

  /// - Parameters:
  ///   - transaction: a transaction, or another copy of one already added.
  ///   - prefer: whether the new copy's values win over the one already held.
  public mutating func add(
    _ transaction: consuming PurchaseTransaction,
    prefer: (_ held: PurchaseTransaction, _ new: PurchaseTransaction) -> Bool = { _, _ in false }
  ) {
    guard let i = index.position(of: transaction.transactionID, inserting: transactions.count) else {
      transactions.append(transaction)
      return
    }
    duplicates += 1
    transactions[i] = transactions[i].merged(with: transaction, otherWins: prefer(transactions[i], transaction))
  }

  /// Reserves room for `count` more transactions.
  public mutating func reserve(_ count: Int) {
    transactions.reserveCapacity(transactions.count + count)
  }
}
