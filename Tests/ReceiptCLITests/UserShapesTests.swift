import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The benchmark's user shapes (issue 42): the same bytes on every run, and every line a document the tool
/// reads, its signatures verifying with the test chain.
@Suite struct UserShapesTests {
  static let signer = TestChainSigner()

  /// Every generator's first lines, twice.
  static func lines(_ signer: TestChainSigner) -> [String: [String]] {
    [
      "one-transaction": (0..<5).map { UserShapes.oneTransactionBody(index: $0) },
      "customers": (0..<5).map { UserShapes.customerBody(index: $0) },
      "signed": (0..<5).map { UserShapes.signedTransactionLine(index: $0, customers: 3, signer: signer) },
      "notifications": (0..<3).map { UserShapes.notificationLine(index: $0, customers: 2, signer: signer) },
      "pages": (0..<2).map { UserShapes.historyPageLine(index: $0, pageSize: 3, signer: signer) },
    ]
  }

  @Test func generators_are_deterministic() throws {
    let signer = try #require(Self.signer, "the test chain under Tests/ExampleSigning")
    #expect(Self.lines(signer) == Self.lines(signer))
    #expect(UserShapes.customerBody(index: 7) != UserShapes.customerBody(index: 8))
    #expect(UserShapes.catalog == UserShapes.catalog)
  }

  @Test func customers_have_1_to_60_transactions_mean_about_8() {
    let sizes = (0..<3_000).map { UserShapes.customerTransactions(index: $0) }
    #expect(sizes.allSatisfy { (1...60).contains($0) })
    let mean = Double(sizes.reduce(0, +)) / Double(sizes.count)
    #expect((7.0...9.0).contains(mean), "mean \(mean)")
    #expect(UserShapes.customerBody(index: 0).contains("\"pending_renewal_info\":[{"))
  }

  /// Each file of lines is read one document per line (--ndjson, as the benchmark reads bare tokens), with the
  /// catalog, and every signature verifies.
  @Test(arguments: ["one-transaction", "customers", "signed", "notifications", "pages"])
  func every_line_decodes_and_verifies(_ name: String) throws {
    let signer = try #require(Self.signer, "the test chain under Tests/ExampleSigning")
    let lines = try #require(Self.lines(signer)[name])
    let path = try InProcessRunner.temporaryFile(Array((lines.joined(separator: "\n") + "\n").utf8))
    let catalog = try InProcessRunner.temporaryFile(Array(UserShapes.catalog.utf8), name: "catalog.json")
    // verifyReceipt bodies carry no signature to require (their latest_receipt is filler).
    let signed = !["one-transaction", "customers"].contains(name)
    let result = InProcessRunner.run(
      ["entitlements", "--format", "ndjson", "--ndjson", "--catalog", catalog, "--trust-root", signer.trustRoot]
        + (signed ? ["--require-signature"] : []) + [path])
    #expect(result.status == .ok, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").count == lines.count, "\(result.stdout)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }
}
