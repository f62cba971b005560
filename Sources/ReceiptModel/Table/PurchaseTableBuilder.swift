/// Builds a `PurchaseTable`: interns the ids, fills the columns, sorts the rows by date into the chain and group
/// indexes, and computes the upgrade moments. The speed of the table is here and in `InPlaceBytes.swift`, nowhere
/// else; `ReferencePurchaseTable` (ReceiptModelTestSupport) builds the same table plainly, and
/// PurchaseTableBuilderTests holds this one to it.
enum PurchaseTableBuilder {
  /// What `PurchaseTable` is made of: a tuple, so that the table's init takes it apart into bindings and moves each
  /// part in (a struct's fields were copied out and the struct destroyed).
  typealias Built = (
    symbols: (products: SymbolTexts, chains: SymbolTexts, groups: SymbolTexts),
    columns: (product: SymbolColumn, chain: SymbolColumn, group: SymbolColumn),
    dates: (purchase: TimestampColumn, expiry: TimestampColumn),
    facts: (ownership: OwnershipColumn, productType: ProductTypeColumn, usesIntroductoryOffer: IntroductoryOfferColumn),
    revocation: SparseColumn<RevocationMoments>, upgrade: SparseColumn<UpgradeMoment>, index: RowIndex,
    latestPurchase: Timestamp?
  )

  /// The table of `transactions`: its symbols, columns, indexes and upgrades.
  static func build(_ transactions: [PurchaseTransaction]) -> Built {
    let count = transactions.count
    var (products, chains, groups) = (Symbols(), Symbols(), Symbols())
    // The product, chain and group columns, the rows' facts (`RowFacts`) and the purchase and expiry dates (two
    // cells a date) in one array.
    var symbols = [Int32](filling: 0, count: 8 * count)
    var unrecognized = SparseColumn<String>()
    var revocation = SparseColumn<RevocationMoments>()
    var anyStated = false
    var grouped = 0
    // Through the buffer: an element read from an array field by field can be copied whole on the way (every field
    // retained and released, 368 bytes a row).
    transactions.withUnsafeBufferPointer { all in
      symbols.withUnsafeMutableBufferPointer { cells in
        let dates = UnsafeMutableRawBufferPointer(cells)
        for r in all.indices {
          cells[r] = products.symbol(of: all[r].productID)
          cells[count + r] = chains.symbol(of: all[r].originalTransactionID ?? all[r].transactionID)
          cells[2 * count + r] = all[r].subscriptionGroup.map { groups.symbol(of: $0) } ?? -1
          TimestampColumn.store(TimestampColumn.kept(all[r].purchaseDate), at: 4 * count + 2 * r, in: dates)
          TimestampColumn.store(TimestampColumn.kept(all[r].expiresDate), at: 6 * count + 2 * r, in: dates)
          cells[3 * count + r] = RowFacts.word(
            ownership: all[r].ownership, productType: all[r].productType,
            introductory: all[r].offer?.usesIntroductoryOffer ?? false)
          unrecognized.append(RowFacts.unrecognizedText(all[r].ownership))
          revocation.append(all[r].revocation.map(RevocationMoments.init))
          anyStated = anyStated || all[r].isUpgraded
          grouped += all[r].subscriptionGroup == nil ? 0 : 1
        }
      }
    }
    let (product, chain, group) = (
      SymbolColumn(part: 0, of: symbols, count: count), SymbolColumn(part: 1, of: symbols, count: count),
      SymbolColumn(part: 2, of: symbols, count: count)
    )
    let (purchase, expiry) = (
      TimestampColumn(part: 2, of: symbols, count: count), TimestampColumn(part: 3, of: symbols, count: count)
    )
    let facts = RowFacts.columns(SymbolColumn(part: 3, of: symbols, count: count), unrecognized: unrecognized)
    let (order, latest) = datedOrderUnlessInRowOrder(purchase)
    // Where each row stands in its chain's and group's lists only when an upgrade is to be found: one product and
    // no stated upgrade make none.
    let upgrades = anyStated || products.count > 1
    // The three kinds' lists in one array (`RowIndex`), each kind's where `fillLists` expects it.
    let (chainCount, groupCount, productCount) = (chains.count, groups.count, products.count)
    let groupsAt = chainCount + 1 + count
    let productsAt = groupsAt + groupCount + 1 + grouped
    var places = [Int](filling: 0, count: productsAt + productCount + 1 + count)
    var (inChains, inGroups) = (Placed(), Placed())
    places.withUnsafeMutableBufferPointer { p in
      inChains = fillLists(keys: chain, count: chainCount, dated: (purchase, order), into: p, at: 0, placed: upgrades)
      inGroups = fillLists(
        keys: group, count: groupCount, dated: (purchase, order), into: p, at: groupsAt, placed: upgrades)
      // Products list their rows in row order.
      _ = fillLists(keys: product, count: productCount, dated: nil, into: p, at: productsAt, placed: false)
    }
    var upgrade = SparseColumn<UpgradeMoment>()
    if upgrades {
      let index = DateIndex(
        chains: KeyedRows(places: places, startsAt: 0, placed: inChains, keys: chain, purchase: purchase),
        groups: KeyedRows(places: places, startsAt: groupsAt, placed: inGroups, keys: group, purchase: purchase))
      let stated = transactions.map(\.isUpgraded)
      upgrade = upgradeColumn(
        stated: stated,
        replaced: products.count > 1
          ? replacedPeriods(
            stated: stated, product: product, ownership: facts.0, dates: (purchase, expiry), index: index) : [],
        index: index)
    } else {
      upgrade.appendNone(count)
    }
    return (
      symbols: (products.texts, chains.texts, groups.texts), columns: (product, chain, group),
      dates: (purchase, expiry), facts: facts, revocation: revocation, upgrade: upgrade,
      index: RowIndex(places: places, groupStartsAt: groupsAt, productStartsAt: productsAt),
      latestPurchase: latest
    )
  }

