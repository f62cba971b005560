import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The receipt pairs of ../shared/peer-fixtures/SOURCES.md: an on-device receipt and the verifyReceipt response
/// for the same receipt give the same transactions, entitlement answers and intro eligibility through
/// receipt-tool; where only server data has a field, the receipt's output names it.
@Suite struct AppReceiptPairTests {
  struct Pair {
    var receipt: String
    var response: String
    var group: String
    /// Receipt product id -> response product id (appstore-iap scrubbed its product ids).
    var products: [String: String]
    var moments: [String]
    /// Transactions whose product id the response's publisher scrubbed differently from the rest.
    var scrubbed: Set<String> = []
  }

  static let pairs = [
    Pair(
      receipt: "RevenueCat__purchases-ios/base64encodedreceiptsample1.txt",
      response: "RevenueCat__purchases-ios/verifyReceiptSample1.txt", group: "20662382",
      products: [
        "com.revenuecat.monthly_4.99.1_week_intro": "com.revenuecat.monthly_4.99.1_week_intro",
        "com.revenuecat.annual_39.99.2_week_intro": "com.revenuecat.annual_39.99.2_week_intro",
      ],
      moments: ["2020-07-14T19:35:00Z", "2020-07-14T22:00:00Z", "2020-07-22T18:00:00Z", "2021-01-01"]),
    Pair(
      receipt: "imdhemy__laravel-in-app-purchases/iOS-receipt.json",
      response: "imdhemy__appstore-iap/verify_receipt_response.json", group: "20667927",
      products: ["month_premium": "one_month_subscription", "year_premium": "one_year_subscription"],
      moments: ["2020-11-08T16:00:00Z", "2020-11-08T16:30:00Z", "2021-01-01"],
      // The chain's first purchase: month_premium in the receipt, one_year_subscription in the scrubbed JSON.
      scrubbed: ["1000000739288578"]),
  ]

  static func json(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
  }

  /// A catalog naming both products auto-renewable subscriptions of the group, giving one entitlement.
  static func catalog(_ products: [String], group: String) throws -> String {
    let entries = products.map {
      #"{"product_id": "\#($0)", "type": "auto_renewable", "subscription_group": "\#(group)", "#
        + #""entitlements": ["premium"], "intro_offer": {"payment_mode": "free_trial", "period": "P1W"}}"#
    }
    let text = #"{"products": [\#(entries.joined(separator: ", "))]}"#
    return try InProcessRunner.temporaryFile(Array(text.utf8), name: "catalog.json")
  }

  @Test(arguments: pairs.indices)
  func pairGivesTheSameAnswers(_ index: Int) throws {
    guard let shared = TestPaths.shared else { return TestPaths.noteSharedMissing("receipt pairs") }
    let pair = Self.pairs[index]
    let dir = shared.appendingPathComponent("peer-fixtures")
    let receipt = dir.appendingPathComponent(pair.receipt).path
    let response = dir.appendingPathComponent(pair.response).path

    // The same transactions: ids, products (mapped), dates, intro flags, revocations.
    func transactions(_ path: String) -> [String: [String: Any]] {
      let out = Self.json(InProcessRunner.run(["decode", "--format", "json", path]).stdout)
      let rows = out["transactions"] as? [[String: Any]] ?? []
      return Dictionary(rows.map { ($0["transaction_id"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    }
    let local = transactions(receipt)
    let server = transactions(response)
    #expect(!local.isEmpty)
    // The response may know later renewals (latest_receipt_info, fetched after the receipt was made): only those.
    #expect(Set(local.keys).isSubset(of: Set(server.keys)), "\(pair.receipt): transaction ids")
    for (id, s) in server where local[id] == nil {
      #expect(s["sources"] as? [String] == ["latest_receipt_info"], "\(id) is only server-side")
    }
    for (id, l) in local {
      guard let s = server[id] else { continue }
      if !pair.scrubbed.contains(id) {
        #expect(pair.products[l["product_id"] as? String ?? ""] == s["product_id"] as? String, "\(id) product")
      }
      for key in [
        "original_transaction_id", "purchase_date", "original_purchase_date", "expires_date", "cancellation_date",
        "is_trial_period", "is_in_intro_offer_period", "quantity", "web_order_line_item_id",
      ] {
        #expect("\(l[key] ?? "nil")" == "\(s[key] ?? "nil")", "\(pair.receipt) \(id) \(key)")
      }
      #expect(l["ownership"] as? String == "unknown")
      #expect(s["ownership"] as? String == "PURCHASED")
    }

    // The same entitlement answers and intro eligibility, with a catalog supplying what only the server knows.
    let localCatalog = try Self.catalog(Array(pair.products.keys), group: pair.group)
    let serverCatalog = try Self.catalog(Array(pair.products.values), group: pair.group)
    for moment in pair.moments {
      let l = Self.json(
        InProcessRunner.run(["entitlements", "--format", "json", "--catalog", localCatalog, "--as-of", moment, receipt])
          .stdout)
      let s = Self.json(
        InProcessRunner.run([
          "entitlements", "--format", "json", "--catalog", serverCatalog, "--as-of", moment, response,
        ]).stdout)
      let le = try #require((l["entitlements"] as? [[String: Any]])?.first, "\(moment)")
      let se = try #require((s["entitlements"] as? [[String: Any]])?.first, "\(moment)")
      for key in ["status", "active", "transaction_id", "expires_date"] {
        #expect("\(le[key] ?? "nil")" == "\(se[key] ?? "nil")", "\(pair.receipt) at \(moment): \(key)")
      }
      for (localID, serverID) in pair.products {
        let li = Self.json(
          InProcessRunner.run([
            "intro-eligibility", "--format", "json", "--catalog", localCatalog, "--product", localID, "--as-of", moment,
            receipt,
          ]).stdout)
        let si = Self.json(
          InProcessRunner.run([
            "intro-eligibility", "--format", "json", "--catalog", serverCatalog, "--product", serverID, "--as-of",
            moment, response,
          ]).stdout)
        let lp = (li["products"] as? [[String: Any]])?.first
        let sp = (si["products"] as? [[String: Any]])?.first
        #expect(lp?["status"] as? String != nil)
        #expect(lp?["status"] as? String == sp?["status"] as? String, "\(localID) at \(moment)")
        #expect(lp?["transaction_id"] as? String == sp?["transaction_id"] as? String, "\(localID) at \(moment)")
      }
    }

    // Without a catalog, the group id exists only server-side: the receipt's answer places each product through
    // its subscription's original_transaction_id and says the group was inferred.
    let bare = InProcessRunner.run(["intro-eligibility", "--as-of", "2021-01-01", receipt]).stdout
    let unwrapped = bare.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(unwrapped.contains("Group not named in the data (inferred)"), "\(bare)")
    #expect(unwrapped.contains("inferred from original_transaction_id (ASN.1 type 1705)"), "\(bare)")
    // Renewal state exists only server-side.
    let expired = InProcessRunner.run(["entitlements", "--as-of", "2021-01-01", receipt])
    #expect(expired.stdout.contains("holds no renewal state"), "\(expired.stdout)")
  }
}
