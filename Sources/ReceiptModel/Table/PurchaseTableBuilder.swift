/// Builds a `PurchaseTable`: interns the ids, fills the columns, sorts the rows by date into the chain and group
/// indexes, and computes the upgrade moments. The speed of the table is here and in `InPlaceBytes.swift`, nowhere
/// else; `ReferencePurchaseTable` (ReceiptModelTestSupport) builds the same table plainly, and
/// PurchaseTableBuilderTests holds this one to it.
enum PurchaseTableBuilder {
  /// What `PurchaseTable` is made of.
  struct Built: DateIndexed {
    var symbols: (products: [String], chains: [String], groups: [String])
    var columns: (product: [Int32], chain: [Int32], group: [Int32])
    var dates: (purchase: [Timestamp?], expiry: [Timestamp?])
    var ownership: [Ownership]
    var facts: (productType: [ProductType?], usesIntroductoryOffer: [Bool])
    var revocation: [RevocationMoments?]
    var upgrade: [UpgradeMoment?]
    var indexes: (chainRows: [Int], chainStarts: [Int], groupRows: [Int], groupStarts: [Int])
    var products: (rows: [Int], starts: [Int], inOrder: [Int32])
    var latestPurchase: Timestamp?

    var purchase: [Timestamp?] { dates.purchase }
    var chain: [Int32] { columns.chain }
    var group: [Int32] { columns.group }
    func rows(ofChain symbol: Int32) -> ArraySlice<Int> {
      indexes.chainRows[indexes.chainStarts[Int(symbol)]..<indexes.chainStarts[Int(symbol) + 1]]
    }
    func rows(ofGroup symbol: Int32) -> ArraySlice<Int> {
      symbol < 0 ? [] : indexes.groupRows[indexes.groupStarts[Int(symbol)]..<indexes.groupStarts[Int(symbol) + 1]]
    }
  }

  /// The table of `transactions`: its symbols, columns, indexes and upgrades.
  static func build(_ transactions: [PurchaseTransaction]) -> Built {
    let count = transactions.count
    var products = KeyNumbering()
    var chains = KeyNumbering()
    var groups = KeyNumbering()
    var (productIDs, chainIDs, groupIDs) = ([String](), [String](), [String]())
    var (product, chain, group) = ([Int32](), [Int32](), [Int32]())
    var (purchase, expiry) = ([Timestamp?](), [Timestamp?]())
    var ownership: [Ownership] = []
    var productType: [ProductType?] = []
    var introductory: [Bool] = []
    var revocation: [RevocationMoments?] = []
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
        product.append(intern(all[r].productID, in: &products, &productIDs))
        chain.append(intern(all[r].originalTransactionID ?? all[r].transactionID, in: &chains, &chainIDs))
        group.append(all[r].subscriptionGroup.map { intern($0, in: &groups, &groupIDs) } ?? -1)
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
    let (chainRows, chainStarts) = lists(keys: chain, count: chainIDs.count, dated: order, purchase: purchase)
    let (groupRows, groupStarts) = lists(keys: group, count: groupIDs.count, dated: order, purchase: purchase)
    let (productRows, productStarts) = rowLists(keys: product, count: productIDs.count)
    var productsInOrder: [Int32] = []
    var seen = [Bool](repeating: false, count: productIDs.count)
    for p in product where !seen[Int(p)] {
      seen[Int(p)] = true
      productsInOrder.append(p)
    }
    var built = Built(
      symbols: (productIDs, chainIDs, groupIDs), columns: (product, chain, group), dates: (purchase, expiry),
      ownership: ownership, facts: (productType, introductory), revocation: revocation, upgrade: [],
      indexes: (chainRows, chainStarts, groupRows, groupStarts),
      products: (productRows, productStarts, productsInOrder), latestPurchase: order.last?.at)
    built.upgrade = upgrades(of: built, stated: stated, transactions: transactions)
    return built
  }

  /// The symbol of `key`, a new one (its text appended to `texts`) when it is new.
  @inline(__always) private static func intern(_ key: String, in numbering: inout KeyNumbering, _ texts: inout [String])
    -> Int32
  {
    let number = numbering.number(of: key)
    if number == texts.count { texts.append(key) }
    return Int32(truncatingIfNeeded: number)
  }

