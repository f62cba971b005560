/// One customer's purchases as an immutable table: what every rule reads. Its layout, invariants and how it is
/// filled are in TABLE.md beside this file.
///
/// A row is a transaction, in the data's order (row `r` is `transactions[r]`). Ids are interned as symbols
/// (dense numbers, `Int32`); dates, ownership and the moments the rules ask about are columns computed once,
/// when the table is built. "Known at t" is a predicate on those columns: nothing is rebuilt per moment.
///
/// A class, so that what an answer keeps of a row (the table and the row's number) is one reference, not a copy of
/// the row's transaction: an entitlement answer keeps every row it considered.
public final class PurchaseTable: Equatable, Sendable {
  // MARK: The data

  /// Every transaction as the data states it: row `r` is `transactions[r]`.
  public let transactions: [PurchaseTransaction]
  /// Renewal states as the data gives them, at the data's own moment.
  public let renewals: [RenewalState]
  /// The moment the data describes, when it names one.
  public let moment: DataMoment?

  // MARK: Symbols

  /// Each product symbol's product id.
  public let productIDs: SymbolTexts
  /// Each chain symbol's id: the `original_transaction_id`, or the `transaction_id` of a row without one.
  public let chainIDs: SymbolTexts
  /// Each group symbol's `subscription_group_identifier`.
  public let groupIDs: SymbolTexts
  /// Each product id's symbol, for a table of more than `fewProducts` products; a few are found by looking.
  let productSymbols: [String: Int32]?
  /// Up to this many products are looked up one by one: a one-customer document has one or two, and a dictionary
  /// made and freed for each cost more than the whole lookup.
  static let fewProducts = 8

  // MARK: Columns, one value per row

  /// The row's product symbol.
  public let product: SymbolColumn
  /// The row's chain symbol.
  public let chain: SymbolColumn
  /// The row's group symbol, -1 for a row without a group.
  public let group: SymbolColumn
  /// `purchase_date`: when the row was bought (nil: the data does not say).
  public let purchase: TimestampColumn
  /// `expires_date`: when the row's period ends (subscriptions).
  public let expiry: TimestampColumn
  /// Who owns the row.
  public let ownership: OwnershipColumn
  /// The row's stated product type (signed data's `type`).
  public let productType: ProductTypeColumn
  /// Whether the row's offer uses up introductory eligibility (`OfferUse.usesIntroductoryOffer`).
  public let usesIntroductoryOffer: IntroductoryOfferColumn
  /// The row's refund or revocation and its reversal, as moments.
  public let revocation: SparseColumn<RevocationMoments>
  /// The row's upgrade, when it has one: stated by the data or found as a replaced period, and its moment.
  public let upgrade: SparseColumn<UpgradeMoment>

  // MARK: Indexes

  /// Each chain's rows (dated ones by purchase date then row, then undated ones in row order), each group's in the
  /// same order, and each product's in row order (answers list a product's transactions in the data's order).
  package let index: RowIndex
  /// The latest purchase date of any row.
  public let latestPurchase: Timestamp?

  /// Builds the table of `history` (`PurchaseTableBuilder`). Borrowed: passed owned, a caller's history was copied
  /// whole (every field retained) for the init to destroy.
  public convenience init(_ history: borrowing PurchaseHistory) {
    let (symbols, columns, dates, facts, revocation, upgrade, index, latest) = PurchaseTableBuilder.build(
      history.transactions)
    self.init(
      transactions: history.transactions, renewals: history.renewals, moment: history.moment, symbols: symbols,
      columns: columns, dates: dates, facts: facts, revocation: revocation, upgrade: upgrade, index: index,
      latestPurchase: latest)
  }

