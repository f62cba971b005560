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
  /// Transactions bought by `time`, in the data's order, with later refunds and upgrades removed. When nothing
  /// is removed this is the data's own array, and transactions taken as upgraded (`init(_:at:upgrading:purchases:)`)
  /// are not flagged in it: read `isUpgraded(at:)`, or `transaction(at:)` for the whole transaction as known.
  public let transactions: [PurchaseTransaction]
  /// The transactions taken as upgraded that `transactions` does not flag, by index (empty: none).
  private let markedUpgraded: [Bool]
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
    self.time = time
    renewals = history.renewals
    moment = history.moment
    let all = history.transactions
    var marked = [Bool]()
    if !upgrading.isEmpty {
      marked = [Bool](repeating: false, count: all.count)
      for i in upgrading { marked[i] = true }
    }
    func isUpgraded(_ i: Int) -> Bool { all[i].isUpgraded || (!marked.isEmpty && marked[i]) }
    // An upgrade moment is a purchase date: at or after the latest purchase none is later, and none is found.
    let nothingBoughtLater = purchases.latestPurchase.map { $0 <= time } ?? true
    let upgrades = UpgradeMoments(
      all, purchases: nothingBoughtLater ? nil : purchases, boughtBy: time, isUpgraded: isUpgraded)
    // Undated transactions stay: whether they were bought by then is for the rules to say (unknown).
    func isLater(_ i: Int) -> (bought: Bool, revoked: Bool, upgraded: Bool) {
      (
        all[i].purchaseDate.map { $0 > time } ?? false,
        all[i].revocation.map { $0.date > time || $0.reversedAt != nil } ?? false,
        isUpgraded(i) && upgrades.moment(of: i).map { $0 > time } == true
      )
    }
    // Mostly nothing happened after `time`: the data's own array and index are shared, not copied, and the
    // transactions taken as upgraded are marked beside it (a marked copy retains and releases every field).
    guard all.indices.contains(where: { isLater($0) != (false, false, false) }) else {
      transactions = all
      self.purchases = purchases
      markedUpgraded = marked
      return
    }
    markedUpgraded = []
    var known: [PurchaseTransaction] = []
    known.reserveCapacity(all.count)
    var newPosition: [Int] = []
    newPosition.reserveCapacity(all.count)
    for i in all.indices {
      let later = isLater(i)
      if later.bought {
        newPosition.append(-1)
        continue
      }
      newPosition.append(known.count)
      known.append(all[i])
      let last = known.count - 1
      if isUpgraded(i) != all[i].isUpgraded { known[last].isUpgraded = true }
      if later.revoked {
        if let r = known[last].revocation, r.date <= time, let reversed = r.reversedAt, reversed > time {
          known[last].revocation?.reversedAt = nil
        } else {
          known[last].revocation = nil
        }
      }
      if later.upgraded { known[last].isUpgraded = false }
    }
    transactions = known
    // Only positions move (dates, chains and groups do not): the index is narrowed, not rebuilt.
    self.purchases = known.count == all.count ? purchases : purchases.keeping(newPosition)
  }

  /// Whether the transaction at `index` is upgraded as known at `time` (`transactions[index].isUpgraded`, or
  /// taken as upgraded).
  public func isUpgraded(at index: Int) -> Bool {
    transactions[index].isUpgraded || isMarkedUpgraded(at: index)
  }

  /// Whether the transaction at `index` is taken as upgraded though `transactions` does not flag it.
  public func isMarkedUpgraded(at index: Int) -> Bool { !markedUpgraded.isEmpty && markedUpgraded[index] }

  /// The transaction at `index` as known at `time`, flagged upgraded when it is taken as upgraded.
  public func transaction(at index: Int) -> PurchaseTransaction {
    var t = transactions[index]
    if isMarkedUpgraded(at: index) { t.isUpgraded = true }
    return t
  }

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
    guard let purchases else { return }
    var moments: [Timestamp?] = []
    // By index and through the buffer: most are not upgraded, and a copy of each would retain and release
    // every field.
    transactions.withUnsafeBufferPointer { all in
      for i in all.indices where isUpgraded(i) {
        if let time, all[i].purchaseDate.map({ $0 > time }) ?? true { continue }
        guard let earliest = Self.moment(of: i, all, purchases) else { continue }
        if moments.isEmpty { moments = [Timestamp?](repeating: nil, count: all.count) }
        moments[i] = earliest
      }
    }
    self.moments = moments
  }

  /// The first purchase after the transaction at `i` in its chain or group with another transaction id, read
  /// from where it stands in their purchases sorted by date (RuleFastPathTests compares a scan); an undated
  /// one has none after it.
  private static func moment(
    of i: Int, _ all: UnsafeBufferPointer<PurchaseTransaction>, _ purchases: DatedPurchases
  ) -> Timestamp? {
    // The earlier of the two lists' first purchases, when its id is another: no purchase of either list is
    // earlier, so it is the moment (one id compared, no slice made).
    let inChain = purchases.firstInChainAfterItsPurchase(of: i)
    let inGroup = purchases.firstInGroupAfterItsPurchase(of: i)
    let earlier = inChain.map { c in inGroup.map { $0.at < c.at ? $0 : c } ?? c } ?? inGroup
    guard let earlier else { return nil }
    if all[earlier.index].transactionID != all[i].transactionID { return earlier.at }
    // A copy of the transaction bought again later: read on through both lists.
    func first(_ later: ArraySlice<DatedPurchases.Purchase>) -> Timestamp? {
      later.first { $0.index != i && all[$0.index].transactionID != all[i].transactionID }?.at
    }
    let chainFirst = first(purchases.chainAfterItsPurchase(of: i))
    let groupFirst = first(purchases.groupAfterItsPurchase(of: i))
    return chainFirst.map { c in groupFirst.map { min(c, $0) } ?? c } ?? groupFirst
  }

  /// The upgrade moment of the transaction at `index`, when its replacement is in the data.
  public func moment(of index: Int) -> Timestamp? { moments.isEmpty ? nil : moments[index] }
}
