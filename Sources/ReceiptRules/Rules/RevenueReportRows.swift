import ReceiptModel

extension RevenueLedger {
  /// What a report reads of one transaction, gathered from the ledger in the order it keeps them
  /// (`reportRows`), so that the report, which reads them in purchase order, reads these few bytes and not the
  /// whole transaction: on a shuffled export purchase order is random in memory, and each transaction (368
  /// bytes, its Strings elsewhere) was several cache misses, and a retain of every String it held.
  struct ReportRow {
    var position: Int
    var purchaseDate: Timestamp?
    var expiresDate: Timestamp?
    /// The number of its subscription chain in the rows' `ChainNumbering` (-1: not numbered).
    var chain: Int32
    /// Its product's number in `ReportRows.products`; -1 when it is read whole (`isPlain` refused it).
    var product: Int32
    var quantity: Int32
    var hasQuantity: Bool
    /// 0 PURCHASED, 1 FAMILY_SHARED, 2 unknown.
    var ownership: UInt8
    var hasOffer: Bool
    var usesIntroductoryOffer: Bool
    var pricing: OfferUse.Pricing?
    var isUpgraded: Bool
    /// Where its transaction id sorts as text (`TextOrder`; `digits` 0: a text id, or not read).
    var idAligned: UInt64
    var idDigits: UInt8
  }

  /// The rows of some transactions and what their numbers stand for.
  struct ReportRows {
    var rows: [ReportRow] = []
    /// Product ids by number: each a String of the rows' own, made from the first one's bytes, so that two
    /// threads' reports retain no String they share (a shared object's count bounces between cores).
    var products: [String] = []
    var chains = ChainNumbering()
    /// Plain transactions not owned by their purchaser, counted instead of given rows.
    var counted = RevenueCounts()
  }

  /// Whether the first-document transaction `t` is read from its row (`ReportRow`): it states no refund, signed
  /// date, price or product type, its ownership is documented and its quantity fits Int32. The rest are read
  /// whole, as before.
  static func isPlain(_ t: UnsafePointer<PurchaseTransaction>) -> Bool {
    // A field of each optional, read in place: comparing the optional with nil copied it (its Strings retained).
    guard t.pointee.revocation?.date == nil, t.pointee.signedDate == nil, t.pointee.price?.amount == nil,
      t.pointee.productType == nil
    else { return false }
    if case .unrecognized = t.pointee.ownership { return false }
    if let q = t.pointee.quantity, Int32(exactly: q) == nil { return false }
    return true
  }

  /// The rows of `positions`, in that order, read in one pass; chains numbered when `numbersChains` (else
  /// taken from `chains`, one per position, when it has them), the ids' text order read when `readsIDOrder`.
  /// With `range`, a plain transaction its purchaser does not own (FAMILY_SHARED, or no ownership field) gets
  /// no row: it is only counted (`ReportRows.counted`), as `LedgerRecord.addEvents` counts it (such a record is
  /// never valued, adds no paid service and books no event, whatever else it states).
  func reportRows(
    _ positions: [Int], chains: [Int32], numbersChains: Bool, readsIDOrder: Bool,
    countingNotOwnedIn range: PurchaseDateRange? = nil
  ) -> ReportRows {
    var out = ReportRows()
    out.rows.reserveCapacity(positions.count)
    var productNumbers = SharedKeyNumbering(expecting: 64)
    let givesChains = !numbersChains && chains.count == positions.count
    firstDocument.withUnsafeBufferPointer { all in
      for (k, p) in positions.enumerated() {
        let plain = p < all.count ? all.baseAddress.map { $0 + p }.flatMap { Self.isPlain($0) ? $0 : nil } : nil
        var ownership: UInt8 = 0
        if let t = plain {
          switch t.pointee.ownership {
          case .purchased: ownership = 0
          case .familyShared: ownership = 1
          default: ownership = 2
          }
          if ownership != 0, let range {
            guard let saleInRange = range.contains(t.pointee.purchaseDate) else {
              out.counted.undatedExcluded += 1
              continue
            }
            if saleInRange, ownership == 1 { out.counted.familySharedExcluded += 1 }
            if saleInRange, ownership == 2 { out.counted.unknownOwnershipExcluded += 1 }
            continue
          }
        }
        let chain =
          numbersChains
          ? Int32(truncatingIfNeeded: chainNumber(at: p, in: &out.chains)) : givesChains ? chains[k] : -1
        var row = ReportRow(
          position: p, purchaseDate: purchaseDate(at: p), expiresDate: nil, chain: chain, product: -1, quantity: 0,
          hasQuantity: false, ownership: ownership, hasOffer: false, usesIntroductoryOffer: false, pricing: nil,
          isUpgraded: false, idAligned: 0, idDigits: 0)
        if readsIDOrder, let order = textOrder(at: p) {
          (row.idAligned, row.idDigits) = (order.aligned, UInt8(truncatingIfNeeded: order.digits))
        }
        if let t = plain {
          let number = productNumbers.number(of: t.pointee.productID)
          if number == out.products.count {
            // Its own String: the same bytes in storage of its own.
            out.products.append(String(decoding: Array(t.pointee.productID.utf8), as: UTF8.self))
          }
          row.product = Int32(truncatingIfNeeded: number)
          if let q = t.pointee.quantity {
            (row.quantity, row.hasQuantity) = (Int32(truncatingIfNeeded: q), true)
          }
          row.expiresDate = t.pointee.expiresDate
          // Read in place: the offer copied out retained its Strings.
          if let uses = t.pointee.offer?.usesIntroductoryOffer {
            (row.hasOffer, row.usesIntroductoryOffer, row.pricing) = (true, uses, t.pointee.offer?.pricing)
          }
          row.isUpgraded = t.pointee.isUpgraded
        }
        out.rows.append(row)
      }
    }
    return out
  }

