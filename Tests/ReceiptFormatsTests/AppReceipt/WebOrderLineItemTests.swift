import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// `web_order_line_item_id` (1711) applies only to auto-renewable subscriptions: Apple's receipts write 0 for
/// every other purchase, which verifyReceipt omits, so the history reads it as absent there.
@Suite struct WebOrderLineItemTests {
  static func purchase(webOrder: Int64?, expires: Bool) -> AppReceiptInAppPurchase {
    var p = AppReceiptInAppPurchase(index: 0)
    p.webOrderLineItemID = webOrder
    p.expiresDate = expires ? Timestamp(milliseconds: 1_718_409_600_000) : nil
    return p
  }

  @Test func zeroOnAPurchaseWithoutExpiryIsAbsent() {
    #expect(AppReceiptHistory.webOrderLineItemID(of: Self.purchase(webOrder: 0, expires: false)) == nil)
    #expect(AppReceiptHistory.webOrderLineItemID(of: Self.purchase(webOrder: nil, expires: false)) == nil)
    // A subscription's value is kept, whatever it is; another purchase's non-zero value too (carried through).
    #expect(AppReceiptHistory.webOrderLineItemID(of: Self.purchase(webOrder: 0, expires: true)) == "0")
    #expect(
      AppReceiptHistory.webOrderLineItemID(of: Self.purchase(webOrder: 1_000_000_030_274_153, expires: true))
        == "1000000030274153")
    #expect(AppReceiptHistory.webOrderLineItemID(of: Self.purchase(webOrder: 7, expires: false)) == "7")
  }

  /// The example receipt of a lifetime unlock (make-receipt.py writes 0, as Apple does): no line item id.
  @Test func theLifetimeUnlockExampleHasNoLineItemID() throws {
    let url = TestPaths.packageRoot.appendingPathComponent("examples/app-receipt/lifetime-unlock.b64")
    let history = try AppReceiptFormat().decode(
      try [UInt8](Data(contentsOf: url)), source: "t", options: DecodeOptions())
    #expect(history.transactions.count == 1)
    #expect(history.transactions.first?.webOrderLineItemID == nil)
  }
}