  /// Every row's upgrade: stated ones, and replaced periods (`replacedPeriods`), each with its moment.
  static func upgrades(of table: Built, stated: [Bool], transactions ids: [PurchaseTransaction]) -> [UpgradeMoment?] {
    var upgrade = [UpgradeMoment?](repeating: nil, count: stated.count)
    let replaced = replacedPeriods(of: table, stated: stated)
    for row in stated.indices where stated[row] || replaced[row] {
      let at = replacingPurchase(of: row, in: table) { ids[$0].transactionID == ids[$1].transactionID }
      upgrade[row] = UpgradeMoment(stated[row] ? .stated : .replacedPeriod, at: at)
    }
    return upgrade
  }

  /// Rows a purchase replaced inside their period, though the data does not flag them upgraded [S7.3]: a purchase
  /// of another product of the row's group (or chain), of the same ownership, bought after the row and before its
  /// expiry. A FAMILY_SHARED copy and the customer's own purchase are two subscriptions and never replace each
  /// other; a downgrade, bought at the expiry, replaces nothing.
  static func replacedPeriods(of table: Built, stated: [Bool]) -> [Bool] {
    var replaced = [Bool](repeating: false, count: stated.count)
    let (product, ownership) = (table.columns.product, table.ownership)
    // One product: nothing can replace another.
    guard table.symbols.products.count > 1 else { return replaced }
    for row in stated.indices where !stated[row] {
      guard let bought = table.purchase[row], let expires = table.dates.expiry[row] else { continue }
      func replacer(in list: ArraySlice<Int>) -> Bool {
        for other in later(than: bought, in: list, purchase: table.purchase) {
          guard let at = table.purchase[other], at < expires else { return false }
          if product[other] != product[row], ownership[other] == ownership[row] { return true }
        }
        return false
      }
      replaced[row] =
        replacer(in: table.rows(ofGroup: table.group[row])) || replacer(in: table.rows(ofChain: table.chain[row]))
    }
    return replaced
  }

  /// The purchase date of the first purchase after `row` in its chain or group that is another transaction
  /// (`isSame` tells): the moment an upgrade of `row` happened, Apple recording no other date for one. nil when
  /// `row` is undated or nothing later is in the data.
  static func replacingPurchase(
    of row: Int, in index: some DateIndexed, isSame: (Int, Int) -> Bool
  ) -> Timestamp? {
    guard let bought = index.purchase[row] else { return nil }
    func first(in list: ArraySlice<Int>) -> Timestamp? {
      for other in later(than: bought, in: list, purchase: index.purchase) where !isSame(other, row) {
        return index.purchase[other]
      }
      return nil
    }
    let inChain = first(in: index.rows(ofChain: index.chain[row]))
    let inGroup = first(in: index.rows(ofGroup: index.group[row]))
    return [inChain, inGroup].compactMap { $0 }.min()
  }

  /// The dated rows of `list` (a chain's or group's, by date) bought after `time`: found by binary search.
  static func later(than time: Timestamp, in list: ArraySlice<Int>, purchase: [Timestamp?]) -> ArraySlice<Int> {
    var (low, high) = (list.startIndex, list.endIndex)
    // Dated rows by date, then undated ones: "undated or later than `time`" holds from some point on.
    while low < high {
      let middle = low + (high - low) / 2
      if purchase[list[middle]].map({ $0 > time }) ?? true { high = middle } else { low = middle + 1 }
    }
    var end = low
    while end < list.endIndex, purchase[list[end]] != nil { end += 1 }
    return list[low..<end]
  }

  /// The rows of each key (dense from 0; negative: none), dated ones in `dated` order, then undated ones in row
  /// order; and where each key's rows start (a counting sort).
  static func lists(keys: [Int32], count: Int, dated: [DatedRow], purchase: [Timestamp?]) -> ([Int], [Int]) {
    var starts = [Int](repeating: 0, count: count + 1)
    for k in keys where k >= 0 { starts[Int(k) + 1] += 1 }
    for k in 0..<count { starts[k + 1] += starts[k] }
    var rows = [Int](repeating: 0, count: starts[count])
    var next = starts
    for d in dated where keys[d.row] >= 0 {
      let k = Int(keys[d.row])
      rows[next[k]] = d.row
      next[k] += 1
    }
    for row in keys.indices where keys[row] >= 0 && purchase[row] == nil {
      let k = Int(keys[row])
      rows[next[k]] = row
      next[k] += 1
    }
    return (rows, starts)
  }

