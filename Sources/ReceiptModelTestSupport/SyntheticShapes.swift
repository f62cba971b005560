import ReceiptModel

/// SplitMix64 (Steele, Lea and Flood, 2014): a seeded generator whose output is the same on every platform
/// and Swift version, so a shape's bytes depend only on its seed.
package struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  package init(seed: UInt64) { state = seed }

  package mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in `0..<bound` (bound > 0); the modulo bias is irrelevant for shapes.
  package mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }

  /// True `percent` times in a hundred.
  package mutating func percent(_ percent: Int) -> Bool { below(100) < percent }
}

/// The shape of a synthetic verifyReceipt export: how its transactions are spread over chains and products, in
/// what order, with which ids and ownership. Every byte is a function of the shape (and its seed).
package struct ReceiptShape: Sendable {
  /// Short name for tables and file names.
  package var name: String
  /// Transactions in `latest_receipt_info` (every 4th also appears in `receipt.in_app`).
  package var transactions: Int
  /// Subscription chains (original_transaction_id) per document; transactions go round-robin over them.
  package var chains: Int
  /// Distinct products; chain c buys product c mod products until an upgrade moves it on.
  package var products: Int
  /// Transactions in a shuffled order instead of date order.
  package var shuffled = false
  /// Random 16-digit transaction ids instead of consecutive ones.
  package var randomIDs = false
  /// Percent of transactions FAMILY_SHARED.
  package var familySharedPercent = 0
  /// Percent of subscription transactions upgraded (is_upgraded) to the chain's next product.
  package var upgradedPercent = 0
  /// Percent of transactions refunded (cancellation_date_ms).
  package var refundedPercent = 0
  /// The seed of the shape's SplitMix64.
  package var seed: UInt64 = 29

  package init(
    name: String, transactions: Int, chains: Int = 1, products: Int = 4, shuffled: Bool = false,
    randomIDs: Bool = false, familySharedPercent: Int = 0, upgradedPercent: Int = 0, refundedPercent: Int = 0,
    seed: UInt64 = 29
  ) {
    self.name = name
    self.transactions = transactions
    self.chains = max(1, chains)
    self.products = max(1, products)
    self.shuffled = shuffled
    self.randomIDs = randomIDs
    self.familySharedPercent = familySharedPercent
    self.upgradedPercent = upgradedPercent
    self.refundedPercent = refundedPercent
    self.seed = seed
  }

  /// The one subscription group every subscription product is in.
  package static let subscriptionGroup = "21000111"

  /// The first purchase: 2020-01-01.
  package static let start: Int64 = 1_577_836_800_000
  /// Every history spans five years, however many transactions it has.
  package static let span: Int64 = 5 * 365 * 86_400_000

  /// The latest purchase date the history can hold, plus a day: `--as-of` at the end of the history.
  package static var endOfHistory: Int64 { start + span + 86_400_000 }
  /// Half way through the history: `--as-of` in its middle.
  package static var middleOfHistory: Int64 { start + span / 2 }

  /// Product `j`: every third a yearly subscription, one in eleven a consumable, one in thirteen a
  /// non-consumable; the rest monthly subscriptions. All subscriptions share one group.
  package static func productID(_ j: Int) -> String {
    if j % 13 == 12 { return "com.example.unlock.\(j)" }
    if j % 11 == 10 { return "com.example.coins.\(j)" }
    return j % 3 == 2 ? "com.example.p\(j).yearly" : "com.example.p\(j).monthly"
  }

  /// The transactions of document `index`, in the order its export lists them (shuffled when the shape is).
  package func rows(index: Int) -> [ShapeRow] {
    var rng = SplitMix64(seed: seed &+ UInt64(truncatingIfNeeded: index) &* 0x1_0000_0001)
    let perChain = max(1, (transactions + chains - 1) / chains)
    let step = max(60_000, Self.span / Int64(perChain))
    var originals: [String] = []
    originals.reserveCapacity(chains)
    var productOfChain: [Int] = []
    productOfChain.reserveCapacity(chains)
    for c in 0..<chains {
      originals.append(id(receipt: index, number: c, rng: &rng))
      productOfChain.append(c % products)
    }
    var rows: [ShapeRow] = []
    rows.reserveCapacity(transactions)
    for n in 0..<transactions {
      let c = n % chains
      let k = n / chains
      let firstPurchase = Self.start + Int64(c % 997) * 3_600_000
      let purchase = firstPurchase + Int64(k) * step
      let product = Self.productID(productOfChain[c])
      let isSubscription = product.hasSuffix("ly")
      // The generator is drawn in this order (upgrade, id, refund, sharing): every byte depends on it.
      let upgraded = isSubscription && products > 1 && rng.percent(upgradedPercent)
      let transactionID = k == 0 ? originals[c] : id(receipt: index, number: chains + n, rng: &rng)
      let refunded = rng.percent(refundedPercent)
      if upgraded { productOfChain[c] = (productOfChain[c] + 1) % products }
      let shared = rng.percent(familySharedPercent)
      let length: Int64 = product.hasSuffix("yearly") ? 365 : 30
      rows.append(
        ShapeRow(
          transactionID: transactionID, originalTransactionID: originals[c], productID: product,
          purchase: purchase, originalPurchase: firstPurchase,
          expires: isSubscription ? purchase + length * 86_400_000 : nil,
          refunded: refunded ? purchase + 86_400_000 : nil, isUpgraded: upgraded, inIntroOffer: k == 0,
          familyShared: shared, subscriptionGroup: isSubscription ? Self.subscriptionGroup : nil))
    }
    if shuffled {
      for i in stride(from: rows.count - 1, to: 0, by: -1) { rows.swapAt(i, rng.below(i + 1)) }
    }
    return rows
  }

  /// One compact verifyReceipt response of document `index`, with a `latest_receipt` of `latestReceiptBytes`.
  package func verifyReceipt(index: Int, latestReceiptBytes: Int = 720) -> String {
    let rows = rows(index: index).map { r -> String in
      var row = "{\"quantity\":\"1\",\"product_id\":\"\(r.productID)\",\"transaction_id\":\"\(r.transactionID)\","
      row += "\"original_transaction_id\":\"\(r.originalTransactionID)\",\(Self.date("purchase_date", r.purchase)),"
      row += "\(Self.date("original_purchase_date", r.originalPurchase)),"
      if let expires = r.expires {
        row += "\(Self.date("expires_date", expires)),"
        row += "\"web_order_line_item_id\":\"\(r.transactionID)7\","
      }
      if let refunded = r.refunded {
        row += "\(Self.date("cancellation_date", refunded)),\"cancellation_reason\":\"0\","
      }
      if r.isUpgraded { row += "\"is_upgraded\":\"true\"," }
      row += "\"is_trial_period\":\"false\",\"is_in_intro_offer_period\":\"\(r.inIntroOffer)\","
      row += "\"in_app_ownership_type\":\"\(r.familyShared ? "FAMILY_SHARED" : "PURCHASED")\""
      row += r.subscriptionGroup.map { ",\"subscription_group_identifier\":\"\($0)\"}" } ?? "}"
      return row
    }
    var out = "{\"status\":0,\"environment\":\"Production\",\"receipt\":{\"receipt_type\":\"Production\","
    out += "\"bundle_id\":\"com.example.app\",\"application_version\":\"42\",\"original_application_version\":\"1.0\","
    out +=
      "\"request_date_ms\":\"\(Self.endOfHistory + Int64(index))\",\"request_date\":\"2025-01-01 00:00:00 Etc/GMT\","
    out += "\"in_app\":["
    out += stride(from: 0, to: rows.count, by: 4).map { rows[$0] }.joined(separator: ",")
    out += "]},\"latest_receipt_info\":["
    out += rows.joined(separator: ",")
    out +=
      "],\"latest_receipt\":\"\(String(repeating: "MIIUFAYJKoZIhvcNAQcCoIIUBTCCFAECAQEx", count: 1 + latestReceiptBytes / 36).prefix(latestReceiptBytes))\"}"
    return out
  }

  /// A catalog file for the shape's products: each entitlement given by `productsPerEntitlement` products,
  /// with a price for revenue.
  package func catalog(productsPerEntitlement: Int = 3) -> String {
    let rows = (0..<products).map { j -> String in
      let product = Self.productID(j)
      let type =
        product.hasSuffix("ly") ? "auto_renewable" : product.contains("coins") ? "consumable" : "non_consumable"
      let group = type == "auto_renewable" ? "\"subscription_group\":\"\(Self.subscriptionGroup)\"," : ""
      return
        "{\"product_id\":\"\(product)\",\"type\":\"\(type)\",\(group)\"entitlements\":[\"e\(j / max(1, productsPerEntitlement))\"],\"price\":\"\(j % 20).99\",\"currency\":\"USD\"}"
    }
    return "{\"products\":[" + rows.joined(separator: ",\n") + "]}\n"
  }

  /// A sequential id (16 digits, document and number in it) or a random one.
  private func id(receipt: Int, number: Int, rng: inout SplitMix64) -> String {
    if randomIDs { return String(1_000_000_000_000_000 + Int(rng.next() % 8_999_999_999_999_999)) }
    return String(2_000_000_000_000_000 + receipt * 10_000_000 + number)
  }

  /// A date in verifyReceipt's three spellings.
  private static func date(_ name: String, _ ms: Int64) -> String {
    let iso = Timestamp(milliseconds: ms)?.iso8601 ?? ""
    let text = iso.prefix(19).replacing("T", with: " ")
    return "\"\(name)\":\"\(text) Etc/GMT\",\"\(name)_ms\":\"\(ms)\",\"\(name)_pst\":\"\(text) America/Los_Angeles\""
  }
}

/// One transaction of a shape, before it is written in any format.
package struct ShapeRow: Sendable {
  package var transactionID: String
  package var originalTransactionID: String
  package var productID: String
  /// Milliseconds since 1970, as all the dates.
  package var purchase: Int64
  package var originalPurchase: Int64
  /// Subscriptions only.
  package var expires: Int64?
  /// The refund's date (reason 0), when refunded.
  package var refunded: Int64?
  package var isUpgraded: Bool
  /// The first purchase of a chain, in an introductory offer period.
  package var inIntroOffer: Bool
  package var familyShared: Bool
  package var subscriptionGroup: String?
}
