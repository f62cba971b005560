/// The distinct transactions of every document `revenue` reads, stored compactly: a 5,000-receipt export holds
/// 100,000 of them, and the commission year needs a subscription's whole history whatever order documents came
/// in, so they stay until the report is made. This is storage, not a rule: it merges a transaction two documents
/// state, and gives each distinct transaction's facts by position (0 up to `distinctTransactions`) for the
/// revenue rules (ReceiptRules) to loop over.
///
/// The first document's transactions are kept as read: a history is already de-duplicated by transaction id,
/// so while it is the only document (one 90 MB export) it needs no index and no second copy. Later documents'
/// new transactions are kept compactly, with only what revenue reads (a 112-byte entry plus its slot in the id
/// index, about 150 bytes a transaction instead of a full `PurchaseTransaction`): ids as numbers when they are
/// plain digits, product ids and odd ownership values once each.
public struct PurchaseLedger: Sendable {
  /// A later document's transaction: only what revenue reads, and no reference-counted field, so that copying
  /// one is a copy of bytes. What few transactions state (a refund, a signed date, a stated price or type) is
  /// in `rare`: an entry is 112 bytes, where with those it was 200.
  struct Entry: Sendable {
    var id: IDRef
    var originalID: IDRef?
    var product: Int
    /// 0 PURCHASED, 1 FAMILY_SHARED, -1 unknown, n + 2 `texts[n]` (a value Apple does not document).
    var ownership: Int
    var quantity: Int32?
    /// The offer's pricing and whether it used the introductory offer: all that valuing it needs.
    var offerPricing: OfferUse.Pricing?
    var usesIntroductoryOffer: Bool
    /// `is_upgraded`: its unused part was refunded when the upgrade was bought.
    var isUpgraded: Bool
    var purchaseDate: Timestamp?
    var expiresDate: Timestamp?
    /// `texts[n]`: the subscription group, where an upgrade's replacing purchase is looked for.
    var group: Int?
    /// Its facts in `rare`, or -1 when it states none of them.
    var rare: Int
  }

  /// What few transactions state, kept beside their entries.
  struct RareFacts: Sendable {
    var cancellationDate: Timestamp?
    /// The refund's `revocationPercentage` (0...100000, checked when read), its reversal, and whether it stands
    /// beside an upgrade (signed data's revocationDate never means one).
    var refundShare: Int32?
    var refundReversedAt: Timestamp?
    var refundExcludesUpgrade = false
    /// `signedDate`: of two copies, the later-signed one's word on the refund stands.
    var signedDate: Timestamp?
    /// What signed data states about the transaction: its price and its product type.
    var price: StatedPrice?
    var productType: ProductType?
    /// Whether its ownership is its signed payload's own: stated by a signed transaction, not assumed.
    var ownershipSigned = false
    /// Its billing plan and commitment, which value a charge that states no price, and its item refunds (out of
    /// line: one word).
    var chargeBox: ChargeDetailsBox?

    var isEmpty: Bool {
      cancellationDate == nil && signedDate == nil && price == nil && productType == nil && !ownershipSigned
        && chargeBox == nil
    }

    /// The refund, as revenue reads it.
    var revocation: Revocation? {
      cancellationDate.map {
        Revocation(
          date: $0, percentage: refundShare.map { Int64($0) }, excludesUpgrade: refundExcludesUpgrade,
          reversedAt: refundReversedAt)
      }
    }

    mutating func setRevocation(_ r: Revocation?) {
      cancellationDate = r?.date
      // The decoder checked 0...100000.
      refundShare = r?.percentage.map { Int32(clamping: $0) }
      refundReversedAt = r?.reversedAt
      refundExcludesUpgrade = r?.excludesUpgrade ?? false
    }
  }

  /// Entries in chunks of 4,096: one array doubling holds its old and new buffers at once, 1.5 times its final
  /// capacity (a 170,000-transaction batch's ledger was 80 MiB at that moment, twice what it holds); a chunk is
  /// never moved once full.
  struct EntryChunks: Sendable {
    private static let shift = 12
    private static let mask = (1 << shift) - 1
    private var chunks: [[Entry]] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var indices: Range<Int> { 0..<count }

