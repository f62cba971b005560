import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// A page with `hasMore` true answers for itself and says so; `--require`/`--expect` fail on it unless
/// `--allow-partial`, and pages read with `--one-customer` up to the last one are whole.
@Suite struct PartialHistoryTests {
  static let transaction = #"""
    {"transactionId":"1","originalTransactionId":"1","productId":"pro.monthly","purchaseDate":1717200000000,
    "expiresDate":1719792000000,"signedDate":1717200001000,"type":"Auto-Renewable Subscription",
    "inAppOwnershipType":"PURCHASED","environment":"Sandbox"}
    """#
  static let renewal = #"""
    {"transactionId":"2","originalTransactionId":"1","productId":"pro.monthly","purchaseDate":1719792000000,
    "expiresDate":1722470400000,"signedDate":1719792001000,"type":"Auto-Renewable Subscription",
    "inAppOwnershipType":"PURCHASED","environment":"Sandbox"}
    """#

  static func page(_ transaction: String, hasMore: Bool, revision: String) -> String {
    let jws = SignedDataFixtures.jws(transaction)
    return #"{"revision":"\#(revision)","hasMore":\#(hasMore),"bundleId":"b","signedTransactions":["\#(jws)"]}"#
  }

  static func file(_ text: String) throws -> String {
    let url = Scratch.directory.appendingPathComponent("page-\(UUID().uuidString).json")
    try Data(text.utf8).write(to: url)
    return url.path
  }

  @Test func aPartialPageFailsTheCheckUnlessAllowed() throws {
    let first = try Self.file(Self.page(Self.transaction, hasMore: true, revision: "r1"))
    let base = ["entitlements", "--as-of", "2024-06-15T00:00:00Z", "--require", "pro.monthly", first]
    let strict = InProcessRunner.run(base)
    #expect(strict.status == .checkFailed)
    #expect(strict.stdout.contains("This is a partial history: hasMore is true"))
    #expect(strict.stderr.contains("--require pro.monthly is not checked against a partial history"))
    let allowed = InProcessRunner.run(base + ["--allow-partial"])
    #expect(allowed.status == .ok, "\(allowed.stderr)")
    #expect(allowed.stderr.contains("a partial history"))
    let intro = InProcessRunner.run(["intro-eligibility", "--expect", "ineligible", first])
    #expect(intro.status == .checkFailed)
    #expect(intro.stderr.contains("--expect ineligible is not checked against a partial history"))
  }

  @Test func pagesReadUpToTheLastAreWhole() throws {
    let first = try Self.file(Self.page(Self.transaction, hasMore: true, revision: "r1"))
    let last = try Self.file(Self.page(Self.renewal, hasMore: false, revision: "r2"))
    let args = ["entitlements", "--as-of", "2024-07-15T00:00:00Z", "--require", "pro.monthly", "--one-customer"]
    let whole = InProcessRunner.run(args + [first, last])
    #expect(whole.status == .ok, "\(whole.stderr)")
    #expect(!whole.stdout.contains("partial"))
    let partial = InProcessRunner.run(args + [first])
    #expect(partial.status == .checkFailed)
  }
}
