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
    var m = self
    m.merge(other, otherWins: otherWins)
    return m
  }

  /// `merged(with:otherWins:)` in place: merging copies no transaction, and so retains no field twice.
  public mutating func merge(_ other: consuming PurchaseTransaction, otherWins: Bool) {
    var secondary = other
    if otherWins { swap(&self, &secondary) }
    fill(from: &secondary)
  }

  /// Fills what this copy, the preferred one, lacks from the other copy `s`, which is thrown away after: its
  /// values are moved (`take`), not copied and released again.
  private mutating func fill(from s: inout PurchaseTransaction) {
    if originalTransactionID == nil { originalTransactionID = s.originalTransactionID.take() }
    if ownershipAssumed && !s.ownershipAssumed {
      swap(&ownership, &s.ownership)
      ownershipAssumed = false
    }
    if quantity == nil { quantity = s.quantity }
    if purchaseDate == nil { purchaseDate = s.purchaseDate }
    if originalPurchaseDate == nil { originalPurchaseDate = s.originalPurchaseDate }
    if expiresDate == nil { expiresDate = s.expiresDate }
    // Two signed copies are each the whole transaction at their signedDate: a later one without a
    // revocation means Apple reversed it, at that signedDate; before it the customer was refunded.
    if signedDate == nil || s.signedDate == nil {
      if revocation == nil { revocation = s.revocation.take() }
      if revocation?.reason == nil, let reason = s.revocation?.reason { revocation?.reason = reason }
    } else if revocation == nil, var earlier = s.revocation, let at = signedDate, let then = s.signedDate,
      then < at
    {
      if earlier.reversedAt.map({ $0 > at }) ?? true { earlier.reversedAt = at }
      revocation = earlier
    }
    if offer == nil { offer = s.offer.take() }
    isUpgraded = isUpgraded || s.isUpgraded
    if subscriptionGroup == nil { subscriptionGroup = s.subscriptionGroup.take() }
    if webOrderLineItemID == nil { webOrderLineItemID = s.webOrderLineItemID.take() }
    if productType == nil { productType = s.productType }
    if price == nil { price = s.price.take() }
    if signedDate == nil { signedDate = s.signedDate }
    if chargeBox == nil { chargeBox = s.chargeBox.take() }
    sources = sources.union(s.sources)
    if carriedFields.isEmpty { swap(&carriedFields, &s.carriedFields) }
    if statedFields.isEmpty { swap(&statedFields, &s.statedFields) }
  }
}

/// Collects transactions by id, merging copies of one transaction, in the order first seen: the one
/// place every format merges rows.
public struct TransactionCollector: Sendable {
  public private(set) var transactions: [PurchaseTransaction] = []
  /// How many copies were merged into a transaction already seen.
  public private(set) var duplicates = 0
  private var index = TransactionIDIndex()
  /// The numeric ids of the first transactions held (the `i`th held one's at `i`), looked through in a row while
  /// every id so far is numeric and there are at most `idsInLine`: a document of a transaction or two then builds
  /// no `index` (whose table starts at 64 slots, written as made). False once `index` holds them all.
  private var firstKeys = SIMD8<UInt64>()
  private var keysInLine = true
  /// How many numeric ids `firstKeys` holds.
  private static var idsInLine: Int { SIMD8<UInt64>.scalarCount }
  /// Whether a few ids are looked up in `firstKeys` before `index` is built; false builds it from the first
  /// (tests compare both ways).
  var looksUpFewIDsInLine = true {
    didSet { if !looksUpFewIDsInLine { moveKeysToIndex() } }
  }
  /// `add(lastFirst:)`'s numeric keys, kept for the next batch's, and what its reads found (kept, so they are made).
  private var keys: [UInt64?] = []
  private var touched: UInt64 = 0

  public init() {}

  /// - Parameters:
  ///   - transaction: a transaction, or another copy of one already added.
  ///   - prefer: whether the new copy's values win over the one already held.
  /// - Returns: where the transaction is held, and whether it was merged into a copy held already.
  @discardableResult
  public mutating func add(
    _ transaction: consuming PurchaseTransaction,
    prefer: (_ held: PurchaseTransaction, _ new: PurchaseTransaction) -> Bool = { _, _ in false }
  ) -> (held: Int, merged: Bool) {
    add(transaction, key: TransactionIDIndex.numericKey(transaction.transactionID), prefer: prefer)
  }

  /// `add` of a transaction whose id's `TransactionIDIndex.numericKey` is `key`.
  @discardableResult
  private mutating func add(
    _ transaction: consuming PurchaseTransaction, key: UInt64?,
    prefer: (_ held: PurchaseTransaction, _ new: PurchaseTransaction) -> Bool
  ) -> (held: Int, merged: Bool) {
    if keysInLine, let key, transactions.count < Self.idsInLine {
      var i = 0
      while i < transactions.count, firstKeys[i] != key { i += 1 }
      if i < transactions.count {
        duplicates += 1
        Self.merge(transaction, into: &transactions[i], prefer: prefer)
        return (i, true)
      }
      firstKeys[i] = key
      transactions.append(transaction)
      return (transactions.count - 1, false)
    }
    moveKeysToIndex()
    let found =
      if let key {
        index.position(ofNumericKey: key, inserting: transactions.count)
      } else {
        index.position(of: transaction.transactionID, inserting: transactions.count)
      }
    guard let i = found else {
      transactions.append(transaction)
      return (transactions.count - 1, false)
    }
    duplicates += 1
    Self.merge(transaction, into: &transactions[i], prefer: prefer)
    return (i, true)
  }

