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
  /// Transactions bought by `time`, in the data's order, with later refunds and upgrades removed.
  public let transactions: [PurchaseTransaction]
  /// Renewal states as the data gives them, at the data's own moment.
  public let renewals: [RenewalState]
  /// The moment the data describes, when it names one.
  public let moment: DataMoment?

  /// Cuts `history` at `time`.
  /// - Parameters:
  ///   - history: everything the data says.
  ///   - time: the moment asked about.
  public init(_ history: PurchaseHistory, at time: Timestamp) {
    self.time = time
    renewals = history.renewals
    moment = history.moment
    let all = history.transactions
    let upgrades = UpgradeMoments(all)
    // Undated transactions stay: whether they were bought by then is for the rules to say (unknown).
    func isLater(_ i: Int) -> (bought: Bool, revoked: Bool, upgraded: Bool) {
      (
        all[i].purchaseDate.map { $0 > time } ?? false,
        all[i].revocation.map { $0.date > time || $0.reversedAt != nil } ?? false,
        all[i].isUpgraded && upgrades.moment(of: i).map { $0 > time } == true
      )
    }
    // Mostly nothing happened after `time`: the data's own array is shared, not copied transaction by transaction.
    guard all.indices.contains(where: { isLater($0) != (false, false, false) }) else {
      transactions = all
      return
    }
    var known: [PurchaseTransaction] = []
    for i in all.indices {
      let later = isLater(i)
      if later.bought { continue }
      known.append(all[i])
      if later.revoked {
        let last = known.count - 1
        if let r = known[last].revocation, r.date <= time, let reversed = r.reversedAt, reversed > time {
          known[last].revocation?.reversedAt = nil
        } else {
          known[last].revocation = nil
        }
      }
      if later.upgraded { known[known.count - 1].isUpgraded = false }
    }
    transactions = known
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
  private var moments: [Int: Timestamp] = [:]

  /// Finds the replacing purchase of every upgraded transaction of `transactions`.
  public init(_ transactions: [PurchaseTransaction]) {
    // By index: most are not upgraded, and a copy of each would retain and release every field.
    var chains = Set<String>()
    var groups = Set<String>()
    for i in transactions.indices where transactions[i].isUpgraded && transactions[i].purchaseDate != nil {
      chains.insert(transactions[i].chainID)
      if let group = transactions[i].subscriptionGroup { groups.insert(group) }
    }
    // Fast path: most histories hold no upgraded transaction, and nothing is indexed.
    guard !chains.isEmpty else { return }
    // Only the upgraded transactions' chains and groups, sorted by date (UpgradeMomentsTests compares a scan).
    let purchases = DatedPurchases(transactions, chains: chains, groups: groups)
    for i in transactions.indices where transactions[i].isUpgraded {
      guard let bought = transactions[i].purchaseDate else { continue }
      let id = transactions[i].transactionID
      func first(_ later: ArraySlice<DatedPurchases.Purchase>) -> Timestamp? {
        later.first { transactions[$0.index].transactionID != id }?.at
      }
      let inChain = first(purchases.chain(transactions[i].chainID, after: bought))
      let inGroup = transactions[i].subscriptionGroup.flatMap { first(purchases.group($0, after: bought)) }
      if let earliest = [inChain, inGroup].compactMap({ $0 }).min() { moments[i] = earliest }
    }
  }

  /// The upgrade moment of the transaction at `index`, when its replacement is in the data.
  public func moment(of index: Int) -> Timestamp? { moments[index] }
}
