import Foundation
import Testing

@testable import ReceiptCLI
@testable import ReceiptFormats
@testable import ReceiptModel
@testable import ReceiptRules
@testable import ReceiptTestSupport

// Issue 30, "Say what is there": answers and decode output name what the data holds. Fixtures are written here.

/// A verifyReceipt response with one subscription purchase (2024-03-01) and one consumable (2024-01-10).
private let twoPurchases = #"""
  {"status": 0, "environment": "Production", "receipt": {"receipt_type": "Production", "bundle_id": "com.acme",
   "in_app": [
    {"product_id": "com.acme.coins", "transaction_id": "5", "original_transaction_id": "5", "quantity": "1",
     "purchase_date_ms": "1704844800000"},
    {"product_id": "com.acme.pro", "transaction_id": "6", "original_transaction_id": "6", "quantity": "1",
     "purchase_date_ms": "1709251200000", "expires_date_ms": "1711929600000"}]}}
  """#

@Suite struct SayWhatIsThereTests {
  /// Every purchase is after --as-of: the answer counts them instead of saying the receipt holds none.
  @Test func purchasesAfterTheMomentAreCountedNotDenied() throws {
    let file = try InProcessRunner.temporaryFile(Array(twoPurchases.utf8))
    let before = InProcessRunner.run(["entitlements", "--as-of", "2023-06-01", file])
    #expect(
      before.stdout.contains("No entitlements: 2 purchases are dated after 2023-06-01T00:00:00Z, and none before it."))
    #expect(!before.stdout.contains("holds no"), "\(before.stdout)")
    // Between the two, the rule counts only what is later.
    let history = try FormatRegistry.standard.decode(Array(twoPurchases.utf8), source: "two.json")
    let between = try #require(Timestamp.parse(formatted: "2024-02-01T00:00:00Z"))
    #expect(
      nothingToAnswerReason(of: history, at: between, kind: "auto-renewable subscription purchase")
        == "the receipt holds no auto-renewable subscription purchase by 2024-02-01T00:00:00Z; 1 purchase is dated after it"
    )
    let intro = InProcessRunner.run(["intro-eligibility", "--as-of", "2023-06-01", file]).stdout
    let unwrapped = intro.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(unwrapped.contains("2 purchases are dated after 2023-06-01T00:00:00Z, and none before it"), "\(intro)")
  }
}
