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
}
