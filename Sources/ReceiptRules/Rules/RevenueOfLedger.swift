import ReceiptModel

/// Owner-only revenue [S33] §7.4 of the distinct transactions a `PurchaseLedger` holds: each one valued
/// (`valueOf`), given the paid service of its subscription before it for the commission year ([S47] §7.8) and its
/// upgrade's estimated proration (`LedgerUpgrade`), as a `LedgerRecord`, whose events (`addEvents`) the report
/// sums. Family-shared copies are never revenue: each family member has the purchase as a transaction of their own.
extension PurchaseLedger {
  /// Values, filters and groups every transaction: each sale in the window of its purchase date, each refund
  /// in the window of its own date, each upgrade's estimated proration in the window of the upgrade.
  public func report(
    catalog: Catalog, grouping: RevenueGrouping, range: PurchaseDateRange = PurchaseDateRange(),
    commission: CommissionPlan = .none
  ) throws(ReceiptError) -> RevenueReport {
    let chains = commission == .none ? [] : chainNumbers()
    // In purchase order even without proceeds: the first error met is the one the report throws.
    var report = try report(
      of: Array(0..<distinctTransactions), inPurchaseOrder: true,
      upgrades: upgradeMoments(chains: chains.isEmpty ? nil : chains), chains: chains, catalog: catalog,
      grouping: grouping, range: range, commission: commission)
    report.counts.duplicatesMerged = duplicatesMerged
    return report
  }

  /// The report of the transactions at `positions` alone: one term of a sum (the command's parts), without what
  /// only the whole ledger knows (`duplicatesMerged`).
  /// - Parameters:
  ///   - positions: ascending; with a commission, holding every transaction of each of their subscription chains,
  ///     since the commission year counts a chain's paid service before each sale.
  ///   - inPurchaseOrder: whether the purchaser's own transactions are read in purchase order (`purchaseOrder(of:)`),
  ///     as the commission year needs; else in the order given.
  ///   - upgrades: `upgradeMoments(chains:)` of the whole ledger.
  ///   - chains: `chainNumbers()` with a commission; else empty.
  ///   - catalog: prices, currencies and product types.
  ///   - grouping: `--by`.
  ///   - range: `--from`/`--to`.
  ///   - commission: `--commission`.
  /// - Returns: the part's report.
  /// - Throws: `ReceiptError` when a price cannot be written in its currency, or a price × quantity or a sum does
  ///   not fit.
  public func report(
    of positions: [Int], inPurchaseOrder: Bool, upgrades: [Timestamp?], chains: [Int32], catalog: Catalog,
    grouping: RevenueGrouping, range: PurchaseDateRange, commission: CommissionPlan
  ) throws(ReceiptError) -> RevenueReport {
    var report = RevenueReport(hasProceeds: commission != .none)
    // A copy that is not the purchaser's own is only counted, in any order: it gets no record and is never
    // sorted (a family's copies outnumber its purchases). Only the purchaser's own add paid service, so leaving
    // the others out changes no record.
    let order: [Int]
    do {
      var owned: [Int] = []
      owned.reserveCapacity(positions.count)
      for p in positions
      where !LedgerRecord.countsAsNotOwned(
        ownership: ownership(at: p), purchaseDate: purchaseDate(at: p), range: range, into: &report)
      {
        owned.append(p)
      }
      // Freed before the records are read: 8 bytes a transaction less at the report's peak.
      order = inPurchaseOrder ? purchaseOrder(of: owned) : owned
    }
    // One transaction at a time, so the report needs no second copy of the ledger.
    try forEachRecord(
      order, upgrades: upgrades, chains: chains, catalog: catalog, copy: "", withIDs: false
    ) { (record) throws(ReceiptError) in
      try record.addEvents(grouping: grouping, range: range, commission: commission, into: &report)
    }
    return report
  }

  /// Every distinct transaction as a ledger record: what `revenue --format ledger` writes for one document.
  /// - Parameters:
  ///   - catalog: prices, currencies and product types.
  ///   - copy: names the document the records come from (a digest of its bytes).
  /// - Returns: the records in purchase order; the first carries the document's merged duplicate rows.
  /// - Throws: `ReceiptError` when a catalog price cannot be written in its currency or overflows.
  public func records(catalog: Catalog, copy: String) throws(ReceiptError) -> [LedgerRecord] {
    var out: [LedgerRecord] = []
    out.reserveCapacity(distinctTransactions)
    let chains = chainNumbers()
    try forEachRecord(
      purchaseOrder(), upgrades: upgradeMoments(chains: chains), chains: chains, catalog: catalog, copy: copy,
      withIDs: true
    ) { (record) throws(ReceiptError) in out.append(record) }
    if !out.isEmpty { out[0].duplicateRows = duplicatesMerged }
    return out
  }

