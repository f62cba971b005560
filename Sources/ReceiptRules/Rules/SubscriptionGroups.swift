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
/// subscription and so one group, even where a row (or a whole on-device receipt) lacks the group id.
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
    self.init(catalog: catalog, transactions: KnownTransactions(transactions))
  }

  /// The same, from the transactions of a history as known at a moment.
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - transactions: The customer's transactions as known.
  public init(catalog: Catalog, transactions: KnownTransactions) {
    for product in catalog.allProducts {
      guard let group = product.subscriptionGroup else { continue }
      let node = product.groupIsLocalToFile ? "c:\(product.origin)\u{0}\(group)" : "r:\(group)"
      union("p:\(product.productID)", node)
      placedByID.insert(product.productID)
    }
    // A link is made once per product and group or subscription, not once per transaction; by index, a copy of
    // each transaction would retain and release every field.
    var groupsOfProduct: [String: Set<String>] = [:]
    for i in transactions.indices {
      let productID = transactions[stated: i].productID
      if let group = transactions[stated: i].subscriptionGroup {
        if groupsOfProduct[productID, default: []].insert(group).inserted { union("p:\(productID)", "r:\(group)") }
        placedByID.insert(productID)
      }
      // Only subscriptions continue a chain into a group; a one-time purchase's id is its own.
      guard resolveProductType(of: GrantFields(transactions, at: i), catalog: catalog)?.type == .autoRenewable
      else { continue }
      let chain = transactions[stated: i].chainID
      if chains[productID, default: []].insert(chain).inserted { union("p:\(productID)", "o:\(chain)") }
      chainField[productID] = transactions[stated: i].vocabulary.originalTransactionID
    }
    var members: [String: [String]] = [:]
    for node in parent.keys {
      let root = find(node)
      rootOf[node] = root
      members[root, default: []].append(node)
    }
    groupOfRoot = Self.groups(of: members)
  }

  /// The same, from a history as known at a moment: linked through the numbers its index gives products, groups
  /// and chains (`DatedPurchases`), with plain integers, where the texts' version makes several String
  /// dictionary operations per transaction. Each product's catalog entry is looked up once.
  ///
  /// Numbers are of the texts' bytes and `==` on Strings is canonical equivalence: only when every product,
  /// group and subscription chain id is ASCII (then the two agree) are the numbers used; otherwise, and when the
  /// index numbers no products, the texts are linked as `init(catalog:transactions:)` links them.
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - history: The customer's history as known at a moment.
  public init(catalog: Catalog, history: KnownHistory) {
    let transactions = history.transactions
    let purchases = history.purchases
    let count = transactions.count
    guard purchases.productNumbers.count == count, purchases.chainNumbers.count == count,
      purchases.groupNumbers.count == count,
      let linked = NumberedGroupLinks(catalog: catalog, history: history)
    else {
      self.init(catalog: catalog, transactions: transactions)
      return
    }
    self.init(linked.output(transactions))
  }

  private init(
    _ tables: (
      rootOf: [String: String], members: [String: [String]], placedByID: Set<String>,
      chains: [String: Set<String>], chainField: [String: String]
    )
  ) {
    (rootOf, placedByID, chains, chainField) = (tables.rootOf, tables.placedByID, tables.chains, tables.chainField)
    groupOfRoot = Self.groups(of: tables.members)
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

/// `SubscriptionGroups`' links made by number (`init(catalog:history:)`): union-find over integers, products first
/// (the index's product numbers), then receipt groups, subscription chains, and the catalog's products and groups
/// the history does not hold. Only the partition is read, so which root stays does not matter.
private struct NumberedGroupLinks {
  private var parent: [Int32] = []
  private var size: [Int32] = []
  private var inUse: [Bool] = []
  /// Each node's text as the texts' version names it ("p:" product, "r:" group, "c:" a file's group), nil for a
  /// chain (never shown).
  private var names: [String?] = []
  private var productIDs: [String] = []
  private var placed: [Bool] = []
  private var placedByID: Set<String> = []
  /// Per position: whether the transaction is a subscription (it links its product to its chain); per product
  /// number, whether any of its transactions is.
  private var isSubscription: [Bool] = []
  private var hasSubscription: [Bool] = []
  private let productCount: Int
  private let groupBase: Int
  private let chainBase: Int

  /// Nil when some product, group or subscription chain id is not ASCII (numbers then may part texts that `==`
  /// joins).
  init?(catalog: Catalog, history: KnownHistory) {
    let transactions = history.transactions
    let purchases = history.purchases
    let products = purchases.productNumbers
    let groups = purchases.groupNumbers
    let chains = purchases.chainNumbers
    var (p, g, c) = (0, 0, 0)
    for i in transactions.indices {
      p = max(p, Int(products[i]) + 1)
      g = max(g, Int(groups[i]) + 1)
      c = max(c, Int(chains[i]) + 1)
    }
    (productCount, groupBase, chainBase) = (p, p, p + g)
    let nodeCount = p + g + c
    parent = (0..<nodeCount).map { Int32(truncatingIfNeeded: $0) }
    size = Array(repeating: 1, count: nodeCount)
    inUse = Array(repeating: false, count: nodeCount)
    names = Array(repeating: nil, count: nodeCount)
    productIDs = Array(repeating: "", count: p)
    placed = Array(repeating: false, count: p)
    isSubscription = Array(repeating: false, count: transactions.count)
    hasSubscription = Array(repeating: false, count: p)
    var productNode: [String: Int] = [:]
    var groupNode: [String: Int] = [:]
    var chainSeen = [Bool](repeating: false, count: c)
    var subscriptions = SubscriptionAnswers(products: p)
    for i in transactions.indices {
      let product = Int(products[i])
      if names[product] == nil {
        let id = transactions[stated: i].productID
        guard Self.isASCII(id) else { return nil }
        (names[product], productIDs[product], productNode[id]) = ("p:\(id)", id, product)
      }
      let group = Int(groups[i])
      if group >= 0 {
        let node = groupBase + group
        if names[node] == nil, let id = transactions[stated: i].subscriptionGroup {
          guard Self.isASCII(id) else { return nil }
          (names[node], groupNode[id]) = ("r:\(id)", node)
        }
        union(product, node)
        placed[product] = true
      }
      // Only subscriptions continue a chain into a group; a one-time purchase's id is its own.
      guard subscriptions.isSubscription(at: i, product: product, in: transactions, catalog: catalog) else { continue }
      (isSubscription[i], hasSubscription[product]) = (true, true)
      let chain = Int(chains[i])
      if !chainSeen[chain] {
        guard Self.isASCII(transactions[stated: i].chainID) else { return nil }
        chainSeen[chain] = true
      }
      union(product, chainBase + chain)
    }
    // The catalog's products and groups: a history's own node when it holds the same text.
    for product in catalog.allProducts {
      guard let group = product.subscriptionGroup else { continue }
      let productNodeNumber =
        productNode[product.productID] ?? newNode(named: "p:\(product.productID)", in: &productNode, product.productID)
      let groupNodeNumber: Int
      if product.groupIsLocalToFile {
        let name = "c:\(product.origin)\u{0}\(group)"
        groupNodeNumber = newNodeOnce(named: name)
      } else {
        groupNodeNumber = groupNode[group] ?? newNode(named: "r:\(group)", in: &groupNode, group)
      }
      union(productNodeNumber, groupNodeNumber)
      placedByID.insert(product.productID)
    }
    for product in 0..<productCount where placed[product] { placedByID.insert(productIDs[product]) }
  }

  /// Catalog nodes of a file's group, by name.
  private var localGroups: [String: Int] = [:]

  private mutating func newNodeOnce(named name: String) -> Int {
    if let known = localGroups[name] { return known }
    let node = appendNode(named: name)
    localGroups[name] = node
    return node
  }

  private mutating func newNode(named name: String, in table: inout [String: Int], _ key: String) -> Int {
    let node = appendNode(named: name)
    table[key] = node
    return node
  }

  private mutating func appendNode(named name: String) -> Int {
    parent.append(Int32(truncatingIfNeeded: parent.count))
    size.append(1)
    inUse.append(false)
    names.append(name)
    return parent.count - 1
  }

  private func find(_ node: Int) -> Int {
    var current = node
    while Int(parent[current]) != current { current = Int(parent[current]) }
    return current
  }

  private mutating func union(_ a: Int, _ b: Int) {
    (inUse[a], inUse[b]) = (true, true)
    let ra = find(a)
    let rb = find(b)
    guard ra != rb else { return }
    let (small, large) = size[ra] < size[rb] ? (ra, rb) : (rb, ra)
    parent[small] = Int32(truncatingIfNeeded: large)
    size[large] = size[ra] &+ size[rb]
  }

  /// Whether `text`'s bytes are all ASCII.
  static func isASCII(_ text: String) -> Bool {
    text.utf8.withContiguousStorageIfAvailable { bytes in
      var any: UInt8 = 0
      for b in bytes { any |= b }
      return any < 0x80
    } ?? text.utf8.allSatisfy { $0 < 0x80 }
  }

  /// The texts' version's tables: each named node's root and each root's named nodes (a root named by its
  /// number), the products placed by id, and, only when some subscription product is not (the only time they are
  /// read), each subscription product's chain ids and the data's name for them.
  func output(_ transactions: KnownTransactions) -> (
    rootOf: [String: String], members: [String: [String]], placedByID: Set<String>, chains: [String: Set<String>],
    chainField: [String: String]
  ) {
    var rootOf: [String: String] = [:]
    var members: [String: [String]] = [:]
    var rootNames: [Int: String] = [:]
    for node in names.indices where inUse[node] {
      guard let name = names[node] else { continue }
      let root = find(node)
      let rootName = rootNames[root] ?? "#\(root)"
      rootNames[root] = rootName
      rootOf[name] = rootName
      members[rootName, default: []].append(name)
    }
    var chains: [String: Set<String>] = [:]
    var chainField: [String: String] = [:]
    let inferred = (0..<productCount).contains { hasSubscription[$0] && !placedByID.contains(productIDs[$0]) }
    if inferred {
      for i in transactions.indices where isSubscription[i] {
        let productID = transactions[stated: i].productID
        chains[productID, default: []].insert(transactions[stated: i].chainID)
        chainField[productID] = transactions[stated: i].vocabulary.originalTransactionID
      }
    }
    return (rootOf, members, placedByID, chains, chainField)
  }
}

/// Whether a transaction is an auto-renewable subscription (`resolveProductType`), decided once per product and
/// combination of what the decision reads of a transaction besides its product: its stated type, whether it is
/// FAMILY_SHARED, whether it has an expiry date (the product's catalog entry is the product's). Each transaction
/// asked looked its product id up in the catalog.
private struct SubscriptionAnswers {
  /// By product number × 20 combinations: -1 not decided yet, 0 no, 1 yes.
  private var answers: [Int8]

  init(products: Int) { answers = Array(repeating: -1, count: products * 20) }

  /// Whether the known transaction at `index`, of product number `product`, is an auto-renewable subscription.
  mutating func isSubscription(
    at index: Int, product: Int, in transactions: KnownTransactions, catalog: Catalog
  ) -> Bool {
    // The data's own fields: the moment changes none of the three (only refunds, reversals and upgrades).
    let stated: Int
    switch transactions[stated: index].productType {
    case nil: stated = 0
    case .autoRenewable: stated = 1
    case .nonRenewing: stated = 2
    case .nonConsumable: stated = 3
    case .consumable: stated = 4
    }
    let shared = transactions[stated: index].ownership == .familyShared ? 2 : 0
    let expires = transactions[stated: index].expiresDate == nil ? 0 : 1
    let slot = product * 20 + stated * 4 + shared + expires
    if answers[slot] >= 0 { return answers[slot] == 1 }
    let yes = resolveProductType(of: GrantFields(transactions, at: index), catalog: catalog)?.type == .autoRenewable
    answers[slot] = yes ? 1 : 0
    return yes
  }
}
