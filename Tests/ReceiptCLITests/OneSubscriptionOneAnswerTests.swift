import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

// Issue 30, "One subscription, one answer": transactions continuing one original_transaction_id are one
// subscription and so one subscription group (reference §7.1, §7.2), whether or not a row carries the group id.
// Fixtures are hand-written here, in the shapes of levibostian/dollabill-apple's exclude_old_transactions.json
// (group id only on the latest_receipt_info row) and RevenueCat's receipt pair (a crossgrade inside one chain).

private let at = CrossgradeChain.at

private func decide(_ products: [String]?, _ h: PurchaseHistory, at moment: String) -> [IntroEligibilityResult] {
  decideIntroEligibility(
    products: products, history: h, catalog: Catalog(), at: EvaluationTime(time: at(moment), source: .given))
}

@Suite struct OneSubscriptionOneAnswerTests {

  /// An on-device receipt names no group: the crossgraded-to product shares the trial's chain, so its group too.
  @Test func appReceiptGroupIsInferredAndSaidToBe() throws {
    let results = decide(
      ["annual"],
      CrossgradeChain.history(
        vocabulary: .appReceipt, format: AppReceiptHistory.identity(of: .base64), namesGroup: false),
      at: "2020-08-01T00:00:00Z")
    let annual = try #require(results.first)
    #expect(annual.status == .ineligible)
    #expect(annual.transactionID == "1")
    #expect(annual.subscriptionGroup == nil)
    #expect(annual.groupInference?.linkedProductIDs == ["monthly"])

    let time = EvaluationTime(time: at("2020-08-01T00:00:00Z"), source: .given)
    let text = IntroEligibilityTextRenderer.render(results, time: time, color: false, width: 200)
    #expect("\(text)".contains("Group   not named in the data (inferred)"), "\(text)")
    let input = InputDocument(source: "receipt.b64", bytes: [])
    let json = IntroEligibilityJSONRenderer.render(results, time: time, input: input).rendered(pretty: false)
    #expect(json.contains(#""subscription_group_inferred_from":{"original_transaction_ids":["1"]"#), "\(json)")
  }

  /// The real pairs of ../shared/peer-fixtures/SOURCES.md, at every moment a transaction starts or ends.
  @Test(arguments: [
    (
      "RevenueCat__purchases-ios/base64encodedreceiptsample1.txt", "RevenueCat__purchases-ios/verifyReceiptSample1.txt",
      [String: String]()
    ),
    (
      "imdhemy__laravel-in-app-purchases/iOS-receipt.json", "imdhemy__appstore-iap/verify_receipt_response.json",
      ["month_premium": "one_month_subscription", "year_premium": "one_year_subscription"]
    ),
  ])
  func realPairsAgreeAtEveryMoment(_ receipt: String, _ response: String, _ products: [String: String]) throws {
    guard let shared = TestPaths.shared else { return TestPaths.noteSharedMissing("the receipt pairs' moments") }
    let dir = shared.appendingPathComponent("peer-fixtures")
    func load(_ name: String) throws -> PurchaseHistory {
      let bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent(name)))
      return try FormatRegistry.standard.decode(bytes, source: name)
    }
    let (local, server) = (try load(receipt), try load(response))
    var compared = 0
    for moment in CrossgradeChain.moments(of: local) {
      let l = decide(nil, local, at: moment).map { (products[$0.productID] ?? $0.productID, $0) }
      let s = decide(nil, server, at: moment).map { ($0.productID, $0) }
      // appstore-iap scrubbed one transaction's product id differently: then only the answers can be compared.
      let key = { (r: IntroEligibilityResult) in "\(r.status.rawValue) \(r.transactionID ?? "-")" }
      if l.map(\.0).sorted() == s.map(\.0).sorted() {
        #expect(
          l.map { "\($0.0)=\(key($0.1))" }.sorted() == s.map { "\($0.0)=\(key($0.1))" }.sorted(),
          "\(receipt) at \(moment)")
      } else {
        #expect(Set(l.map { key($0.1) }) == Set(s.map { key($0.1) }), "\(receipt) at \(moment)")
      }
      compared += 1
    }
    #expect(compared > 20)
  }

}