  /// A table of `transactions` alone.
  public convenience init(
    transactions: [PurchaseTransaction], renewals: [RenewalState] = [], moment: DataMoment? = nil
  ) {
    let (symbols, columns, dates, facts, revocation, upgrade, index, latest) = PurchaseTableBuilder.build(
      transactions)
    self.init(
      transactions: transactions, renewals: renewals, moment: moment, symbols: symbols, columns: columns,
      dates: dates, facts: facts, revocation: revocation, upgrade: upgrade, index: index, latestPurchase: latest)
  }

  /// The table the builder made, each part moved in.
  private init(
    transactions: [PurchaseTransaction], renewals: [RenewalState], moment: DataMoment?,
    symbols: (products: SymbolTexts, chains: SymbolTexts, groups: SymbolTexts),
    columns: (product: SymbolColumn, chain: SymbolColumn, group: SymbolColumn),
    dates: (purchase: TimestampColumn, expiry: TimestampColumn),
    facts: (ownership: OwnershipColumn, productType: ProductTypeColumn, usesIntroductoryOffer: IntroductoryOfferColumn),
    revocation: SparseColumn<RevocationMoments>, upgrade: SparseColumn<UpgradeMoment>, index: RowIndex,
    latestPurchase: Timestamp?
  ) {
    self.transactions = transactions
    self.renewals = renewals
    self.moment = moment
    productIDs = symbols.products
    chainIDs = symbols.chains
    groupIDs = symbols.groups
    productSymbols = Self.symbols(of: symbols.products)
    product = columns.product
    chain = columns.chain
    group = columns.group
    purchase = dates.purchase
    expiry = dates.expiry
    ownership = facts.ownership
    productType = facts.productType
    usesIntroductoryOffer = facts.usesIntroductoryOffer
    self.revocation = revocation
    self.upgrade = upgrade
    self.index = index
    self.latestPurchase = latestPurchase
  }

  /// The table from its parts, as the builder (or the plain reference builder of the tests) made them.
  package init(
    transactions: [PurchaseTransaction], renewals: [RenewalState], moment: DataMoment?,
    symbols: (products: [String], chains: [String], groups: [String]),
    columns: (product: [Int32], chain: [Int32], group: [Int32]),
    dates: (purchase: TimestampColumn, expiry: TimestampColumn), ownership: [Ownership],
    facts: (productType: [ProductType?], usesIntroductoryOffer: [Bool]), revocation: SparseColumn<RevocationMoments>,
    upgrade: SparseColumn<UpgradeMoment>,
    indexes: (chainRows: [Int], chainStarts: [Int], groupRows: [Int], groupStarts: [Int]),
    products: (rows: [Int], starts: [Int]), latestPurchase: Timestamp?
  ) {
    (self.transactions, self.renewals, self.moment) = (transactions, renewals, moment)
    (productIDs, chainIDs, groupIDs) = (SymbolTexts(symbols.0), SymbolTexts(symbols.1), SymbolTexts(symbols.2))
    productSymbols = Self.symbols(of: productIDs)
    (product, chain, group) = (SymbolColumn(columns.product), SymbolColumn(columns.chain), SymbolColumn(columns.group))
    (purchase, expiry) = dates
    (self.revocation, self.upgrade) = (revocation, upgrade)
    (self.ownership, productType, usesIntroductoryOffer) = RowFacts.columns(
      ownership: ownership, productType: facts.productType, usesIntroductoryOffer: facts.usesIntroductoryOffer)
    index = RowIndex(
      chains: (indexes.chainRows, indexes.chainStarts), groups: (indexes.groupRows, indexes.groupStarts),
      products: products)
    self.latestPurchase = latestPurchase
  }

  /// Each product id's symbol, for more than `fewProducts` products.
  private static func symbols(of productIDs: SymbolTexts) -> [String: Int32]? {
    productIDs.count <= fewProducts
      ? nil : Dictionary(productIDs.enumerated().map { ($1, Int32($0)) }) { first, _ in first }
  }