  /// Calls `body` with the record of each transaction at `positions`, in that order. Paid service is tracked when
  /// `chains` (`chainNumbers()`) is given. A record's transaction id is left empty unless `withIDs` (only an
  /// error quotes it: a record that throws is made again with it).
  func forEachRecord(
    _ positions: [Int], upgrades: [Timestamp?], chains: [Int32], catalog: Catalog, copy: String, withIDs: Bool,
    _ body: (LedgerRecord) throws(ReceiptError) -> Void
  ) throws(ReceiptError) {
    // Entries keep no field names (no revenue figure quotes one): a loaded entry takes the first document's.
    // Without a first document's transaction there are no entries either, so no position to record.
    guard let names = vocabulary else { return }
    var t = PurchaseTransaction(transactionID: "", productID: "", vocabulary: names)
    let reader = reader(readingInOrder: positions)
    var maker = RecordMaker(catalog: catalog, products: reader.productCount)
    for (k, position) in positions.enumerated() {
      reader.load(k, into: &t, withID: withIDs)
      let upgradedAt = position < upgrades.count ? upgrades[position] : nil
      let chain = position < chains.count ? Int(chains[position]) : nil
      let facts: RecordMaker.Facts
      do throws(ReceiptError) {
        facts = try maker.facts(
          of: t, product: reader.productNumber(k), upgradedAt: upgradedAt, chain: chain)
      } catch {
        guard !withIDs else { throw error }
        // Only valuing throws, before the record changes anything: made again with the id its error quotes.
        t.transactionID = transactionID(at: position)
        facts = try maker.facts(
          of: t, product: reader.productNumber(k), upgradedAt: upgradedAt, chain: chain)
      }
      // Made in the call, not returned by the maker: that cost one more copy of the record (248 bytes, retained).
      try body(
        LedgerRecord(
          transaction: t, value: facts.value, copy: copy, paidServiceBefore: facts.paidServiceBefore,
          upgrade: facts.upgrade,
          evidence: MoneyEvidence(of: self, at: position, ownershipSigned: reader.isOwnershipSigned(k))))
    }
  }

  /// What `forEachRecord` carries from one transaction to the next: each product's catalog entry, looked up once
  /// (by the ledger's product number), and each subscription chain's paid service so far (by chain number), in
  /// purchase order, for the standard plan's second year.
  struct RecordMaker {
    let catalog: Catalog
    var products: [CatalogProductFacts?]
    var service: [PaidServiceSoFar] = []

    init(catalog: Catalog, products: Int) {
      self.catalog = catalog
      self.products = Array(repeating: nil, count: products)
    }

    /// What a record of `t` holds beside the transaction's own facts: its value, the paid service of its chain
    /// before it and its upgrade's estimate.
    struct Facts {
      var value: TransactionValue?
      var paidServiceBefore: Int64?
      var upgrade: LedgerUpgrade?
    }

    /// The facts of `t`'s record, of product number `product`, upgraded at `upgradedAt` (`upgradeMoments`), of
    /// subscription chain number `chain` when paid service is tracked.
    mutating func facts(
      of t: borrowing PurchaseTransaction, product: Int, upgradedAt: Timestamp?, chain numbered: Int?
    ) throws(ReceiptError) -> Facts {
      let facts = products[product] ?? CatalogProductFacts(catalog.product(t.productID))
      products[product] = facts
      let isSubscription =
        numbered != nil && resolveProductType(of: t, product: facts.product)?.type == .autoRenewable
      let chain = isSubscription ? numbered : nil
      if let chain, chain >= service.count {
        service += repeatElement(PaidServiceSoFar(), count: chain + 1 - service.count)
      }
      // What Apple knew at the sale: a refund after it does not change the commission charged then.
      let before: Int64? = chain.map { service[$0].before(sale: t.purchaseDate) }
      let value: TransactionValue? = t.isOwnedByPurchaser ? try valueOf(t, product: facts) : nil
      if let chain, t.isOwnedByPurchaser {
        var isTrial = false
        if case .trial = value { isTrial = true }
        // Its service as bought: a refund counts apart, from its own date. (Copied only when refunded.)
        let paid: Int64
        if t.revocation == nil {
          paid = paidService(of: t, isTrial: isTrial)
        } else {
          var unrefunded = copy t
          unrefunded.revocation = nil
          paid = paidService(of: unrefunded, isTrial: isTrial)
        }
        service[chain].add(milliseconds: paid, refunded: t.revocation?.date)
      }
      return Facts(
        value: value, paidServiceBefore: before,
        upgrade: try LedgerUpgrade(of: t, value: value, upgradedAt: upgradedAt))
    }
  }
}
