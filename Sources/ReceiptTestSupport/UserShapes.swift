import Foundation
import ReceiptCrypto
import ReceiptFormats
import ReceiptModelTestSupport

/// Issue 42: the documents users feed the tool one per line, made deterministically (SplitMix64 seeded with
/// the shape's seed and the line's index), so two machines measure the same bytes.
package enum UserShapes {
  /// The five products every user shape buys from (`ReceiptShape.productID` 0-4: four monthly subscriptions
  /// and a yearly one, in one group), and their catalog.
  package static let products = ReceiptShape(name: "user", transactions: 0, products: 5)
  package static var catalog: String { products.catalog() }

  /// A verifyReceipt body of one customer with one transaction (a quarter family-shared).
  package static func oneTransactionBody(index: Int) -> String {
    var rng = SplitMix64(seed: 4201 &+ UInt64(truncatingIfNeeded: index) &* 0x1_0000_0001)
    let shape = ReceiptShape(
      name: "one", transactions: 1, chains: 1, products: 5, familySharedPercent: rng.percent(25) ? 100 : 0,
      seed: 4202)
    return shape.verifyReceipt(index: index)
  }

  /// How many transactions customer `index` has: 1 to 60, mean about 8 (a geometric spread, capped).
  package static func customerTransactions(index: Int) -> Int {
    var rng = SplitMix64(seed: 4203 &+ UInt64(truncatingIfNeeded: index) &* 0x1_0000_0001)
    var n = 1
    while n < 60 && rng.below(1000) < 875 { n += 1 }
    return n
  }

  /// A verifyReceipt body of customer `index`: 1 to 60 transactions over one to three chains, a quarter of
  /// customers family-shared, with `pending_renewal_info` for each subscription chain.
  package static func customerBody(index: Int) -> String {
    var rng = SplitMix64(seed: 4204 &+ UInt64(truncatingIfNeeded: index) &* 0x1_0000_0001)
    let n = customerTransactions(index: index)
    let shape = ReceiptShape(
      name: "customer", transactions: n, chains: 1 + rng.below(min(3, n)), products: 5, shuffled: true,
      familySharedPercent: rng.percent(25) ? 100 : 0, seed: 4205)
    let body = shape.verifyReceipt(index: index)
    var seen = Set<String>()
    var renewals: [String] = []
    for row in shape.rows(index: index) where row.expires != nil && seen.insert(row.originalTransactionID).inserted {
      renewals.append(
        #"{"auto_renew_product_id":"\#(row.productID)","product_id":"\#(row.productID)","#
          + #""original_transaction_id":"\#(row.originalTransactionID)","auto_renew_status":"\#(rng.percent(80) ? 1 : 0)"}"#
      )
    }
    return String(body.dropLast()) + #","pending_renewal_info":["# + renewals.joined(separator: ",") + "]}"
  }

  /// The decoded payload of month `month` of customer `customer`'s monthly subscription (a quarter of
  /// customers family-shared), as App Store Server API writes a JWSTransaction, at the catalog's price (a
  /// price warning on every line would measure the warning).
  package static func transactionPayload(customer: Int, month: Int) -> String {
    let original = 3_100_000_000 + customer * 1_000
    let j = customer % 2
    let product = ReceiptShape.productID(j)
    let purchase = 1_700_000_000_000 + Int64(customer % 1_000) * 60_000 + Int64(month) * 2_592_000_000
    return #"{"transactionId":"\#(original + month)","originalTransactionId":"\#(original)","#
      + #""webOrderLineItemId":"\#(original + 500 + month)","bundleId":"com.example.app","productId":"\#(product)","#
      + #""subscriptionGroupIdentifier":"\#(ReceiptShape.subscriptionGroup)","purchaseDate":\#(purchase),"#
      + #""originalPurchaseDate":1700000000000,"expiresDate":\#(purchase + 2_592_000_000),"quantity":1,"#
      + #""type":"Auto-Renewable Subscription","inAppOwnershipType":"\#(customer % 4 == 3 ? "FAMILY_SHARED" : "PURCHASED")","#
      + #""signedDate":\#(purchase),"environment":"Production","transactionReason":"\#(month == 0 ? "PURCHASE" : "RENEWAL")","#
      + #""storefront":"USA","storefrontId":"143441","price":\#(j * 1_000 + 990),"currency":"USD"}"#
  }

  /// The decoded renewal info of customer `customer` in month `month`.
  package static func renewalPayload(customer: Int, month: Int) -> String {
    let product = ReceiptShape.productID(customer % 2 == 0 ? 0 : 1)
    let signed = 1_700_000_000_000 + Int64(customer % 1_000) * 60_000 + Int64(month) * 2_592_000_000
    return #"{"originalTransactionId":"\#(3_100_000_000 + customer * 1_000)","productId":"\#(product)","#
      + #""autoRenewProductId":"\#(product)","autoRenewStatus":\#(customer % 5 == 4 ? 0 : 1),"#
      + #""signedDate":\#(signed),"environment":"Production","recentSubscriptionStartDate":1700000000000}"#
  }

  /// Line `index` of a file of signed transactions over `customers` customers: customer index % customers,
  /// in its month index / customers.
  package static func signedTransactionLine(index: Int, customers: Int, signer: TestChainSigner) -> String {
    let c = max(1, customers)
    return signer.sign(transactionPayload(customer: index % c, month: index / c))
  }

  /// Line `index` of a Notification V2 log: `{"signedPayload":...}` of a DID_RENEW (SUBSCRIBED for a first
  /// month) holding a signed transaction and a signed renewal info: three signatures.
  package static func notificationLine(index: Int, customers: Int, signer: TestChainSigner) -> String {
    let c = max(1, customers)
    let customer = index % c
    let month = index / c
    let transaction = signer.sign(transactionPayload(customer: customer, month: month))
    let renewal = signer.sign(renewalPayload(customer: customer, month: month))
    let type =
      month == 0 ? #""notificationType":"SUBSCRIBED","subtype":"INITIAL_BUY""# : #""notificationType":"DID_RENEW""#
    let payload =
      #"{\#(type),"notificationUUID":"00000000-0000-4000-8000-\#(String(100_000_000_000 + index))","#
      + #""version":"2.0","signedDate":\#(1_700_000_000_000 + Int64(index) * 1_000),"data":{"#
      + #""appAppleId":1474839201,"bundleId":"com.example.app","bundleVersion":"42","environment":"Production","#
      + #""signedTransactionInfo":"\#(transaction)","signedRenewalInfo":"\#(renewal)","status":1}}"#
    return #"{"signedPayload":"\#(signer.sign(payload))"}"#
  }

  /// Line `index` of a file of App Store Server API Get Transaction History pages: customer `index`'s
  /// months 0..<`pageSize`, each transaction signed.
  package static func historyPageLine(index: Int, pageSize: Int = 20, signer: TestChainSigner) -> String {
    let tokens = (0..<pageSize).map { "\"" + signer.sign(transactionPayload(customer: index, month: $0)) + "\"" }
    return #"{"revision":"r\#(index)","bundleId":"com.example.app","appAppleId":1474839201,"#
      + #""environment":"Production","hasMore":false,"signedTransactions":["# + tokens.joined(separator: ",") + "]}"
  }
}