  /// Equal when every column, index and row is.
  public static func == (a: PurchaseTable, b: PurchaseTable) -> Bool {
    guard a.transactions == b.transactions, a.renewals == b.renewals, a.moment == b.moment else { return false }
    guard (a.productIDs, a.chainIDs, a.groupIDs) == (b.productIDs, b.chainIDs, b.groupIDs) else { return false }
    guard (a.product, a.chain, a.group) == (b.product, b.chain, b.group) else { return false }
    guard (a.purchase, a.expiry, a.ownership) == (b.purchase, b.expiry, b.ownership) else { return false }
    guard (a.productType, a.usesIntroductoryOffer) == (b.productType, b.usesIntroductoryOffer) else { return false }
    guard (a.revocation, a.upgrade) == (b.revocation, b.upgrade) else { return false }
    return (a.index, a.latestPurchase) == (b.index, b.latestPurchase)
  }

  // MARK: Rows

  /// How many rows.
  public var count: Int { transactions.count }
  /// Every row.
  public var rows: Range<Int> { transactions.indices }

  /// The row's product id.
  @inlinable public func productID(of row: Int) -> String { productIDs[Int(product[row])] }
  /// The row's group id, when it has one.
  public func groupID(of row: Int) -> String? { group[row] < 0 ? nil : groupIDs[Int(group[row])] }

  // MARK: Indexes

  /// How many chains, groups and products.
  public var chainCount: Int { chainIDs.count }
  public var groupCount: Int { groupIDs.count }
  public var productCount: Int { productIDs.count }

  /// Product symbols in the order of their first row: symbols are numbered as their first row comes.
  public var productsInOrder: Range<Int32> { 0..<Int32(truncatingIfNeeded: productIDs.count) }

  /// Chain `symbol`'s rows: dated ones by purchase date (then row), then undated ones in row order.
  public func rows(ofChain symbol: Int32) -> ArraySlice<Int> { index.rows(of: Int(symbol), startsAt: 0) }

  /// Group `symbol`'s rows, in the same order (none for -1).
  public func rows(ofGroup symbol: Int32) -> ArraySlice<Int> {
    symbol < 0 ? [] : index.rows(of: Int(symbol), startsAt: index.groupStartsAt)
  }

  /// Product `symbol`'s rows, in row order.
  public func rows(ofProduct symbol: Int32) -> ArraySlice<Int> {
    index.rows(of: Int(symbol), startsAt: index.productStartsAt)
  }

  /// The symbol of `productID`, if a row has it.
  func symbol(ofProduct productID: String) -> Int32? {
    if let productSymbols { return productSymbols[productID] }
    return productIDs.firstIndex(of: productID).map { Int32(truncatingIfNeeded: $0) }
  }

  /// The rows of every product of `productIDs`, in row order.
  public func rows(ofProducts productIDs: [String]) -> [Int] {
    // One product (an entitlement without a catalog): its rows, with no array of symbols made for it.
    if productIDs.count == 1 {
      guard let symbol = symbol(ofProduct: productIDs[0]) else { return [] }
      return Array(rows(ofProduct: symbol))
    }
    // Symbols sorted and each taken once, without a set made per call. (An array, not any sequence: a generic
    // called from the rules would run the standard library's unspecialised code, costing more than the lookups.)
    var symbols: [Int32] = []
    symbols.reserveCapacity(productIDs.count)
    for id in productIDs { if let symbol = symbol(ofProduct: id) { symbols.append(symbol) } }
    if symbols.count > 1 { symbols.sort() }
    var rows: [Int] = []
    var previous: Int32 = -1
    for symbol in symbols where symbol != previous {
      rows += self.rows(ofProduct: symbol)
      previous = symbol
    }
    return rows.count > 1 && symbols.count > 1 ? rows.sorted() : rows
  }

