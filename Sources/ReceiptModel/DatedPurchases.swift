/// Dated purchases grouped by subscription chain and by subscription group, each group sorted by purchase date,
/// so the purchases after a moment are found by binary search instead of by reading every transaction: what
/// makes finding a replacing purchase cost N log N rather than N² on a history of many upgrades.
public struct DatedPurchases: Sendable {
  /// A transaction's position in the history and its purchase date.
  public struct Purchase: Sendable {
    /// When it was bought.
    public var at: Timestamp
    /// Its index in the history's transactions.
    public var index: Int
  }

  private var byChain: [String: [Purchase]] = [:]
  private var byGroup: [String: [Purchase]] = [:]

  /// Groups the dated transactions of `transactions` whose chain is in `chains` or whose group is in `groups`
  /// (nil: every chain, every group).
  public init(_ transactions: [PurchaseTransaction], chains: Set<String>? = nil, groups: Set<String>? = nil) {
    // By index: a copy of each transaction would retain and release every field.
    for i in transactions.indices {
      guard let at = transactions[i].purchaseDate else { continue }
      let chain = transactions[i].chainID
      if chains?.contains(chain) ?? true { byChain[chain, default: []].append(Purchase(at: at, index: i)) }
      if let group = transactions[i].subscriptionGroup, groups?.contains(group) ?? true {
        byGroup[group, default: []].append(Purchase(at: at, index: i))
      }
    }
    // Stable order for equal dates (the data's), though no reader depends on it.
    for key in byChain.keys { byChain[key]?.sort { ($0.at, $0.index) < ($1.at, $1.index) } }
    for key in byGroup.keys { byGroup[key]?.sort { ($0.at, $0.index) < ($1.at, $1.index) } }
  }

  /// The chain's purchases bought after `time`, earliest first.
  public func chain(_ id: String, after time: Timestamp) -> ArraySlice<Purchase> {
    Self.after(time, in: byChain[id] ?? [])
  }

  /// The group's purchases bought after `time`, earliest first.
  public func group(_ id: String, after time: Timestamp) -> ArraySlice<Purchase> {
    Self.after(time, in: byGroup[id] ?? [])
  }

  /// The group's purchases bought at `time` or later, earliest first.
  public func group(_ id: String, from time: Timestamp) -> ArraySlice<Purchase> {
    Self.after(time, in: byGroup[id] ?? [], inclusive: true)
  }

  /// Every chain's and group's purchases, for a caller that asks whether any of them mixes products.
  public var allGroupings: [[Purchase]] { Array(byChain.values) + Array(byGroup.values) }

  private static func after(_ time: Timestamp, in list: [Purchase], inclusive: Bool = false) -> ArraySlice<Purchase> {
    var low = 0
    var high = list.count
    while low < high {
      let middle = low + (high - low) / 2
      if list[middle].at > time || (inclusive && list[middle].at == time) { high = middle } else { low = middle + 1 }
    }
    return list[low...]
  }
}
