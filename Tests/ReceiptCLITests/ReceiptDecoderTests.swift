import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

@Suite struct ReceiptDecoderTests {
  func decode(_ text: String) throws -> PurchaseHistory {
    try ReceiptDecoder.decode(Array(text.utf8), source: "test.json")
  }

  func error(_ text: String) -> ReceiptToolError? {
    do {
      _ = try decode(text)
      return nil
    } catch let e as ReceiptError {
      return .input(e)
    } catch {
      return .internalError("\(error)")
    }
  }

  @Test func acceptsStringsNumbersAndBooleansAlike() throws {
    let doc = try decode(
      """
      {"status": "0", "latest_receipt_info": [
        {"transaction_id": 1000, "product_id": "p", "quantity": 2, "purchase_date_ms": 1600000000000,
         "is_trial_period": true, "is_in_intro_offer_period": "1", "is_upgraded": "false"},
        {"transaction_id": "1001", "product_id": "p", "quantity": "1", "purchase_date_ms": "1600000000000",
         "is_trial_period": "false", "is_in_intro_offer_period": 0}
      ]}
      """)
    #expect(doc.provenance.status?.code == 0)
    #expect(doc.transactions.map(\.transactionID) == ["1000", "1001"])
    #expect(doc.transactions[0].quantity == 2)
    // Both intro flags true cannot both hold: read as a free trial, and said so.
    #expect(doc.transactions[0].offer == .freeTrial)
    #expect(doc.warnings.contains { $0.message.contains("both is_trial_period and is_in_intro_offer_period are true") })
    #expect(doc.transactions[1].offer == nil)
    #expect(doc.transactions[0].purchaseDate == doc.transactions[1].purchaseDate)
  }

  @Test func prefersMillisecondsAndFallsBackToFormattedDates() throws {
    let doc = try decode(
      """
      {"status": 0, "latest_receipt_info": [
        {"transaction_id": "1", "product_id": "p", "expires_date": "2020-01-01 00:00:00 Etc/GMT", "expires_date_ms": "1595532771000"},
        {"transaction_id": "2", "product_id": "p", "expires_date": "2020-07-23 19:32:51 Etc/GMT"}
      ]}
      """)
    #expect(doc.transactions[0].expiresDate?.iso8601 == "2020-07-23T19:32:51Z")
    #expect(doc.transactions[1].expiresDate?.iso8601 == "2020-07-23T19:32:51Z")
  }

  @Test func mergesBothArraysByTransactionID() throws {
    // With exclude-old-transactions, latest_receipt_info holds only the newest row: history is in in_app.
    let doc = try decode(
      """
      {"status": 0,
       "receipt": {"bundle_id": "b", "in_app": [
         {"transaction_id": "1", "product_id": "p", "purchase_date_ms": "1"},
         {"transaction_id": "2", "product_id": "p", "purchase_date_ms": "2"}]},
       "latest_receipt_info": [
         {"transaction_id": "2", "product_id": "p", "purchase_date_ms": "2", "in_app_ownership_type": "FAMILY_SHARED", "subscription_group_identifier": "9"}]}
      """)
    #expect(doc.transactions.count == 2)
    #expect(doc.provenance.duplicateRowsMerged == 1)
    let merged = try #require(doc.transactions.first { $0.transactionID == "2" })
    #expect(merged.sources == [.inApp, .latestReceiptInfo])
    #expect(merged.ownership == .familyShared)
    #expect(!merged.ownershipAssumed)
    #expect(merged.subscriptionGroup == "9")
    let onlyInApp = try #require(doc.transactions.first { $0.transactionID == "1" })
    #expect(onlyInApp.ownership == .purchased)
    #expect(onlyInApp.ownershipAssumed)
  }

  @Test func keepsUnknownOwnershipRawAndFlagsIt() throws {
    let doc = try decode(
      #"{"status": 0, "latest_receipt_info": [{"transaction_id": "1", "product_id": "p", "in_app_ownership_type": "BORROWED"}]}"#
    )
    #expect(doc.transactions[0].ownership == .unrecognized("BORROWED"))
    #expect(!doc.transactions[0].isOwnedByPurchaser)
    #expect(doc.warnings.count == 1)
    #expect(doc.warnings[0].path == "latest_receipt_info[0].in_app_ownership_type")
  }

