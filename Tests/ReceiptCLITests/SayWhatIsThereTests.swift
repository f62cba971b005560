import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

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

  /// Input no format reads is named for what it looks like (README, "Not JSON"), never "unexpected character".
  @Test(arguments: [
    ("NOT A RECEIPT", #"1:1: not a receipt: the input is plain text beginning "NOT A RECEIPT""#),
    ("\n  nope, sorry", #"2:3: not a receipt: the input is plain text beginning "nope, sorry""#),
    (#"<?xml version="1.0"?><plist version="1.0"><dict/></plist>"#, "not a receipt: the input is an XML property list"),
    ("<!DOCTYPE html><html></html>", "not a receipt: the input is an HTML page"),
    ("PK\u{3}\u{4}zip", "not a receipt: the input is a ZIP archive"),
    ("bplist00", "not a receipt: the input is a binary property list"),
  ])
  func unreadableInputIsNamedForWhatItLooksLike(_ text: String, _ expected: String) throws {
    let file = try InProcessRunner.temporaryFile(Array(text.utf8))
    let run = InProcessRunner.run(["decode", file])
    #expect(run.status == .dataError)
    #expect(run.stderr.contains(expected), "\(run.stderr)")
    #expect(run.stderr.contains("receipt-tool reads verifyReceipt JSON"), "\(run.stderr)")
    #expect(!run.stderr.contains("unexpected character"), "\(run.stderr)")
  }

  /// Input that starts like JSON keeps the JSON reader's position of the fault.
  @Test func brokenJSONKeepsItsPosition() throws {
    let file = try InProcessRunner.temporaryFile(Array(#"{"status": 0,"#.utf8))
    #expect(InProcessRunner.run(["decode", file]).stderr.contains(":1:14: unexpected end of input"))
    let binary = try InProcessRunner.temporaryFile([0x01, 0x02, 0xC3, 0x28, 0x7F])
    #expect(InProcessRunner.run(["decode", binary]).stderr.contains("binary data beginning 01 02 C3 28 7F"))
  }

  /// A signed payload with only some fields (Apple's mock transactionInfo and renewalInfo) is valid JSON: it
  /// decodes as what it can be, says so, and exits 0.
  @Test(arguments: [
    (#"{"environment":"Sandbox","bundleId":"com.example","signedDate":1672956154000}"#, "a transaction"),
    (
      #"{"environment":"Sandbox","signedDate":1672956154000}"#,
      "a transaction (JWSTransactionDecodedPayload) or renewal info"
    ),
  ])
  func aPartialSignedPayloadDecodesAsWhatItCanBe(_ payload: String, _ fits: String) throws {
    let token =
      Base64URL.encode(Array(#"{"alg":"ES256","kid":"hand-written"}"#.utf8)) + "."
      + Base64URL.encode(Array(payload.utf8)) + ".c2ln"
    let file = try InProcessRunner.temporaryFile(Array((token + "\n").utf8), name: "partial.jws")
    let run = InProcessRunner.run(["decode", file])
    #expect(run.status == .ok, "\(run.stderr)")
    #expect(run.stdout.contains("Environment  Sandbox"), "\(run.stdout)")
    #expect(run.stdout.contains("none of transactionId"), "\(run.stdout)")
    #expect(run.stdout.contains(fits), "\(run.stdout)")
    #expect(!run.stderr.contains("unknown kind"))
    // The decoded payload pasted as JSON reads the same way.
    let pasted = try InProcessRunner.temporaryFile(Array(payload.utf8), name: "partial.json")
    #expect(InProcessRunner.run(["decode", pasted]).status == .ok)
  }

  // MARK: decode --format json carries every field it read

  static func decodeJSON(_ bytes: [UInt8], name: String) throws -> [String: Any] {
    let file = try InProcessRunner.temporaryFile(bytes, name: name)
    let run = InProcessRunner.run(["decode", "--format", "json", file])
    #expect(run.status == .ok, "\(run.stderr)")
    return (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any] ?? [:]
  }

  static func jws(_ payload: String) -> [UInt8] {
    let token =
      Base64URL.encode(Array(#"{"alg":"ES256","kid":"hand-written"}"#.utf8)) + "."
      + Base64URL.encode(Array(payload.utf8)) + ".c2ln"
    return Array((token + "\n").utf8)
  }

  @Test func signedTransactionAndRenewalFieldsAreAllShown() throws {
    let transaction = #"""
      {"transactionId":"7","originalTransactionId":"7","productId":"p","bundleId":"com.acme","purchaseDate":1700000000000,
       "expiresDate":1702592000000,"type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED",
       "signedDate":1700000000000,"storefront":"FRA","storefrontId":"143442","transactionReason":"RENEWAL",
       "revocationDate":1700100000000,"revocationReason":0,"revocationType":"REFUND_PRORATED",
       "revocationPercentage":25000,"appTransactionId":"704","offerType":2,"offerPeriod":"P1M",
       "environment":"Production","price":4990,"currency":"EUR"}
      """#
    let t = try #require(
      (Self.decodeJSON(Self.jws(transaction), name: "t.jws")["transactions"] as? [[String: Any]])?.first)
    let fields = try #require(t["fields"] as? [String: Any], "\(t)")
    #expect(fields["bundleId"] as? String == "com.acme")
    #expect(fields["storefront"] as? String == "FRA")
    #expect(fields["storefrontId"] as? String == "143442")
    #expect(fields["transactionReason"] as? String == "RENEWAL")
    #expect(fields["revocationType"] as? String == "REFUND_PRORATED")
    #expect(fields["revocationPercentage"] as? Int == 25000)
    #expect(fields["appTransactionId"] as? String == "704")
    #expect(fields["offerPeriod"] as? String == "P1M")

    let renewal = #"""
      {"originalTransactionId":"7","autoRenewProductId":"p","productId":"p","autoRenewStatus":1,
       "signedDate":1700000500000,"renewalDate":1702592000000,"environment":"Production"}
      """#
    let r = try #require(
      (Self.decodeJSON(Self.jws(renewal), name: "r.jws")["pending_renewals"] as? [[String: Any]])?.first)
    #expect((r["fields"] as? [String: Any])?["signedDate"] as? String == "2023-11-14T22:21:40Z", "\(r)")
  }

  @Test func notificationFieldsAreAllShown() throws {
    let notification = #"""
      {"notificationType":"DID_RENEW","notificationUUID":"c0ffee00-0000-4000-8000-000000000001","version":"2.0",
       "signedDate":1700000600000,"data":{"bundleId":"com.acme","environment":"Production","status":1}}
      """#
    let n = try #require(Self.decodeJSON(Array(notification.utf8), name: "n.json")["notification"] as? [String: Any])
    let fields = try #require(n["fields"] as? [String: Any], "\(n)")
    #expect(fields["notificationUUID"] as? String == "c0ffee00-0000-4000-8000-000000000001")
    #expect(fields["version"] as? String == "2.0")
    #expect(fields["signedDate"] as? String == "2023-11-14T22:23:20Z")
    #expect(fields["data.status"] as? Int == 1)
  }

  /// Xcode's year-1 placeholder (`originalPurchaseDate` -62135769600000) is printed, not null.
  @Test func appTransactionPlaceholderDateIsPrinted() throws {
    let app = #"""
      {"receiptType":"Xcode","bundleId":"com.acme","applicationVersion":"1","originalApplicationVersion":"1",
       "receiptCreationDate":1697680122257,"originalPurchaseDate":-62135769600000,"appAppleId":0}
      """#
    let r = try #require(Self.decodeJSON(Self.jws(app), name: "a.jws")["receipt"] as? [String: Any])
    #expect(r["original_purchase_date"] as? String == "0000-12-30T00:00:00Z", "\(r)")
    #expect((r["fields"] as? [String: Any])?["appAppleId"] as? Int == 0)
  }

  @Test func verifyReceiptExpirationAndIOS6RenewalFieldsAreShown() throws {
    let response = #"""
      {"status":0,"auto_renew_status":0,"expiration_intent":"1","is_in_billing_retry_period":"0",
       "receipt":{"bundle_id":"com.acme","expiration_date_ms":"1718409600000",
        "in_app":[{"product_id":"p","transaction_id":"1","original_transaction_id":"1","quantity":"1",
                   "purchase_date_ms":"1717200000000","expires_date_ms":"1718409600000"}]}}
      """#
    let doc = try Self.decodeJSON(Array(response.utf8), name: "v.json")
    let receipt = try #require(doc["receipt"] as? [String: Any])
    #expect((receipt["fields"] as? [String: Any])?["expiration_date"] as? String == "2024-06-15T00:00:00Z")
    let top = try #require(doc["fields"] as? [String: Any], "\(doc)")
    #expect(top["expiration_intent"] as? String == "1")
    #expect(top["auto_renew_status"] as? String == "0")
    #expect(top["is_in_billing_retry_period"] as? String == "0")
  }

  /// An on-device receipt's attributes 1, 4, 5, 8 and 10 are read, so shown: the opaque value and hash in hex.
  @Test func appReceiptReadAttributesAreShown() throws {
    func der(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
      let n = body.count
      let length: [UInt8] = n < 128 ? [UInt8(n)] : n < 256 ? [0x81, UInt8(n)] : [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
      return [tag] + length + body
    }
    func attribute(_ type: UInt8, _ value: [UInt8]) -> [UInt8] {
      der(0x30, der(0x02, [type]) + der(0x02, [1]) + der(0x04, value))
    }
    func utf8(_ s: String) -> [UInt8] { der(0x0C, Array(s.utf8)) }
    func ia5(_ s: String) -> [UInt8] { der(0x16, Array(s.utf8)) }
    let payload = der(
      0x31,
      attribute(0, utf8("Production")) + attribute(1, der(0x02, [0x12, 0x34])) + attribute(2, utf8("com.acme"))
        + attribute(3, utf8("7")) + attribute(4, [0xDE, 0xAD, 0xBE, 0xEF]) + attribute(5, [0x01, 0x02, 0x03])
        + attribute(8, ia5("2024-06-01T00:00:00Z")) + attribute(10, utf8("4+"))
        + attribute(12, ia5("2024-06-15T00:00:00Z")))
    let oidData: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    let oidSigned: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    let content = der(0x30, oidData + der(0xA0, der(0x04, payload)))
    let signed = der(0x30, der(0x02, [1]) + der(0x31, []) + content + der(0x31, []))
    let receipt = der(0x30, oidSigned + der(0xA0, signed))
    let doc = try Self.decodeJSON(receipt, name: "receipt.der")
    let attributes = try #require(doc["receipt_attributes"] as? [[String: Any]], "\(doc)")
    let byType = Dictionary(attributes.map { ($0["type"] as? Int ?? -1, $0["value"] as? String ?? "") }) { a, _ in a }
    #expect(byType[1] == "4660")
    #expect(byType[4] == "deadbeef")
    #expect(byType[5] == "010203")
    #expect(byType[8] == "2024-06-01T00:00:00Z")
    #expect(byType[10] == "4+")
  }
}
