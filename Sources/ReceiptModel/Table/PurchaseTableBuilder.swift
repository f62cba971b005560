/// Builds a `PurchaseTable`: interns the ids, fills the columns, sorts the rows by date into the chain and group
/// indexes, and computes the upgrade moments. The speed of the table is here and in `InPlaceBytes.swift`, nowhere
/// else; `ReferencePurchaseTable` (ReceiptModelTestSupport) builds the same table plainly, and
/// PurchaseTableBuilderTests holds this one to it.
enum PurchaseTableBuilder {
  /// What `PurchaseTable` is made of.
  struct Built {
    var symbols: (products: [String], chains: [String], groups: [String])
    var columns: (product: [Int32], chain: [Int32], group: [Int32])
    var dates: (purchase: TimestampColumn, expiry: TimestampColumn)
    var ownership: [Ownership]
    var facts: (productType: [ProductType?], usesIntroductoryOffer: [Bool])
    var revocation: SparseColumn<RevocationMoments>
    var upgrade: SparseColumn<UpgradeMoment>
    var index: DateIndex
    var products: (rows: [Int], starts: [Int], inOrder: [Int32])
    var latestPurchase: Timestamp?

    var indexes: (chainRows: [Int], chainStarts: [Int], groupRows: [Int], groupStarts: [Int]) {
      (index.chains.rows, index.chains.starts, index.groups.rows, index.groups.starts)
    }
  }

  /// The table of `transactions`: its symbols, columns, indexes and upgrades.
  static func build(_ transactions: [PurchaseTransaction]) -> Built {
    let count = transactions.count
    var (products, chains, groups) = (Symbols(), Symbols(), Symbols())
    var (product, chain, group) = ([Int32](), [Int32](), [Int32]())
    var (purchase, expiry) = (TimestampColumn(), TimestampColumn())
    var ownership: [Ownership] = []
    var productType: [ProductType?] = []
    var introductory: [Bool] = []
    var revocation = SparseColumn<RevocationMoments>()
    var stated: [Bool] = []
    product.reserveCapacity(count)
    chain.reserveCapacity(count)
    group.reserveCapacity(count)
    purchase.reserveCapacity(count)
    expiry.reserveCapacity(count)
    ownership.reserveCapacity(count)
    productType.reserveCapacity(count)
    introductory.reserveCapacity(count)
    revocation.reserveCapacity(count)
    stated.reserveCapacity(count)
    // Through the buffer: an element read from an array field by field can be copied whole on the way (every field
    // retained and released, 368 bytes a row).
    transactions.withUnsafeBufferPointer { all in
      for r in all.indices {
        product.append(products.symbol(of: all[r].productID))
        chain.append(chains.symbol(of: all[r].originalTransactionID ?? all[r].transactionID))
        group.append(all[r].subscriptionGroup.map { groups.symbol(of: $0) } ?? -1)
        purchase.append(all[r].purchaseDate)
        expiry.append(all[r].expiresDate)
        ownership.append(all[r].ownership)
        productType.append(all[r].productType)
        introductory.append(all[r].offer?.usesIntroductoryOffer ?? false)
        revocation.append(all[r].revocation.map(RevocationMoments.init))
        stated.append(all[r].isUpgraded)
      }
    }
    let order = datedOrder(purchase)
    let index = DateIndex(
      chain: chain, chains: chains.texts.count, group: group, groups: groups.texts.count, purchase: purchase,
      order: order)
    let (productRows, productStarts) = rowLists(keys: product, count: products.texts.count)
    // Symbols are numbered as their first row comes.
    let productsInOrder = Array(0..<Int32(truncatingIfNeeded: products.texts.count))
    var built = Built(
      symbols: (products.texts, chains.texts, groups.texts), columns: (product, chain, group),
      dates: (purchase, expiry),
      ownership: ownership, facts: (productType, introductory), revocation: revocation, upgrade: SparseColumn(),
      index: index,
      products: (productRows, productStarts, productsInOrder), latestPurchase: order.last?.at)
    built.upgrade = upgrades(of: built, stated: stated)
    return built
  }

  /// One kind's symbols as they are made: the numbering, each symbol's text, and the key before with its symbol.
  private struct Symbols {
    /// Made once there are more than `fewKeys` symbols; up to then a key is compared with each text.
    var numbering: KeyNumbering?
    var texts: [String] = []
    /// Rows of one product, chain or group come in runs, and a decoded id shares its storage with the equal ids
    /// before it, so comparing bytes answers at once. (Apart, not an optional tuple, which would be copied to be
    /// compared.)
    var lastKey = ""
    var lastSymbol: Int32 = -1
    /// A one-customer document has a product, a chain and a group or two: looking through them costs less than
    /// making and freeing a numbering's tables for each kind.
    static let fewKeys = 8

