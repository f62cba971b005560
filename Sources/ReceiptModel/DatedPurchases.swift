/// Dated purchases grouped by subscription chain and by subscription group, each group sorted by purchase date,
/// so the purchases after a moment are found by binary search instead of by reading every transaction: what
/// makes finding a replacing purchase cost N log N rather than N² on a history of many upgrades.
///
/// Chains and groups are numbered densely (`KeyNumbering`) and their purchases kept in one flat array each, so
/// building it hashes each id once and a lookup is an array read: built once per history (and moment) and shared
/// by every rule that reads it. Positions are whatever the builder numbers 0..<count: a history's transaction
/// indices, or a ledger's positions.
public struct DatedPurchases: Sendable {
  /// A transaction's position in the history and its purchase date.
  public struct Purchase: Sendable, Equatable {
    /// When it was bought.
    public var at: Timestamp
    /// Its index in the history's transactions.
    public var index: Int

    /// A purchase at `at`, at position `index`.
    public init(at: Timestamp, index: Int) {
      self.at = at
      self.index = index
    }
  }

  /// The chain number of each position.
  public let chainNumbers: [Int32]
  /// The group number of each position, -1 for none.
  public let groupNumbers: [Int32]
  /// The product number of each position (empty when the builder numbers no products).
  public let productNumbers: [Int32]
  /// Each product's positions, product by product (in position order), and where each product's start.
  private let byProduct: [Int]
  private let productStarts: [Int]
  /// The product numbers in the order of their first position.
  public let productsInOrder: [Int]
  /// Every chain's dated purchases, chain by chain, each chain's sorted by date (then position).
  private let byChain: [Purchase]
  /// Where chain c's purchases start in `byChain` (c + 1: where they end).
  private let chainStarts: [Int]
  private let byGroup: [Purchase]
  private let groupStarts: [Int]
  /// Where each position stands in `byChain` and `byGroup` (-1: undated, or no group).
  private let chainRanks: [Int]
  private let groupRanks: [Int]
  /// The latest purchase date of any position (nil: none is dated).
  public let latestPurchase: Timestamp?
  /// What the rules read of each position's transaction, as the data states it (`PositionFacts`), gathered in the
  /// pass that numbers them; empty when the index was built from numbers (`init(chainNumbers:…)`).
  public let facts: [PositionFacts]
  /// Every group's undated positions, group by group, in position order.
  private let undatedByGroup: [Int]
  private let undatedStarts: [Int]

  /// Indexes a history's transactions (positions are their indices).
  public init(_ transactions: [PurchaseTransaction]) {
    // Chains can be thousands (the reader shares one String per chain id): a table of 256 would miss most.
    var chains = SharedKeyNumbering(expecting: transactions.count)
    var groups = SharedKeyNumbering()
    var products = SharedKeyNumbering(expecting: transactions.count)
    let count = transactions.count
    var chainNumbers = [Int32](repeating: 0, count: count)
    var groupNumbers = [Int32](repeating: 0, count: count)
    var productNumbers = [Int32](repeating: 0, count: count)
    var facts = [PositionFacts](repeating: PositionFacts(), count: count)
    // One pass, in position order, over the transactions (368 bytes each, 37 MB for 100,000: more than the
    // cache): every later loop reads the numbers and facts instead. Through buffers: an array element read field
    // by field can be copied whole on the way (every field retained and released), and an append checks its
    // array each time. `transactions` holds every key until the numbering is done, as `SharedKeyNumbering` needs.
    transactions.withUnsafeBufferPointer { all in
      chainNumbers.withUnsafeMutableBufferPointer { chainNumbers in
        groupNumbers.withUnsafeMutableBufferPointer { groupNumbers in
          productNumbers.withUnsafeMutableBufferPointer { productNumbers in
            facts.withUnsafeMutableBufferPointer { facts in
              // Every buffer holds `count` elements, as `all` does.
              for i in all.indices {
                let chain =
                  all[i].originalTransactionID.map { chains.number(of: $0) } ?? chains.number(of: all[i].transactionID)
                chainNumbers[i] = Int32(truncatingIfNeeded: chain)
                groupNumbers[i] =
                  all[i].subscriptionGroup.map { Int32(truncatingIfNeeded: groups.number(of: $0)) } ?? -1
                productNumbers[i] = Int32(truncatingIfNeeded: products.number(of: all[i].productID))
                facts[i] = PositionFacts(all, at: i)
              }
            }
          }
        }
      }
    }
    self.init(chainNumbers: chainNumbers, groupNumbers: groupNumbers, productNumbers: productNumbers, facts: facts)
  }