  /// Group `symbol`'s dated rows bought at `time` or later, by date then row, and its undated rows in row order.
  public func rows(ofGroup symbol: Int32, boughtFrom time: Timestamp) -> (
    dated: ArraySlice<Int>, undated: ArraySlice<Int>
  ) {
    let list = rows(ofGroup: symbol)
    /// The first place from which `holds` is true (it holds from some place on: dated rows by date, then undated).
    func firstPlace(where holds: (Timestamp?) -> Bool) -> Int {
      var (low, high) = (list.startIndex, list.endIndex)
      while low < high {
        let middle = low + (high - low) / 2
        if holds(purchase[list[middle]]) { high = middle } else { low = middle + 1 }
      }
      return low
    }
    let undated = firstPlace { $0 == nil }
    let from = firstPlace { $0.map { $0 >= time } ?? true }
    return (list[from..<max(from, undated)], list[undated...])
  }

  // MARK: Known at a moment

  /// Whether the row had been bought by `time`. An undated row is kept: whether it was bought by then is for the
  /// rules to say (unknown).
  @inlinable public func isKnown(_ row: Int, at time: Timestamp) -> Bool { purchase[row].map { $0 <= time } ?? true }

  /// The known rows at `time`, in row order.
  public func knownRows(at time: Timestamp) -> [Int] { rows.filter { isKnown($0, at: time) } }

  /// Whether the row is upgraded as known at `time`: it has an upgrade whose replacing purchase had been bought
  /// by then (or whose replacement the data does not hold).
  @inlinable public func isUpgraded(_ row: Int, at time: Timestamp) -> Bool { upgrade[row]?.isKnown(at: time) ?? false }

  /// The row's refund or revocation as known at `time`: one made by then, its reversal only when made by then too;
  /// nil when none had been made (or one was reversed by then).
  @inlinable public func revocation(_ row: Int, at time: Timestamp) -> RevocationMoments? {
    guard let r = revocation[row], r.isInForce(at: time) else { return nil }
    return r
  }

  /// The row's transaction as known at `time`: the data's, its upgrade flag and refund as they stood then.
  public func transaction(_ row: Int, at time: Timestamp) -> PurchaseTransaction {
    var t = transactions[row]
    t.isUpgraded = isUpgraded(row, at: time)
    if revocation(row, at: time) == nil {
      t.revocation = nil
    } else if let reversed = t.revocation?.reversedAt, reversed > time {
      // Refunded by then and reversed later: the refund stands.
      t.revocation?.reversedAt = nil
    }
    return t
  }

  /// `body` given the row's transaction as known at `time` (`transaction(_:at:)`), lent where the table holds it
  /// when that is the data's own (a row the data states no refund of, its upgrade flag as known then): most
  /// documents' deciding transaction, which a copy (every field retained, then released) would cost more than the
  /// rule that reads it. Else a copy made as `transaction(_:at:)` makes it.
  public func withTransaction<Result>(
    _ row: Int, at time: Timestamp, _ body: (borrowing PurchaseTransaction) -> Result
  ) -> Result {
    let asStated = transactions.withUnsafeBufferPointer { all in
      precondition(row >= 0 && row < all.count, "Index out of range")
      return all[row].revocation == nil && all[row].isUpgraded == isUpgraded(row, at: time)
    }
    guard asStated else { return body(transaction(row, at: time)) }
    return transactions.withUnsafeBufferPointer { body($0[row]) }
  }

  /// The renewal state of the row's chain.
  public func renewal(ofRow row: Int) -> RenewalState? { renewals.renewal(ofChain: chainIDs[Int(chain[row])]) }

  /// The data's moment, when it is later than `time`: renewal states describe it, not `time`.
  public func renewalsAreLater(than time: Timestamp) -> DataMoment? {
    guard let moment, moment.time > time else { return nil }
    return moment
  }
}

/// What of a refund or revocation decides access: when, its reversal, and whether it can mean an upgrade.
public struct RevocationMoments: Hashable, Sendable {
  /// `cancellation_date` / `revocationDate`.
  public var date: Timestamp
  /// When Apple reversed it (`REFUND_REVERSED`), when it did.
  public var reversedAt: Timestamp?
  /// Signed data's revocationDate is never an upgrade (old receipts also set `cancellation_date` on upgrades).
  public var excludesUpgrade: Bool

