/// A purchase history as it was known at one moment: the only view of a history the rules read.
///
/// Only what had happened by then counts (Apple's eligibility and entitlement rules are about a moment):
/// - a transaction bought after the moment does not exist yet;
/// - a refund or revocation after the moment has not happened yet, and one reversed by then no longer holds;
///   a reversal after the moment (a `signedDate` Apple wrote later) is not known yet;
/// - an upgrade whose replacing purchase came after the moment has not happened yet;
/// - renewal states describe the data's own moment (`moment`), and are kept as they are: when that moment is
///   later than the one asked about, `renewalsAreLater` says so, for reasons that rest on them.
public struct KnownHistory: Sendable {
  /// The moment the history is known at.
  public let time: Timestamp
  /// Transactions bought by `time`, in the data's order, as known then (later refunds and upgrades removed,
  /// replaced periods taken as upgraded): the data's own array read in place, with what the moment changes
  /// described beside it, not a copy of every transaction.
  public let transactions: KnownTransactions
  /// Renewal states as the data gives them, at the data's own moment.
  public let renewals: [RenewalState]
  /// The moment the data describes, when it names one.
  public let moment: DataMoment?
  /// `transactions`' chains and groups sorted by purchase date: built once per moment, read by every rule.
  public let purchases: DatedPurchases

  /// Cuts `history` at `time`.
  /// - Parameters:
  ///   - history: everything the data says.
  ///   - time: the moment asked about.
  public init(_ history: PurchaseHistory, at time: Timestamp) {
    self.init(history, at: time, upgrading: [], purchases: DatedPurchases(history.transactions))
  }

  /// Cuts `history` at `time`, with the transactions at `upgrading` (indices, ascending) taken as upgraded too,
  /// reading `purchases`, the index of `history.transactions`: what a caller that already indexed the history
  /// (to find replaced periods) gives, so that nothing is indexed twice.
  /// - Parameters:
  ///   - history: everything the data says.
  ///   - time: the moment asked about.
  ///   - upgrading: transactions to take as upgraded (`isUpgraded` set), by index.
  ///   - purchases: `DatedPurchases(history.transactions)`.
  public init(_ history: PurchaseHistory, at time: Timestamp, upgrading: [Int], purchases: DatedPurchases) {
    self.init(history, at: time, upgrading: upgrading, replacedBy: [], purchases: purchases)
  }

