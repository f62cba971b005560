import ReceiptModel

/// One subscription group as the catalog and the receipt together reveal it.
public struct SubscriptionGroup: Hashable, Sendable {
  /// App Store group ids seen on receipt transactions (`subscription_group_identifier`), sorted.
  public var receiptIDs: [String]
  /// Catalog group ids (a `.storekit` id is local to its file), sorted.
  public var catalogIDs: [String]
  /// Every product id known to be in the group, sorted.
  public var productIDs: [String]
  /// Set when neither the product's own transactions nor the catalog place it in the group, and it is
  /// in the group only because one of its subscription's `original_transaction_id`s continues there.
  public var inference: GroupInference?

  /// The App Store's id when the data revealed it, else the catalog's; nil when neither names the group
  /// (an on-device receipt without a catalog: the group is known only through its products).
  public var id: String? { receiptIDs.first ?? catalogIDs.first }
  /// The id to show: `id`, or `?` for a group known only through its products.
  public var displayID: String { id ?? "?" }
}

/// How a product was placed in a group it carries no id for: the subscriptions it shares with other
/// products. A subscription continues one `original_transaction_id` through renewals, upgrades,
/// downgrades and crossgrades, and stays in one subscription group.
public struct GroupInference: Hashable, Sendable {
  /// The `original_transaction_id`s of the product's own subscription transactions, sorted.
  public var originalTransactionIDs: [String]
  /// The other products those subscriptions continue in, sorted.
  public var linkedProductIDs: [String]
  /// The data's name for the original transaction id (`original_transaction_id`, `originalTransactionId`).
  public var field: String

  /// `inferred from original_transaction_id 1000000692878476, which continues in com.acme.annual`.
  public var sentence: String {
    let ids = originalTransactionIDs.joined(separator: ", ")
    guard !linkedProductIDs.isEmpty else { return "inferred from \(field) \(ids)" }
    return "inferred from \(field) \(ids), which continues in \(linkedProductIDs.joined(separator: ", "))"
  }
}

/// Decides which subscription group a product is in, from the catalog and the receipt's transactions.
///
/// A `.storekit` group id is local to its file and never equals a receipt's numeric
/// `subscription_group_identifier`; a JSON catalog's group id is taken to be the App Store's.
/// Groups are linked through the products they share: a receipt group and a catalog group
/// holding the same product are one group. Transactions continuing one `original_transaction_id` are one
/// subscription and so one group, even where a row (or a whole on-device receipt) lacks the group id. (§7.1
/// [S31][S5][S7]: the group is read from `subscription_group_identifier`, or the catalog when a row lacks it.)
public struct SubscriptionGroups: Sendable {
  private var parent: [String: String] = [:]
  /// The number of nodes under each root: the smaller tree is linked under the larger (union by size), so a
  /// customer's thousand subscriptions do not make a list a thousand long to walk per transaction.
  private var size: [String: Int] = [:]
  /// Each node's root and each root's group (no inference: that is each product's own), once every link is made:
  /// `group(of:)` is asked for every product, and made from the nodes each time, a catalog of hundreds of
  /// subscriptions in one group cost hundreds of times the group per customer.
  private var rootOf: [String: String] = [:]
  private var groupOfRoot: [String: SubscriptionGroup] = [:]
  /// Products a catalog entry or one of their own transactions places in a group by id.
  private var placedByID: Set<String> = []
  /// Each subscription product's `original_transaction_id`s.
  private var chains: [String: Set<String>] = [:]
  /// The data's name for the original transaction id, per product.
  private var chainField: [String: String] = [:]

  /// Links the catalog's groups and the transactions' groups through the products and subscriptions they share.
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - transactions: The customer's transactions.
  public init(catalog: Catalog, transactions: [PurchaseTransaction]) {
    self.init(catalog: catalog, table: PurchaseTable(transactions: transactions), at: nil)
  }