  /// The moments of `r`.
  public init(_ r: Revocation) { (date, reversedAt, excludesUpgrade) = (r.date, r.reversedAt, r.excludesUpgrade) }

  /// In force at `time`: made by then and not reversed by then.
  @inlinable public func isInForce(at time: Timestamp) -> Bool {
    date <= time && !(reversedAt.map { $0 <= time } ?? false)
  }
}

/// A row's upgrade: why it counts as upgraded, and from when.
public struct UpgradeMoment: Hashable, Sendable {
  /// Why the row counts as upgraded.
  public enum Cause: Hashable, Sendable {
    /// The data flags it (`is_upgraded`, `isUpgraded`).
    case stated
    /// A purchase of another product of its group or chain, of the same ownership, was made inside its period
    /// (a subscription group has one active subscription): the old row may have been read before the upgrade.
    case replacedPeriod
  }

  public var cause: Cause
  /// The purchase date of the purchase that replaced it: the first one after it in its chain or group. nil when the
  /// data does not hold it: then the row is upgraded at every moment.
  public var at: Timestamp?

  /// An upgrade for `cause` at `at`.
  public init(_ cause: Cause, at: Timestamp?) { (self.cause, self.at) = (cause, at) }

  /// Whether the upgrade had happened by `time`.
  @inlinable public func isKnown(at time: Timestamp) -> Bool { at.map { $0 <= time } ?? true }
}

// MARK: Packed columns

/// The chain, group and product indexes in one array (one allocation, not six): for each kind in turn, where each
/// key's rows start (as places in the array, and the end), then the rows, key after key (TABLE.md).
package struct RowIndex: Equatable, Sendable {
  package let places: [Int]
  /// Where the groups' and the products' starts are (the chains' are first).
  package let groupStartsAt: Int
  package let productStartsAt: Int

  /// The index `PurchaseTableBuilder.fillLists` made.
  init(places: [Int], groupStartsAt: Int, productStartsAt: Int) {
    (self.places, self.groupStartsAt, self.productStartsAt) = (places, groupStartsAt, productStartsAt)
  }

  /// The index of each kind's rows and where each key's start (from 0 in its rows, and the end).
  package init(
    chains: (rows: [Int], starts: [Int]), groups: (rows: [Int], starts: [Int]), products: (rows: [Int], starts: [Int])
  ) {
    var places: [Int] = []
    func append(_ lists: (rows: [Int], starts: [Int])) {
      let rowsAt = places.count + lists.starts.count
      places += lists.starts.map { $0 + rowsAt }
      places += lists.rows
    }
    append(chains)
    groupStartsAt = places.count
    append(groups)
    productStartsAt = places.count
    append(products)
    self.places = places
  }

  /// Key `k`'s rows of the kind whose starts are at `startsAt`.
  func rows(of k: Int, startsAt: Int) -> ArraySlice<Int> {
    places[places[startsAt + k]..<places[startsAt + k + 1]]
  }
}

/// A column of dates, 8 bytes a row where `[Timestamp?]` takes 16: a missing date is kept as `Int64.min`, which no
/// date the decoders read can be (they read 1970...9999).
public struct TimestampColumn: RandomAccessCollection, Hashable, Sendable {
  /// The dates from cell `start` on, each an `Int64` written over two cells: a table's purchase and expiry columns
  /// are two parts of the array its symbol columns are parts of (one allocation for all five).
  private var cells: [Int32] = []
  private var start = 0
  public private(set) var endIndex = 0

  /// An empty column.
  public init() {}

  /// The column of `dates`.
  public init(_ dates: [Timestamp?]) {
    cells.reserveCapacity(2 * dates.count)
    for date in dates { cells += Self.halves(of: Self.kept(date)) }
    endIndex = dates.count
  }