  /// Indexes positions `0..<chainNumbers.count`, given each one's chain number and group number (dense, from
  /// 0; -1 for no group), product number (dense; or none at all) and purchase date.
  public init(
    chainNumbers: [Int32], groupNumbers: [Int32], productNumbers: [Int32] = [], purchaseDate: (Int) -> Timestamp?
  ) {
    var dates: [Timestamp?] = []
    dates.reserveCapacity(chainNumbers.count)
    for i in 0..<chainNumbers.count { dates.append(purchaseDate(i)) }
    self.init(chainNumbers: chainNumbers, groupNumbers: groupNumbers, productNumbers: productNumbers, dates: dates)
  }

  /// Indexes positions with their facts (one per position): the dates are the facts'.
  private init(chainNumbers: [Int32], groupNumbers: [Int32], productNumbers: [Int32], facts: [PositionFacts]) {
    var dates: [Timestamp?] = []
    dates.reserveCapacity(facts.count)
    facts.withUnsafeBufferPointer { facts in
      for f in facts { dates.append(f.purchaseDate) }
    }
    self.init(
      chainNumbers: chainNumbers, groupNumbers: groupNumbers, productNumbers: productNumbers, dates: dates,
      facts: facts)
  }

  private init(
    chainNumbers: [Int32], groupNumbers: [Int32], productNumbers: [Int32], dates: [Timestamp?],
    facts: [PositionFacts] = []
  ) {
    let count = chainNumbers.count
    self.chainNumbers = chainNumbers
    self.groupNumbers = groupNumbers
    self.productNumbers = productNumbers
    self.facts = facts
    (byProduct, productStarts, productsInOrder) = Self.productLists(productNumbers)
    // One sort of every dated position; each chain's and group's list is then filled in that order.
    let order = Self.datedOrder(dates)
    latestPurchase = order.last?.at
    (byChain, chainStarts, chainRanks) = Self.lists(keys: chainNumbers, in: order)
    (byGroup, groupStarts, groupRanks) = Self.lists(keys: groupNumbers, in: order)
    // Undated group members, in position order (counting sort: the keys are dense).
    let groupCount = max(0, groupStarts.count - 1)
    var starts = [Int](repeating: 0, count: groupCount + 1)
    for i in 0..<count where dates[i] == nil && groupNumbers[i] >= 0 { starts[Int(groupNumbers[i]) + 1] += 1 }
    for g in 0..<groupCount { starts[g + 1] += starts[g] }
    var undated = [Int](repeating: 0, count: starts[groupCount])
    var next = starts
    for i in 0..<count where dates[i] == nil && groupNumbers[i] >= 0 {
      let g = Int(groupNumbers[i])
      undated[next[g]] = i
      next[g] += 1
    }
    undatedByGroup = undated
    undatedStarts = starts
  }

  private init(
    chainNumbers: [Int32], groupNumbers: [Int32], productNumbers: [Int32],
    products: (byProduct: [Int], starts: [Int], inOrder: [Int]),
    chains: (list: [Purchase], starts: [Int], ranks: [Int]),
    groups: (list: [Purchase], starts: [Int], ranks: [Int]), undatedByGroup: [Int], undatedStarts: [Int],
    latestPurchase: Timestamp?, facts: [PositionFacts]
  ) {
    self.facts = facts
    self.chainNumbers = chainNumbers
    self.groupNumbers = groupNumbers
    self.productNumbers = productNumbers
    (byProduct, productStarts, productsInOrder) = products
    (byChain, chainStarts, chainRanks) = chains
    (byGroup, groupStarts, groupRanks) = groups
    self.undatedByGroup = undatedByGroup
    self.undatedStarts = undatedStarts
    self.latestPurchase = latestPurchase
  }

  /// Positions grouped by product (counting sort), where each product's start, and the products in the order of
  /// their first position.
  private static func productLists(_ products: [Int32]) -> ([Int], [Int], [Int]) {
    var productCount = 0
    for p in products where Int(p) >= productCount { productCount = Int(p) + 1 }
    var starts = [Int](repeating: 0, count: productCount + 1)
    var order: [Int] = []
    var list: [Int] = []
    // Through buffers (every number is below `productCount`, every place below `products.count`): the arrays'
    // checks cost as much as the counting. A negative number is no product: its position is in no list.
    products.withUnsafeBufferPointer { products in
      starts.withUnsafeMutableBufferPointer { starts in
        for p in products where p >= 0 {
          if starts[Int(p) + 1] == 0 { order.append(Int(p)) }
          starts[Int(p) + 1] += 1
        }
        for k in 0..<productCount { starts[k + 1] += starts[k] }
      }
      list = [Int](repeating: 0, count: starts[productCount])
      var next = starts
      list.withUnsafeMutableBufferPointer { list in
        next.withUnsafeMutableBufferPointer { next in
          for i in products.indices where products[i] >= 0 {
            let k = Int(products[i])
            list[next[k]] = i
            next[k] += 1
          }
        }
      }
    }
    return (list, starts, order)
  }