  /// The rows of each key (dense from 0), in row order, and where each key's start.
  static func rowLists(keys: [Int32], count: Int) -> ([Int], [Int]) {
    var starts = [Int](repeating: 0, count: count + 1)
    for k in keys { starts[Int(k) + 1] += 1 }
    for k in 0..<count { starts[k + 1] += starts[k] }
    var rows = [Int](repeating: 0, count: keys.count)
    var next = starts
    for row in keys.indices {
      let k = Int(keys[row])
      rows[next[k]] = row
      next[k] += 1
    }
    return (rows, starts)
  }

  /// A dated row and its purchase date.
  struct DatedRow: Equatable {
    var at: Timestamp
    var row: Int
  }

  /// Every dated row, sorted by date then row.
  static func datedOrder(_ dates: [Timestamp?]) -> [DatedRow] {
    var order: [DatedRow] = []
    order.reserveCapacity(dates.count)
    var inOrder = true
    for row in dates.indices {
      guard let at = dates[row] else { continue }
      if let last = order.last, last.at > at { inOrder = false }
      order.append(DatedRow(at: at, row: row))
    }
    // Most exports list purchases in date order, which needs no sort.
    if !inOrder { order.sort { ($0.at, $0.row) < ($1.at, $1.row) } }
    return order
  }
}

/// Rows with a chain, a group and a purchase date, indexed by date within each chain and group: what an upgrade's
/// moment is found in (a customer's table, or the rows of every document `revenue` reads).
protocol DateIndexed {
  var purchase: [Timestamp?] { get }
  var chain: [Int32] { get }
  var group: [Int32] { get }
  func rows(ofChain symbol: Int32) -> ArraySlice<Int>
  func rows(ofGroup symbol: Int32) -> ArraySlice<Int>
}

extension PurchaseTable: DateIndexed {}

/// Chains and groups of rows indexed by date, for rows that are not a customer's table.
struct DateIndex: DateIndexed {
  let purchase: [Timestamp?]
  let chain: [Int32]
  let group: [Int32]
  let chainRows: [Int]
  let chainStarts: [Int]
  let groupRows: [Int]
  let groupStarts: [Int]

  /// Indexes rows given each one's chain (dense from 0), group (dense from 0; -1 none) and purchase date.
  init(chain: [Int32], group: [Int32], purchase: [Timestamp?]) {
    (self.chain, self.group, self.purchase) = (chain, group, purchase)
    let order = PurchaseTableBuilder.datedOrder(purchase)
    let chains = Int(chain.max() ?? -1) + 1
    let groups = Int(group.max() ?? -1) + 1
    (chainRows, chainStarts) = PurchaseTableBuilder.lists(keys: chain, count: chains, dated: order, purchase: purchase)
    (groupRows, groupStarts) = PurchaseTableBuilder.lists(keys: group, count: groups, dated: order, purchase: purchase)
  }

  func rows(ofChain symbol: Int32) -> ArraySlice<Int> {
    chainRows[chainStarts[Int(symbol)]..<chainStarts[Int(symbol) + 1]]
  }

  func rows(ofGroup symbol: Int32) -> ArraySlice<Int> {
    symbol < 0 ? [] : groupRows[groupStarts[Int(symbol)]..<groupStarts[Int(symbol) + 1]]
  }
}

extension PurchaseTable {
  /// When each row of `upgraded` was upgraded: the purchase date of the first later purchase of its chain or group
  /// (the moment `upgrade` holds for a customer's table), for rows of every document `revenue` reads, which are
  /// distinct transactions. Chains and groups are dense numbers from 0 (-1: no group); nil: not upgraded, or
  /// nothing later in the data.
  public static func upgradeMoments(
    chain: [Int32], group: [Int32], purchase: [Timestamp?], upgraded: [Bool]
  ) -> [Timestamp?] {
    guard upgraded.contains(true) else { return [Timestamp?](repeating: nil, count: purchase.count) }
    let index = DateIndex(chain: chain, group: group, purchase: purchase)
    return upgraded.indices.map { row in
      upgraded[row] ? PurchaseTableBuilder.replacingPurchase(of: row, in: index) { $0 == $1 } : nil
    }
  }
}