    /// The symbol of `key`, a new one (its text appended to `texts`) when it is new.
    mutating func symbol(of key: String) -> Int32 {
      // Bytes, as the numbering compares: `==` would make "ö" and "o" with a combining diaeresis one symbol when
      // they come one after the other, and two otherwise.
      if lastSymbol >= 0, Self.sameText(lastKey, key) { return lastSymbol }
      let number = numbering?.number(of: key) ?? fewNumber(of: key)
      if number == texts.count { texts.append(key) }
      (lastKey, lastSymbol) = (key, Int32(truncatingIfNeeded: number))
      return lastSymbol
    }

    /// The number of `key` among a few texts, compared byte for byte as the numbering compares them; past
    /// `fewKeys` the numbering is made from the texts so far.
    private mutating func fewNumber(of key: String) -> Int {
      for (number, text) in texts.enumerated() where Self.sameText(key, text) { return number }
      guard texts.count == Self.fewKeys else { return texts.count }
      var made = KeyNumbering()
      for text in texts { _ = made.number(of: text) }
      let number = made.number(of: key)
      numbering = made
      return number
    }

    /// Whether two keys hold the same UTF-8 bytes.
    private static func sameText(_ a: String, _ b: String) -> Bool {
      if a.isContiguousUTF8 && b.isContiguousUTF8 { return sameBytes(a, b) }
      return a.utf8.elementsEqual(b.utf8)
    }
  }

  /// Every row's upgrade: stated ones, and replaced periods (`replacedPeriods`), each with its moment.
  static func upgrades(of table: Built, stated: [Bool]) -> SparseColumn<UpgradeMoment> {
    var upgrade = SparseColumn<UpgradeMoment>()
    upgrade.reserveCapacity(stated.count)
    let replaced = replacedPeriods(of: table, stated: stated)
    for row in stated.indices {
      guard stated[row] || (!replaced.isEmpty && replaced[row]) else {
        upgrade.append(nil)
        continue
      }
      upgrade.append(
        UpgradeMoment(stated[row] ? .stated : .replacedPeriod, at: table.index.replacingPurchase(of: row)))
    }
    return upgrade
  }

  /// Rows a purchase replaced inside their period, though the data does not flag them upgraded (§7.2 [S5][S34]): a
  /// purchase of another product of the row's group (or chain), of the same ownership, bought after the row and
  /// before its expiry. A FAMILY_SHARED copy and the customer's own purchase are two subscriptions and never replace
  /// each other; a downgrade, bought at the expiry, replaces nothing. Empty when no row is (one product).
  static func replacedPeriods(of table: Built, stated: [Bool]) -> [Bool] {
    let (product, ownership) = (table.columns.product, table.ownership)
    // One product: nothing can replace another.
    guard table.symbols.products.count > 1 else { return [] }
    var replaced = [Bool](filling: false, count: stated.count)
    for row in stated.indices where !stated[row] {
      guard table.dates.purchase[row] != nil, let expires = table.dates.expiry[row] else { continue }
      func replacer(in lists: KeyedRows) -> Bool {
        for place in lists.laterPlaces(than: row) {
          let other = lists.rows[place]
          guard let at = table.dates.purchase[other], at < expires else { return false }
          if product[other] != product[row], ownership[other] == ownership[row] { return true }
        }
        return false
      }
      replaced[row] = replacer(in: table.index.groups) || replacer(in: table.index.chains)
    }
    return replaced
  }

  /// The rows of each key (dense from 0), in row order, and where each key's start.
  static func rowLists(keys: [Int32], count: Int) -> ([Int], [Int]) {
    var starts = [Int](filling: 0, count: count + 1)
    for k in keys { starts[Int(k) + 1] += 1 }
    for k in 0..<count { starts[k + 1] += starts[k] }
    var rows = [Int](filling: 0, count: keys.count)
    // Each key's start serves as its cursor, ending at the next key's start; moved back after (no array more).
    for row in keys.indices {
      let k = Int(keys[row])
      rows[starts[k]] = row
      starts[k] += 1
    }
    shiftBack(&starts)
    return (rows, starts)
  }

  /// Starts that a counting sort advanced to each key's end (the next key's start) put back.
  static func shiftBack(_ starts: inout [Int]) {
    for k in starts.indices.dropFirst().reversed() { starts[k] = starts[k - 1] }
    if !starts.isEmpty { starts[0] = 0 }
  }