  /// Every dated position, sorted by date then position. Most exports list purchases in date order, which
  /// needs no sort; otherwise the date (less the earliest) and the position packed in one integer are sorted
  /// without a comparison closure, when they fit in 64 bits (five years of milliseconds and a million
  /// positions take 58), and else sorted as pairs.
  static func datedOrder(_ dates: [Timestamp?]) -> [Purchase] {
    var order: [Purchase] = []
    order.reserveCapacity(dates.count)
    var inOrder = true
    var earliest = Int64.max
    // Whether every date is a whole number of hours, or of seconds, from the first: then the dates are packed
    // in those units, and the sort takes fewer passes (Apple's dates are mostly whole seconds).
    let first = dates.lazy.compactMap { $0 }.first?.milliseconds ?? 0
    var wholeHours = true
    var wholeSeconds = true
    var previous = Int64.min
    var latest = Int64.min
    dates.withUnsafeBufferPointer { dates in
      for i in dates.indices {
        guard let at = dates[i]?.milliseconds else { continue }
        if previous > at { inOrder = false }
        previous = at
        earliest = min(earliest, at)
        latest = max(latest, at)
        order.append(Purchase(at: Timestamp(unchecked: at), index: i))
        if wholeHours { wholeHours = (at &- first) % 3_600_000 == 0 }
        if wholeSeconds, !wholeHours { wholeSeconds = (at &- first) % 1_000 == 0 }
      }
    }
    guard !inOrder else { return order }
    let positionBits = UInt64(Int.bitWidth - dates.count.leadingZeroBitCount)
    let (span, overflow) = latest.subtractingReportingOverflow(earliest)
    guard !overflow, positionBits < 64, UInt64(span) < (1 as UInt64) << (64 - positionBits) else {
      order.sort { ($0.at, $0.index) < ($1.at, $1.index) }
      return order
    }
    let positionMask = ((1 as UInt64) << positionBits) &- 1
    // Divided by a constant in each case: a division by a variable costs tens of cycles a key.
    let unit: Int64 = wholeHours ? 3_600_000 : wholeSeconds ? 1_000 : 1
    var keys: [UInt64]
    switch unit {
    case 3_600_000:
      keys = order.map { UInt64(($0.at.milliseconds &- earliest) / 3_600_000) << positionBits | UInt64($0.index) }
    case 1_000:
      keys = order.map { UInt64(($0.at.milliseconds &- earliest) / 1_000) << positionBits | UInt64($0.index) }
    default: keys = order.map { UInt64($0.at.milliseconds &- earliest) << positionBits | UInt64($0.index) }
    }
    let units = UInt64(span / unit)
    let keyBits = positionBits + UInt64(UInt64.bitWidth - units.leadingZeroBitCount)
    // The keys are in position order: a stable sort by the date's bits alone leaves equal dates in it, so the
    // radix passes over the positions' bits are not made (one pass fewer on the benchmark's shapes).
    if keys.count >= radixSortMinimum {
      radixSort(&keys, bits: Int(keyBits), from: Int(positionBits))
    } else {
      keys.sort()
    }
    keys.withUnsafeBufferPointer { keys in
      order.withUnsafeMutableBufferPointer { order in
        for j in keys.indices {
          let index = Int(keys[j] & positionMask)
          let at = earliest &+ Int64(keys[j] >> positionBits) &* unit
          order[j] = Purchase(at: Timestamp(unchecked: at), index: index)
        }
      }
    }
    return order
  }

  /// From this many keys on, `datedOrder` sorts by radix: a pass costs two reads of every key and a table of
  /// 2,048 counts, where a comparison sort costs log2(count) comparisons a key.
  package static let radixSortMinimum = 2_048

