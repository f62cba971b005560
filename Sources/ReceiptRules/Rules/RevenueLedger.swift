import ReceiptModel

/// The distinct transactions of every document `revenue` reads, kept compactly: a 5,000-receipt
/// export holds 100,000 of them, and the commission year needs a subscription's whole history
/// whatever order documents came in, so they stay until `report` runs.
///
/// Only what revenue reads is kept (a 104-byte entry plus its slot in the id index, about 150 bytes a
/// transaction, instead of a full `PurchaseTransaction` in a dictionary):
/// ids as numbers when they are plain digits, product ids and odd ownership values once each.
public struct RevenueLedger: Sendable {
  struct Entry: Sendable {
    var id: IDRef
    var originalID: IDRef?
    var product: Int
    /// 0 PURCHASED, 1 FAMILY_SHARED, n + 2 `texts[n]` (a value Apple does not document).
    var ownership: Int
    var quantity: Int32?
    /// The offer's pricing and whether it used the introductory offer: all that valuing it needs.
    var offerPricing: OfferUse.Pricing?
    var usesIntroductoryOffer: Bool
    var purchaseDate: Timestamp?
    var expiresDate: Timestamp?
    var cancellationDate: Timestamp?
    /// `is_upgraded`: its unused part was refunded when the upgrade was bought.
    var isUpgraded: Bool
    /// `texts[n]`: the subscription group, where an upgrade's replacing purchase is looked for.
    var group: Int?
    /// What signed data states about the transaction: its price and its product type.
    var price: StatedPrice?
    var productType: ProductType?
  }

  /// A transaction id: its value when it is digits without a leading zero (below 2^63), else `texts[n]`.
  enum IDRef: Sendable {
    case number(UInt64)
    case text(Int)
  }

  var entries: [Entry] = []
  var index = TransactionIDIndex()
  var products: [String] = []
  var productNumbers = Numbering()
  var groupNumbers = Numbering()
  /// Ids that are not plain numbers, and unrecognised ownership values.
  var texts: [String] = []
  public private(set) var duplicatesMerged = 0
  public var errors: [RevenueInputError] = []

  public init() {}

  public var distinctTransactions: Int { entries.count }

  /// The distinct transaction ids, in the order they were first read.
  public var transactionIDs: [String] { entries.indices.map { text(of: entries[$0].id) } }

  /// Adds one document's transactions; a transaction_id seen before is merged, not counted again.
  public mutating func add(_ history: PurchaseHistory) {
    duplicatesMerged += history.provenance.duplicateRowsMerged
    // `entries` grows as arrays do: any reserve rounds its later doublings up (5 MiB more on a 5,000-receipt
    // batch), and an exact one per document would copy the ledger each time.
    index.reserve(history.transactions.count)
    // Read through a pointer: a copy of each transaction would retain and release every field.
    history.transactions.withUnsafeBufferPointer { all in
      guard let first = all.baseAddress else { return }
      for i in all.indices { add(first + i) }
    }
  }

  private mutating func add(_ t: UnsafePointer<PurchaseTransaction>) {
    let key = TransactionIDIndex.numericKey(t.pointee.transactionID)
    let held =
      if let key {
        index.position(ofNumericKey: key, inserting: entries.count)
      } else {
        index.position(of: t.pointee.transactionID, inserting: entries.count)
      }
    if let i = held {
      duplicatesMerged += 1
      // A later copy may know of a refund the earlier one did not.
      if entries[i].cancellationDate == nil { entries[i].cancellationDate = t.pointee.revocation?.date }
      if t.pointee.isUpgraded { entries[i].isUpgraded = true }
      return
    }
    let ownership: Int
    switch t.pointee.ownership {
    case .purchased: ownership = 0
    case .familyShared: ownership = 1
    case .unknown: ownership = -1
    case .unrecognized(let raw):
      ownership = texts.count + 2
      texts.append(raw)
    }
    let id: IDRef
    if let key, key < 1 << 63 {
      id = .number(key)
    } else {
      id = reference(t.pointee.transactionID)
    }
    let offer = t.pointee.offer
    entries.append(
      Entry(
        id: id, originalID: t.pointee.originalTransactionID.map { reference($0) },
        product: productNumber(t.pointee.productID), ownership: ownership,
        quantity: t.pointee.quantity.map { Int32(clamping: $0) }, offerPricing: offer?.pricing,
        usesIntroductoryOffer: offer?.usesIntroductoryOffer ?? false, purchaseDate: t.pointee.purchaseDate,
        expiresDate: t.pointee.expiresDate, cancellationDate: t.pointee.revocation?.date,
        isUpgraded: t.pointee.isUpgraded, group: t.pointee.subscriptionGroup.map { groupNumber($0) },
        price: t.pointee.price, productType: t.pointee.productType))
  }