  /// The same, from the rows of `table` known at `time` (every row when nil).
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - table: The customer's purchases.
  ///   - time: The moment asked about.
  public init(catalog: Catalog, table: PurchaseTable, at time: Timestamp?) {
    for product in catalog.allProducts {
      guard let group = product.subscriptionGroup else { continue }
      let node = product.groupIsLocalToFile ? "c:\(product.origin)\u{0}\(group)" : "r:\(group)"
      union("p:\(product.productID)", node)
      placedByID.insert(product.productID)
    }
    // A link is made once per product and group or subscription chain (told by their symbols), not once per row.
    var linked = Set<[Int32]>()
    let entries = catalogEntries(of: table, catalog)
    for row in table.rows where time.map({ table.isKnown(row, at: $0) }) ?? true {
      let productID = table.productID(of: row)
      if let group = table.groupID(of: row) {
        if linked.insert([0, table.product[row], table.group[row]]).inserted { union("p:\(productID)", "r:\(group)") }
        placedByID.insert(productID)
      }
      // Only subscriptions continue a chain into a group; a one-time purchase's id is its own.
      guard resolveProductType(ofRow: row, in: table, catalogEntries: entries)?.type == .autoRenewable else { continue }
      let chain = table.chainIDs[Int(table.chain[row])]
      if linked.insert([1, table.product[row], table.chain[row]]).inserted {
        chains[productID, default: []].insert(chain)
        union("p:\(productID)", "o:\(chain)")
      }
      chainField[productID] = table.transactions[row].vocabulary.originalTransactionID
    }
    var members: [String: [String]] = [:]
    for node in parent.keys {
      let root = find(node)
      rootOf[node] = root
      members[root, default: []].append(node)
    }
    groupOfRoot = Self.groups(of: members)
  }

  /// Each root's group, from its nodes' names.
  private static func groups(of members: [String: [String]]) -> [String: SubscriptionGroup] {
    var groups: [String: SubscriptionGroup] = [:]
    for (root, nodes) in members {
      var receiptIDs: [String] = []
      var catalogIDs: [String] = []
      var products: [String] = []
      for node in nodes {
        if node.hasPrefix("r:") { receiptIDs.append(String(node.dropFirst(2))) }
        if node.hasPrefix("c:"), let id = node.split(separator: "\u{0}").last { catalogIDs.append(String(id)) }
        if node.hasPrefix("p:") { products.append(String(node.dropFirst(2))) }
      }
      groups[root] = SubscriptionGroup(
        receiptIDs: receiptIDs.sorted(), catalogIDs: catalogIDs.sorted(), productIDs: products.sorted(), inference: nil)
    }
    return groups
  }

  /// The product's group, or nil when neither the catalog nor any transaction places it in one.
  public func group(of productID: String) -> SubscriptionGroup? {
    guard let root = rootOf["p:\(productID)"], var group = groupOfRoot[root] else { return nil }
    if !placedByID.contains(productID), let own = chains[productID] {
      let linked = group.productIDs.filter { $0 != productID && !(chains[$0] ?? []).isDisjoint(with: own) }
      group.inference = GroupInference(
        originalTransactionIDs: own.sorted(), linkedProductIDs: linked.sorted(),
        field: chainField[productID] ?? "original_transaction_id")
    }
    return group
  }

  private func find(_ node: String) -> String {
    var current = node
    while let next = parent[current], next != current { current = next }
    return current
  }

  private mutating func union(_ a: String, _ b: String) {
    if parent[a] == nil { (parent[a], size[a]) = (a, 1) }
    if parent[b] == nil { (parent[b], size[b]) = (b, 1) }
    let ra = find(a)
    let rb = find(b)
    guard ra != rb else { return }
    let (sa, sb) = (size[ra] ?? 1, size[rb] ?? 1)
    // The groups are the same whichever root stays: only the partition is read.
    let (small, large) = sa < sb ? (ra, rb) : (rb, ra)
    parent[small] = large
    size[large] = sa + sb
  }
}