  /// Sorts `keys`, each below 2^`bits`, eleven bits a pass from the lowest (each pass keeps the order of the
  /// one before, so the whole is sorted); a pass where every key has the same digit is skipped. From
  /// `lowestBit` on, the bits below it are not sorted on: keys equal above it keep the order they came in
  /// (a stable sort by `key >> lowestBit`).
  package static func radixSort(_ keys: inout [UInt64], bits: Int, from lowestBit: Int = 0) {
    var other = [UInt64](repeating: 0, count: keys.count)
    var counts = [Int](repeating: 0, count: 2_049)
    var shift = UInt64(min(64, max(0, lowestBit)))
    while shift < UInt64(max(0, bits)) {
      let moved = keys.withUnsafeBufferPointer { from in
        other.withUnsafeMutableBufferPointer { to in
          counts.withUnsafeMutableBufferPointer { counts in
            for d in counts.indices { counts[d] = 0 }
            for k in from { counts[Int(truncatingIfNeeded: (k >> shift) & 2_047) + 1] += 1 }
            // One digit for all: already in order by it.
            guard !counts.contains(from.count) else { return false }
            for d in 1..<counts.count { counts[d] += counts[d - 1] }
            for k in from {
              let d = Int(truncatingIfNeeded: (k >> shift) & 2_047)
              to[counts[d]] = k
              counts[d] += 1
            }
            return true
          }
        }
      }
      if moved { swap(&keys, &other) }
      shift += 11
    }
  }

  /// The purchases of `order` (sorted by date then position) grouped by key (counting sort, keys dense from
  /// 0; negative: none), so each key's stay sorted; where each key's list starts; and where each position
  /// stands in the list (-1: undated or no key).
  private static func lists(keys: [Int32], in order: [Purchase]) -> ([Purchase], [Int], [Int]) {
    var keyCount = 0
    for k in keys where Int(k) >= keyCount { keyCount = Int(k) + 1 }
    var starts = [Int](repeating: 0, count: keyCount + 1)
    var list = [Purchase]()
    var ranks = [Int](repeating: -1, count: keys.count)
    // Through buffers (every key is below `keyCount`, every position below `keys.count`): the array
    // subscripts' checks cost as much as the counting.
    keys.withUnsafeBufferPointer { keys in
      order.withUnsafeBufferPointer { order in
        starts.withUnsafeMutableBufferPointer { starts in
          for p in order where keys[p.index] >= 0 { starts[Int(keys[p.index]) + 1] += 1 }
          for k in 0..<keyCount { starts[k + 1] += starts[k] }
        }
        list = [Purchase](repeating: Purchase(at: .epoch, index: 0), count: starts[keyCount])
        var next = starts
        list.withUnsafeMutableBufferPointer { list in
          ranks.withUnsafeMutableBufferPointer { ranks in
            next.withUnsafeMutableBufferPointer { next in
              for p in order where keys[p.index] >= 0 {
                let k = Int(keys[p.index])
                list[next[k]] = p
                ranks[p.index] = next[k]
                next[k] += 1
              }
            }
          }
        }
      }
    }
    return (list, starts, ranks)
  }