  /// The same, given for each of `upgrading` the index of a purchase that replaced it (`replacedBy`, one per
  /// index of `upgrading`, or empty for none given): one bought by `time` under another transaction id makes the
  /// upgrade known then without looking for its moment (the first such purchase after it is no later).
  /// - Parameters:
  ///   - history: everything the data says.
  ///   - time: the moment asked about.
  ///   - upgrading: transactions to take as upgraded (`isUpgraded` set), by index.
  ///   - replacedBy: for each of `upgrading`, a later purchase in its chain or group, by index (or none).
  ///   - purchases: `DatedPurchases(history.transactions)`.
  public init(
    _ history: PurchaseHistory, at time: Timestamp, upgrading: [Int], replacedBy: [Int], purchases: DatedPurchases
  ) {
    self.time = time
    renewals = history.renewals
    moment = history.moment
    let all = history.transactions
    // What the loops below read of each transaction, in 24 bytes (the index gathered them as it numbered them):
    // the transactions themselves (368 bytes, scattered fields) are read only for a revocation's details, and
    // for the transaction ids of replaced periods and upgrades.
    let facts = purchases.facts.count == all.count ? purchases.facts : PositionFacts.of(all)
    var marked = [Bool]()
    if !upgrading.isEmpty {
      marked = [Bool](repeating: false, count: all.count)
      for i in upgrading { marked[i] = true }
    }
    // An upgrade moment is a purchase date: at or after the latest purchase none is later, and none is found.
    let nothingBoughtLater = purchases.latestPurchase.map { $0 <= time } ?? true
    // The ids as numbers, read once in position order, when upgrades are looked into (a replacing purchase's id
    // and an upgrade moment's are compared with the period's) for many transactions: at the end of a history none
    // is, and a few are compared by their text.
    var comparisons = 0
    if !nothingBoughtLater {
      // A replacing purchase bought by then, and an upgraded transaction bought by then: one id compared each.
      for j in replacedBy where facts.indices.contains(j) && !facts[j].isBought(after: time) { comparisons += 1 }
      for f in facts where f.isUpgraded && !f.isBought(after: time) { comparisons += 1 }
    }
    let keys = TransactionIDKeys.pay(forComparing: comparisons, of: all.count) ? TransactionIDKeys.of(all) : []
    // Replaced by then (by a purchase under another id, so its moment is no later): upgraded, no moment needed.
    var replacedByThen: [Bool] = []
    if !nothingBoughtLater, !upgrading.isEmpty, replacedBy.count == upgrading.count {
      replacedByThen = [Bool](repeating: false, count: all.count)
      all.withUnsafeBufferPointer { all in
        facts.withUnsafeBufferPointer { facts in
          keys.withUnsafeBufferPointer { keys in
            for k in upgrading.indices {
              let (i, j) = (upgrading[k], replacedBy[k])
              guard all.indices.contains(i), all.indices.contains(j), let bought = facts[j].purchaseDate,
                bought <= time, !TransactionIDKeys.same(j, i, keys, all)
              else { continue }
              replacedByThen[i] = true
            }
          }
        }
      }
    }
    // Only transactions bought by then are known, and only theirs are asked for.
    let upgrades = UpgradeMoments(
      all, facts: facts, keys: keys, purchases: nothingBoughtLater ? nil : purchases, boughtBy: time,
      isUpgraded: { i in
        (facts[i].isUpgraded || (!marked.isEmpty && marked[i])) && !(!replacedByThen.isEmpty && replacedByThen[i])
      })
    // The data's own array is read in place: a copy of each known transaction would retain and release every
    // field (37 MB of fresh pages for 100,000). Replaced periods (taken as upgraded, which can be most of a
    // history) are marked beside it; only the few whose refund, reversal or upgrade is later are copied. Positions
    // are written only when something was bought later or copied. Undated transactions stay: whether they were
    // bought by then is for the rules to say (unknown).
    var kept: [Int]?
    if !nothingBoughtLater {
      var list: [Int] = []
      list.reserveCapacity(all.count)
      facts.withUnsafeBufferPointer { facts in
        for i in facts.indices where !facts[i].isBought(after: time) { list.append(i) }
      }
      kept = list
    }
    let count = kept?.count ?? all.count
    var positions = kept
    var marks: [Bool] = []
    var patched: [PurchaseTransaction] = []
    var patchedAt: [Int] = []
    var changes: [KnownOverrides] = []
    facts.withUnsafeBufferPointer { facts in
      for k in 0..<count {
        let i = kept?[k] ?? k
        // What the moment changes in the transaction at `i`.
        var o: KnownOverrides = []
        if facts[i].isRevoked, let r = all[i].revocation, r.date > time || r.reversedAt != nil {
          // Refunded by then and reversed later: the refund stands. Otherwise it is later, or reversed by then.
          o.insert(r.date <= time && r.reversedAt.map { $0 > time } == true ? .withoutReversal : .withoutRevocation)
        }
        // Upgraded in the data, or marked: whether it is by then (the data's flag is in the facts).
        if facts[i].isUpgraded || (!marked.isEmpty && marked[i]) {
          let isReplacedByThen = !replacedByThen.isEmpty && replacedByThen[i]
          let upgraded = upgrades.moment(of: i).map { $0 > time } != true || isReplacedByThen
          if upgraded != facts[i].isUpgraded { o.insert(upgraded ? .upgraded : .notUpgraded) }
        }
        if o.isEmpty { continue }
        if o == .upgraded {
          if marks.isEmpty { marks = [Bool](repeating: false, count: count) }
          marks[k] = true
          continue
        }
        if positions == nil { positions = Array(all.indices) }
        positions?[k] = ~patched.count
        var t = all[i]
        o.apply(to: &t)
        patched.append(t)
        patchedAt.append(i)
        changes.append(o)
      }
    }
    transactions = KnownTransactions(
      all, positions: positions, marks: marks, patched: patched, at: patchedAt, overrides: changes)
    guard let kept, kept.count < all.count else {
      self.purchases = purchases
      return
    }
    // Only positions move (dates, chains and groups do not): the index is narrowed, not rebuilt.
    var newPosition = [Int](repeating: -1, count: all.count)
    for (k, i) in kept.enumerated() { newPosition[i] = k }
    self.purchases = purchases.keeping(newPosition)
  }

