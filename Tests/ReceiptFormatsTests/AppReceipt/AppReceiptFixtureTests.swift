import Foundation
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Every PKCS#7 receipt in ../shared/peer-fixtures decodes to the values in DECODED_RECEIPTS.json (derived
/// independently with pyasn1) and to the values the source repositories assert in their own tests.
@Suite struct AppReceiptFixtureTests {
  /// An expected date string ("" or missing means absent), compared as an instant.
  static func expectDate(_ actual: Timestamp?, _ expected: Any?, _ label: String) {
    guard let text = expected as? String, !text.isEmpty else {
      #expect(actual == nil, "\(label): expected absent")
      return
    }
    #expect(
      actual != nil && actual == Timestamp.parse(formatted: text),
      "\(label): \(String(describing: actual?.iso8601)) vs \(text)")
  }

  static func expectInt(_ actual: Int64?, _ expected: Any?, _ label: String) {
    #expect(actual == (expected as? NSNumber).map { $0.int64Value }, "\(label)")
  }

  static func expectFlag(_ actual: Bool?, _ expected: Any?, _ label: String) {
    #expect(actual == (expected as? NSNumber).map { $0.int64Value == 1 }, "\(label)")
  }

  @Test func everyPeerReceiptMatchesTheIndependentDecode() throws {
    guard TestPaths.shared != nil else {
      TestPaths.noteSharedMissing("app receipt fixtures")
      return
    }
    let receipts = TestPaths.decodedAppReceipts
    #expect(receipts.count >= 15, "DECODED_RECEIPTS.json lists \(receipts.count) receipts")
    for (name, expected) in receipts.sorted(by: { $0.key < $1.key }) {
      let file = String(name.split(separator: "#")[0])
      let bytes = try #require(TestPaths.peerFixture(file), "\(file)")
      let payload = try AppReceiptReader.read(bytes).payload
      #expect(payload.receiptType == expected["receipt_type"] as? String, "\(name) receipt_type")
      Self.expectInt(payload.appItemID, expected["app_item_id"], "\(name) app_item_id")
      #expect(payload.bundleID == expected["bundle_id"] as? String, "\(name) bundle_id")
      #expect(payload.appVersion == expected["application_version"] as? String, "\(name) application_version")
      #expect(
        payload.originalAppVersion == expected["original_application_version"] as? String,
        "\(name) original_application_version")
      #expect(payload.ageRating == expected["age_rating"] as? String, "\(name) age_rating")
      #expect(payload.opaqueValue.map(AppReceiptAttributeValue.hex) == expected["opaque_value"] as? String, "\(name)")
      #expect(payload.sha1Hash.map(AppReceiptAttributeValue.hex) == expected["sha1_hash"] as? String, "\(name)")
      Self.expectDate(payload.creationDate, expected["receipt_creation_date"], "\(name) receipt_creation_date")
      Self.expectDate(
        payload.originalPurchaseDate, expected["original_purchase_date"], "\(name) original_purchase_date")
      Self.expectDate(payload.expirationDate, expected["expiration_date"], "\(name) expiration_date")
      // Type 8 is mapped here (transaction date); the independent decode lists it as unmapped.
      let unmapped = Set((expected["_unmapped_field_types"] as? [Int] ?? []).map(Int64.init)).subtracting([8])
      #expect(Set(payload.otherAttributes.map(\.type)) == unmapped, "\(name) unmapped types")
      #expect(payload.inAppPurchases.count == expected["in_app_count"] as? Int, "\(name) in_app_count")
      #expect(payload.inAppPurchases.map(\.index) == Array(0..<payload.inAppPurchases.count))

      // The independent decode sorts purchases by purchase date, then transaction id.
      let rows = expected["in_app"] as? [[String: Any]] ?? []
      let sortedRows = rows.sorted {
        let a = Timestamp.parse(formatted: $0["purchase_date"] as? String ?? "")?.milliseconds ?? 0
        let b = Timestamp.parse(formatted: $1["purchase_date"] as? String ?? "")?.milliseconds ?? 0
        return a != b ? a < b : ($0["transaction_id"] as? String ?? "") < ($1["transaction_id"] as? String ?? "")
      }
      let purchases = payload.inAppPurchases.sorted {
        let a = $0.purchaseDate?.milliseconds ?? 0
        let b = $1.purchaseDate?.milliseconds ?? 0
        return a != b ? a < b : ($0.transactionID ?? "") < ($1.transactionID ?? "")
      }
      #expect(purchases.count == sortedRows.count, "\(name)")
      for (p, row) in zip(purchases, sortedRows) {
        let label = "\(name) \(row["transaction_id"] ?? "?")"
        #expect(p.transactionID == row["transaction_id"] as? String, "\(label) transaction_id")
        #expect(p.originalTransactionID == row["original_transaction_id"] as? String, "\(label) original")
        #expect(p.productID == row["product_id"] as? String, "\(label) product_id")
        Self.expectInt(p.quantity, row["quantity"], "\(label) quantity")
        Self.expectInt(p.productType, row["product_type"], "\(label) product_type")
        Self.expectInt(p.webOrderLineItemID, row["web_order_line_item_id"], "\(label) web_order_line_item_id")
        Self.expectFlag(p.isTrialPeriod, row["is_trial_period"], "\(label) is_trial_period")
        Self.expectFlag(p.isInIntroOfferPeriod, row["is_in_intro_offer_period"], "\(label) intro")
        #expect(p.promotionalOfferID == row["promotional_offer_id"] as? String, "\(label) promotional_offer_id")
        Self.expectDate(p.purchaseDate, row["purchase_date"], "\(label) purchase_date")
        Self.expectDate(p.originalPurchaseDate, row["original_purchase_date"], "\(label) original_purchase_date")
        Self.expectDate(p.expiresDate, row["expires_date"], "\(label) expires_date")
        Self.expectDate(p.cancellationDate, row["cancellation_date"], "\(label) cancellation_date")
        let unmappedInApp = Set((row["_unmapped_field_types"] as? [Int] ?? []).map(Int64.init))
        #expect(Set(p.otherAttributes.map(\.type)) == unmappedInApp, "\(label) unmapped types")
      }
      #expect(!payload.signature.certificates.isEmpty, "\(name) certificates")
      #expect(payload.signature.certificates.allSatisfy { $0.problem == nil }, "\(name) certificate problems")
    }
  }

  /// Kvitto's own test (Test/Source/KvittoTests.swift) asserts the first purchase of sandboxReceipt.
  @Test func kvittoSandboxReceiptAsKvittoAsserts() throws {
    guard let bytes = TestPaths.peerFixture("Cocoanetics__Kvitto/sandboxReceipt") else {
      TestPaths.noteSharedMissing("Kvitto fixture")
      return
    }
    let document = try AppReceiptReader.read(bytes)
    #expect(document.form == .der)
    let first = try #require(document.payload.inAppPurchases.first)
    #expect(first.transactionID == "1000000156449405")
    #expect(first.originalTransactionID == "1000000156444989")
    #expect(document.payload.appVersion == "246")
    #expect(document.payload.bundleID == "com.cocoanetics.EmmiView")
  }

  /// Apple's ReceiptUtility tests: the Xcode receipt's transaction id is "0", the empty one has none.
  @Test func appleXcodeReceiptsAsAppleAsserts() throws {
    guard let with = TestPaths.peerFixture("apple__app-store-server-library-swift/xcode-app-receipt-with-transaction"),
      let empty = TestPaths.peerFixture("apple__app-store-server-library-swift/xcode-app-receipt-empty")
    else {
      TestPaths.noteSharedMissing("Apple Xcode receipts")
      return
    }
    // BER: indefinite lengths in the envelope, a constructed OCTET STRING for the content.
    #expect(Array(try Base64Text.decode(with, path: []).prefix(2)) == [0x30, 0x80])
    let document = try AppReceiptReader.read(with)
    #expect(document.form == .base64)
    #expect(document.payload.inAppPurchases.map(\.transactionID) == ["0"])
    #expect(document.payload.inAppPurchases.first?.productID == "pass.premium")
    #expect(document.payload.inAppPurchases.first?.isInIntroOfferPeriod == true)
    #expect(document.payload.receiptType == "Xcode")
    #expect(document.payload.signature.certificates.first?.subject?.contains("CN=StoreKit") == true)
    #expect(document.payload.signature.digestAlgorithms == ["sha256"])
    #expect(try AppReceiptReader.read(empty).payload.inAppPurchases.isEmpty)
  }

  /// AppReceiptValidator's AppReceiptValidationInAppPurchaseTests lists the grand unified receipt in full.
  @Test func grandUnifiedReceiptAsAppReceiptValidatorAsserts() throws {
    guard
      let bytes = TestPaths.peerFixture("IdeasOnCanvas__AppReceiptValidator/grandUnifiedExpiredAppleCert_receipt.b64")
    else {
      TestPaths.noteSharedMissing("AppReceiptValidator fixture")
      return
    }
    let payload = try AppReceiptReader.read(bytes).payload
    #expect(payload.bundleID == "com.mbaasy.ios.demo")
    #expect(payload.opaqueValue == Array(try #require(Data(base64Encoded: "xN1AVLC2Gge+tYX2qELgSA=="))))
    #expect(payload.sha1Hash == Array(try #require(Data(base64Encoded: "LgoRW+rBxXAjpb03NJlVqa2Z200="))))
    #expect(payload.creationDate?.iso8601 == "2015-08-13T07:50:46Z")
    #expect(payload.expirationDate == nil)
    let sorted = payload.inAppPurchases.sorted {
      ($0.purchaseDate?.milliseconds ?? 0) < ($1.purchaseDate?.milliseconds ?? 0)
    }
    #expect(
      sorted.map(\.transactionID) == [
        "1000000166865231", "1000000166965150", "1000000166965327", "1000000166965895", "1000000166967152",
        "1000000166967484", "1000000166967782",
      ])
    #expect(sorted.map(\.productID) == ["consumable"] + Array(repeating: "monthly", count: 6))
    #expect(sorted.first?.expiresDate == nil)
    #expect(sorted.first?.cancellationDate == nil)
    // AppReceiptValidator shows the consumable's line item id 0 as nil; the receipt holds INTEGER 0.
    #expect(sorted.first?.webOrderLineItemID == 0)
    // The history reads it as AppReceiptValidator shows it: absent (the field is a subscription's).
    let history = try AppReceiptHistory.history(
      of: try AppReceiptReader.read(bytes), source: "t", keepsCarriedFields: false)
    #expect(history.transactions.first { $0.productID == "consumable" }?.webOrderLineItemID == nil)
    #expect(history.transactions.filter { $0.productID == "monthly" }.allSatisfy { $0.webOrderLineItemID != nil })
    #expect(
      sorted.dropFirst().map(\.webOrderLineItemID) == [
        1_000_000_030_274_153, 1_000_000_030_274_154, 1_000_000_030_274_165, 1_000_000_030_274_192,
        1_000_000_030_274_219, 1_000_000_030_274_249,
      ])
    #expect(sorted.last?.expiresDate?.iso8601 == "2015-08-10T07:19:32Z")
    #expect(sorted.last?.originalPurchaseDate?.iso8601 == "2015-08-10T07:12:34Z")
  }

  /// Xcode writes numeric offsets: 18:33:15+0100 is 17:33:15Z.
  @Test func xcodeOffsetsAreApplied() throws {
    guard let bytes = TestPaths.peerFixture("tikhop__TPInAppReceipt/receipt-xcode") else {
      TestPaths.noteSharedMissing("TPInAppReceipt Xcode receipt")
      return
    }
    let payload = try AppReceiptReader.read(bytes).payload
    #expect(payload.creationDate?.iso8601 == "2020-07-22T17:33:15Z")
    #expect(payload.expirationDate?.iso8601 == "4001-01-01T00:00:00Z")
    #expect(payload.inAppPurchases.first?.purchaseDate?.iso8601 == "2020-07-22T17:33:14Z")
  }

  @Test func laravelTransactionReceiptField() throws {
    guard let bytes = TestPaths.peerFixture("imdhemy__laravel-in-app-purchases/iOS-receipt.json") else {
      TestPaths.noteSharedMissing("laravel fixture")
      return
    }
    let document = try AppReceiptReader.read(bytes)
    #expect(document.form == .jsonField("transactionReceipt"))
    #expect(document.payload.inAppPurchases.count == 42)
    #expect(document.payload.bundleID == "com.twigano.fashion")
  }

  @Test func revenueCatReceiptAndTheLargeOne() throws {
    guard let small = TestPaths.peerFixture("RevenueCat__purchases-ios/base64encodedreceiptsample1.txt"),
      let large = TestPaths.peerFixture("tikhop__TPInAppReceipt/receipt-sandbox-legacy")
    else {
      TestPaths.noteSharedMissing("RevenueCat and TPInAppReceipt fixtures")
      return
    }
    let payload = try AppReceiptReader.read(small).payload
    #expect(payload.inAppPurchases.count == 9)
    #expect(Set(payload.inAppPurchases.compactMap(\.originalTransactionID)) == ["1000000692878476"])
    #expect(payload.inAppPurchases.filter { $0.isTrialPeriod == true }.count == 1)
    let big = try AppReceiptReader.read(large).payload
    #expect(big.inAppPurchases.count == 187)
    #expect(Set(big.inAppPurchases.compactMap(\.productID)).count == 3)
  }

  @Test func zeroPurchaseReceipts() throws {
    for name in [
      "Cocoanetics__Kvitto/receipt", "IdeasOnCanvas__AppReceiptValidator/mindnode_ios_michaelsandbox_receipt1.b64",
      "IdeasOnCanvas__AppReceiptValidator/mac_mindnode_rebought_receipt",
    ] {
      guard let bytes = TestPaths.peerFixture(name) else {
        TestPaths.noteSharedMissing("zero-purchase receipts")
        return
      }
      let payload = try AppReceiptReader.read(bytes).payload
      #expect(payload.inAppPurchases.isEmpty, "\(name)")
      #expect(payload.bundleID != nil, "\(name)")
    }
  }
}
