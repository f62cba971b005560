import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// A format that exists only in this test: one purchase per line, `transaction,product,ownership,purchased,expires`
/// under a `#purchases` header. It proves that a new input format is one `InputFormat` plus one registry
/// entry: the rules, renderers and commands read it with no change.
private struct PurchaseLinesFormat: InputFormat {
  static let identity = FormatIdentity(name: "purchase_lines", description: "test purchase lines")

  var name: String { "purchase lines (test)" }

  func recognition(of sniff: DocumentSniff) -> Recognition {
    sniff.prefix.starts(with: Array("#purchases\n".utf8)) ? .certain : .no
  }

  func decode(_ bytes: [UInt8], source: String, options: DecodeOptions) throws(ReceiptError) -> PurchaseHistory {
    var history = PurchaseHistory(format: Self.identity)
    var collector = TransactionCollector()
    let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst()
    for (index, line) in lines.enumerated() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 5, let purchased = Timestamp.parse(formatted: fields[3]) else {
        throw ReceiptError(
          .invalidValue, source: source, path: "line \(index + 2)", position: .lineColumn(line: index + 2, column: 1),
          message: "expected transaction,product,ownership,purchased,expires")
      }
      collector.add(
        PurchaseTransaction(
          transactionID: fields[0], productID: fields[1],
          ownership: fields[2] == "FAMILY_SHARED" ? .familyShared : .purchased, purchaseDate: purchased,
          expiresDate: Timestamp.parse(formatted: fields[4]), vocabulary: .test))
    }
    history.transactions = collector.transactions
    history.provenance.duplicateRowsMerged = collector.duplicates
    return history
  }
}

@Suite struct FormatSeamTests {
  static let registry = FormatRegistry(
    formats: [PurchaseLinesFormat()] + FormatRegistry.standard.formats, fallback: VerifyReceiptFormat())

  static let familyThenOwn = """
    #purchases
    2200,com.acme.pro.yearly,FAMILY_SHARED,2023-09-01,2024-09-01
    3100,com.acme.pro.yearly,PURCHASED,2024-03-02,2025-03-02
    3100,com.acme.pro.yearly,PURCHASED,2024-03-02,2025-03-02

    """

  @Test func theRegistryPicksTheFormatThatRecognisesTheBytes() {
    let bytes = Array(Self.familyThenOwn.utf8)
    #expect(Self.registry.format(for: bytes) is PurchaseLinesFormat)
    #expect(Self.registry.format(for: Array(#"{"status": 0}"#.utf8)) is VerifyReceiptFormat)
    // Without the entry, the same bytes go to the fallback format, which says why they are not its own.
    #expect(!(FormatRegistry.standard.format(for: bytes) is PurchaseLinesFormat))
  }

  @Test func everyCommandReadsANewFormatWithNoOtherChange() throws {
    let path = try InProcessRunner.temporaryFile(Array(Self.familyThenOwn.utf8), name: "customer.purchases")
    let entitlements = InProcessRunner.run(
      ["entitlements", path, "--as-of", "2024-06-15", "--format", "json"], formats: Self.registry)
    #expect(entitlements.status == .ok, "\(entitlements.stderr)")
    #expect(entitlements.stdout.contains(#""status": "active""#))
    #expect(entitlements.stdout.contains(#""transaction_id": "3100""#))

    let decode = InProcessRunner.run(["decode", path], formats: Self.registry)
    #expect(decode.status == .ok)
    #expect(decode.stdout.contains("test purchase lines"))
    #expect(decode.stdout.contains("1 duplicate rows merged"))

    // Revenue counts the purchaser's own transaction once, never the family copy.
    let revenue = InProcessRunner.run(["revenue", path, "--format", "json"], formats: Self.registry)
    #expect(revenue.status == .ok)
    #expect(revenue.stdout.contains(#""family_shared_excluded": 1"#))
    #expect(revenue.stdout.contains(#""counted": 1"#))

    // The standard registry does not know it: the fallback's one-line error, exit 65.
    let unknown = InProcessRunner.run(["entitlements", path])
    #expect(unknown.status == .dataError)
  }

  @Test func aFormatErrorNamesSourcePathAndPosition() throws {
    let path = try InProcessRunner.temporaryFile(Array("#purchases\n1,p\n".utf8), name: "broken.purchases")
    let result = InProcessRunner.run(["entitlements", path], formats: Self.registry)
    #expect(result.status == .dataError)
    #expect(result.stderr.contains("broken.purchases:2:1: line 2: expected transaction,product,ownership"))
  }
}