  /// One kind's symbols as they are made: the numbering, each symbol's text, and the key before with its symbol.
  private struct Symbols {
    /// Made once there are more than `fewKeys` symbols; up to then a key is compared with each text.
    var numbering: KeyNumbering?
    /// Symbol 0's text, kept in place (`SymbolTexts`: a kind of one symbol makes no array), and the others'.
    var first = ""
    var rest: [String] = []
    var count = 0
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
      if number == count {
        if count == 0 { first = key } else { rest.append(key) }
        count += 1
      }
      (lastKey, lastSymbol) = (key, Int32(truncatingIfNeeded: number))
      return lastSymbol
    }

    /// The number of `key` among a few texts, compared byte for byte as the numbering compares them; past
    /// `fewKeys` the numbering is made from the texts so far.
    private mutating func fewNumber(of key: String) -> Int {
      guard count > 0 else { return 0 }
      if Self.sameText(key, first) { return 0 }
      for (place, text) in rest.enumerated() where Self.sameText(key, text) { return place + 1 }
      guard count == Self.fewKeys else { return count }
      var made = KeyNumbering()
      _ = made.number(of: first)
      for text in rest { _ = made.number(of: text) }
      let number = made.number(of: key)
      numbering = made
      return number
    }

    /// Every symbol's text.
    var texts: SymbolTexts { SymbolTexts(first: first, rest: rest, count: count) }

