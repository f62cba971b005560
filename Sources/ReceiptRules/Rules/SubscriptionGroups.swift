import ReceiptModel

/// One subscription group as the catalog and the receipt together reveal it.
public struct SubscriptionGroup: Hashable, Sendable {
  /// App Store group ids seen on receipt transactions (`subscription_group_identifier`), sorted.
  public var receiptIDs: [String]
  /// Catalog group ids (a `.storekit` id is local to its file), sorted.
  public var catalogIDs: [String]
  /// Every product id known to be in the group, sorted.
  public var productIDs: [String]

  /// The id to show: the App Store's when a receipt revealed it, else the catalog's.
  public var displayID: String { receiptIDs.first ?? catalogIDs.first ?? "?" }
}

/// Decides which subscription group a product is in, from the catalog and the receipt's transactions.
///
/// A `.storekit` group id is local to its file and never equals a receipt's numeric
/// `subscription_group_identifier`; a JSON catalog's group id is taken to be the App Store's.
/// Groups are linked through the products they share: a receipt group and a catalog group
/// holding the same product are one group.
public struct SubscriptionGroups: Sendable {
  private var parent: [String: String] = [:]

  /// Links the catalog's groups and the transactions' groups through the products they share.
  /// - Parameters:
  ///   - catalog: The catalog.
  ///   - transactions: The customer's transactions.
  public init(catalog: Catalog, transactions: [PurchaseTransaction]) {
    for product in catalog.allProducts {
      guard let group = product.subscriptionGroup else { continue }
      let node = product.groupIsLocalToFile ? "c:\(product.origin)\u{0}\(group)" : "r:\(group)"
      union("p:\(product.productID)", node)
    }
    for t in transactions {
      guard let group = t.subscriptionGroup else { continue }
      union("p:\(t.productID)", "r:\(group)")
    }
  }

  /// The product's group, or nil when neither the catalog nor any transaction places it in one.
  public func group(of productID: String) -> SubscriptionGroup? {
    let root = find("p:\(productID)")
    var receiptIDs: [String] = []
    var catalogIDs: [String] = []
    var products: [String] = []
    for node in parent.keys where find(node) == root {
      if node.hasPrefix("r:") { receiptIDs.append(String(node.dropFirst(2))) }
      if node.hasPrefix("c:"), let id = node.split(separator: "\u{0}").last { catalogIDs.append(String(id)) }
      if node.hasPrefix("p:") { products.append(String(node.dropFirst(2))) }
    }
    guard !receiptIDs.isEmpty || !catalogIDs.isEmpty else { return nil }
    return SubscriptionGroup(
      receiptIDs: receiptIDs.sorted(), catalogIDs: catalogIDs.sorted(), productIDs: products.sorted())
  }

  private func find(_ node: String) -> String {
    var current = node
    while let next = parent[current], next != current { current = next }
    return current
  }

  private mutating func union(_ a: String, _ b: String) {
    if parent[a] == nil { parent[a] = a }
    if parent[b] == nil { parent[b] = b }
    let ra = find(a)
    let rb = find(b)
    if ra != rb { parent[ra] = rb }
  }
}