  /// The same index for a history that keeps only some positions: `newPosition[old]` is the position in the
  /// smaller history, -1 for one left out (positions kept keep their order). Chain and group numbers stay.
  public func keeping(_ newPosition: [Int]) -> DatedPurchases {
    var keptCount = 0
    for p in newPosition where p >= 0 { keptCount += 1 }
    // Each list's kept purchases in the same order, and where each now stands (no pass to find it afterwards).
    func kept(_ list: [Purchase], _ starts: [Int]) -> (list: [Purchase], starts: [Int], ranks: [Int]) {
      var out: [Purchase] = []
      out.reserveCapacity(list.count)
      var outStarts = [0]
      outStarts.reserveCapacity(starts.count)
      var ranks = [Int](repeating: -1, count: keptCount)
      newPosition.withUnsafeBufferPointer { newPosition in
        list.withUnsafeBufferPointer { list in
          for k in 0..<max(0, starts.count - 1) {
            for r in starts[k]..<starts[k + 1] {
              let position = newPosition[list[r].index]
              guard position >= 0 else { continue }
              ranks[position] = out.count
              out.append(Purchase(at: list[r].at, index: position))
            }
            outStarts.append(out.count)
          }
        }
      }
      return (out, outStarts, ranks)
    }
    // Positions by list of keys (product, or group's undated), narrowed in place: kept positions keep their order.
    func narrowed(_ list: [Int], _ starts: [Int]) -> (list: [Int], starts: [Int]) {
      var out: [Int] = []
      out.reserveCapacity(keptCount)
      var outStarts = [0]
      outStarts.reserveCapacity(starts.count)
      newPosition.withUnsafeBufferPointer { newPosition in
        for k in 0..<max(0, starts.count - 1) {
          for old in list[starts[k]..<starts[k + 1]] where newPosition[old] >= 0 { out.append(newPosition[old]) }
          outStarts.append(out.count)
        }
      }
      return (out, outStarts)
    }
    // A column per position narrowed: each kept value written at its new position, through buffers (an append
    // checks its array each time); empty stays empty.
    func narrowedColumn<T>(_ column: [T], fill: T) -> [T] {
      guard !column.isEmpty else { return [] }
      var out = [T](repeating: fill, count: keptCount)
      column.withUnsafeBufferPointer { column in
        newPosition.withUnsafeBufferPointer { newPosition in
          out.withUnsafeMutableBufferPointer { out in
            for old in newPosition.indices where old < column.count {
              let p = newPosition[old]
              if p >= 0, p < out.count { out[p] = column[old] }
            }
          }
        }
      }
      return out
    }
    let chains = narrowedColumn(chainNumbers, fill: 0)
    let groups = narrowedColumn(groupNumbers, fill: -1)
    let products = narrowedColumn(productNumbers, fill: 0)
    let facts = narrowedColumn(self.facts, fill: PositionFacts())
    let c = kept(byChain, chainStarts)
    let g = kept(byGroup, groupStarts)
    let undated = narrowed(undatedByGroup, undatedStarts)
    // Products keep their numbers; those with a kept position, in the order of their first one.
    let byProduct = narrowed(self.byProduct, productStarts)
    var firsts: [(position: Int, product: Int)] = []
    for k in 0..<max(0, byProduct.starts.count - 1) where byProduct.starts[k] < byProduct.starts[k + 1] {
      firsts.append((byProduct.list[byProduct.starts[k]], k))
    }
    firsts.sort { $0.position < $1.position }
    var latest: Timestamp?
    for p in c.list where latest.map({ p.at > $0 }) ?? true { latest = p.at }
    return DatedPurchases(
      chainNumbers: chains, groupNumbers: groups, productNumbers: products,
      products: (byProduct.list, byProduct.starts, firsts.map(\.product)), chains: c, groups: g,
      undatedByGroup: undated.list, undatedStarts: undated.starts, latestPurchase: latest, facts: facts)
  }

  /// How many chains and groups are numbered.
  public var chainCount: Int { chainStarts.count - 1 }
  public var groupCount: Int { groupStarts.count - 1 }

  /// Chain `number`'s dated purchases, earliest first.
  public func chain(number: Int) -> ArraySlice<Purchase> { byChain[chainStarts[number]..<chainStarts[number + 1]] }

  /// Group `number`'s dated purchases, earliest first.
  public func group(number: Int) -> ArraySlice<Purchase> { byGroup[groupStarts[number]..<groupStarts[number + 1]] }

  /// Product `number`'s positions, in position order (none for a product no kept position has).
  public func positions(ofProduct number: Int) -> ArraySlice<Int> {
    guard number >= 0, number < productStarts.count - 1 else { return [] }
    return byProduct[productStarts[number]..<productStarts[number + 1]]
  }

  /// Group `number`'s undated positions, in position order.
  public func undated(inGroup number: Int) -> ArraySlice<Int> {
    guard number >= 0, number < undatedStarts.count - 1 else { return [] }
    return undatedByGroup[undatedStarts[number]..<undatedStarts[number + 1]]
  }

  /// The purchases of the chain of the transaction at `index` bought after `time`, earliest first.
  public func chain(of index: Int, after time: Timestamp) -> ArraySlice<Purchase> {
    Self.after(time, in: chain(number: Int(chainNumbers[index])))
  }

  /// The purchases of the group of the transaction at `index` bought after `time` (none without a group).
  public func group(of index: Int, after time: Timestamp) -> ArraySlice<Purchase> {
    let g = Int(groupNumbers[index])
    return g < 0 ? [] : Self.after(time, in: group(number: g))
  }

  /// The purchases of the group of the transaction at `index` bought at `time` or later.
  public func group(of index: Int, from time: Timestamp) -> ArraySlice<Purchase> {
    let g = Int(groupNumbers[index])
    return g < 0 ? [] : Self.after(time, in: group(number: g), inclusive: true)
  }

  /// The purchases of the chain of the transaction at `index` bought after it: `chain(of: index, after:` its
  /// purchase date`)`, read from where it stands in its chain instead of searched for (none when undated).
  public func chainAfterItsPurchase(of index: Int) -> ArraySlice<Purchase> {
    let chain = Int(chainNumbers[index])
    return Self.after(rank: chainRanks[index], in: byChain, end: chainStarts[chain + 1], start: chainStarts[chain])
  }

