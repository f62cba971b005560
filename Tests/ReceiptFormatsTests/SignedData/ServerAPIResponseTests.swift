import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// The App Store Server API's responses, each read as its own kind, and its requests and errors refused by name:
/// shapes built from the field lists of Apple's models (app-store-server-library-swift, resources/models), with
/// this project's values and hand-written JWS; the examples signed by the test chain; Apple's own signed test
/// notification inside a response, where ../shared holds it.
@Suite struct ServerAPIResponseTests {
  typealias F = SignedDataFixtures

  static let transaction = #"""
    {"transactionId":"2000000100","originalTransactionId":"2000000100","productId":"pro.monthly",
    "purchaseDate":1717200000000,"expiresDate":1719792000000,"signedDate":1717200001000,
    "type":"Auto-Renewable Subscription","inAppOwnershipType":"PURCHASED","environment":"Sandbox"}
    """#
  static let appTransaction = #"""
    {"receiptType":"Sandbox","appAppleId":531412,"bundleId":"com.example","applicationVersion":"1.2.3",
    "receiptCreationDate":1698148900000,"originalPurchaseDate":1698148800000,"originalApplicationVersion":"1.1.2"}
    """#
  static func notification(_ type: String, data: String) -> String {
    #"{"notificationType":"\#(type)","notificationUUID":"uuid-1","version":"2.0","signedDate":1717200002000,"data":\#(data)}"#
  }

  func history(_ text: String) throws -> PurchaseHistory {
    try SignedDataFormat().decode(Array(text.utf8), source: "test", options: DecodeOptions())
  }

  func refusal(_ text: String) -> ReceiptError? {
    do {
      _ = try FormatRegistry.standard.decode(Array(text.utf8), source: "test")
      return nil
    } catch {
      return error
    }
  }

  @Test func notificationHistoryListsEachNotificationWithItsSendAttemptsAndReadsItsPurchases() throws {
    let payload = Self.notification("DID_RENEW", data: #"{"signedTransactionInfo":"\#(F.jws(Self.transaction))"}"#)
    let text = #"""
      {"paginationToken":"next-1","hasMore":true,"notificationHistory":[
       {"sendAttempts":[{"attemptDate":1698148900000,"sendAttemptResult":"NO_RESPONSE"},
                        {"attemptDate":1698148950000,"sendAttemptResult":"SUCCESS"}],
        "signedPayload":"\#(F.jws(payload))"},
       {"sendAttempts":[{"attemptDate":1698148800000,"sendAttemptResult":"CIRCULAR_REDIRECT"}],
        "signedPayload":"signed_payload_two"}]}
      """#
    let h = try history(text)
    #expect(h.provenance.format.name == "notification_history_response")
    #expect(h.transactions.map(\.transactionID) == ["2000000100"])
    #expect(h.provenance.deliveries.count == 2)
    #expect(h.provenance.deliveries[0].notificationType == "DID_RENEW")
    #expect(h.provenance.deliveries[0].sendAttempts.map(\.result) == ["NO_RESPONSE", "SUCCESS"])
    #expect(h.provenance.deliveries[1].problem != nil)
    #expect(h.provenance.deliveries[1].sendAttempts.first?.attemptDate?.milliseconds == 1_698_148_800_000)
    #expect(h.provenance.page?.isPartial == true)
    #expect(h.provenance.page?.continuationField == "paginationToken")
    #expect(h.provenance.page?.continuation == "next-1")
    #expect(h.provenance.notification == nil)
  }

  /// A history asked for without a transactionId may hold several customers: answered as one, and every command
  /// says so.
  @Test func aNotificationHistoryOfSeveralPurchasesSaysSo() throws {
    func item(_ id: String) -> String {
      let t = Self.transaction.replacingOccurrences(of: "2000000100", with: id)
      let payload = Self.notification("SUBSCRIBED", data: #"{"signedTransactionInfo":"\#(F.jws(t))"}"#)
      return #"{"sendAttempts":[],"signedPayload":"\#(F.jws(payload))"}"#
    }
    let one = try history(#"{"hasMore":false,"notificationHistory":[\#(item("1")),\#(item("1"))]}"#)
    #expect(ReadingWarnings.shown(in: one).isEmpty)
    let two = try history(#"{"hasMore":false,"notificationHistory":[\#(item("1")),\#(item("2"))]}"#)
    let shown = ReadingWarnings.shown(in: two)
    #expect(shown.count == 1)
    #expect(shown.first?.contains("about 2 purchases (originalTransactionId \"1\", \"2\")") == true)
  }

  @Test func testNotificationStatusReadsTheNotificationAndItsSendAttempts() throws {
    let payload = Self.notification("TEST", data: #"{"bundleId":"com.example","environment":"Sandbox"}"#)
    let h = try history(
      #"{"signedPayload":"\#(F.jws(payload))","sendAttempts":[{"attemptDate":1698148900000,"sendAttemptResult":"SUCCESS"}]}"#
    )
    #expect(h.provenance.format.name == "test_notification_status_response")
    #expect(h.provenance.deliveries.map(\.notificationType) == ["TEST"])
    #expect(h.provenance.deliveries.first?.sendAttempts.count == 1)
  }

  @Test func appTransactionInfoAndAppDataReadTheAppTransaction() throws {
    let response = try history(#"{"signedAppTransactionInfo":"\#(F.jws(Self.appTransaction))"}"#)
    #expect(response.provenance.format.name == "app_transaction_info_response")
    #expect(response.provenance.receipt?.originalApplicationVersion == "1.1.2")
    #expect(response.provenance.receipt?.bundleID == "com.example")
    let appData = try history(
      #"{"appAppleId":987654321,"bundleId":"com.example","environment":"Sandbox","signedAppTransactionInfo":"\#(F.jws(Self.appTransaction))"}"#
    )
    #expect(appData.provenance.format.name == "app_data")
    #expect(appData.provenance.receipt?.applicationVersion == "1.2.3")
    #expect(appData.environment == "Sandbox")
  }

  @Test func rescindConsentsAppDataIsReadNotDropped() throws {
    let payload = #"""
      {"notificationType":"RESCIND_CONSENT","notificationUUID":"u","version":"2.0","signedDate":1698148900000,
      "appData":{"appAppleId":41234,"bundleId":"com.example","environment":"Sandbox",
      "signedAppTransactionInfo":"\#(F.jws(Self.appTransaction))"}}
      """#
    let h = try history(#"{"signedPayload":"\#(F.jws(payload))"}"#)
    #expect(h.provenance.notification?.notificationType == "RESCIND_CONSENT")
    #expect(h.provenance.receipt?.originalApplicationVersion == "1.1.2")
    #expect(h.provenance.format.description.contains("appData"))
    #expect(!h.warnings.contains { $0.message.hasPrefix(ReadingWarnings.unreadKeysPrefix) })
  }

  @Test func lookUpOrderIDSaysItsStatus() throws {
    let valid = try history(#"{"status":0,"signedTransactions":["\#(F.jws(Self.transaction))"]}"#)
    #expect(valid.provenance.format.name == "order_lookup_response")
    #expect(valid.provenance.responseStatus?.isValid == true)
    #expect(valid.transactions.count == 1)
    let invalid = try history(#"{"status":1,"signedTransactions":[]}"#)
    #expect(invalid.provenance.responseStatus?.code == 1)
    #expect(invalid.provenance.responseStatus?.isValid == false)
    #expect(invalid.provenance.responseStatus?.meaning.contains("invalid") == true)
  }

  @Test func renewalExtensionResponsesAreReadForWhatBecameOfTheExtension() throws {
    let one = try history(
      #"{"originalTransactionId":"2312412","webOrderLineItemId":"9993","success":true,"effectiveDate":1698148900000}"#)
    #expect(one.provenance.format.name == "renewal_extension_response")
    #expect(one.transactions.isEmpty)
    #expect(
      one.provenance.statedFields.map(\.name) == [
        "originalTransactionId", "webOrderLineItemId", "success", "effectiveDate",
      ])
    #expect(one.provenance.format.description.contains("2312412 extended to 2023-10-24"))
    let status = try history(
      #"{"requestIdentifier":"r","complete":true,"completeDate":1698148900000,"succeededCount":30,"failedCount":2}"#)
    #expect(status.provenance.format.description.contains("30 extended, 2 failed, complete"))
    let request = try history(#"{"requestIdentifier":"758883e8-151b-47b7-abd0-60c4d804c2f5"}"#)
    #expect(request.provenance.format.name == "renewal_extension_response")
  }

  @Test func advancedCommerceResponsesAreTheirOwnKindNotTransactionInfo() throws {
    let renewal = #"{"originalTransactionId":"2000000100","autoRenewStatus":0,"signedDate":1717200003000}"#
    let h = try history(
      #"{"signedRenewalInfo":"\#(F.jws(renewal))","signedTransactionInfo":"\#(F.jws(Self.transaction))"}"#)
    #expect(h.provenance.format.name == "advanced_commerce_response")
    #expect(h.transactions.count == 1)
    #expect(h.renewals.first?.autoRenewStatus == .off)
    // Request Refund answers with Get Transaction Info's shape: its transaction's advancedCommerceInfo names it.
    let refunded = #"""
      {"transactionId":"1","productId":"p","purchaseDate":1,"advancedCommerceInfo":{"items":[{"SKU":"sku",
      "refunds":[{"refundAmount":5000,"refundDate":1698148900000,"refundReason":"LEGAL","refundType":"FULL"}]}]}}
      """#
    let refund = try history(#"{"signedTransactionInfo":"\#(F.jws(refunded))"}"#)
    #expect(refund.provenance.format.name == "advanced_commerce_response")
    let plain = try history(#"{"signedTransactionInfo":"\#(F.jws(Self.transaction))"}"#)
    #expect(plain.provenance.format.name == "transaction_info_response")
  }

  @Test func aHistoryPageSaysWhetherMoreFollow() throws {
    let h = try history(
      #"{"revision":"rev-2","hasMore":true,"bundleId":"com.example","signedTransactions":["\#(F.jws(Self.transaction))"]}"#
    )
    #expect(h.provenance.page == ResponsePage(hasMore: true, continuationField: "revision", continuation: "rev-2"))
    let last = try history(#"{"revision":"rev-3","hasMore":false,"signedTransactions":[]}"#)
    #expect(last.provenance.page?.isPartial == false)
  }

  /// Pages merged up to the last one are whole; without the last, the merged history stays partial.
  @Test func oneCustomersPagesArePartialUntilTheLastIsRead() throws {
    let first = try history(#"{"revision":"r1","hasMore":true,"signedTransactions":[]}"#)
    let last = try history(#"{"revision":"r2","hasMore":false,"signedTransactions":[]}"#)
    var partial = CustomerHistoryMerger()
    partial.add(first, source: "a")
    #expect(partial.history()?.provenance.page?.isPartial == true)
    var whole = CustomerHistoryMerger()
    whole.add(first, source: "a")
    whole.add(last, source: "b")
    #expect(whole.history()?.provenance.page == nil)
  }

  @Test(arguments: [
    (#"{"requestInfo":{"requestReferenceId":"x"},"storefront":"USA"}"#, "Advanced Commerce API request"),
    (#"{"requestInfo":{"requestReferenceId":"x"},"transactionId":"1","retainBillingCycle":true}"#, "Advanced Commerce"),
    (#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#, "error response"),
    (
      #"{"originalTransactionId":"1","appAppleId":5,"productId":"p","userLocale":"en-US","requestIdentifier":"r","signedDate":1}"#,
      "Retention Messaging real-time request"
    ),
    (#"{"extendByDays":30,"extendReasonCode":1,"requestIdentifier":"r"}"#, "extend-renewal-date request"),
    (#"{"messageIdentifiers":[]}"#, "Retention Messaging message list"),
    (#"{"testNotificationToken":"t"}"#, "Request a Test Notification response"),
  ])
  func requestsAndErrorsAreRefusedByName(_ text: String, _ name: String) throws {
    let e = try #require(refusal(text))
    #expect(e.kind == .malformed)
    #expect(e.message.hasPrefix("not purchase data: the object looks like"), "\(e.message)")
    #expect(e.message.contains(name))
    #expect(e.message.contains("receipt-tool reads"))
  }

  @Test func anObjectWhoseFieldsFitNoKindIsRefused() throws {
    for text in [#"{"bundleId":"com.example","hello":1}"#, #"{"signedDate":1,"somethingNew":true}"#] {
      let e = try #require(refusal(text))
      #expect(e.message.contains("fit no kind of purchase data"), "\(e.message)")
      #expect(e.message.contains("Get Notification History"))
    }
    // A JWS whose payload is a request is refused as well, whatever keys it shares with a transaction.
    let signed = try #require(refusal(F.jws(#"{"requestInfo":{},"transactionId":"1"}"#)))
    #expect(signed.message.contains("Advanced Commerce API request"))
  }

  /// Apple's mock payloads hold only fields every kind has: still read as the kind they fit, with a note.
  @Test func payloadsOfKnownFieldsOnlyStillReadAsTheKindTheyFit() throws {
    let h = try history(F.jws(#"{"bundleId":"com.example","signedDate":1672956154000,"environment":"Sandbox"}"#))
    #expect(h.warnings.contains { $0.message.contains("read as") })
  }

  @Test func unreadKeysAreWarningsNotDropped() throws {
    let transaction = #"{"transactionId":"1","productId":"p","purchaseDate":1,"futureField":{"a":1}}"#
    let h = try history(#"{"signedTransactions":["\#(F.jws(transaction))"],"bundleId":"b","extra":1}"#)
    let unread = ReadingWarnings.shown(in: h)
    #expect(unread.count == 2)
    #expect(unread.contains { $0.hasPrefix("(document)") && $0.contains("\"extra\"") })
    #expect(unread.contains { $0.contains("signedTransactions[0] > payload") && $0.contains("\"futureField\"") })
  }

  /// The new readers under the fuzz entry: every prefix and many byte changes of each shape give a document or a
  /// one-line error, never a crash, and the fuzz entry finds nothing.
  @Test func everyPrefixAndByteChangeOfEachShapeIsReadOrRefusedInOneLine() throws {
    let payload = Self.notification("DID_RENEW", data: #"{"signedTransactionInfo":"\#(F.jws(Self.transaction))"}"#)
    let shapes = [
      #"{"hasMore":true,"notificationHistory":[{"sendAttempts":[{"attemptDate":1,"sendAttemptResult":"SUCCESS"}],"signedPayload":"\#(F.jws(payload))"}]}"#,
      #"{"signedPayload":"\#(F.jws(payload))","sendAttempts":[{"attemptDate":1698148900000}]}"#,
      #"{"appAppleId":1,"bundleId":"b","environment":"Sandbox","signedAppTransactionInfo":"\#(F.jws(Self.appTransaction))"}"#,
      #"{"status":1,"signedTransactions":["\#(F.jws(Self.transaction))"]}"#,
      #"{"originalTransactionId":"1","webOrderLineItemId":"2","success":true,"effectiveDate":1}"#,
      #"{"signedTransactionInfo":"\#(F.jws(Self.transaction))","signedRenewalInfo":"x"}"#,
      #"{"requestInfo":{},"storefront":"USA"}"#,
    ]
    var read = 0
    for text in shapes {
      let bytes = Array(text.utf8)
      var variants = (0...bytes.count).map { Array(bytes[0..<$0]) }
      for i in stride(from: 0, to: bytes.count, by: 3) {
        for b: UInt8 in [UInt8(ascii: "\""), UInt8(ascii: "}"), UInt8(ascii: "1"), 0xFF] {
          var copy = bytes
          copy[i] = b
          variants.append(copy)
        }
      }
      for v in variants {
        #expect(SignedDataFuzzing.fuzz(v).isEmpty)
        do {
          _ = try FormatRegistry.standard.decode(v, source: "fuzz")
          read += 1
        } catch {
          #expect(!error.message.contains("\n"))
        }
      }
    }
    #expect(read > 0)
  }

  static let appleModels = TestPaths.packageRoot.appendingPathComponent(
    "Tests/ReceiptFormatsTests/Fixtures/apple-models")

  /// Apple's own model bodies, verbatim (placeholders where a JWS belongs): each reads as its own kind, with its
  /// placeholders carried as warnings, never as an empty history of another kind.
  @Test(arguments: [
    ("getNotificationHistoryResponse.json", "notification_history_response"),
    ("getTestNotificationStatusResponse.json", "test_notification_status_response"),
    ("appTransactionInfoResponse.json", "app_transaction_info_response"),
    ("appData.json", "app_data"),
    ("lookupOrderIdResponse.json", "order_lookup_response"),
    ("extendSubscriptionRenewalDateResponse.json", "renewal_extension_response"),
    ("extendRenewalDateForAllActiveSubscribersResponse.json", "renewal_extension_response"),
    ("getStatusOfSubscriptionRenewalDateExtensionsResponse.json", "renewal_extension_response"),
    ("advancedCommerceSubscriptionCancelResponse.json", "advanced_commerce_response"),
    ("signedRescindConsentNotification.json", "signed_payload_decoded"),
    ("transactionHistoryResponse.json", "transaction_history_response"),
  ])
  func applesModelsReadAsTheirOwnKind(_ name: String, _ kind: String) throws {
    let bytes = try [UInt8](Data(contentsOf: Self.appleModels.appendingPathComponent(name)))
    let h = try FormatRegistry.standard.decode(bytes, source: name)
    #expect(h.provenance.format.name == kind)
    #expect(ReadingWarnings.shown(in: h).isEmpty, "\(ReadingWarnings.shown(in: h))")
  }

  @Test func applesModelsSayWhatTheyHold() throws {
    func read(_ name: String) throws -> PurchaseHistory {
      try FormatRegistry.standard.decode(
        [UInt8](Data(contentsOf: Self.appleModels.appendingPathComponent(name))), source: name)
    }
    let history = try read("getNotificationHistoryResponse.json")
    #expect(history.provenance.deliveries.map(\.sendAttempts.count) == [2, 1])
    #expect(history.provenance.deliveries.allSatisfy { $0.problem != nil })
    #expect(history.provenance.page?.continuation == "57715481-805a-4283-8499-1c19b5d6b20a")
    #expect(try read("lookupOrderIdResponse.json").provenance.responseStatus?.isValid == false)
    #expect(try read("transactionHistoryResponse.json").provenance.page?.continuation == "revision_output")
    let rescind = try read("signedRescindConsentNotification.json")
    #expect(rescind.warnings.contains { $0.path == "appData.signedAppTransactionInfo" })
  }

  @Test(arguments: [
    "decodedRealtimeRequest.json", "advancedCommerceSubscriptionCancelRequest.json",
    "advancedCommerceSubscriptionModifyInAppRequest.json", "transactionIdNotFoundError.json",
  ])
  func applesRequestsAndErrorsAreRefused(_ name: String) throws {
    let bytes = try [UInt8](Data(contentsOf: Self.appleModels.appendingPathComponent(name)))
    let e = try #require(refusal(String(decoding: bytes, as: UTF8.self)))
    #expect(e.message.hasPrefix("not purchase data: the object looks like"), "\(e.message)")
  }

  @Test(arguments: [
    "notification-history.json", "test-notification-status.json", "app-transaction-info.json",
    "rescind-consent-notification.json", "order-lookup.json", "transaction-history-partial.json",
    "advanced-commerce-cancel.json", "transaction-info-unread-key.json",
  ])
  func theServerAPIExamplesVerifyThroughTheTestRoot(_ name: String) throws {
    let bytes = try SignatureVerdictTests.example("server-api/" + name)
    let lender = SignatureVerdictTests.OneVerifier(trust: try SignatureVerdictTests.testTrust())
    let check = try SignatureVerdictTests.history(bytes, lender: lender).provenance.signatureCheck
    #expect(check.verdict == .verified, "\(name): \(check.summary)")
    #expect(check.verifiedItems == check.signedItems && check.signedItems >= 1)
  }

  /// Apple's own test notification (signed by Apple's test chain) inside a Get Test Notification Status response,
  /// verified with Apple's test root as a trust root.
  @Test func applesSignedTestNotificationInsideAStatusResponseVerifiesWithTheirTestRoot() throws {
    guard let testCA = CryptoTestDataForFormats.signatures("jws/testCA.der"),
      let jws = CryptoTestDataForFormats.signatures("jws/testNotification")
    else { return }
    let token = String(decoding: jws, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    let body =
      #"{"signedPayload":"\#(token)","sendAttempts":[{"attemptDate":1681314324000,"sendAttemptResult":"SUCCESS"}]}"#
    let lender = SignatureVerdictTests.OneVerifier(trust: try TrustAnchors.apple.adding(rootDER: testCA))
    let h = try SignatureVerdictTests.history(Array(body.utf8), lender: lender)
    #expect(h.provenance.format.name == "test_notification_status_response")
    #expect(h.provenance.deliveries.first?.notificationType == "TEST")
    #expect(h.provenance.signatureCheck.verdict == .verified, "\(h.provenance.signatureCheck.summary)")
  }
}

/// `../shared/reference/signatures/` files, or nil with the visible skip note.
enum CryptoTestDataForFormats {
  static func signatures(_ relative: String) -> [UInt8]? {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("Apple's signed test data (reference/signatures/\(relative))")
      return nil
    }
    let url = shared.appendingPathComponent("reference/signatures").appendingPathComponent(relative)
    return FileManager.default.contents(atPath: url.path).map { [UInt8]($0) }
  }
}