  /// Loads a plain row into `t` as `load(_:into:)` loads a transaction: the fields the report reads, the
  /// transaction id left out (only an error quotes it: the caller then reads the transaction whole).
  func load(_ row: ReportRow, products: [String], into t: inout PurchaseTransaction) {
    t.productID = products[Int(row.product)]
    t.ownership =
      switch row.ownership {
      case 0: .purchased
      case 1: .familyShared
      default: .unknown
      }
    t.quantity = row.hasQuantity ? Int(row.quantity) : nil
    t.purchaseDate = row.purchaseDate
    t.expiresDate = row.expiresDate
    t.revocation = nil
    t.signedDate = nil
    // Only the pricing and the introductory flag are read (as for an entry).
    t.offer =
      row.hasOffer
      ? OfferUse(
        kind: row.usesIntroductoryOffer ? .introductory : .promotional, pricing: row.pricing,
        usesIntroductoryOffer: row.usesIntroductoryOffer) : nil
    t.isUpgraded = row.isUpgraded
    t.productType = nil
    t.price = nil
  }

  /// The indices of `rows` in purchase order: by purchase date (undated first), then transaction_id as text, as
  /// `purchaseOrder(of:)` orders their positions.
  func purchaseOrder(of rows: [ReportRow]) -> [Int] {
    var dated: [(date: Int64, position: Int)] = []
    dated.reserveCapacity(rows.count)
    for i in rows.indices { dated.append((rows[i].purchaseDate?.milliseconds ?? Int64.min, i)) }
    return purchaseOrder(dated: &dated) { i, date in
      PurchaseOrderKey(
        date: date, aligned: rows[i].idAligned, digits: Int(rows[i].idDigits), position: rows[i].position, index: i)
    }
  }

  /// Purchases of one moment sorted by transaction_id as text: numeric ids by their `TextOrder` (no closure that
  /// holds the ledger: one made per moment copied and destroyed the whole ledger struct each time), text ids by
  /// their text.
  func sortByIDText(_ keys: inout [PurchaseOrderKey]) {
    if keys.allSatisfy({ $0.digits != 0 }) {
      // Ids are distinct, so this is the order by id text; the position only keeps it total.
      keys.sort { a, b in
        a.aligned != b.aligned
          ? a.aligned < b.aligned : a.digits != b.digits ? a.digits < b.digits : a.position < b.position
      }
      return
    }
    keys.sort { a, b in
      if a.digits != 0, b.digits != 0, a.aligned != b.aligned || a.digits != b.digits {
        return a.aligned != b.aligned ? a.aligned < b.aligned : a.digits < b.digits
      }
      if a.digits == 0 || b.digits == 0 {
        let x = idText(at: a.position)
        let y = idText(at: b.position)
        if x != y { return x < y }
      }
      return a.position < b.position
    }
  }
}