  /// The purchases of the group of the transaction at `index` bought after it: `group(of: index, after:` its
  /// purchase date`)`, read from where it stands in its group (none when undated or without a group).
  public func groupAfterItsPurchase(of index: Int) -> ArraySlice<Purchase> {
    let g = Int(groupNumbers[index])
    guard g >= 0 else { return [] }
    return Self.after(rank: groupRanks[index], in: byGroup, end: groupStarts[g + 1], start: groupStarts[g])
  }

  /// The purchases of the group of the transaction at `index` bought at its purchase date or later:
  /// `group(of: index, from:` its purchase date`)` (none when undated or without a group).
  public func groupFromItsPurchase(of index: Int) -> ArraySlice<Purchase> {
    let g = Int(groupNumbers[index])
    let rank = g < 0 ? -1 : groupRanks[index]
    guard rank >= 0 else { return [] }
    let start = groupStarts[g]
    let at = byGroup[rank].at
    // Back over purchases at the same moment; a long run of them is searched for instead.
    var low = rank
    while low > start, byGroup[low - 1].at == at {
      guard rank - low < 8 else { return Self.after(at, in: byGroup[start..<groupStarts[g + 1]], inclusive: true) }
      low -= 1
    }
    return byGroup[low..<groupStarts[g + 1]]
  }

  /// The earliest purchase of the chain of the transaction at `index` bought after it:
  /// `chainAfterItsPurchase(of: index).first`, without making a slice.
  public func firstInChainAfterItsPurchase(of index: Int) -> Purchase? {
    let range = chainRangeAfterItsPurchase(of: index)
    return range.isEmpty ? nil : byChain[range.lowerBound]
  }

  /// The earliest purchase of the group of the transaction at `index` bought after it:
  /// `groupAfterItsPurchase(of: index).first`, without making a slice.
  public func firstInGroupAfterItsPurchase(of index: Int) -> Purchase? {
    let range = groupRangeAfterItsPurchase(of: index)
    return range.isEmpty ? nil : byGroup[range.lowerBound]
  }

  /// Every chain's purchases, chain by chain, each sorted by date: what `chainRangeAfterItsPurchase` points in.
  public var chainPurchases: [Purchase] { byChain }
  /// Every group's purchases, group by group, each sorted by date: what `groupRangeAfterItsPurchase` points in.
  public var groupPurchases: [Purchase] { byGroup }

  /// Where `chainAfterItsPurchase(of: index)` stands in `chainPurchases`: for a loop that reads them in place.
  public func chainRangeAfterItsPurchase(of index: Int) -> Range<Int> {
    let chain = Int(chainNumbers[index])
    return Self.range(after: chainRanks[index], in: byChain, end: chainStarts[chain + 1], start: chainStarts[chain])
  }

  /// Where `groupAfterItsPurchase(of: index)` stands in `groupPurchases`.
  public func groupRangeAfterItsPurchase(of index: Int) -> Range<Int> {
    let g = Int(groupNumbers[index])
    guard g >= 0 else { return 0..<0 }
    return Self.range(after: groupRanks[index], in: byGroup, end: groupStarts[g + 1], start: groupStarts[g])
  }

  /// The purchases after the one at `rank` of `list[start..<end]` (sorted by date) bought later than it.
  private static func after(rank: Int, in list: [Purchase], end: Int, start: Int) -> ArraySlice<Purchase> {
    list[range(after: rank, in: list, end: end, start: start)]
  }

  /// Where `after(rank:in:end:start:)` stands in `list` (empty for rank -1).
  private static func range(after rank: Int, in list: [Purchase], end: Int, start: Int) -> Range<Int> {
    guard rank >= 0 else { return 0..<0 }
    let at = list[rank].at
    // On past purchases at the same moment; a long run of them is searched for instead.
    var high = rank + 1
    while high < end, list[high].at == at {
      guard high - rank < 8 else { return after(at, in: list[start..<end]).indices }
      high += 1
    }
    return high..<end
  }

  /// The purchases of `list` (sorted by date) bought after `time`, or at it when `inclusive`.
  public static func after(
    _ time: Timestamp, in list: ArraySlice<Purchase>, inclusive: Bool = false
  ) -> ArraySlice<Purchase> {
    var low = list.startIndex
    var high = list.endIndex
    while low < high {
      let middle = low + (high - low) / 2
      if list[middle].at > time || (inclusive && list[middle].at == time) { high = middle } else { low = middle + 1 }
    }
    return list[low...]
  }
}