  /// Part `part` of `cells`, cut in parts of `count` rows (two cells a row).
  init(part: Int, of cells: [Int32], count: Int) {
    precondition(part >= 0 && count >= 0 && 2 * count * (part + 1) <= cells.count, "a part past the cells")
    (self.cells, start, endIndex) = (cells, 2 * count * part, count)
  }

  /// The milliseconds kept for `date` (`Int64.min` for none).
  static func kept(_ date: Timestamp?) -> Int64 { date?.milliseconds ?? .min }

  /// The two cells `milliseconds` is kept in, in memory order (what `subscript` loads as one `Int64`).
  static func halves(of milliseconds: Int64) -> [Int32] {
    withUnsafeBytes(of: milliseconds) { [$0.load(as: Int32.self), $0.load(fromByteOffset: 4, as: Int32.self)] }
  }

  /// Writes `milliseconds` over cells `at` and `at + 1` of `cells`.
  static func store(_ milliseconds: Int64, at place: Int, in cells: UnsafeMutableRawBufferPointer) {
    cells.storeBytes(of: milliseconds, toByteOffset: 4 * place, as: Int64.self)
  }

  public var startIndex: Int { 0 }

  /// The row's date, nil when it has none.
  public subscript(row: Int) -> Timestamp? {
    // One check: `start + 2 * endIndex` never passes the array's end.
    precondition(UInt(bitPattern: row) < UInt(bitPattern: endIndex), "Index out of range")
    let ms = cells.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4 &* (start &+ 2 &* row), as: Int64.self) }
    return ms == .min ? nil : Timestamp(unchecked: ms)
  }

  /// Equal when every row's date is.
  public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(endIndex)
    for date in self { hasher.combine(date) }
  }

  mutating func reserveCapacity(_ count: Int) { cells.reserveCapacity(2 * count) }

  /// Appends a row to a column made whole (never a part of another's array).
  mutating func append(_ date: Timestamp?) {
    precondition(start == 0 && 2 * endIndex == cells.count, "a part of an array is not appended to")
    cells += Self.halves(of: Self.kept(date))
    endIndex += 1
  }
}

/// A column of symbols (`Int32`): a table's product, chain and group columns are three parts of one array (with its
/// row facts and dates: one allocation, not three).
public struct SymbolColumn: RandomAccessCollection, Hashable, Sendable {
  @usableFromInline let symbols: [Int32]
  @usableFromInline let start: Int
  public let endIndex: Int

  /// The column of `symbols`.
  public init(_ symbols: [Int32]) { (self.symbols, start, endIndex) = (symbols, 0, symbols.count) }

  /// Part `part` of `symbols`, cut in parts of `count` rows.
  init(part: Int, of symbols: [Int32], count: Int) { (self.symbols, start, endIndex) = (symbols, part * count, count) }

  public var startIndex: Int { 0 }

  /// The row's symbol.
  @inlinable public subscript(row: Int) -> Int32 {
    // One check: `start + endIndex` never passes the array's end.
    precondition(UInt(bitPattern: row) < UInt(bitPattern: endIndex), "Index out of range")
    return symbols.withUnsafeBufferPointer { $0[start &+ row] }
  }

  /// Equal when every row's symbol is.
  public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(endIndex)
    for symbol in self { hasher.combine(symbol) }
  }
}

/// A column most of whose rows hold nothing (refunds, upgrades): 4 bytes a row for where its value is kept, the
/// values apart, in row order; a column of nothing but nils (most tables' upgrades and refunds) keeps its length
/// alone, no array.
public struct SparseColumn<Value: Hashable & Sendable>: RandomAccessCollection, Hashable, Sendable {
  /// Where each row's value is in `values`; -1: none. Empty while `values` is (made at the first value).
  private var places: [Int32] = []
  private var values: [Value] = []
  private var rowCount = 0
  /// The capacity asked for before `places` was made.
  private var reserved = 0