  /// A dated row and its purchase date.
  struct DatedRow: Equatable {
    var at: Timestamp
    var row: Int
  }

  /// Every dated row, sorted by date then row.
  static func datedOrder(_ dates: TimestampColumn) -> [DatedRow] {
    var order: [DatedRow] = []
    order.reserveCapacity(dates.count)
    var inOrder = true
    var (earliest, latest) = (Int64.max, Int64.min)
    for row in dates.indices {
      guard let at = dates[row] else { continue }
      if let last = order.last, last.at > at { inOrder = false }
      order.append(DatedRow(at: at, row: row))
      (earliest, latest) = (min(earliest, at.milliseconds), max(latest, at.milliseconds))
    }
    // Most exports list purchases in date order, which needs no sort.
    guard !inOrder else { return order }
    // The date (less the earliest, in whole seconds when every date is) above the row's bits in one integer,
    // sorted by radix over the date's bits (the keys are made in row order and each pass is stable), when they
    // fit in 64 bits: five years of seconds and a million rows take 48. Else pairs sorted by comparison.
    let rowBits = UInt64(Int.bitWidth - dates.count.leadingZeroBitCount)
    let wholeSeconds = order.allSatisfy { ($0.at.milliseconds &- earliest) % 1_000 == 0 }
    let unit: Int64 = wholeSeconds ? 1_000 : 1
    let units = UInt64(truncatingIfNeeded: (latest &- earliest) / unit)
    let dateBits = UInt64(UInt64.bitWidth - units.leadingZeroBitCount)
    guard order.count >= 2_048, latest &- earliest >= 0, rowBits + dateBits < 64 else {
      order.sort { ($0.at, $0.row) < ($1.at, $1.row) }
      return order
    }
    var keys = order.map { UInt64(($0.at.milliseconds &- earliest) / unit) << rowBits | UInt64($0.row) }
    radixSort(&keys, bits: Int(rowBits + dateBits), from: Int(rowBits))
    let rowMask = ((1 as UInt64) << rowBits) &- 1
    for j in keys.indices {
      let at = earliest &+ Int64(keys[j] >> rowBits) &* unit
      order[j] = DatedRow(at: Timestamp(unchecked: at), row: Int(keys[j] & rowMask))
    }
    return order
  }

  /// Sorts `keys`, each below 2^`bits`, by their bits from `lowestBit` up, eleven bits a pass; stable, so keys
  /// equal above `lowestBit` keep the order they came in. A pass where every key has the same digit is skipped.
  static func radixSort(_ keys: inout [UInt64], bits: Int, from lowestBit: Int) {
    var other = [UInt64](repeating: 0, count: keys.count)
    var counts = [Int](repeating: 0, count: 2_049)
    var shift = UInt64(lowestBit)
    while shift < UInt64(bits) {
      for d in counts.indices { counts[d] = 0 }
      for k in keys { counts[Int(truncatingIfNeeded: (k >> shift) & 2_047) + 1] += 1 }
      // One digit for all: already in order by it.
      if !counts.contains(keys.count) {
        for d in 1..<counts.count { counts[d] += counts[d - 1] }
        for k in keys {
          let d = Int(truncatingIfNeeded: (k >> shift) & 2_047)
          other[counts[d]] = k
          counts[d] += 1
        }
        swap(&keys, &other)
      }
      shift += 11
    }
  }
}

/// The rows of each key of one kind (chain or group): dated ones by (purchase date, row), then undated ones in
/// row order, key after key in one array; where each key's rows start and its dated ones end; and where each row
/// stands (-1: no key), so that the rows bought after a row's own purchase are read from its place, not searched
/// for.
struct KeyedRows: Sendable {
  let rows: [Int]
  /// Key k's rows are `rows[starts[k]..<starts[k + 1]]`, its dated ones up to `datedEnds[k]` (k < the key count).
  let starts: [Int]
  let datedEnds: [Int]
  /// Where each row stands in `rows` (-1: the row has no key).
  let ranks: [Int32]
  let purchase: TimestampColumn
  let keys: [Int32]