  /// Whether the transaction at `index` is upgraded as known at `time`.
  public func isUpgraded(at index: Int) -> Bool { transactions.isUpgraded(at: index) }

  /// The transaction at `index` as known at `time` (a copy: `transactions[index]` reads it in place).
  public func transaction(at index: Int) -> PurchaseTransaction { transactions[index] }

  /// The data's moment, when it is later than `time`: renewal states describe it, not `time`.
  public var renewalsAreLater: DataMoment? {
    guard let moment, moment.time > time else { return nil }
    return moment
  }

  /// The renewal state of a subscription chain.
  public func renewal(originalTransactionID: String?) -> RenewalState? {
    guard let originalTransactionID else { return nil }
    return renewals.first { $0.originalTransactionID == originalTransactionID }
  }
}

/// What the moment a history is known at changes in one of its transactions: kept beside the data's
/// transaction instead of in a copy of it.
public struct KnownOverrides: OptionSet, Hashable, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Taken as upgraded though the data does not flag it: a replaced period, whose replacement is known.
  public static let upgraded = KnownOverrides(rawValue: 1)
  /// Upgraded in the data, but the purchase that replaced it is later: not upgraded yet.
  public static let notUpgraded = KnownOverrides(rawValue: 2)
  /// Its refund or revocation is later, or was reversed by then: none holds.
  public static let withoutRevocation = KnownOverrides(rawValue: 4)
  /// Refunded by then, and the refund reversed later: the refund stands.
  public static let withoutReversal = KnownOverrides(rawValue: 8)

  /// `isUpgraded` as known, the data's being `data`.
  @inlinable public func isUpgraded(_ data: Bool) -> Bool {
    contains(.upgraded) ? true : contains(.notUpgraded) ? false : data
  }

  /// Applies the overrides to the data's transaction.
  public func apply(to t: inout PurchaseTransaction) {
    t.isUpgraded = isUpgraded(t.isUpgraded)
    if contains(.withoutRevocation) { t.revocation = nil }
    if contains(.withoutReversal) { t.revocation?.reversedAt = nil }
  }
}

/// The transactions of a history known at a moment: the data's array, the positions in it of those bought by
/// then, marks on those taken as upgraded, and copies of the few the moment changes otherwise (a refund or
/// upgrade later). Index `i` is read where `position(of: i)` says, never from a copy of the data's array.
public struct KnownTransactions: RandomAccessCollection, Sendable {
  /// The data's transactions, every one (those bought later too).
  public let data: [PurchaseTransaction]
  /// The transactions the moment changes other than by taking them as upgraded, as known, in the data's order.
  public let patched: [PurchaseTransaction]
  /// Per known transaction, its position in `data`, or the complement (`~`) of its place in `patched`; nil:
  /// every one of `data`, at its own position.
  @usableFromInline let positions: [Int]?
  /// Per known transaction, whether it is taken as upgraded though `data` does not flag it (empty: none is).
  @usableFromInline let marks: [Bool]
  /// What the moment changes in each of `patched`.
  @usableFromInline let changes: [KnownOverrides]
  /// The position in `data` of each of `patched`.
  @usableFromInline let patchedAt: [Int]

  init(
    _ data: [PurchaseTransaction], positions: [Int]?, marks: [Bool], patched: [PurchaseTransaction],
    at patchedAt: [Int], overrides: [KnownOverrides]
  ) {
    (self.data, self.positions, self.marks, self.patched) = (data, positions, marks, patched)
    (self.patchedAt, changes) = (patchedAt, overrides)
  }

  /// Every transaction of `transactions`, as it is.
  public init(_ transactions: [PurchaseTransaction]) {
    self.init(transactions, positions: nil, marks: [], patched: [], at: [], overrides: [])
  }