    // Coroutine accessors: an entry is read and changed in its chunk, not copied out and back.
    subscript(i: Int) -> Entry {
      _read { yield chunks[i >> Self.shift][i & Self.mask] }
      _modify { yield &chunks[i >> Self.shift][i & Self.mask] }
    }

    mutating func append(_ entry: Entry) {
      if count & Self.mask == 0 { chunks.append([]) }
      chunks[chunks.count - 1].append(entry)
      count += 1
    }
  }

  /// A transaction id: its value when it is digits without a leading zero (below 2^63), else `texts[n]`.
  enum IDRef: Sendable {
    case number(UInt64)
    case text(Int)
  }

  /// The first document's transactions, whole; positions `0..<firstDocument.count`.
  var firstDocument: [PurchaseTransaction] = []
  /// Later documents' transactions the ledger did not hold yet; positions from `firstDocument.count` on.
  var entries = EntryChunks()
  /// The rare facts of entries (`Entry.rare`).
  var rare: [RareFacts] = []
  /// Positions by transaction id, built when a second document comes.
  var index = TransactionIDIndex()
  var indexesFirstDocument = false
  /// Product ids by number, numbered by their bytes (`KeyNumbering`), and each first-document transaction's.
  var products: [String] = []
  var productNumbers = KeyNumbering()
  var firstDocumentProducts: [Int32] = []
  /// The product id numbered last and its number (-1: none): a document's rows mostly repeat it.
  var lastProduct = ""
  var lastProductNumber = -1
  var groupNumbers = Numbering()
  /// Ids that are not plain numbers, and unrecognised ownership values.
  var texts: [String] = []
  /// Rows or documents that repeated a transaction_id already held.
  public private(set) var duplicatesMerged = 0
  /// Each document's signature verdict (and a verified chain's root), from the first position of the new
  /// transactions it brought on (a run of documents of one verdict shares one).
  var documentChecks: [(from: Int, verdict: SignatureCheck.Verdict, anchor: SignatureCheck.Anchor?)] = []

  public init() {}

  public var distinctTransactions: Int { firstDocument.count + entries.count }
  /// How many of them are kept as compact entries (the rest are the first document's).
  package var entryCount: Int { entries.count }

  /// Calls `body` with each distinct transaction id, in the order first read.
  public func forEachTransactionID(_ body: (String) -> Void) {
    for i in firstDocument.indices { body(firstDocument[i].transactionID) }
    for i in entries.indices { body(text(of: entries[i].id)) }
  }

  // MARK: Adding documents

  /// Adds one document's transactions; a transaction_id seen before is merged, not counted again.
  public mutating func add(_ history: PurchaseHistory) {
    duplicatesMerged += history.provenance.duplicateRowsMerged
    let check = history.provenance.signatureCheck
    let anchor = check.verdict == .verified ? check.anchor ?? .apple : nil
    if documentChecks.last.map({ $0.verdict != check.verdict || $0.anchor != anchor }) ?? true {
      documentChecks.append((distinctTransactions, check.verdict, anchor))
    }
    if firstDocument.isEmpty, entries.isEmpty {
      // Shared with the history, not copied; it is de-duplicated by id already.
      firstDocument = history.transactions
      firstDocumentProducts.reserveCapacity(firstDocument.count)
      for i in firstDocument.indices {
        firstDocumentProducts.append(Int32(truncatingIfNeeded: productNumber(firstDocument[i].productID)))
      }
      return
    }
    if !indexesFirstDocument {
      indexesFirstDocument = true
      index.reserve(firstDocument.count)
      for i in firstDocument.indices {
        let held = index.position(of: firstDocument[i].transactionID, inserting: i)
        assert(held == nil, "a history holds one transaction per id")
      }
    }
    // `entries` grows a chunk at a time (`EntryChunks`), so it needs no reserve.
    index.reserve(history.transactions.count)
    // Read through a pointer: a copy of each transaction would retain and release every field.
    history.transactions.withUnsafeBufferPointer { all in
      guard let first = all.baseAddress else { return }
      for i in all.indices { add(first + i) }
    }
  }

