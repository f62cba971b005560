import ReceiptFormats
import ReceiptModel
import ReceiptRules
import Testing

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? Timestamp.epoch }

private let yearly = "com.acme.pro.yearly"
private let proCatalog = Catalog([
  CatalogProduct(
    productID: "com.acme.pro.monthly", type: .autoRenewable, subscriptionGroup: "21000111", entitlements: ["pro"]),
  CatalogProduct(productID: yearly, type: .autoRenewable, subscriptionGroup: "21000111", entitlements: ["pro"]),
])

/// verifyReceipt documents read by the decoder and judged by the rules.
@Suite struct EntitlementsDocumentTests {
  func decode(_ json: String) throws -> PurchaseHistory {
    try ReceiptDecoder.decode(Array(json.utf8), source: "test.json")
  }

  @Test func v1RevokeNotification() throws {
    let json = """
      {"notification_type":"REVOKE","environment":"PROD","unified_receipt":{"status":0,"environment":"Production",
       "latest_receipt_info":[{"product_id":"com.acme.pro.yearly","transaction_id":"2200","original_transaction_id":"2200",
       "purchase_date_ms":"1693562400000","expires_date_ms":"1725184800000","cancellation_date_ms":"1709317211000",
       "cancellation_reason":"0","in_app_ownership_type":"FAMILY_SHARED","quantity":"1"}],"pending_renewal_info":[]}}
      """
    let d = try decode(json)
    let results = entitlementStatuses(of: d, catalog: proCatalog, at: at("2024-06-15"))
    let r = try #require(results.first)
    #expect(r.id == "pro")
    #expect(r.state == .revoked)
    #expect(r.deciding?.ownership == .familyShared)
    #expect(
      r.reason.hasPrefix("Family Sharing access to com.acme.pro.yearly (transaction 2200) was revoked on 2024-03-01"))
  }

  @Test func failedStatusIsRejectedButExpiredSubscriptionStatusIsNot() throws {
    #expect(throws: ReceiptError.self) { try decode(#"{"status":21007}"#).requireValidStatus(source: "x") }
    try decode(#"{"status":21006,"receipt":{"bundle_id":"b","in_app":[]}}"#).requireValidStatus(source: "x")
    try decode(#"{"status":0,"receipt":{"bundle_id":"b","in_app":[]}}"#).requireValidStatus(source: "x")
  }
}
