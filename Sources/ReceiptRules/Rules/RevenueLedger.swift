import ReceiptModel

/// The distinct transactions of every document `revenue` reads: a 5,000-receipt export holds 100,000 of them,
/// and the commission year needs a subscription's whole history whatever order documents came in, so they
/// stay until `report` runs.
///
/// The first document's transactions are kept as read: a history is already de-duplicated by transaction id,
/// so while it is the only document (one 90 MB export) it needs no index and no second copy. Later documents'
/// new transactions are kept compactly, with only what revenue reads (a 112-byte entry plus its slot in the id
/// index, about 150 bytes a transaction instead of a full `PurchaseTransaction`): ids as numbers when they are
/// plain digits, product ids and odd ownership values once each.
public struct RevenueLedger: Sendable {
  /// A later document's transaction: only what revenue reads, and no reference-counted field, so that copying
  /// one is a copy of bytes. What few transactions state (a refund, a signed date, a stated price or type) is
  /// in `rare`: an entry is 112 bytes, where with those it was 200.
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
    /// Whether its ownership is its signed payload's own (`MoneyEvidence.ownershipSigned`).
    var ownershipSigned = false

    var isEmpty: Bool {
      cancellationDate == nil && signedDate == nil && price == nil && productType == nil && !ownershipSigned
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
  var products: [String] = []
  var productNumbers = Numbering()
  var groupNumbers = Numbering()
  /// Ids that are not plain numbers, and unrecognised ownership values.
  var texts: [String] = []
  public private(set) var duplicatesMerged = 0
  public var errors: [RevenueInputError] = []
  /// Each document's signature verdict (and a verified chain's root), from the first position of the new
  /// transactions it brought on (a run of documents of one verdict shares one): what `moneyBacking` reads.
  var documentChecks: [(from: Int, verdict: SignatureCheck.Verdict, anchor: SignatureCheck.Anchor?)] = []

  public init() {}

  public var distinctTransactions: Int { firstDocument.count + entries.count }

  /// Calls `body` with each distinct transaction id, in the order first read.
  public func forEachTransactionID(_ body: (String) -> Void) {
    for i in firstDocument.indices { body(firstDocument[i].transactionID) }
    for i in entries.indices { body(text(of: entries[i].id)) }
  }

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
      } else {
        let i = held - firstDocument.count
        var facts = rareFacts(of: entries[i])
        facts.setRevocation(
          Revocation.combining(
            facts.revocation, signed: facts.signedDate, t.pointee.revocation, signed: t.pointee.signedDate))
        if let theirs = t.pointee.signedDate, (facts.signedDate ?? theirs) <= theirs { facts.signedDate = theirs }
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
      ownershipSigned: Self.ownershipSigned(t))
    facts.setRevocation(t.pointee.revocation)
    setRareFacts(facts, of: entries.count - 1)
  }

  /// Whether `t`'s ownership is its signed payload's own: stated by a signed transaction, not assumed.
  static func ownershipSigned(_ t: UnsafePointer<PurchaseTransaction>) -> Bool {
    t.pointee.sources.contains(.signedTransaction) && !t.pointee.ownershipAssumed
  }

  /// What the transaction at `position` was read with, for `moneyBacking`: its document's verdict and whether its
  /// ownership is signed.
  func evidence(at position: Int) -> MoneyEvidence {
    // The last run starting at or before `position` (a document that brought nothing new starts where the next does).
    var (low, high) = (0, documentChecks.count)
    while low < high {
      let mid = (low + high) / 2
      if documentChecks[mid].from <= position { low = mid + 1 } else { high = mid }
    }
    guard low > 0 else { return .notRecorded }
    let run = documentChecks[low - 1]
    let signed: Bool
    if position < firstDocument.count {
      signed = firstDocument.withUnsafeBufferPointer { all in
        all.baseAddress.map { Self.ownershipSigned($0 + position) } ?? false
      }
    } else {
      signed = rareFacts(of: entries[position - firstDocument.count]).ownershipSigned
    }
    return MoneyEvidence(verdict: run.verdict, anchor: run.anchor, ownershipSigned: signed)
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

  /// The refund an entry holds, as revenue reads it.
  func revocation(of e: Entry) -> Revocation? { rareFacts(of: e).revocation }

  private mutating func reference(_ id: String) -> IDRef {
    if case .number(let n) = IDKey(id) { return .number(n) }
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

  func text(of id: IDRef) -> String { key(id).text }

  func key(_ id: IDRef) -> IDKey {
    switch id {
    case .number(let n): .number(n)
    case .text(let i): .text(texts[i])
    }
  }

  /// A transaction id as a key: its value when it is plain digits below 2^63, so that 100,000 numeric ids
  /// need no text made for them, else its text. Keys subscription chains.
  enum IDKey: Hashable {
    case number(UInt64)
    case text(String)

    init(_ id: String) {
      if let n = TransactionIDIndex.numericKey(id), n < 1 << 63 { self = .number(n) } else { self = .text(id) }
    }

    var text: String {
      switch self {
      case .number(let n): String(n)
      case .text(let text): text
      }
    }

    /// Where a number sorts as text; nil for text.
    var textOrder: TextOrder? {
      guard case .number(let n) = self else { return nil }
      return TextOrder(n)
    }
  }

  // What ordering and upgrades read of the transaction at a position, whichever way it is kept.

  func purchaseDate(at position: Int) -> Timestamp? {
    position < firstDocument.count
      ? firstDocument[position].purchaseDate : entries[position - firstDocument.count].purchaseDate
  }

  func isUpgraded(at position: Int) -> Bool {
    position < firstDocument.count
      ? firstDocument[position].isUpgraded : entries[position - firstDocument.count].isUpgraded
  }

  func subscriptionGroup(at position: Int) -> String? {
    position < firstDocument.count
      ? firstDocument[position].subscriptionGroup : entries[position - firstDocument.count].group.map { texts[$0] }
  }

  /// The subscription chain: the original transaction id, or the id itself.
  func chainKey(at position: Int) -> IDKey {
    guard position >= firstDocument.count else {
      return IDKey(firstDocument[position].originalTransactionID ?? firstDocument[position].transactionID)
    }
    let e = entries[position - firstDocument.count]
    return key(e.originalID ?? e.id)
  }

  /// The number of the subscription chain (the original transaction id, or the id itself) of the transaction at
  /// `position`, in `numbering`: dense, in the order first asked. A decimal id is found by its value
  /// (`TransactionIDIndex`), so no text is hashed and no key made per transaction.
  func chainNumber(at position: Int, in numbering: inout ChainNumbering) -> Int {
    guard position >= firstDocument.count else {
      let id = firstDocument[position].originalTransactionID ?? firstDocument[position].transactionID
      // A chain read in date order repeats the id before: that one is numbered without a lookup.
      if numbering.lastNumber >= 0, sameBytes(numbering.lastID, id) { return numbering.lastNumber }
      let n: Int
      if let key = TransactionIDIndex.numericKey(id) {
        n = numbering.number(numbering.index.position(ofNumericKey: key, inserting: numbering.count))
      } else {
        if !isASCII(id) { numbering.allASCII = false }
        n = numbering.number(numbering.index.position(of: id, inserting: numbering.count))
      }
      (numbering.lastID, numbering.lastNumber) = (id, n)
      return n
    }
    let e = entries[position - firstDocument.count]
    switch e.originalID ?? e.id {
    case .number(let key):
      return numbering.number(numbering.index.position(ofNumericKey: key, inserting: numbering.count))
    case .text(let k):
      if !isASCII(texts[k]) { numbering.allASCII = false }
      return numbering.number(numbering.index.position(of: texts[k], inserting: numbering.count))
    }
  }

  /// Chains numbered so far (`chainNumber(at:in:)`).
  struct ChainNumbering {
    fileprivate var index = TransactionIDIndex()
    private(set) var count = 0
    /// Whether every chain id numbered is ASCII (decimal ids are): then ids of one number have the same bytes.
    fileprivate(set) var allASCII = true
    /// The id numbered last and its number (-1: none), apart: an optional tuple is copied to be compared.
    fileprivate var lastID = ""
    fileprivate var lastNumber = -1

    /// The number already held, or the next one.
    fileprivate mutating func number(_ held: Int?) -> Int {
      if let held { return held }
      count += 1
      return count - 1
    }
  }

  /// Which of `count` parts the subscription chain of the transaction at `position` goes to: from FNV-1a of the
  /// chain id's text, so that a chain's transactions, however kept, go to one part, and no index is built. Nil
  /// when the id is not ASCII: the ledger numbers chains by `==`, which joins texts in other bytes (canonical
  /// equivalence), and a hash of the bytes would put them in two parts.
  func chainPart(at position: Int, of count: Int) -> Int? {
    let hash: UInt32
    if position < firstDocument.count {
      guard let h = asciiHash(firstDocument[position].originalTransactionID ?? firstDocument[position].transactionID)
      else { return nil }
      hash = h
    } else {
      let e = entries[position - firstDocument.count]
      switch e.originalID ?? e.id {
      case .number(let n):
        // The digits of its text, first to last, as a first-document id's bytes are hashed (below 2^63: 19 at most).
        hash = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
          var at = buffer.count
          var rest = n
          repeat {
            at -= 1
            buffer[at] = UInt8(truncatingIfNeeded: rest % 10) &+ 0x30
            rest /= 10
          } while rest > 0 && at > 0
          return fnv1a(UnsafeBufferPointer(rebasing: buffer[at...]))
        }
      case .text(let k):
        guard let h = asciiHash(texts[k]) else { return nil }
        hash = h
      }
    }
    // The high bits of a multiplicative mix: FNV's low bits alone follow the last byte.
    let mixed = UInt64(hash) &* 0x9E37_79B9_7F4A_7C15
    return Int(truncatingIfNeeded: (mixed >> 32) % UInt64(max(1, count)))
  }

  /// FNV-1a of an ASCII text's bytes; nil when a byte is not ASCII.
  private func asciiHash(_ text: String) -> UInt32? {
    text.utf8.withContiguousStorageIfAvailable { isASCII($0) ? fnv1a($0) : nil } ?? (isASCII(text) ? fnv1a(text) : nil)
  }

  /// Loads an entry into `t` as the revenue rules read it. Fields are set one by one into a transaction
  /// reused for every entry, so no transaction is built and destroyed per entry. (Quantity was read as 1 to
  /// 1,000,000, so it fits Int32.) The rest stay as `t` has them: no rule the report applies reads them, and
  /// chains are keyed by `chainKey`.
  func load(_ e: Entry, into t: inout PurchaseTransaction) {
    t.transactionID = text(of: e.id)
    t.productID = products[e.product]
    t.ownership =
      switch e.ownership {
      case 0: .purchased
      case 1: .familyShared
      case -1: .unknown
      default: .unrecognized(texts[e.ownership - 2])
      }
    t.quantity = e.quantity.map { Int($0) }
    t.purchaseDate = e.purchaseDate
    t.expiresDate = e.expiresDate
    let facts = rareFacts(of: e)
    t.revocation = facts.revocation
    t.signedDate = facts.signedDate
    t.offer = e.offerPricing.map {
      OfferUse(
        kind: e.usesIntroductoryOffer ? .introductory : .promotional, pricing: $0,
        usesIntroductoryOffer: e.usesIntroductoryOffer)
    }
    t.isUpgraded = e.isUpgraded
    t.productType = facts.productType
    t.price = facts.price
  }

  /// Loads a first-document transaction into `t` as `load(_:into:)` loads an entry: the same fields, read
  /// through the pointer. Passing the transaction itself on would copy it, every field retained and released,
  /// and on a shuffled export each of those fields is a cache miss.
  func load(_ source: UnsafePointer<PurchaseTransaction>, into t: inout PurchaseTransaction) {
    t.transactionID = source.pointee.transactionID
    t.productID = source.pointee.productID
    t.ownership = source.pointee.ownership
    t.quantity = source.pointee.quantity
    t.purchaseDate = source.pointee.purchaseDate
    t.expiresDate = source.pointee.expiresDate
    t.revocation = source.pointee.revocation
    t.signedDate = source.pointee.signedDate
    t.offer = source.pointee.offer
    t.isUpgraded = source.pointee.isUpgraded
    t.productType = source.pointee.productType
    t.price = source.pointee.price
  }

  /// Positions by purchase date (undated first), then transaction_id as text.
  func purchaseOrder() -> [Int] { purchaseOrder(of: 0..<distinctTransactions) }

  /// Sorts `dated` by date, then position: the two packed in one integer and sorted without a comparison
  /// closure (by radix when there are many) when they fit in 64 bits (the date less the earliest, above the position's bits), else as pairs.
  /// A ledger's dates span years of milliseconds (37 bits for five) and its positions a few million at most.
  static func sortByDateThenPosition(_ dated: inout [(date: Int64, position: Int)]) {
    guard let first = dated.first else { return }
    var (earliest, latest, widest, lowest) = (first.date, first.date, 0, 0)
    var inOrder = true
    var previous = first
    // Whether every date is a whole number of hours, or of seconds, from the first: then packed in those units,
    // in fewer bits (fewer radix passes), as `DatedPurchases` packs the known history's.
    var (wholeHours, wholeSeconds) = (true, true)
    for d in dated {
      (earliest, latest) = (min(earliest, d.date), max(latest, d.date))
      (widest, lowest) = (max(widest, d.position), min(lowest, d.position))
      if d.date < previous.date || (d.date == previous.date && d.position < previous.position) { inOrder = false }
      previous = d
      if wholeHours { wholeHours = (d.date &- first.date) % 3_600_000 == 0 }
      if wholeSeconds, !wholeHours { wholeSeconds = (d.date &- first.date) % 1_000 == 0 }
    }
    if inOrder { return }
    let positionBits = Int.bitWidth - widest.leadingZeroBitCount
    let (span, overflow) = latest.subtractingReportingOverflow(earliest)
    guard !overflow, lowest >= 0, positionBits < 63, UInt64(span) < (1 as UInt64) << (64 - positionBits)
    else {
      dated.sort { a, b in a.date != b.date ? a.date < b.date : a.position < b.position }
      return
    }
    let mask = ((1 as UInt64) << positionBits) &- 1
    // Divided by a constant in each case: a division by a variable costs tens of cycles a key.
    let unit: Int64 = wholeHours ? 3_600_000 : wholeSeconds ? 1_000 : 1
    var keys: [UInt64]
    switch unit {
    case 3_600_000:
      keys = dated.map { UInt64(($0.date &- earliest) / 3_600_000) << positionBits | UInt64($0.position) }
    case 1_000:
      keys = dated.map { UInt64(($0.date &- earliest) / 1_000) << positionBits | UInt64($0.position) }
    default: keys = dated.map { UInt64($0.date &- earliest) << positionBits | UInt64($0.position) }
    }
    // By radix, as the known history's dates are (`DatedPurchases.radixSort`), from a few thousand keys on.
    let bits = positionBits + UInt64.bitWidth - UInt64(span / unit).leadingZeroBitCount
    if keys.count >= DatedPurchases.radixSortMinimum {
      DatedPurchases.radixSort(&keys, bits: bits)
    } else {
      keys.sort()
    }
    dated = keys.map { (earliest &+ Int64($0 >> positionBits) &* unit, Int($0 & mask)) }
  }

  /// `positions` (ascending) in purchase order: by purchase date (undated first), then transaction_id as text.
  func purchaseOrder<Positions: Collection<Int>>(of positions: Positions) -> [Int] {
    // Each transaction's date is gathered in one pass in storage order, so the sort reads no transaction:
    // reading them in date order (a shuffled export) would miss the cache on every one, and copy it.
    var dated: [(date: Int64, position: Int)] = []
    dated.reserveCapacity(positions.count)
    firstDocument.withUnsafeBufferPointer { all in
      for i in positions {
        let date = i < all.count ? all[i].purchaseDate : entries[i - all.count].purchaseDate
        dated.append((date?.milliseconds ?? Int64.min, i))
      }
    }
    return purchaseOrder(dated: &dated) { i, date in PurchaseOrderKey(date, textOrder(at: i), position: i) }
  }

  /// The items of `dated` (each one's purchase date, undated as `Int64.min`, and the item) in purchase order: by
  /// date, then the purchases of one moment (and the undated ones) in transaction_id order, by keys `key` makes
  /// only for those (few in an export; a numeric id's `TextOrder` sorts as its text).
  func purchaseOrder(
    dated: inout [(date: Int64, position: Int)], key: (_ item: Int, _ date: Int64) -> PurchaseOrderKey
  ) -> [Int] {
    Self.sortByDateThenPosition(&dated)
    var order = dated.map(\.position)
    var start = 0
    while start < dated.count {
      var end = start + 1
      while end < dated.count, dated[end].date == dated[start].date { end += 1 }
      if end - start > 1 {
        var keys = order[start..<end].map { key($0, dated[start].date) }
        sortByIDText(&keys)
        for (k, key) in keys.enumerated() { order[start + k] = key.index }
      }
      start = end
    }
    return order
  }

  /// Where the transaction id at `position` sorts as text, when it is a number (nil for a text id).
  func textOrder(at position: Int) -> TextOrder? {
    guard position < firstDocument.count else { return key(entries[position - firstDocument.count].id).textOrder }
    // The key alone, without an `IDKey` holding the String.
    guard let n = TransactionIDIndex.numericKey(firstDocument[position].transactionID), n < 1 << 63 else {
      return nil
    }
    return TextOrder(n)
  }

  /// What `purchaseOrder` sorts by: the purchase date (undated first), where a numeric id sorts as text
  /// (`digits` 0 for a text id), and the position.
  struct PurchaseOrderKey {
    var date: Int64
    var aligned: UInt64
    var digits: Int
    var position: Int
    /// What the caller sorts (a position, or a row's index).
    var index: Int

    init(_ date: Int64, _ id: TextOrder?, position: Int) {
      self.init(date: date, aligned: id?.aligned ?? 0, digits: id?.digits ?? 0, position: position, index: position)
    }

    init(date: Int64, aligned: UInt64, digits: Int, position: Int, index: Int) {
      (self.date, self.aligned, self.digits, self.position, self.index) = (date, aligned, digits, position, index)
    }
  }

  func idText(at position: Int) -> String {
    position < firstDocument.count
      ? firstDocument[position].transactionID : text(of: entries[position - firstDocument.count].id)
  }

  /// Where a numeric id sorts among others as text: its digits left-aligned to 19 places, then its length, so
  /// that comparing two of these compares the two texts ("10" before "12" before "120" before "9").
  struct TextOrder: Comparable {
    var aligned: UInt64
    var digits: Int

    /// Ids are below 2^63, so they have at most 19 digits and the aligned value fits.
    init(_ n: UInt64) {
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
    static func < (a: TextOrder, b: TextOrder) -> Bool {
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