  public typealias Index = Int
  // A range, not `DefaultIndices` (which holds a copy of the collection: four arrays retained per loop).
  public typealias Indices = Range<Int>

  public var startIndex: Int { 0 }
  public var endIndex: Int { positions?.count ?? data.count }
  public var indices: Range<Int> { 0..<endIndex }

  /// Where the known transaction at `index` is: its position in `data`, or when the moment changes it (other
  /// than by taking it as upgraded), the complement (`~`, negative) of its place in `patched`.
  @inlinable public func position(of index: Int) -> Int { positions.map { $0[index] } ?? index }

  /// Whether the known transaction at `index` is taken as upgraded though the data does not flag it.
  @inlinable public func isMarkedUpgraded(at index: Int) -> Bool { !marks.isEmpty && marks[index] }

  /// What the moment changes in the known transaction at `index` (empty: it is the data's).
  @inlinable public func overrides(at index: Int) -> KnownOverrides {
    let p = position(of: index)
    return p < 0 ? changes[~p] : isMarkedUpgraded(at: index) ? .upgraded : []
  }

  /// The position in `data` of the known transaction at `index`, patched or not.
  @inlinable public func dataPosition(of index: Int) -> Int {
    let p = position(of: index)
    return p < 0 ? patchedAt[~p] : p
  }

  /// The known transaction at `index`: read in place, a copy only when it is taken as upgraded.
  @inlinable public subscript(index: Int) -> PurchaseTransaction {
    _read {
      let p = position(of: index)
      if p < 0 {
        yield patched[~p]
      } else if isMarkedUpgraded(at: index) {
        var t = data[p]
        t.isUpgraded = true
        yield t
      } else {
        yield data[p]
      }
    }
  }

  /// The data's transaction at known index `index`, as the data states it: every field as known but
  /// `isUpgraded` and `revocation`, which the moment can change (read them with `isUpgraded(at:)` and
  /// `revocation(at:)`). In place and with one yield, so that it is inlined into a loop and nothing is retained
  /// (`self[index]`'s several yields make a call per read): what loops over many transactions read.
  @inlinable public subscript(stated index: Int) -> PurchaseTransaction {
    _read { yield data[dataPosition(of: index)] }
  }

  /// Whether the transaction at `index` is upgraded as known.
  @inlinable public func isUpgraded(at index: Int) -> Bool {
    let p = position(of: index)
    return p < 0 ? patched[~p].isUpgraded : isMarkedUpgraded(at: index) || data[p].isUpgraded
  }

  /// The refund or revocation of the transaction at `index` as known.
  @inlinable public func revocation(at index: Int) -> Revocation? {
    let p = position(of: index)
    return p < 0 ? patched[~p].revocation : data[p].revocation
  }
}

extension PurchaseHistory {
  /// The history as known at `time`: what the rules read.
  /// - Parameter time: the moment asked about.
  /// - Returns: the history without anything that happened after `time`.
  public func known(at time: Timestamp) -> KnownHistory { KnownHistory(self, at: time) }
}

/// When each upgraded transaction was upgraded: the purchase date of the transaction that replaced it, the
/// first one bought after it in its subscription chain (upgrades keep original_transaction_id) or its
/// subscription group. Apple records no other date for an upgrade.
public struct UpgradeMoments: Sendable, Equatable {
  /// By index; empty when nothing is upgraded.
  private var moments: [Timestamp?] = []

  /// Finds the replacing purchase of every upgraded transaction of `transactions`.
  public init(_ transactions: [PurchaseTransaction]) {
    // Fast path: most histories hold no upgraded transaction, and nothing is indexed.
    let any = transactions.indices.contains { transactions[$0].isUpgraded }
    self.init(transactions, purchases: any ? DatedPurchases(transactions) : nil) { transactions[$0].isUpgraded }
  }

  /// The same, reading `purchases` (the index of `transactions`; nil: nothing is upgraded), with `isUpgraded`
  /// saying which are upgraded; only of those bought at or before `boughtBy` when it is given (the others
  /// have none): a history known at a moment leaves later purchases out.
  public init(
    _ transactions: [PurchaseTransaction], purchases: DatedPurchases?, boughtBy time: Timestamp? = nil,
    isUpgraded: (Int) -> Bool
  ) {
    self.init(
      transactions, facts: purchases?.facts ?? [], keys: [], purchases: purchases, boughtBy: time,
      isUpgraded: isUpgraded)
  }