/// What the rules read of one transaction, as the data states it, in 24 bytes: its dates, whether it is upgraded
/// or revoked, who owns it and its stated product type. Loops over every position read these (2.4 MB for 100,000
/// transactions) instead of the transactions (368 bytes each, scattered fields, more than the cache holds); a
/// revocation's details and an unrecognized ownership's text are read from the transaction.
public struct PositionFacts: Sendable, Equatable {
  /// Which facts are stated.
  public struct Flags: OptionSet, Sendable, Equatable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `purchase` is the purchase date.
    public static let dated = Flags(rawValue: 1)
    /// `expiry` is the expiry.
    public static let expires = Flags(rawValue: 2)
    /// The data flags it upgraded (`isUpgraded`).
    public static let upgraded = Flags(rawValue: 4)
    /// The data states a refund or revocation (`revocation`).
    public static let revoked = Flags(rawValue: 8)
  }

  /// `Ownership`'s case, without an unrecognized value's text.
  public enum OwnershipKind: UInt8, Sendable, Equatable {
    case purchased, familyShared, unknown, unrecognized
  }

  /// The purchase date (the epoch when undated: read `purchaseDate`).
  public var purchase: Timestamp
  /// The expiry (the epoch when none: read `expiresDate`).
  public var expiry: Timestamp
  public var flags: Flags
  public var ownership: OwnershipKind
  /// The stated product type.
  public var productType: ProductType?

  /// No facts: undated, no expiry, not upgraded or revoked, unknown owner, no stated type.
  init() {
    (purchase, expiry, flags, ownership, productType) = (.epoch, .epoch, [], .unknown, nil)
  }

  /// The facts of `all[i]`, read in place.
  @inline(__always) init(_ all: UnsafeBufferPointer<PurchaseTransaction>, at i: Int) {
    var flags: Flags = []
    purchase = .epoch
    expiry = .epoch
    if let at = all[i].purchaseDate {
      purchase = at
      flags.insert(.dated)
    }
    if let at = all[i].expiresDate {
      expiry = at
      flags.insert(.expires)
    }
    if all[i].isUpgraded { flags.insert(.upgraded) }
    // The case only: no copy of the revocation (its texts retained).
    if case .some = all[i].revocation { flags.insert(.revoked) }
    self.flags = flags
    switch all[i].ownership {
    case .purchased: ownership = .purchased
    case .familyShared: ownership = .familyShared
    case .unknown: ownership = .unknown
    case .unrecognized: ownership = .unrecognized
    }
    productType = all[i].productType
  }

  /// The facts of every transaction, in order.
  public static func of(_ transactions: [PurchaseTransaction]) -> [PositionFacts] {
    var facts: [PositionFacts] = []
    facts.reserveCapacity(transactions.count)
    transactions.withUnsafeBufferPointer { all in
      for i in all.indices { facts.append(PositionFacts(all, at: i)) }
    }
    return facts
  }

  /// When it was bought.
  @inlinable public var purchaseDate: Timestamp? { flags.contains(.dated) ? purchase : nil }

  /// When its period ends.
  @inlinable public var expiresDate: Timestamp? { flags.contains(.expires) ? expiry : nil }

  /// Whether the data flags it upgraded.
  @inlinable public var isUpgraded: Bool { flags.contains(.upgraded) }

  /// Whether the data states a refund or revocation.
  @inlinable public var isRevoked: Bool { flags.contains(.revoked) }

  /// Bought after `time` (undated: not).
  @inlinable public func isBought(after time: Timestamp) -> Bool {
    flags.contains(.dated) && purchase > time
  }
}

/// Transaction ids as numbers, for telling whether two transactions have the same id without reading the ids'
/// text (behind a pointer, anywhere in memory: a cache miss per id read in a scattered order). An id of 1 to 19
/// decimal digits without a leading zero is its value (`TransactionIDIndex.numericKey`), any other `textual`: two
/// numeric ids are the same text exactly when their values are equal, and never the same text as an id that is not
/// numeric; two textual ones are compared by their text.
public enum TransactionIDKeys {
  /// The key of an id that is not plain digits (above every 19-digit value).
  public static let textual = UInt64.max

  /// Every transaction's key, in order: each id read once, in position order.
  public static func of(_ transactions: [PurchaseTransaction]) -> [UInt64] {
    var keys = [UInt64](repeating: textual, count: transactions.count)
    transactions.withUnsafeBufferPointer { all in
      keys.withUnsafeMutableBufferPointer { keys in
        // As many keys as transactions.
        for i in all.indices { keys[i] = key(all, at: i) }
      }
    }
    return keys
  }