  /// An empty column.
  public init() {}

  /// The column of `column`.
  public init(_ column: [Value?]) {
    reserveCapacity(column.count)
    for value in column { append(value) }
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { rowCount }

  /// The row's value, nil when it has none.
  public subscript(row: Int) -> Value? {
    guard !places.isEmpty else {
      precondition(row >= 0 && row < rowCount, "Index out of range")
      return nil
    }
    let place = places[row]
    return place < 0 ? nil : values[Int(place)]
  }

  /// Equal when every row's value is (the capacity asked for aside).
  public static func == (a: Self, b: Self) -> Bool {
    (a.rowCount, a.places, a.values) == (b.rowCount, b.places, b.values)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(rowCount)
    hasher.combine(places)
    hasher.combine(values)
  }

  mutating func reserveCapacity(_ count: Int) {
    if places.isEmpty { reserved = count } else { places.reserveCapacity(count) }
  }

  mutating func append(_ value: Value?) {
    defer { rowCount += 1 }
    guard let value else {
      if !places.isEmpty { places.append(-1) }
      return
    }
    if places.isEmpty {
      places.reserveCapacity(Swift.max(reserved, rowCount + 1))
      for _ in 0..<rowCount { places.append(-1) }
    }
    places.append(Int32(truncatingIfNeeded: values.count))
    values.append(value)
  }

  /// Appends `count` rows without a value.
  mutating func appendNone(_ count: Int) {
    if !places.isEmpty { places.append(contentsOf: repeatElement(-1, count: count)) }
    rowCount += count
  }
}

/// The texts of one kind of symbol (`productIDs`, `chainIDs`, `groupIDs`): the first kept in place, the others in an
/// array, so that a kind with one symbol (a one-customer document's product, chain and group) costs no allocation.
public struct SymbolTexts: RandomAccessCollection, Hashable, Sendable {
  /// Symbol 0's text ("" when there is none).
  @usableFromInline let first: String
  /// The texts of symbols 1... (empty with one symbol).
  @usableFromInline let rest: [String]
  public let endIndex: Int

  /// The texts of `texts`, symbol `s` being `texts[s]`.
  public init(_ texts: [String]) {
    (first, rest, endIndex) = (texts.first ?? "", Array(texts.dropFirst()), texts.count)
  }

  /// The first text and the rest, as the builder gathered them.
  init(first: String, rest: [String], count: Int) { (self.first, self.rest, endIndex) = (first, rest, count) }

  public var startIndex: Int { 0 }

  /// Symbol `symbol`'s text.
  @inlinable public subscript(symbol: Int) -> String {
    precondition(UInt(bitPattern: symbol) < UInt(bitPattern: endIndex), "Index out of range")
    return symbol == 0 ? first : rest[symbol &- 1]
  }

  /// The first symbol whose text is `text` (`==`, as `Array.firstIndex(of:)`), looked for without copying each text
  /// out as the collection's generic search does.
  public func firstIndex(of text: String) -> Int? {
    guard endIndex > 0 else { return nil }
    if first == text { return 0 }
    return rest.firstIndex(of: text).map { $0 + 1 }
  }

  /// Equal when every symbol's text is.
  public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(endIndex)
    for text in self { hasher.combine(text) }
  }
}

/// The ownership, stated product type and introductory offer of each row, packed in one `Int32` a row: the fourth
/// part of the array the product, chain and group columns are parts of (one allocation, not three arrays). An
/// ownership Apple did not document keeps its text apart (`SparseColumn`: none, no array).
@usableFromInline enum RowFacts {
  /// Bits 0-2: the stated product type (0: none); bit 3: the offer is introductory; bits 4-5: the ownership.
  @usableFromInline static let typeMask: Int32 = 0b111
  @usableFromInline static let introductory: Int32 = 0b1000
  @usableFromInline static let ownershipShift: Int32 = 4

