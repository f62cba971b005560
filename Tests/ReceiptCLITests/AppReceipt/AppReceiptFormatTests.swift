import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// App receipts as a registered format: every PKCS#7 fixture reads through the registry and the CLI, the receipt
/// pairs give the answers their verifyReceipt twins give, and a local receipt never claims what it cannot know.
@Suite struct AppReceiptFormatTests {
  static let pkcs7Fixtures = [
    "RevenueCat__purchases-ios/base64encodedreceiptsample1.txt",
    "tikhop__TPInAppReceipt/receipt-production", "tikhop__TPInAppReceipt/receipt-sandbox-g5",
    "tikhop__TPInAppReceipt/receipt-sandbox-legacy", "tikhop__TPInAppReceipt/receipt-xcode",
    "Cocoanetics__Kvitto/receipt", "Cocoanetics__Kvitto/sandboxReceipt", "Cocoanetics__Kvitto/storeKitTestReceipt",
    "IdeasOnCanvas__AppReceiptValidator/grandUnifiedExpiredAppleCert_receipt.b64",
    "IdeasOnCanvas__AppReceiptValidator/mac_mindnode_rebought_receipt",
    "IdeasOnCanvas__AppReceiptValidator/mindnode_ios_michaelsandbox_receipt1.b64",
    "IdeasOnCanvas__AppReceiptValidator/purchasing_experiments_sandbox_receipt.b64",
    "imdhemy__laravel-in-app-purchases/iOS-receipt.json",
    "apple__app-store-server-library-swift/xcode-app-receipt-empty",
    "apple__app-store-server-library-swift/xcode-app-receipt-with-transaction",
  ]

  static func path(_ name: String) -> String? {
    TestPaths.shared.map { $0.appendingPathComponent("peer-fixtures").appendingPathComponent(name).path }
  }

  static func json(_ text: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
  }