  /// The same, with the transactions' facts (`PositionFacts.of(transactions)`, worked out here when not as many)
  /// and id keys (`TransactionIDKeys.of(transactions)`, or none: ids compared by their text): purchase dates are
  /// read in the facts, ids compared by their keys.
  package init(
    _ transactions: [PurchaseTransaction], facts: [PositionFacts], keys: [UInt64], purchases: DatedPurchases?,
    boughtBy time: Timestamp?, isUpgraded: (Int) -> Bool
  ) {
    guard let purchases else { return }
    let facts = facts.count == transactions.count ? facts : PositionFacts.of(transactions)
    var moments: [Timestamp?] = []
    // By index and through the buffer: most are not upgraded, and a copy of each would retain and release
    // every field.
    transactions.withUnsafeBufferPointer { all in
      facts.withUnsafeBufferPointer { facts in
        keys.withUnsafeBufferPointer { keys in
          for i in all.indices where isUpgraded(i) {
            if let time, facts[i].purchaseDate.map({ $0 > time }) ?? true { continue }
            guard let earliest = Self.moment(of: i, all, keys, purchases) else { continue }
            if moments.isEmpty { moments = [Timestamp?](repeating: nil, count: all.count) }
            moments[i] = earliest
          }
        }
      }
    }
    self.moments = moments
  }

  /// The first purchase after the transaction at `i` in its chain or group with another transaction id, read
  /// from where it stands in their purchases sorted by date (RuleFastPathTests compares a scan); an undated
  /// one has none after it.
  private static func moment(
    of i: Int, _ all: UnsafeBufferPointer<PurchaseTransaction>, _ keys: UnsafeBufferPointer<UInt64>,
    _ purchases: DatedPurchases
  ) -> Timestamp? {
    // The earlier of the two lists' first purchases, when its id is another: no purchase of either list is
    // earlier, so it is the moment (one id compared, no slice made).
    let inChain = purchases.firstInChainAfterItsPurchase(of: i)
    let inGroup = purchases.firstInGroupAfterItsPurchase(of: i)
    let earlier = inChain.map { c in inGroup.map { $0.at < c.at ? $0 : c } ?? c } ?? inGroup
    guard let earlier else { return nil }
    if !TransactionIDKeys.same(earlier.index, i, keys, all) { return earlier.at }
    // A copy of the transaction bought again later: read on through both lists.
    func first(_ later: ArraySlice<DatedPurchases.Purchase>) -> Timestamp? {
      later.first { $0.index != i && !TransactionIDKeys.same($0.index, i, keys, all) }?.at
    }
    let chainFirst = first(purchases.chainAfterItsPurchase(of: i))
    let groupFirst = first(purchases.groupAfterItsPurchase(of: i))
    return chainFirst.map { c in groupFirst.map { min(c, $0) } ?? c } ?? groupFirst
  }

  /// `a == b`, told from the bytes when both are ASCII: equal bytes are the same text, and ASCII texts with other
  /// bytes are other texts (canonical equivalence, which `==` compares, joins only texts with other scalars).
  /// `==` on two ids of 16 digits went through the standard library's comparison (about 120 instructions).
  @inline(__always) static func sameText(_ a: String, _ b: String) -> Bool {
    let told = a.utf8.withContiguousStorageIfAvailable { x -> Bool? in
      let inner = b.utf8.withContiguousStorageIfAvailable { y -> Bool? in
        guard let p = x.baseAddress, let q = y.baseAddress else { return x.isEmpty && y.isEmpty ? true : nil }
        if x.count == y.count, bytesEqual(p, q, count: x.count) { return true }
        return isASCII(x) && isASCII(y) ? false : nil
      }
      return inner ?? nil
    }
    return (told ?? nil) ?? (a == b)
  }

  /// The upgrade moment of the transaction at `index`, when its replacement is in the data.
  public func moment(of index: Int) -> Timestamp? { moments.isEmpty ? nil : moments[index] }
}