  private mutating func reference(_ id: String) -> IDRef {
    if let n = TransactionIDIndex.numericKey(id), n < 1 << 63 { return .number(n) }
    texts.append(id)
    return .text(texts.count - 1)
  }

  private mutating func groupNumber(_ id: String) -> Int {
    let (n, isNew) = groupNumbers.number(of: id, next: texts.count)
    if isNew { texts.append(id) }
    return n
  }

  private mutating func productNumber(_ id: String) -> Int {
    let (n, isNew) = productNumbers.number(of: id, next: products.count)
    if isNew { products.append(id) }
    return n
  }

  func text(of id: IDRef) -> String {
    switch id {
    case .number(let n): String(n)
    case .text(let i): texts[i]
    }
  }

  /// A subscription chain (the original transaction id, or the id itself): numeric ids are keys as they are,
  /// with no text made for each of 100,000 transactions.
  enum ChainKey: Hashable {
    case number(UInt64)
    case text(String)
  }

  func chainKey(_ e: Entry) -> ChainKey {
    switch e.originalID ?? e.id {
    case .number(let n): .number(n)
    case let ref: .text(text(of: ref))
    }
  }

  /// The transaction as the revenue rules read it. (Quantity was read as 1 to 1,000,000, so it fits Int32.)
  /// Its original transaction id is left out: no rule it meets reads it, and chains are keyed by `chainKey`.
  func transaction(_ e: Entry) -> PurchaseTransaction {
    let ownership: Ownership =
      switch e.ownership {
      case 0: .purchased
      case 1: .familyShared
      case -1: .unknown
      default: .unrecognized(texts[e.ownership - 2])
      }
    return PurchaseTransaction(
      transactionID: text(of: e.id), productID: products[e.product],
      ownership: ownership, quantity: e.quantity.map { Int($0) }, purchaseDate: e.purchaseDate,
      expiresDate: e.expiresDate,
      revocation: e.cancellationDate.map { Revocation(date: $0) },
      offer: e.offerPricing.map {
        OfferUse(
          kind: e.usesIntroductoryOffer ? .introductory : .promotional, pricing: $0,
          usesIntroductoryOffer: e.usesIntroductoryOffer)
      }, isUpgraded: e.isUpgraded, productType: e.productType, price: e.price)
  }

  /// Entry positions by purchase date (undated first), then transaction_id as text.
  func purchaseOrder() -> [Int] {
    // The dates are taken out once, so a comparison copies no entry; the order is the same.
    let dates = entries.indices.map { entries[$0].purchaseDate?.milliseconds ?? Int64.min }
    return entries.indices.sorted { i, j in
      let (x, y) = (dates[i], dates[j])
      return x != y ? x < y : precedesAsText(entries[i].id, entries[j].id)
    }
  }

  /// Whether `a` sorts before `b` as text; two numbers are compared without making their text (one sale
  /// date shared by many customers would otherwise make two strings per comparison).
  func precedesAsText(_ a: IDRef, _ b: IDRef) -> Bool {
    guard case .number(let x) = a, case .number(let y) = b else { return text(of: a) < text(of: b) }
    return Self.decimalTextPrecedes(x, y)
  }

  /// Whether the decimal text of `x` sorts before that of `y` ("10" before "9", "12" before "123").
  static func decimalTextPrecedes(_ x: UInt64, _ y: UInt64) -> Bool {
    func digits(_ n: UInt64) -> Int {
      var count = 1
      var rest = n / 10
      while rest > 0 {
        count += 1
        rest /= 10
      }
      return count
    }
    let (dx, dy) = (digits(x), digits(y))
    if dx == dy { return x < y }
    // The shorter is scaled to the longer's length, which is at most 20 digits only for ids of 2^63 or
    // more; those are text ids, so the product fits. Equal means a prefix, which sorts first.
    var scale: UInt64 = 1
    for _ in 0..<abs(dx - dy) { scale &*= 10 }
    return dx < dy ? x &* scale <= y : x < y &* scale
  }
}

/// Numbers strings in the order first seen. A document's rows mostly repeat the last one, an interned string,
/// so that is checked first: comparing a string with itself is a pointer check, not a hash.
struct Numbering: Sendable {
  private var numbers: [String: Int] = [:]
  private var last: (id: String, number: Int)?

  /// `id`'s number, and whether it is new (then it is `next`).
  mutating func number(of id: String, next: Int) -> (number: Int, isNew: Bool) {
    if let last, last.id == id { return (last.number, false) }
    let known = numbers[id]
    let n = known ?? next
    if known == nil { numbers[id] = n }
    last = (id, n)
    return (n, known == nil)
  }
}