  /// The rows of each key of `keys` (dense from 0, `count` of them; negative: none), the dated ones in `order`
  /// (every dated row, by date then row): a counting sort.
  init(keys: [Int32], count: Int, order: [PurchaseTableBuilder.DatedRow], purchase: TimestampColumn) {
    var starts = [Int](filling: 0, count: count + 1)
    for k in keys where k >= 0 { starts[Int(k) + 1] += 1 }
    for k in 0..<count { starts[k + 1] += starts[k] }
    var rows = [Int](filling: 0, count: starts[count])
    var ranks = [Int32](filling: -1, count: keys.count)
    // Each key's start serves as its cursor (`PurchaseTableBuilder.rowLists`).
    for d in order where keys[d.row] >= 0 {
      let k = Int(keys[d.row])
      (rows[starts[k]], ranks[d.row]) = (d.row, Int32(truncatingIfNeeded: starts[k]))
      starts[k] += 1
    }
    // Its last element is the last key's end, never read; the undated rows' pass writes into `starts` only.
    let datedEnds = starts
    for row in keys.indices where keys[row] >= 0 && purchase[row] == nil {
      let k = Int(keys[row])
      (rows[starts[k]], ranks[row]) = (row, Int32(truncatingIfNeeded: starts[k]))
      starts[k] += 1
    }
    PurchaseTableBuilder.shiftBack(&starts)
    (self.rows, self.starts, self.datedEnds, self.ranks) = (rows, starts, datedEnds, ranks)
    (self.purchase, self.keys) = (purchase, keys)
  }

  /// Where the rows of `row`'s key bought after it (later, not at the same moment) are in `rows`, by date: none
  /// when it is undated or has no key.
  func laterPlaces(than row: Int) -> Range<Int> {
    guard keys[row] >= 0, let bought = purchase[row] else { return 0..<0 }
    let (own, end) = (Int(ranks[row]), datedEnds[Int(keys[row])])
    var start = own + 1
    // Past the rows bought at the same moment (few; a long run of them is searched for instead).
    while start < end, purchase[rows[start]] == bought {
      guard start - own < 8 else {
        var (low, high) = (start, end)
        while low < high {
          let middle = low + (high - low) / 2
          if purchase[rows[middle]].map({ $0 > bought }) ?? true { high = middle } else { low = middle + 1 }
        }
        return low..<end
      }
      start += 1
    }
    return start..<end
  }
}

/// Rows' chains and groups indexed by date: a customer's table's, or those of the rows of every document `revenue`
/// reads.
struct DateIndex: Sendable {
  let chains: KeyedRows
  let groups: KeyedRows

  /// Indexes rows given each one's chain (dense from 0), group (dense from 0; -1 none) and purchase date, and every
  /// dated row by date then row.
  init(
    chain: [Int32], chains: Int, group: [Int32], groups: Int, purchase: TimestampColumn,
    order: [PurchaseTableBuilder.DatedRow]
  ) {
    self.chains = KeyedRows(keys: chain, count: chains, order: order, purchase: purchase)
    self.groups = KeyedRows(keys: group, count: groups, order: order, purchase: purchase)
  }

  /// The purchase date of the first purchase after `row` in its chain or group: the moment an upgrade of `row`
  /// happened, Apple recording no other date for one. nil when `row` is undated or nothing later is in the data.
  /// The rows are distinct transactions (the collector merges copies of one `transaction_id`), so any later one
  /// replaced it.
  func replacingPurchase(of row: Int) -> Timestamp? {
    let inChain = chains.laterPlaces(than: row).first.flatMap { chains.purchase[chains.rows[$0]] }
    let inGroup = groups.laterPlaces(than: row).first.flatMap { groups.purchase[groups.rows[$0]] }
    guard let inChain, let inGroup else { return inChain ?? inGroup }
    return min(inChain, inGroup)
  }
}

extension PurchaseTable {
  /// When each row of `upgraded` was upgraded: the purchase date of the first later purchase of its chain or group
  /// (the moment `upgrade` holds for a customer's table), for rows of every document `revenue` reads, which are
  /// distinct transactions. Chains and groups are dense numbers from 0 (-1: no group); nil: not upgraded, or
  /// nothing later in the data.
  public static func upgradeMoments(
    chain: [Int32], group: [Int32], purchase: TimestampColumn, upgraded: [Bool]
  ) -> [Timestamp?] {
    guard upgraded.contains(true) else { return [Timestamp?](repeating: nil, count: purchase.count) }
    let index = DateIndex(
      chain: chain, chains: Int(chain.max() ?? -1) + 1, group: group, groups: Int(group.max() ?? -1) + 1,
      purchase: purchase, order: PurchaseTableBuilder.datedOrder(purchase))
    return upgraded.indices.map { upgraded[$0] ? index.replacingPurchase(of: $0) : nil }
  }
}