  /// The key of `all[i]`: its id read in place (a String passed on would be retained, an atomic write to storage
  /// far in memory that waits for it alone).
  @inline(__always) static func key(_ all: UnsafeBufferPointer<PurchaseTransaction>, at i: Int) -> UInt64 {
    let key = all[i].transactionID.utf8.withContiguousStorageIfAvailable { TransactionIDIndex.numericKey($0) }
    if case .some(.some(let value)) = key { return value }
    if case .some(.none) = key { return textual }
    return TransactionIDIndex.numericKey(all[i].transactionID) ?? textual
  }

  /// Whether `all[a]` and `all[b]` have the same transaction id, `keys` being theirs (`of(all)`, as many): told by
  /// the keys, the texts compared only when neither is numeric.
  @inline(__always) package static func same(
    _ a: Int, _ b: Int, _ keys: UnsafeBufferPointer<UInt64>, _ all: UnsafeBufferPointer<PurchaseTransaction>
  ) -> Bool {
    // No keys (`of` not worked out: few ids to compare): the texts.
    guard keys.count == all.count else { return UpgradeMoments.sameText(all[a].transactionID, all[b].transactionID) }
    let (x, y) = (keys[a], keys[b])
    guard x == textual, y == textual else { return x == y }
    return UpgradeMoments.sameText(all[a].transactionID, all[b].transactionID)
  }

  /// Whether comparing `comparisons` pairs of ids through the keys of `count` transactions (each id read once,
  /// in position order) costs less than comparing their texts (two ids read per pair, in a scattered order).
  @inline(__always) package static func pay(forComparing comparisons: Int, of count: Int) -> Bool {
    comparisons >= count / 4
  }
}

/// `KeyNumbering` that first looks a key up by the bits of its String value: the reader shares one String per
/// repeating value (product ids, original transaction ids, groups: its `StringInterner`), and two Strings with
/// the same bits are the same text (the same storage and length, or the same small-string bytes), so most keys
/// are found without reading their text. A direct-mapped table of the last sets of bits seen (256 slots, up to
/// 8,192 for a caller expecting many keys); a key whose bits are not in it goes to `KeyNumbering`, so the numbers
/// are `KeyNumbering`'s.
///
/// The bits name storage only while it is alive: every key numbered must stay alive (held by the caller) for as
/// long as this numbering is used, so that no storage is freed and reused for other text.
public struct SharedKeyNumbering: Sendable {
  /// Bits of a String value and its number (-1: empty slot).
  private struct Slot {
    var low: UInt64
    var high: UInt64
    var number: Int
  }

  private var numbering = KeyNumbering()
  private var slots: [Slot]
  /// Where a slot's index starts in the hash's 64 bits (the slot count is 2^(64 - shift)).
  private let shift: UInt64

  /// A table of 256 slots, or for a caller numbering `count` Strings (repeats among them) one slot per two, at
  /// most 8,192 (192 KiB): thousands of chains in 256 slots keep replacing each other.
  public init(expecting count: Int = 0) {
    var bits = 8
    while bits < 13, 1 << bits < count / 2 { bits += 1 }
    shift = UInt64(64 - bits)
    slots = [Slot](repeating: Slot(low: 0, high: 0, number: -1), count: 1 << bits)
  }

  /// How many keys are numbered.
  public var count: Int { numbering.count }

  /// The number of `key`, a new one when it is new: `KeyNumbering.number(of:)`.
  @inline(__always) public mutating func number(of key: String) -> Int {
    // A String is two words on 64-bit platforms; on any other, straight to the text.
    guard MemoryLayout<String>.size == MemoryLayout<(UInt64, UInt64)>.size else { return numbering.number(of: key) }
    let (low, high) = unsafeBitCast(key, to: (UInt64, UInt64).self)
    let slot = Int(truncatingIfNeeded: ((low ^ high) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    if slots[slot].number >= 0, slots[slot].low == low, slots[slot].high == high { return slots[slot].number }
    // The text's value when it is digits, read in place before anything is written: the String is then not
    // retained first (an atomic write to its storage, far in memory, that waits for it alone).
    let numeric = key.utf8.withContiguousStorageIfAvailable { TransactionIDIndex.numericKey($0) }
    let number: Int
    if case .some(.some(let value)) = numeric {
      number = numbering.number(ofNumericKey: value)
    } else {
      number = numbering.number(of: key)
    }
    slots[slot] = Slot(low: low, high: high, number: number)
    return number
  }
}