    /// Whether two keys hold the same UTF-8 bytes.
    private static func sameText(_ a: String, _ b: String) -> Bool {
      if a.isContiguousUTF8 && b.isContiguousUTF8 { return sameBytes(a, b) }
      return a.utf8.elementsEqual(b.utf8)
    }
  }

  /// Every row's upgrade: stated ones, and replaced periods (`replacedPeriods`; empty: none), each with its moment.
  static func upgradeColumn(stated: [Bool], replaced: [Bool], index: DateIndex) -> SparseColumn<UpgradeMoment> {
    var upgrade = SparseColumn<UpgradeMoment>()
    upgrade.reserveCapacity(stated.count)
    for row in stated.indices {
      guard stated[row] || (!replaced.isEmpty && replaced[row]) else {
        upgrade.append(nil)
        continue
      }
      upgrade.append(UpgradeMoment(stated[row] ? .stated : .replacedPeriod, at: index.replacingPurchase(of: row)))
    }
    return upgrade
  }

  /// Rows a purchase replaced inside their period, though the data does not flag them upgraded (§7.2 [S5][S34]): a
  /// purchase of another product of the row's group (or chain), of the same ownership, bought after the row and
  /// before its expiry. A FAMILY_SHARED copy and the customer's own purchase are two subscriptions and never replace
  /// each other; a downgrade, bought at the expiry, replaces nothing.
  static func replacedPeriods(
    stated: [Bool], product: SymbolColumn, ownership: OwnershipColumn,
    dates: (purchase: TimestampColumn, expiry: TimestampColumn),
    index: DateIndex
  ) -> [Bool] {
    var replaced = [Bool](filling: false, count: stated.count)
    for row in stated.indices where !stated[row] {
      guard dates.purchase[row] != nil, let expires = dates.expiry[row] else { continue }
      func replacer(in lists: KeyedRows) -> Bool {
        for place in lists.laterPlaces(than: row) {
          let other = lists.places[place]
          guard let at = dates.purchase[other], at < expires else { return false }
          if product[other] != product[row], ownership[other] == ownership[row] { return true }
        }
        return false
      }
      replaced[row] = replacer(in: index.groups) || replacer(in: index.chains)
    }
    return replaced
  }

  /// Where each key's dated rows end and where each row stands in its list (`KeyedRows`), when asked for.
  struct Placed {
    var datedEnds: [Int] = []
    var ranks: [Int32] = []
  }

  /// Writes into `p` from `startsAt` the lists of the rows of each key of `keys` (dense from 0, `count` of them;
  /// negative: none): where each key's rows start, as places in `p` (`count` + 1 of them, the last the end), then
  /// the rows, key after key: a counting sort. With `dated`, a key's dated rows come first, in `order` (by date then
  /// row; nil: in row order, which is date order), then its undated ones in row order; without, every row in row
  /// order. With `placed`, it also says where each key's dated rows end and where each row stands.
  static func fillLists(
    keys: SymbolColumn, count: Int, dated: (purchase: TimestampColumn, order: [DatedRow]?)?,
    into p: UnsafeMutableBufferPointer<Int>, at startsAt: Int, placed: Bool
  ) -> Placed {
    let rowsAt = startsAt + count + 1
    precondition(startsAt >= 0 && rowsAt <= p.count, "the starts past the buffer")
    for k in startsAt..<rowsAt { p[k] = 0 }
    for k in keys where k >= 0 {
      precondition(Int(k) < count, "a key past the count")
      p[startsAt &+ Int(k) &+ 1] += 1
    }
    p[startsAt] = rowsAt
    for k in startsAt..<(startsAt + count) { p[k + 1] += p[k] }
    let end = p[startsAt + count]
    precondition(end <= p.count, "the rows past the buffer")
    var out = Placed()
    if placed { out.ranks = [Int32](filling: -1, count: keys.count) }
    // Each key's start serves as its cursor, ending at the next key's start; moved back after (no array more).
    // Every key was counted above, so each cursor stays inside its key's rows when each row is placed once; the
    // one check keeps a row placed twice inside the buffer.
    func place(_ row: Int) {
      let k = keys[row]
      guard k >= 0 else { return }
      let cursor = startsAt &+ Int(k)
      let at = p[cursor]
      precondition(at < end, "a row placed twice")
      p[at] = row
      if placed { out.ranks[row] = Int32(truncatingIfNeeded: at) }
      p[cursor] = at &+ 1
    }
    if let (purchase, order) = dated {
      if let order {
        for d in order { place(d.row) }
      } else {
        for row in keys.indices where purchase[row] != nil { place(row) }
      }
      // Its last element is the last key's end, never read.
      if placed { out.datedEnds = Array(p[startsAt...(startsAt + count)]) }
      for row in keys.indices where purchase[row] == nil { place(row) }
    } else {
      for row in keys.indices { place(row) }
    }
    for k in stride(from: startsAt + count, to: startsAt, by: -1) { p[k] = p[k - 1] }
    p[startsAt] = rowsAt
    return out
  }

  /// A dated row and its purchase date.
  struct DatedRow: Equatable {
    var at: Timestamp
    var row: Int
  }

  /// Every dated row, sorted by date then row.
  static func datedOrder(_ dates: TimestampColumn) -> [DatedRow] {
    let (order, _) = datedOrderUnlessInRowOrder(dates)
    return order ?? dates.indices.compactMap { row in dates[row].map { DatedRow(at: $0, row: row) } }
  }

  /// Every dated row sorted by date then row, nil when row order is that order (most exports list purchases in
  /// date order, which needs neither a sort nor an array), and the latest date.
  static func datedOrderUnlessInRowOrder(_ dates: TimestampColumn) -> (order: [DatedRow]?, latest: Timestamp?) {
    var latest: Timestamp?
    var inOrder = true
    for row in dates.indices {
      guard let at = dates[row] else { continue }
      if let last = latest, last > at { inOrder = false }
      latest = max(latest ?? at, at)
    }
    guard !inOrder else { return (nil, latest) }
    var order: [DatedRow] = []
    order.reserveCapacity(dates.count)
    var (earliest, latestMS) = (Int64.max, Int64.min)
    for row in dates.indices {
      guard let at = dates[row] else { continue }
      order.append(DatedRow(at: at, row: row))
      (earliest, latestMS) = (min(earliest, at.milliseconds), max(latestMS, at.milliseconds))
    }
    sortByDate(&order, earliest: earliest, latest: latestMS, rows: dates.count)
    return (order, latest)
  }

  /// Sorts `order` (dated rows in row order, dated from `earliest` to `latest`, of a column of `rows`) by date then
  /// row.
  private static func sortByDate(_ order: inout [DatedRow], earliest: Int64, latest: Int64, rows: Int) {
    // The date (less the earliest, in whole seconds when every date is) above the row's bits in one integer,
    // sorted by radix over the date's bits (the keys are made in row order and each pass is stable), when they
    // fit in 64 bits: five years of seconds and a million rows take 48. Else pairs sorted by comparison.
    let rowBits = UInt64(Int.bitWidth - rows.leadingZeroBitCount)
    let wholeSeconds = order.allSatisfy { ($0.at.milliseconds &- earliest) % 1_000 == 0 }
    let unit: Int64 = wholeSeconds ? 1_000 : 1
    let units = UInt64(truncatingIfNeeded: (latest &- earliest) / unit)
    let dateBits = UInt64(UInt64.bitWidth - units.leadingZeroBitCount)
    guard order.count >= 2_048, latest &- earliest >= 0, rowBits + dateBits < 64 else {
      return order.sort { ($0.at, $0.row) < ($1.at, $1.row) }
    }
    var keys = order.map { UInt64(($0.at.milliseconds &- earliest) / unit) << rowBits | UInt64($0.row) }
    radixSort(&keys, bits: Int(rowBits + dateBits), from: Int(rowBits))
    let rowMask = ((1 as UInt64) << rowBits) &- 1
    for j in keys.indices {
      let at = earliest &+ Int64(keys[j] >> rowBits) &* unit
      order[j] = DatedRow(at: Timestamp(unchecked: at), row: Int(keys[j] & rowMask))
    }
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
/// row order, key after key; where each key's rows start and its dated ones end; and where each row stands (-1: no
/// key), so that the rows bought after a row's own purchase are read from its place, not searched for. The lists
/// are a part of `places` (`PurchaseTableBuilder.fillLists`), which may hold other kinds' lists too: a table's
/// are its `RowIndex`, shared.
struct KeyedRows: Sendable {
  /// Key k's rows are `places[places[startsAt + k]..<places[startsAt + k + 1]]`.
  let places: [Int]
  let startsAt: Int
  /// Where key k's dated rows end in `places` (k < the key count).
  let datedEnds: [Int]
  /// Where each row stands in `places` (-1: the row has no key).
  let ranks: [Int32]
  let purchase: TimestampColumn
  let keys: SymbolColumn

  /// The rows of each key of `keys` (dense from 0, `count` of them; negative: none), the dated ones in `order`
  /// (every dated row, by date then row).
  init(keys: SymbolColumn, count: Int, order: [PurchaseTableBuilder.DatedRow], purchase: TimestampColumn) {
    var places = [Int](filling: 0, count: count + 1 + keys.count { $0 >= 0 })
    let placed = places.withUnsafeMutableBufferPointer { p in
      PurchaseTableBuilder.fillLists(keys: keys, count: count, dated: (purchase, order), into: p, at: 0, placed: true)
    }
    self.init(places: places, startsAt: 0, placed: placed, keys: keys, purchase: purchase)
  }

  /// The lists `fillLists` put in `places` from `startsAt`, and where it `placed` each row.
  init(
    places: [Int], startsAt: Int, placed: PurchaseTableBuilder.Placed, keys: SymbolColumn, purchase: TimestampColumn
  ) {
    (self.places, self.startsAt, self.datedEnds, self.ranks) = (places, startsAt, placed.datedEnds, placed.ranks)
    (self.purchase, self.keys) = (purchase, keys)
  }

  /// Where the rows of `row`'s key bought after it (later, not at the same moment) are in `places`, by date: none
  /// when it is undated or has no key.
  func laterPlaces(than row: Int) -> Range<Int> {
    guard keys[row] >= 0, let bought = purchase[row] else { return 0..<0 }
    let (own, end) = (Int(ranks[row]), datedEnds[Int(keys[row])])
    var start = own + 1
    // Past the rows bought at the same moment (few; a long run of them is searched for instead).
    while start < end, purchase[places[start]] == bought {
      guard start - own < 8 else {
        var (low, high) = (start, end)
        while low < high {
          let middle = low + (high - low) / 2
          if purchase[places[middle]].map({ $0 > bought }) ?? true { high = middle } else { low = middle + 1 }
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

  /// The index of `chains` and `groups`.
  init(chains: KeyedRows, groups: KeyedRows) { (self.chains, self.groups) = (chains, groups) }

  /// Indexes rows given each one's chain (dense from 0), group (dense from 0; -1 none) and purchase date, and every
  /// dated row by date then row.
  init(
    chain: [Int32], chains: Int, group: [Int32], groups: Int, purchase: TimestampColumn,
    order: [PurchaseTableBuilder.DatedRow]
  ) {
    self.chains = KeyedRows(keys: SymbolColumn(chain), count: chains, order: order, purchase: purchase)
    self.groups = KeyedRows(keys: SymbolColumn(group), count: groups, order: order, purchase: purchase)
  }

  /// The purchase date of the first purchase after `row` in its chain or group: the moment an upgrade of `row`
  /// happened, Apple recording no other date for one. nil when `row` is undated or nothing later is in the data.
  /// The rows are distinct transactions (the collector merges copies of one `transaction_id`), so any later one
  /// replaced it.
  func replacingPurchase(of row: Int) -> Timestamp? {
    let inChain = chains.laterPlaces(than: row).first.flatMap { chains.purchase[chains.places[$0]] }
    let inGroup = groups.laterPlaces(than: row).first.flatMap { groups.purchase[groups.places[$0]] }
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