  private mutating func add(_ t: UnsafePointer<PurchaseTransaction>) {
    let key = TransactionIDIndex.numericKey(t.pointee.transactionID)
    let position = firstDocument.count + entries.count
    let held =
      if let key {
        index.position(ofNumericKey: key, inserting: position)
      } else {
        index.position(of: t.pointee.transactionID, inserting: position)
      }
    if let held {
      duplicatesMerged += 1
      // A later copy may know of a refund the earlier one did not, or of its reversal.
      if held < firstDocument.count {
        firstDocument[held].revocation = Revocation.combining(
          firstDocument[held].revocation, signed: firstDocument[held].signedDate, t.pointee.revocation,
          signed: t.pointee.signedDate)
        if let theirs = t.pointee.signedDate, (firstDocument[held].signedDate ?? theirs) <= theirs {
          firstDocument[held].signedDate = theirs
        }
        if t.pointee.isUpgraded { firstDocument[held].isUpgraded = true }
        if firstDocument[held].chargeBox == nil { firstDocument[held].chargeBox = t.pointee.chargeBox }
      } else {
        let i = held - firstDocument.count
        var facts = rareFacts(of: entries[i])
        facts.setRevocation(
          Revocation.combining(
            facts.revocation, signed: facts.signedDate, t.pointee.revocation, signed: t.pointee.signedDate))
        if let theirs = t.pointee.signedDate, (facts.signedDate ?? theirs) <= theirs { facts.signedDate = theirs }
        if facts.chargeBox == nil { facts.chargeBox = t.pointee.chargeBox }
        setRareFacts(facts, of: i)
        if t.pointee.isUpgraded { entries[i].isUpgraded = true }
      }
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
        usesIntroductoryOffer: offer?.usesIntroductoryOffer ?? false, isUpgraded: t.pointee.isUpgraded,
        purchaseDate: t.pointee.purchaseDate, expiresDate: t.pointee.expiresDate,
        group: t.pointee.subscriptionGroup.map { groupNumber($0) }, rare: -1))
    var facts = RareFacts(
      signedDate: t.pointee.signedDate, price: t.pointee.price, productType: t.pointee.productType,
      ownershipSigned: Self.ownershipSigned(t), chargeBox: t.pointee.chargeBox)
    facts.setRevocation(t.pointee.revocation)
    setRareFacts(facts, of: entries.count - 1)
  }

  /// Whether `t`'s ownership is its signed payload's own: stated by a signed transaction, not assumed.
  static func ownershipSigned(_ t: UnsafePointer<PurchaseTransaction>) -> Bool {
    t.pointee.sources.contains(.signedTransaction) && !t.pointee.ownershipAssumed
  }

  /// The rare facts an entry holds (none, when it has no slot).
  func rareFacts(of e: Entry) -> RareFacts { e.rare >= 0 ? rare[e.rare] : RareFacts() }

  /// Stores an entry's rare facts: a slot is made only for facts that are not empty.
  private mutating func setRareFacts(_ facts: RareFacts, of i: Int) {
    let slot = entries[i].rare
    if slot >= 0 {
      rare[slot] = facts
    } else if !facts.isEmpty {
      rare.append(facts)
      entries[i].rare = rare.count - 1
    }
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
    if lastProductNumber >= 0, sameBytes(lastProduct, id) { return lastProductNumber }
    let n = productNumbers.number(of: id)
    if n == products.count { products.append(id) }
    (lastProduct, lastProductNumber) = (id, n)
    return n
  }

  func text(of id: IDRef) -> String {
    switch id {
    case .number(let n): String(n)
    case .text(let i): texts[i]
    }
  }

  // MARK: Facts by position, whichever way the transaction is kept

  /// `transaction_id`.
  public func transactionID(at position: Int) -> String {
    position < firstDocument.count
      ? firstDocument[position].transactionID : text(of: entries[position - firstDocument.count].id)
  }

  /// The subscription chain's id: `original_transaction_id`, or the transaction's own id.
  public func chainID(at position: Int) -> String {
    guard position >= firstDocument.count else {
      return firstDocument[position].originalTransactionID ?? firstDocument[position].transactionID
    }
    let e = entries[position - firstDocument.count]
    return text(of: e.originalID ?? e.id)
  }

  public func subscriptionGroup(at position: Int) -> String? {
    position < firstDocument.count
      ? firstDocument[position].subscriptionGroup : entries[position - firstDocument.count].group.map { texts[$0] }
  }

  public func ownership(at position: Int) -> Ownership {
    guard position >= firstDocument.count else { return firstDocument[position].ownership }
    return switch entries[position - firstDocument.count].ownership {
    case 0: .purchased
    case 1: .familyShared
    case -1: .unknown
    case let n: .unrecognized(texts[n - 2])
    }
  }

  public func purchaseDate(at position: Int) -> Timestamp? {
    position < firstDocument.count
      ? firstDocument[position].purchaseDate : entries[position - firstDocument.count].purchaseDate
  }

  /// `is_upgraded`, stated by any copy.
  public func isUpgraded(at position: Int) -> Bool {
    position < firstDocument.count
      ? firstDocument[position].isUpgraded : entries[position - firstDocument.count].isUpgraded
  }

  /// The signature verdict of the document that brought the transaction at `position` on, and the root a verified
  /// chain ends at; nil when none was recorded.
  public func documentCheck(at position: Int) -> (verdict: SignatureCheck.Verdict, anchor: SignatureCheck.Anchor?)? {
    // The last run starting at or before `position` (a document that brought nothing new starts where the next does).
    var (low, high) = (0, documentChecks.count)
    while low < high {
      let mid = (low + high) / 2
      if documentChecks[mid].from <= position { low = mid + 1 } else { high = mid }
    }
    guard low > 0 else { return nil }
    return (documentChecks[low - 1].verdict, documentChecks[low - 1].anchor)
  }

  /// Whether any transaction states a price below zero.
  public var hasNegativeStatedPrice: Bool {
    firstDocument.indices.contains { firstDocument[$0].price.map { $0.amount.units < 0 } ?? false }
      || rare.contains { $0.price.map { $0.amount.units < 0 } ?? false }
  }

  /// A reader of the transactions at `order`, in that order (`Reader.load`).
  public func reader(readingInOrder order: [Int]) -> Reader { Reader(self, order: order) }

  /// Loads the transactions at some positions, in a given order, one by one into a transaction the caller
  /// reuses, so that no transaction is built and destroyed per position.
  ///
  /// What a report reads of each is gathered first, in the order the ledger keeps them, into compact rows in
  /// the reading order: a report reads in purchase order, which on a shuffled export is random in memory, and
  /// each transaction read there (368 bytes, its Strings elsewhere) was several cache misses. Its product ids
  /// are Strings of its own (the same bytes): readers used at once (the command's parts, one core each) then
  /// retain no String they share, whose count would bounce between cores.
  public struct Reader {
    /// What a report reads of one transaction, without a reference-counted field.
    struct Row {
      var purchase: Timestamp?
      var expiry: Timestamp?
      var quantity: Int?
      var product: Int32
      /// Its facts in `rare`, or -1 when it states none of them.
      var rare: Int32
      /// 0 PURCHASED, 1 FAMILY_SHARED, -1 unknown, 2 another value (read from the ledger).
      var ownership: Int8
      var hasOffer: Bool
      var usesIntroductoryOffer: Bool
      var isUpgraded: Bool
      var pricing: OfferUse.Pricing?
    }

    let ledger: PurchaseLedger
    /// The positions read, in reading order, and each one's row.
    let order: [Int]
    private var rows: [Row] = []
    private var rare: [RareFacts] = []
    let productIDs: [String]

    init(_ ledger: PurchaseLedger, order: [Int]) {
      (self.ledger, self.order) = (ledger, order)
      productIDs = ledger.products.map { String(decoding: Array($0.utf8), as: UTF8.self) }
      var rowOf = [Int32](repeating: -1, count: ledger.distinctTransactions)
      for (k, p) in order.enumerated() { rowOf[p] = Int32(truncatingIfNeeded: k) }
      rows = [Row](
        repeating: Row(
          purchase: nil, expiry: nil, quantity: nil, product: 0, rare: -1, ownership: 0, hasOffer: false,
          usesIntroductoryOffer: false, isUpgraded: false, pricing: nil),
        count: order.count)
      let first = ledger.firstDocument.count
      ledger.firstDocument.withUnsafeBufferPointer { all in
        for p in all.indices where rowOf[p] >= 0 {
          let t = all.baseAddress.map { $0 + p }
          guard let t else { continue }
          var row = Row(
            purchase: t.pointee.purchaseDate, expiry: t.pointee.expiresDate, quantity: t.pointee.quantity,
            product: ledger.firstDocumentProducts[p], rare: -1, ownership: 0, hasOffer: false,
            usesIntroductoryOffer: false, isUpgraded: t.pointee.isUpgraded, pricing: nil)
          switch t.pointee.ownership {
          case .purchased: row.ownership = 0
          case .familyShared: row.ownership = 1
          case .unknown: row.ownership = -1
          case .unrecognized: row.ownership = 2
          }
          // Read in place: the offer copied out retained its Strings.
          if let uses = t.pointee.offer?.usesIntroductoryOffer {
            (row.hasOffer, row.usesIntroductoryOffer, row.pricing) = (true, uses, t.pointee.offer?.pricing)
          }
          // A field of each optional, read in place: comparing the optional with nil copied it.
          if t.pointee.revocation?.date != nil || t.pointee.signedDate != nil || t.pointee.price?.amount != nil
            || t.pointee.productType != nil || PurchaseLedger.ownershipSigned(t) || t.pointee.chargeBox != nil
          {
            var facts = RareFacts(
              signedDate: t.pointee.signedDate, price: t.pointee.price, productType: t.pointee.productType,
              ownershipSigned: PurchaseLedger.ownershipSigned(t), chargeBox: t.pointee.chargeBox)
            facts.setRevocation(t.pointee.revocation)
            rare.append(facts)
            row.rare = Int32(truncatingIfNeeded: rare.count - 1)
          }
          rows[Int(rowOf[p])] = row
        }
      }
      for i in ledger.entries.indices where rowOf[first + i] >= 0 {
        let e = ledger.entries[i]
        var row = Row(
          purchase: e.purchaseDate, expiry: e.expiresDate, quantity: e.quantity.map { Int($0) },
          product: Int32(truncatingIfNeeded: e.product), rare: -1, ownership: Int8(clamping: min(e.ownership, 2)),
          hasOffer: e.offerPricing != nil, usesIntroductoryOffer: e.usesIntroductoryOffer, isUpgraded: e.isUpgraded,
          pricing: e.offerPricing)
        if e.rare >= 0 {
          rare.append(ledger.rare[e.rare])
          row.rare = Int32(truncatingIfNeeded: rare.count - 1)
        }
        rows[Int(rowOf[first + i])] = row
      }
    }

    /// How many products the ledger holds: product numbers are below it.
    public var productCount: Int { productIDs.count }

    /// The product number of the `k`th transaction of the reading order (dense from 0, one per product id's bytes).
    public func productNumber(_ k: Int) -> Int { Int(rows[k].product) }

    /// Whether the `k`th transaction's ownership is its signed payload's own (`ownershipSigned`), read from
    /// its row, not from the transaction.
    public func isOwnershipSigned(_ k: Int) -> Bool { rows[k].rare >= 0 && rare[Int(rows[k].rare)].ownershipSigned }

    /// The `k`th transaction's ownership, read from its row.
    func ownership(_ k: Int) -> Ownership {
      switch rows[k].ownership {
      case 0: .purchased
      case 1: .familyShared
      case -1: .unknown
      default: ledger.ownership(at: order[k])
      }
    }

    /// Loads the `k`th transaction of the reading order into `t`: its product id, ownership, quantity, dates,
    /// refund, signed date, offer (as far as valuing reads it: its pricing and introductory flag), upgrade flag and
    /// stated type and price. The transaction id is loaded only `withID` (for an entry it is a String made from
    /// its number). The rest of `t` stays as it is.
    public func load(_ k: Int, into t: inout PurchaseTransaction, withID: Bool) {
      let row = rows[k]
      if withID { t.transactionID = ledger.transactionID(at: order[k]) }
      t.productID = productIDs[Int(row.product)]
      t.ownership = ownership(k)
      t.quantity = row.quantity
      t.purchaseDate = row.purchase
      t.expiresDate = row.expiry
      t.offer =
        row.hasOffer
        ? OfferUse(
          kind: row.usesIntroductoryOffer ? .introductory : .promotional, pricing: row.pricing,
          usesIntroductoryOffer: row.usesIntroductoryOffer) : nil
      t.isUpgraded = row.isUpgraded
      guard row.rare >= 0 else {
        (t.revocation, t.signedDate, t.productType, t.price, t.chargeBox) = (nil, nil, nil, nil, nil)
        return
      }
      let facts = rare[Int(row.rare)]
      t.revocation = facts.revocation
      t.signedDate = facts.signedDate
      t.productType = facts.productType
      t.price = facts.price
      t.chargeBox = facts.chargeBox
    }
  }

  /// The field names of the first document (entries keep none: a loaded one takes these); nil when empty.
  public var vocabulary: FieldVocabulary? { firstDocument.first?.vocabulary }

  // MARK: Chains and upgrades

  /// Every position's subscription chain number: dense from 0, in the order first met. A decimal id is found by
  /// its value (`TransactionIDIndex`), so no text is hashed per transaction; a chain read in date order repeats
  /// the id before, which is numbered without a lookup.
  public func chainNumbers() -> [Int32] {
    var index = TransactionIDIndex()
    var count = 0
    var (lastID, lastNumber) = ("", Int32(-1))
    var numbers: [Int32] = []
    numbers.reserveCapacity(distinctTransactions)
    func number(_ held: Int?) -> Int32 {
      if let held { return Int32(truncatingIfNeeded: held) }
      count += 1
      return Int32(truncatingIfNeeded: count - 1)
    }
    for p in firstDocument.indices {
      let chain = firstDocument[p].originalTransactionID ?? firstDocument[p].transactionID
      if lastNumber >= 0, sameBytes(lastID, chain) {
        numbers.append(lastNumber)
        continue
      }
      lastNumber =
        if let key = TransactionIDIndex.numericKey(chain) {
          number(index.position(ofNumericKey: key, inserting: count))
        } else {
          number(index.position(of: chain, inserting: count))
        }
      lastID = chain
      numbers.append(lastNumber)
    }
    for i in entries.indices {
      let e = entries[i]
      switch e.originalID ?? e.id {
      case .number(let key): numbers.append(number(index.position(ofNumericKey: key, inserting: count)))
      case .text(let k): numbers.append(number(index.position(of: texts[k], inserting: count)))
      }
    }
    return numbers
  }

  /// When each upgraded transaction was upgraded (`PurchaseTable.upgradeMoments`: the first later purchase of its
  /// chain or group), by position; `chains` is `chainNumbers()` when the caller has it. Empty when nothing is
  /// upgraded (most ledgers: then no chain is numbered).
  public func upgradeMoments(chains: [Int32]? = nil) -> [Timestamp?] {
    let positions = 0..<distinctTransactions
    let upgraded = positions.map { isUpgraded(at: $0) }
    guard upgraded.contains(true) else { return [] }
    var groups = KeyNumbering()
    var group: [Int32] = []
    group.reserveCapacity(positions.count)
    // A ledger's transactions share a handful of groups: the group before is compared first.
    var (lastGroup, lastNumber) = ("", Int32(-1))
    for p in positions {
      guard let id = subscriptionGroup(at: p) else {
        group.append(-1)
        continue
      }
      if lastNumber < 0 || !sameBytes(lastGroup, id) {
        (lastGroup, lastNumber) = (id, Int32(truncatingIfNeeded: groups.number(of: id)))
      }
      group.append(lastNumber)
    }
    return PurchaseTable.upgradeMoments(
      chain: chains ?? chainNumbers(), group: group,
      purchase: TimestampColumn(positions.map { purchaseDate(at: $0) }),
      upgraded: upgraded)
  }

  // MARK: Purchase order

  /// Every position in purchase order: by purchase date (undated first), then transaction_id as text.
  public func purchaseOrder() -> [Int] { purchaseOrder(of: Array(0..<distinctTransactions)) }

  /// `positions` (ascending) in purchase order: by purchase date (undated first), then transaction_id as text.
  public func purchaseOrder(of positions: [Int]) -> [Int] {
    // Dates gathered in one pass in storage order and sorted as the table's are (`PurchaseTableBuilder.datedOrder`),
    // so the sort reads no transaction: in date order (a shuffled export) each would be a cache miss.
    var dates = TimestampColumn()
    dates.reserveCapacity(positions.count)
    for p in positions { dates.append(purchaseDate(at: p)) }
    let dated = PurchaseTableBuilder.datedOrder(dates)
    var order: [Int] = []
    order.reserveCapacity(positions.count)
    for i in dates.indices where dates[i] == nil { order.append(positions[i]) }
    let undated = order.count
    for d in dated { order.append(positions[d.row]) }
    // Purchases of one moment (and the undated ones) in transaction_id order: few in an export, but a family's
    // copies share their purchase's moment, so the keys' buffer is made once.
    var keys: [(order: TextOrder, position: Int)] = []
    var start = 0
    while start < order.count {
      var end = start + 1
      if start < undated {
        end = undated
      } else {
        while end < order.count, dated[end - undated].at == dated[start - undated].at { end += 1 }
      }
      if end - start > 1 { sortByIDText(&order[start..<end], keys: &keys) }
      start = end
    }
    return order
  }

  /// Positions of one moment sorted by transaction_id as text: numeric ids by their `TextOrder`, text ids by their
  /// text; the position keeps the order total. When every id is numeric the comparison holds no ledger: one that
  /// did, made per moment, copied and destroyed the whole ledger struct each time.
  /// `keys` is a buffer the caller keeps from one moment to the next.
  func sortByIDText(_ positions: inout ArraySlice<Int>, keys: inout [(order: TextOrder, position: Int)]) {
    keys.removeAll(keepingCapacity: true)
    for position in positions {
      guard let order = textOrder(at: position) else { break }
      keys.append((order, position))
    }
    if keys.count == positions.count {
      keys.sort { a, b in a.order != b.order ? a.order < b.order : a.position < b.position }
      for (k, key) in zip(positions.indices, keys) { positions[k] = key.position }
      return
    }
    let orders = positions.map { textOrder(at: $0) }
    let sorted = zip(orders, positions).sorted { a, b in
      if let x = a.0, let y = b.0, x != y { return x < y }
      if a.0 == nil || b.0 == nil {
        let x = transactionID(at: a.1)
        let y = transactionID(at: b.1)
        if x != y { return x < y }
      }
      return a.1 < b.1
    }
    for (k, key) in zip(positions.indices, sorted) { positions[k] = key.1 }
  }

  /// Where the transaction id at `position` sorts as text, when it is a number (nil for a text id).
  func textOrder(at position: Int) -> TextOrder? {
    guard position < firstDocument.count else {
      guard case .number(let n) = entries[position - firstDocument.count].id else { return nil }
      return TextOrder(n)
    }
    guard let n = TransactionIDIndex.numericKey(firstDocument[position].transactionID), n < 1 << 63 else {
      return nil
    }
    return TextOrder(n)
  }

  /// Where a numeric id sorts among others as text: its digits left-aligned to 19 places, then its length, so
  /// that comparing two of these compares the two texts ("10" before "12" before "120" before "9").
  package struct TextOrder: Comparable {
    var aligned: UInt64
    var digits: Int

    /// Ids are below 2^63, so they have at most 19 digits and the aligned value fits.
    package init(_ n: UInt64) {
      var digits = 1
      var aligned = n
      var bound: UInt64 = 10
      while digits < 19, n >= bound {
        digits += 1
        bound &*= 10
      }
      for _ in digits..<19 { aligned &*= 10 }
      self.aligned = aligned
      self.digits = digits
    }

    // Equal aligned digits mean one text is the other with zeros after it: the shorter sorts first.
    package static func < (a: TextOrder, b: TextOrder) -> Bool {
      a.aligned != b.aligned ? a.aligned < b.aligned : a.digits < b.digits
    }
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