  /// The word of a row's facts.
  static func word(ownership: Ownership, productType: ProductType?, introductory: Bool) -> Int32 {
    let type: Int32 =
      switch productType {
      case nil: 0
      case .autoRenewable?: 1
      case .nonRenewing?: 2
      case .nonConsumable?: 3
      case .consumable?: 4
      }
    let owner: Int32 =
      switch ownership {
      case .purchased: 0
      case .familyShared: 1
      case .unknown: 2
      case .unrecognized: 3
      }
    return type | (introductory ? Self.introductory : 0) | owner << ownershipShift
  }

  /// The undocumented ownership's text, when the row has one.
  static func unrecognizedText(_ ownership: Ownership) -> String? {
    if case .unrecognized(let raw) = ownership { return raw }
    return nil
  }

  /// The three columns of rows given as arrays (the reference builder's), in an array of their own.
  static func columns(ownership: [Ownership], productType: [ProductType?], usesIntroductoryOffer: [Bool]) -> (
    OwnershipColumn, ProductTypeColumn, IntroductoryOfferColumn
  ) {
    precondition(ownership.count == productType.count && ownership.count == usesIntroductoryOffer.count)
    let words = ownership.indices.map {
      word(ownership: ownership[$0], productType: productType[$0], introductory: usesIntroductoryOffer[$0])
    }
    return columns(SymbolColumn(words), unrecognized: SparseColumn(ownership.map(unrecognizedText)))
  }

  /// The three columns read from `words`.
  static func columns(_ words: SymbolColumn, unrecognized: SparseColumn<String>) -> (
    OwnershipColumn, ProductTypeColumn, IntroductoryOfferColumn
  ) {
    (
      OwnershipColumn(words: words, unrecognized: unrecognized), ProductTypeColumn(words: words),
      IntroductoryOfferColumn(words: words)
    )
  }
}

/// Who owns each row (`RowFacts`).
public struct OwnershipColumn: RandomAccessCollection, Hashable, Sendable {
  @usableFromInline let words: SymbolColumn
  @usableFromInline let unrecognized: SparseColumn<String>

  public var startIndex: Int { 0 }
  public var endIndex: Int { words.endIndex }

  /// The row's ownership.
  @inlinable public subscript(row: Int) -> Ownership {
    switch words[row] >> RowFacts.ownershipShift {
    case 0: return .purchased
    case 1: return .familyShared
    case 2: return .unknown
    default:
      guard let raw = unrecognized[row] else { preconditionFailure("an undocumented ownership without its text") }
      return .unrecognized(raw)
    }
  }

  /// Equal when every row's ownership is.
  public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(endIndex)
    for ownership in self { hasher.combine(ownership) }
  }
}

/// Each row's stated product type (`RowFacts`).
public struct ProductTypeColumn: RandomAccessCollection, Hashable, Sendable {
  @usableFromInline let words: SymbolColumn

  public var startIndex: Int { 0 }
  public var endIndex: Int { words.endIndex }

  /// The row's stated product type, nil when the data states none.
  @inlinable public subscript(row: Int) -> ProductType? {
    switch words[row] & RowFacts.typeMask {
    case 1: .autoRenewable
    case 2: .nonRenewing
    case 3: .nonConsumable
    case 4: .consumable
    default: nil
    }
  }

  /// Equal when every row's type is.
  public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(endIndex)
    for type in self { hasher.combine(type) }
  }
}

/// Whether each row's offer uses up introductory eligibility (`RowFacts`).
public struct IntroductoryOfferColumn: RandomAccessCollection, Hashable, Sendable {
  @usableFromInline let words: SymbolColumn

  public var startIndex: Int { 0 }
  public var endIndex: Int { words.endIndex }

  /// Whether the row's offer is introductory.
  @inlinable public subscript(row: Int) -> Bool { words[row] & RowFacts.introductory != 0 }

  /// Equal when every row's flag is.
  public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(endIndex)
    for flag in self { hasher.combine(flag) }
  }
}