  /// Adds another copy of the transaction held at `held` (as `add` returned it) whose every value but its
  /// `sources` is the held one's: a copy written twice byte for byte. Merging it would keep the held values
  /// whichever copy `prefer` favoured (they are the same), join the sources and count the copy; so does this,
  /// without the copy.
  public mutating func addCopy(ofHeldAt held: Int, sources: TransactionSources) {
    duplicates += 1
    transactions[held].sources.formUnion(sources)
  }

  /// Adds `lastFirst`'s transactions in order (the last element first added), moving each out; as `add` one by
  /// one. Their ids' first slots in the index are read before any is added: random ids (many chains) probe a
  /// table of megabytes, and independent reads wait for memory together rather than one after another.
  /// - Parameters:
  ///   - lastFirst: transactions in reverse order; empty on return.
  ///   - given: each one's `TransactionIDIndex.numericKey`, when the caller has them (worked out on the thread
  ///     that parsed them); otherwise (another count, say none) they are worked out here.
  ///   - prefer: whether the new copy's values win over the one already held.
  public mutating func add(
    lastFirst: inout [PurchaseTransaction], keys given: [UInt64?] = [],
    prefer: (_ held: PurchaseTransaction, _ new: PurchaseTransaction) -> Bool = { _, _ in false }
  ) {
    if lastFirst.count < 2 {
      if let transaction = lastFirst.popLast() { add(transaction, prefer: prefer) }
      return
    }
    if given.count == lastFirst.count {
      keys = given
    } else {
      keys.removeAll(keepingCapacity: true)
      // By index: `for t in lastFirst` would copy every transaction.
      for i in lastFirst.indices { keys.append(TransactionIDIndex.numericKey(lastFirst[i].transactionID)) }
    }
    if transactions.count + lastFirst.count > Self.idsInLine { moveKeysToIndex() }
    touched = index.touch(keys)
    // Passed on as it is removed: a `while let` binding would be copied into `add`.
    while !lastFirst.isEmpty { add(lastFirst.removeLast(), key: keys.removeLast(), prefer: prefer) }
  }

  /// The held copy merged in place (asking `prefer` about it copies neither copy).
  private static func merge(
    _ new: consuming PurchaseTransaction, into held: inout PurchaseTransaction,
    prefer: (_ held: PurchaseTransaction, _ new: PurchaseTransaction) -> Bool
  ) {
    let otherWins = prefer(held, new)
    held.merge(new, otherWins: otherWins)
  }

  /// The transactions collected, moved out (not copied) for the history they make; the collector is left empty of
  /// them and is not to be added to again.
  public mutating func takeTransactions() -> [PurchaseTransaction] {
    var taken: [PurchaseTransaction] = []
    swap(&taken, &transactions)
    return taken
  }

  /// Changes the transaction held for `id` in place; nothing when none is held. Rare (a notification's own
  /// meaning), so it searches rather than indexes.
  public mutating func update(_ id: String, _ change: (inout PurchaseTransaction) -> Void) {
    guard let i = transactions.lastIndex(where: { $0.transactionID == id }) else { return }
    change(&transactions[i])
  }

  /// Reserves room for `count` more transactions, and for `ids` more ids in the index (whose slots are
  /// written when reserved, so a generous guess costs pages; it grows past a short one).
  public mutating func reserve(_ count: Int, ids: Int = 0) {
    transactions.reserveCapacity(transactions.count + count)
    guard ids > 0, !keysInLine || transactions.count + ids > Self.idsInLine else { return }
    moveKeysToIndex()
    index.reserve(ids)
  }

  /// Puts the ids held in `firstKeys` into `index`, which from then on holds every id.
  private mutating func moveKeysToIndex() {
    guard keysInLine else { return }
    keysInLine = false
    for i in 0..<transactions.count { _ = index.position(ofNumericKey: firstKeys[i], inserting: i) }
  }
}

extension Revocation {
  /// The revocation two copies of one transaction state together, as `merge` decides it: of two signed copies
  /// the later-signed one's word stands, and a later copy without the revocation reverses it at its
  /// `signedDate`; otherwise a revocation either copy knows of counts.
  /// - Parameters:
  ///   - a: the revocation of the copy held.
  ///   - aSigned: that copy's `signedDate`.
  ///   - b: the revocation of the other copy.
  ///   - bSigned: that copy's `signedDate`.
  /// - Returns: the revocation, with the reversal when there was one.
  public static func combining(
    _ a: Revocation?, signed aSigned: Timestamp?, _ b: Revocation?, signed bSigned: Timestamp?
  ) -> Revocation? {
    guard let x = aSigned, let y = bSigned, x != y else { return a ?? b }
    let (later, laterSigned, earlier) = y > x ? (b, y, a) : (a, x, b)
    if let later { return later }
    guard var reversed = earlier else { return nil }
    if reversed.reversedAt.map({ $0 > laterSigned }) ?? true { reversed.reversedAt = laterSigned }
    return reversed
  }
}