  @Test func everyPKCS7FixtureDecodesThroughTheRegistryAndTheCLI() throws {
    guard TestPaths.shared != nil else { return TestPaths.noteSharedMissing("app receipt registry fixtures") }
    let decoded = TestPaths.decodedAppReceipts
    for name in Self.pkcs7Fixtures {
      let bytes = try #require(TestPaths.peerFixture(name), "\(name)")
      #expect(FormatRegistry.standard.format(for: bytes) is AppReceiptFormat, "\(name) recognised")
      let history = try FormatRegistry.standard.decode(bytes, source: name)
      let expected = try #require(decoded[name] ?? decoded[name + "#transactionReceipt"], "\(name) in DECODED")
      // DECODED_RECEIPTS.json lists in-app rows; the history holds distinct transactions.
      let ids = Set((expected["in_app"] as? [[String: Any]] ?? []).compactMap { $0["transaction_id"] as? String })
      #expect(Set(history.transactions.map(\.transactionID)) == ids, "\(name) transaction ids")
      #expect(history.transactions.allSatisfy { $0.ownership == .unknown && !$0.ownershipAssumed }, "\(name)")
      #expect(history.transactions.allSatisfy { $0.sources == .appReceipt && $0.productType == nil }, "\(name)")
      #expect(history.provenance.format.name == "app_receipt")
      #expect(history.provenance.signatureCheck.verdict == .notChecked, "\(name): read without a verifier")
      #expect(history.provenance.receipt?.bundleID == expected["bundle_id"] as? String, "\(name) bundle id")
      let created = Timestamp.parse(formatted: expected["receipt_creation_date"] as? String ?? "")
      #expect(history.moment?.time == created, "\(name) moment")
      #expect(history.moment?.description == "the receipt's creation date")

      let run = InProcessRunner.run(["decode", "--format", "json", try #require(Self.path(name))])
      #expect(run.status == .ok, "\(name): \(run.stderr)")
      let out = Self.json(run.stdout)
      #expect(out["kind"] as? String == "app_receipt", "\(name)")
      #expect((out["transactions"] as? [Any])?.count == ids.count, "\(name)")
      // The command checks the signature: Apple's receipts verify at their creation date, Xcode's are test-signed.
      let verdict = (out["signature_check"] as? [String: Any])?["verdict"] as? String
      let xcode = expected["receipt_type"] as? String == "Xcode"
      #expect(verdict == (xcode ? "test-signed" : "verified"), "\(name)")
    }
  }

  @Test func undocumentedAttributesAreShownWithTheirTypeNumberOnlyWhenPresent() throws {
    guard let path = Self.path("RevenueCat__purchases-ios/base64encodedreceiptsample1.txt") else {
      return TestPaths.noteSharedMissing("undocumented attributes")
    }
    let out = Self.json(InProcessRunner.run(["decode", "--format", "json", path]).stdout)
    let first = try #require((out["transactions"] as? [[String: Any]])?.first)
    let attributes = try #require(first["attributes"] as? [[String: Any]])
    let types = attributes.compactMap { ($0["type"] as? NSNumber)?.intValue }
    // 1707 (community-documented product type) and the undocumented 1709-1718 of Apple's Sandbox receipts.
    #expect(types.contains(1707) && types.contains(1709) && types.contains(1718))
    #expect(attributes.first { ($0["type"] as? NSNumber)?.intValue == 1707 }?["value"] as? String == "3")
    #expect(first["product_type_basis"] as? String == "expires_date", "1707 is never the basis of a product type")
    #expect((out["receipt_attributes"] as? [[String: Any]])?.isEmpty == false)
    // verifyReceipt output keeps its shape: no attributes keys.
    let json = Self.json(
      InProcessRunner.run(["decode", "--format", "json", "examples/entitlements-active.json"]).stdout)
    #expect(json["receipt_attributes"] == nil)
    #expect((json["transactions"] as? [[String: Any]])?.first?["attributes"] == nil)
  }

  @Test func requestBodiesTransactionReceiptObjectsAndNDJSONLines() throws {
    let blob = try String(contentsOfFile: "examples/app-receipt/entitlements-active.b64", encoding: .utf8)
    let oneLine = blob.replacingOccurrences(of: "\n", with: "")
    let secret = "0123abcd-shared-secret-never-printed"
    let request = #"{"receipt-data": "\#(oneLine)", "password": "\#(secret)", "exclude-old-transactions": true}"#
    let wrapped = #"{"productId": "com.acme.pro.monthly", "transactionReceipt": "\#(oneLine)"}"#
    let batch = try InProcessRunner.temporaryFile(Array((request + "\n" + wrapped + "\n").utf8), name: "b.ndjson")
    for format in ["json", "text"] {
      let run = InProcessRunner.run(["decode", "--format", format, batch])
      #expect(run.status == .ok, "\(run.stderr)")
      #expect(!run.stdout.contains(secret) && !run.stderr.contains(secret), "the shared secret is never printed")
      if format == "text" {
        // Wrapped at 80 columns: compare with the line breaks folded.
        let folded = run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(folded.contains("a password was present, not kept"))
        #expect(folded.contains("JSON object with an app receipt in transactionReceipt"))
      } else {
        #expect(run.stdout.components(separatedBy: "\"transaction_id\": \"1000000803\"").count == 3, "both lines")
      }
    }
    let history = try FormatRegistry.standard.decode(Array(request.utf8), source: "request")
    #expect(history.transactions.map(\.transactionID) == ["1000000801", "1000000802", "1000000803"])
    #expect(!String(describing: history).contains(secret), "the shared secret is not kept")
    // Base64 lines, one receipt each, with --ndjson.
    let lines = try InProcessRunner.temporaryFile(Array((oneLine + "\n" + oneLine + "\n").utf8), name: "b64.txt")
    let run = InProcessRunner.run(["entitlements", "--ndjson", "--format", "json", lines])
    #expect(run.status == .ok, "\(run.stderr)")
  }

  @Test func iOS6TransactionReceiptsAreRefusedByName() throws {
    guard TestPaths.shared != nil else { return TestPaths.noteSharedMissing("iOS 6 receipts") }
    for name in [
      "nomad__venice/receipt", "apple__app-store-server-library-swift/legacyTransaction",
      "IdeasOnCanvas__AppReceiptValidator/deprecatedSinglesTypeExpiredAppleCert_receipt.b64",
    ] {
      let bytes = try #require(TestPaths.peerFixture(name))
      #expect(throws: ReceiptError.self) { try FormatRegistry.standard.decode(bytes, source: name) }
      let run = InProcessRunner.run(["decode", try #require(Self.path(name))])
      #expect(run.status == .dataError)
      #expect(run.stderr.contains("iOS 6 transaction receipt") && !run.stderr.contains("unexpected character"))
      #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }
  }

  /// Every prefix and single-bit flips of a real receipt, through the registry: decoded or a one-line error
  /// positioned by byte offset; a decoded history never claims an owner.
  @Test func everyPrefixAndBitFlipsThroughTheRegistry() throws {
    guard let text = TestPaths.peerFixture("tikhop__TPInAppReceipt/receipt-xcode"),
      let der = TestPaths.peerFixture("Cocoanetics__Kvitto/storeKitTestReceipt")
    else { return TestPaths.noteSharedMissing("prefixes and bit flips") }
    func check(_ bytes: [UInt8], _ label: String) {
      do {
        let history = try FormatRegistry.standard.decode(bytes, source: "x")
        #expect(history.transactions.allSatisfy { $0.ownership == .unknown }, "\(label)")
      } catch {
        #expect(!error.description.contains("\n"), "\(label)")
        #expect(error.kind != .internalFailure, "\(label)")
      }
      #expect(AppReceiptFuzzing.fuzzRegistryPath(bytes).isEmpty, "\(label)")
    }
    var failures = 0
    for n in 0..<text.count {
      let prefix = Array(text.prefix(n))
      check(prefix, "prefix \(n)")
      if (try? FormatRegistry.standard.decode(prefix, source: "x")) == nil { failures += 1 }
    }
    #expect(failures >= text.count - 3, "a cut receipt fails (only trailing padding or a newline may go)")
    for i in stride(from: 0, to: der.count, by: 3) {
      var flipped = der
      flipped[i] ^= UInt8(1) << UInt8(i % 8)
      check(flipped, "flip \(i)")
    }
  }

  @Test func revenueListsUnknownOwnershipApartAndTheCodecKeepsIt() throws {
    let run = InProcessRunner.run([
      "revenue", "--catalog", "examples/catalog.json", "--format", "json",
      "examples/app-receipt/entitlements-active.b64",
    ])
    #expect(run.status == .ok, "\(run.stderr)")
    let counts = try #require(Self.json(run.stdout)["transactions"] as? [String: Any])
    #expect((counts["counted"] as? NSNumber)?.intValue == 0)
    #expect((counts["unknown_ownership_excluded"] as? NSNumber)?.intValue == 3)
    #expect((counts["unrecognized_ownership_excluded"] as? NSNumber)?.intValue == 0)
    let report = try RevenueReportCodec.read(Array(run.stdout.utf8), source: "report")
    #expect(report.counts.unknownOwnershipExcluded == 3)
    let text = InProcessRunner.run([
      "revenue", "--catalog", "examples/catalog.json", "examples/app-receipt/entitlements-active.b64",
    ])
    #expect(text.stdout.contains("unknown ownership       3 (on-device receipts cannot say who bought them"))
    #expect(text.stdout.contains("in_app_ownership_type"))
    // The verifyReceipt twin: the same three transactions, counted as the purchaser's.
    let twin = Self.json(
      InProcessRunner.run([
        "revenue", "--catalog", "examples/catalog.json", "--format", "json", "examples/entitlements-active.json",
      ])
      .stdout)
    #expect(((twin["transactions"] as? [String: Any])?["counted"] as? NSNumber)?.intValue == 3)
    #expect((twin["transactions"] as? [String: Any])?["unknown_ownership_excluded"] == nil)
  }

  @Test func localReceiptsSayWhatTheyCannotTell() throws {
    let file = "examples/app-receipt/entitlements-active.b64"
    let later = InProcessRunner.run([
      "entitlements", "--catalog", "examples/catalog.json", "--as-of", "2024-08-01", file,
    ])
    #expect(later.stdout.contains("holds no renewal state"), "\(later.stdout)")
    let now = InProcessRunner.run(["entitlements", "--catalog", "examples/catalog.json", file])
    #expect(now.stdout.contains("As of 2024-06-15T00:00:00Z (the receipt's creation date)"))
    #expect(now.stdout.contains("cannot say whether the customer or a family member bought it"))
    let intro = InProcessRunner.run(["intro-eligibility", "--product", "com.acme.pro.monthly", file])
    #expect(intro.stdout.contains("ineligible: ownership-unknown transaction 1000000801"), "\(intro.stdout)")
  }
}