/// Signs compact JWS with the TEST chain of Tests/ExampleSigning (leaf, intermediate, root in `x5c`), so a
/// benchmark can make thousands of real ES256 signatures without OpenSSL: they verify with
/// `--trust-root Tests/ExampleSigning/test-root.pem`, never against Apple's root.
///
/// Every signature uses the nonce k = 1, so R = G and s = z + r·d (mod n): one addition per signature.
/// That reveals the key, which is a committed test key already; verification does not see k.
package struct TestChainSigner: Sendable {
  /// The base64url JWS header: {"alg":"ES256","x5c":[leaf, intermediate, root],"typ":"JWT"}.
  package let header: String
  /// The test chain's root, for `--trust-root`.
  package let trustRoot: String

  /// r = x(G) of P-256, big-endian 64-bit limbs.
  static let r: [UInt64] = [0x6B17_D1F2_E12C_4247, 0xF8BC_E6E5_63A4_40F2, 0x7703_7D81_2DEB_33A0, 0xF4A1_3945_D898_C296]
  /// r·d mod n, d being test-leaf.key's private scalar.
  static let rd: [UInt64] = [
    0x472B_0750_F3FC_81BA, 0xB91D_FE31_A29C_0C44, 0x3A66_9DAB_8EA3_5BD9, 0x2AB1_3FF4_94B6_0C6D,
  ]
  /// The order n of P-256.
  static let n: [UInt64] = [0xFFFF_FFFF_0000_0000, 0xFFFF_FFFF_FFFF_FFFF, 0xBCE6_FAAD_A717_9E84, 0xF3B9_CAC2_FC63_2551]

  /// The signer of the test chain under `directory` (Tests/ExampleSigning), or nil when its certificates
  /// cannot be read.
  package init?(directory: URL = TestPaths.packageRoot.appendingPathComponent("Tests/ExampleSigning")) {
    var x5c: [String] = []
    for name in ["test-leaf.pem", "test-intermediate.pem", "test-root.pem"] {
      guard let text = try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8),
        let begin = text.range(of: "-----BEGIN CERTIFICATE-----"),
        let end = text.range(of: "-----END CERTIFICATE-----")
      else { return nil }
      x5c.append(text[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace })
    }
    let json = #"{"alg":"ES256","x5c":["# + x5c.map { "\"\($0)\"" }.joined(separator: ",") + #"],"typ":"JWT"}"#
    header = Base64URL.encode(Array(json.utf8))
    trustRoot = directory.appendingPathComponent("test-root.pem").path
  }

  /// The compact JWS of `payload`, signed.
  package func sign(_ payload: String) -> String {
    let input = header + "." + Base64URL.encode(Array(payload.utf8))
    var hash = SHA256()
    Array(input.utf8).withUnsafeBytes { hash.update($0) }
    let digest = hash.finalize()
    var z = (0..<4).map { i in digest[(i * 8)..<(i * 8 + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
    if !Self.less(z, Self.n) { z = Self.subtract(z, Self.n) }
    var (s, carry) = Self.add(z, Self.rd)
    if carry || !Self.less(s, Self.n) { s = Self.subtract(s, Self.n) }
    let bytes = (Self.r + s).flatMap { limb in (0..<8).map { UInt8(truncatingIfNeeded: limb >> (56 - 8 * $0)) } }
    return input + "." + Base64URL.encode(bytes)
  }

  static func less(_ a: [UInt64], _ b: [UInt64]) -> Bool {
    for i in 0..<4 where a[i] != b[i] { return a[i] < b[i] }
    return false
  }

  static func add(_ a: [UInt64], _ b: [UInt64]) -> ([UInt64], Bool) {
    var out = [UInt64](repeating: 0, count: 4)
    var carry = false
    for i in (0..<4).reversed() {
      let (x, o1) = a[i].addingReportingOverflow(b[i])
      let (y, o2) = x.addingReportingOverflow(carry ? 1 : 0)
      out[i] = y
      carry = o1 || o2
    }
    return (out, carry)
  }

  /// a − b mod 2^256 (the wrap is what a carried sum needs).
  static func subtract(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
    var out = [UInt64](repeating: 0, count: 4)
    var borrow = false
    for i in (0..<4).reversed() {
      let (x, o1) = a[i].subtractingReportingOverflow(b[i])
      let (y, o2) = x.subtractingReportingOverflow(borrow ? 1 : 0)
      out[i] = y
      borrow = o1 || o2
    }
    return out
  }
}