  @Test func recognisesTheThreeKinds() throws {
    #expect(try decode(#"{"status": 21007}"#).provenance.format == VerifyReceiptFormats.response)
    let n = try decode(
      #"{"notification_type": "REVOKE", "password": "s3cret", "unified_receipt": {"latest_receipt_info": []}}"#)
    #expect(n.provenance.format == VerifyReceiptFormats.notificationV1)
    #expect(n.provenance.status == nil)
    #expect(n.provenance.notification?.hasPassword == true)
    #expect(n.provenance.notification?.password == nil)
    #expect(try decode(#"{"bundle_id": "b", "in_app": []}"#).provenance.format == VerifyReceiptFormats.bareReceipt)
    #expect(error(#"{"transaction_id": "1", "product_id": "p"}"#)?.exitStatus == .dataError)
    #expect(error("[]")?.exitStatus == .dataError)
  }

  @Test func acceptsLegacyShapes() throws {
    // iOS 6 style: latest_receipt_info as an object, milliseconds in expires_date, both retry spellings.
    let doc = try decode(
      """
      {"status": 21006, "is_retryable": false,
       "latest_receipt_info": {"transaction_id": "7", "product_id": "p", "expires_date": "1550386188000"}}
      """)
    #expect(doc.transactions.count == 1)
    #expect(doc.transactions[0].expiresDate?.milliseconds == 1_550_386_188_000)
    #expect(doc.provenance.isRetryable == false)
    #expect(doc.provenance.status?.carriesValidReceipt == true)
    #expect(try decode(#"{"status": 21100, "is-retryable": true}"#).provenance.isRetryable == true)
  }

  @Test func emptyStringsMeanAbsent() throws {
    let doc = try decode(
      #"{"status": 0, "latest_receipt_info": [{"transaction_id": "1", "product_id": "p", "cancellation_date_ms": "", "original_transaction_id": ""}]}"#
    )
    #expect(doc.transactions[0].revocation == nil)
    #expect(doc.transactions[0].originalTransactionID == nil)
  }

  @Test func fieldErrorsNameThePathAndTheValue() throws {
    let e = try #require(
      error(
        "{\"status\": 0, \"latest_receipt_info\": [{}, {}, {}, {\"transaction_id\": \"1\", \"product_id\": \"p\", \"expires_date_ms\": \"12x\"}]}"
      ))
    #expect(
      e.message.contains("latest_receipt_info[3].expires_date_ms: \"12x\" is not a millisecond timestamp")
        || e.message.contains("missing transaction_id"))
    let f = try #require(
      error(
        #"{"status": 0, "latest_receipt_info": [{"transaction_id": "1", "product_id": "p", "expires_date_ms": "12x"}]}"#
      ))
    #expect(f.message.hasPrefix("test.json:1:"))
    #expect(
      f.message.hasSuffix(
        "latest_receipt_info[0].expires_date_ms: \"12x\" is not a millisecond timestamp (digits only, 1970 to 9999)"))
    #expect(f.exitStatus == .dataError)
  }

  @Test func aDuplicateKeyTheToolReadsIsAnError() throws {
    let e = try #require(
      error(
        #"{"status": 0, "latest_receipt_info": [{"transaction_id": "1", "product_id": "p", "expires_date_ms": "1", "expires_date_ms": "2"}]}"#
      ))
    #expect(e.message.contains("latest_receipt_info[0].expires_date_ms: duplicate key"))
    // Keys it does not read may repeat.
    #expect(try decode(#"{"status": 0, "x": 1, "x": 2}"#).provenance.status?.code == 0)
  }

  @Test(arguments: [
    (#""status": "zero""#, "status: \"zero\" is not a status code"),
    (#""latest_receipt_info": 5"#, "latest_receipt_info: expected an array of objects, found a number"),
    (#""latest_receipt_info": [[1]]"#, "latest_receipt_info[0]: expected an object, found an array"),
    (#""latest_receipt_info": [{"product_id": "p"}]"#, "latest_receipt_info[0]: missing transaction_id"),
    (#""latest_receipt_info": [{"transaction_id": "1"}]"#, "latest_receipt_info[0]: missing product_id"),
    (
      #""latest_receipt_info": [{"transaction_id": "1", "product_id": "p", "quantity": "0"}]"#,
      "quantity: \"0\" is out of range"
    ),
    (
      #""latest_receipt_info": [{"transaction_id": "1", "product_id": "p", "is_trial_period": "yes"}]"#,
      "is_trial_period: \"yes\" is not a boolean"
    ),
  ])
  func wrongTypes(_ member: String, _ expected: String) throws {
    let e = try #require(error("{\(member)}"))
    #expect(e.exitStatus == .dataError)
    #expect(e.message.contains(expected), "\(e.message)")
  }

  @Test func statusMeanings() {
    #expect(ReceiptStatus(21007).meaning.contains("sandbox"))
    #expect(ReceiptStatus(21150).meaning.contains("21100-21199"))
    #expect(!ReceiptStatus(2).isKnown)
    #expect(ReceiptStatus(2).meaning.contains("Unknown status code 2"))
  }
}
