import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The revenue command run in process; the rest of RevenueFixtures is in ReceiptTestSupport.
extension RevenueFixtures {
  /// Runs `receipt-tool <arguments>` in-process, examples/ paths relative to the repository root, with `catalog` instead of --catalog.
  static func run(_ arguments: [String], catalog: Catalog) throws -> (
    stdout: String, stderr: String, status: ReceiptCLI.ExitStatus
  ) {
    let dir = Scratch.directory.appendingPathComponent("revenue-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let outPath = dir.appendingPathComponent("out").path
    let errPath = dir.appendingPathComponent("err").path
    let outFD = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let errFD = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let context = CommandContext(
      environment: ProcessEnvironment(variables: ["NO_COLOR": "1", "COLUMNS": "80"], stdoutIsTerminal: false),
      stdout: OutputSink(fd: outFD), stderr: OutputSink(fd: errFD, bufferSize: 0))
    // Paths relative to the repository root, without changing the process's directory under parallel tests.
    let arguments = arguments.map {
      $0.hasPrefix("examples/") ? TestPaths.packageRoot.appendingPathComponent($0).path : $0
    }
    var status: ReceiptCLI.ExitStatus
    do throws(ReceiptToolError) {
      let parsed = try ArgumentParsing.parse(
        Array(arguments.dropFirst()), options: RevenueCommand.configuration.options, command: "revenue")
      let command = try RevenueCommand(parsed)
      try command.validate()
      status = try command.run(context, catalog: catalog)
    } catch {
      context.report(error)
      status = error.exitStatus
    }
    context.stdout.flush()
    context.stderr.flush()
    close(outFD)
    close(errFD)
    return (
      try String(contentsOfFile: outPath, encoding: .utf8), try String(contentsOfFile: errPath, encoding: .utf8), status
    )
  }
}

/// Currencies kept apart by the rules and by the report's codec.
@Suite struct RevenueCurrencyTests {
  typealias F = RevenueFixtures

  @Test func currenciesAreKeptApart() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(transactionID: "1", productID: "coins", vocabulary: .test),
        PurchaseTransaction(transactionID: "2", productID: "theme", vocabulary: .test),
      ])
    ])
    #expect(r.currencies.map(\.currency) == ["JPY", "USD"])
    #expect(r.currencies.map(\.total.gross) == [300, 99])
    let json = RevenueReportCodec.write(r).rendered()
    #expect(json.contains("\"gross\": \"300\""))
    #expect(json.contains("\"gross\": \"0.99\""))
  }

}

@Suite struct RevenueCommandTests {
  typealias F = RevenueFixtures
  static let family = [
    "examples/revenue-family-purchaser.json", "examples/revenue-family-purchaser-notification.json",
    "examples/revenue-family-member-1.json", "examples/revenue-family-member-2.json",
  ]

  /// The recorded goldens in Tests/CLITests/revenue-*/ match the command run with the example catalog.
  @Test(arguments: ["revenue-family-text", "revenue-family-json", "revenue-family-csv"])
  func goldenMatches(_ name: String) throws {
    let dir = TestPaths.packageRoot.appendingPathComponent("Tests/CLITests/\(name)")
    let cmd = try String(contentsOf: dir.appendingPathComponent("cmd"), encoding: .utf8)
    var args = cmd.split(separator: " ").map(String.init).filter { !$0.isEmpty }
    args = args.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    // --catalog FILE is read by the catalog loader; here the same catalog is built in test code.
    if let i = args.firstIndex(of: "--catalog") { args.removeSubrange(i...(i + 1)) }
    let result = try F.run(args, catalog: F.exampleCatalog())
    if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] != nil {
      try result.stdout.write(to: dir.appendingPathComponent("stdout"), atomically: true, encoding: .utf8)
      try result.stderr.write(to: dir.appendingPathComponent("stderr"), atomically: true, encoding: .utf8)
      try "\(result.status.rawValue)\n".write(
        to: dir.appendingPathComponent("status"), atomically: true, encoding: .utf8)
    }
    #expect(result.stdout == (try String(contentsOf: dir.appendingPathComponent("stdout"), encoding: .utf8)))
    #expect(result.stderr == (try String(contentsOf: dir.appendingPathComponent("stderr"), encoding: .utf8)))
    #expect(
      "\(result.status.rawValue)\n" == (try String(contentsOf: dir.appendingPathComponent("status"), encoding: .utf8)))
  }

  @Test func familyExampleCountsOnlyThePurchasersOwn() throws {
    let result = try F.run(["revenue"] + Self.family + ["--format", "json"], catalog: F.exampleCatalog())
    #expect(result.status == .ok)
    let json = try JSONValue.parse(Array(result.stdout.utf8))
    let counts = json.member("transactions")
    #expect(counts?.member("family_shared_excluded") == .number("5"))
    // Purchaser 8 distinct (trial, 4 renewals, lifetime, coins, stickers) + member 2's own 2.
    #expect(counts?.member("counted") == .number("10"))
  }

  @Test func mergeOfTwoPartsEqualsOneRun() throws {
    let catalog = try F.exampleCatalog()
    let dir = Scratch.directory.appendingPathComponent("revenue-merge-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let options = ["--format", "json", "--commission", "standard", "--by", "month"]
    let partA = try F.run(["revenue"] + Self.family.prefix(2) + options, catalog: catalog)
    let partB = try F.run(["revenue"] + Self.family.dropFirst(2) + options, catalog: catalog)
    let whole = try F.run(["revenue"] + Self.family + options, catalog: catalog)
    let a = dir.appendingPathComponent("a.json")
    let b = dir.appendingPathComponent("b.json")
    try partA.stdout.write(to: a, atomically: true, encoding: .utf8)
    try partB.stdout.write(to: b, atomically: true, encoding: .utf8)
    let merged = try F.run(["revenue", "--merge", a.path, b.path, "--format", "json"], catalog: Catalog())
    #expect(merged.status == .ok)
    // The identities differ (a merged report lists its parts); the numbers are the same.
    func numbers(_ json: String) -> String { json.components(separatedBy: "\"part\"")[0] }
    #expect(numbers(merged.stdout) == numbers(whole.stdout))
    #expect(merged.stdout.contains("\"part\""))
    #expect(partA.stdout != whole.stdout)
  }

  @Test func unreadableDocumentsAreListedAndExit65() throws {
    let result = try F.run(
      ["revenue", "examples/revenue-catalog.json", Self.family[0], "--format", "json"], catalog: F.exampleCatalog())
    #expect(result.status == .dataError)
    #expect(result.stderr.contains("examples/revenue-catalog.json"))
    let json = try JSONValue.parse(Array(result.stdout.utf8))
    guard case .array(let errors)? = json.member("errors") else {
      Issue.record("no errors array")
      return
    }
    #expect(errors.count == 1)
    #expect(json.member("transactions")?.member("counted") == .number("7"))
  }

  @Test func badTimeIsAUsageError() throws {
    let result = try F.run(["revenue", "--from", "yesterday"], catalog: Catalog())
    #expect(result.status == .usage)
  }
}

@Suite struct RevenueMergeTests {
  typealias F = RevenueFixtures

  @Test func readerRoundTripsTheJSON() throws {
    let r = try F.report(
      [
        F.document([
          PurchaseTransaction(
            transactionID: "1", productID: "coins", quantity: 3,
            revocation: F.day("2024-01-02").map { Revocation(date: $0) }, vocabulary: .test),
          PurchaseTransaction(transactionID: "2", productID: "theme", vocabulary: .test),
          PurchaseTransaction(transactionID: "3", productID: "mystery", vocabulary: .test),
          PurchaseTransaction(
            transactionID: "4", productID: "pro.monthly", ownership: .familyShared, vocabulary: .test),
        ])
      ], commission: .smallBusiness)
    let json = RevenueReportCodec.write(r)
    let back = try RevenueReportCodec.read(Array(json.rendered().utf8), source: "part.json")
    #expect(RevenueReportCodec.write(back) == json)
    #expect(back.counts == r.counts)
  }

  @Test func backedMoneyRoundTripsAndAPartWithoutItIsNotRecorded() throws {
    var verified = SignatureCheck(.verified)
    verified.anchor = .trustRoot
    var signed = PurchaseTransaction(
      transactionID: "1", productID: "coins", purchaseDate: F.day("2024-01-01"),
      price: StatedPrice(amount: DecimalAmount(units: 1990, scale: 3), currency: "USD"), sources: .signedTransaction,
      vocabulary: .test)
    signed.signedDate = F.day("2024-01-02")
    var doc = F.document([signed])
    doc.provenance.signatureCheck = verified
    let unsigned = F.document([PurchaseTransaction(transactionID: "2", productID: "coins", vocabulary: .test)])
    let r = try F.report([doc, unsigned], commission: .standard)
    let json = RevenueReportCodec.write(r)
    let back = try RevenueReportCodec.read(Array(json.rendered().utf8), source: "part.json")
    #expect(RevenueReportCodec.write(back) == json)
    let usd = try #require(F.usd(back)?.backing)
    #expect(usd.backedThroughTrustRoot.gross == 199)
    #expect(usd.notBacked[.unsigned]?.gross == 99)
    // A part made before backing was recorded: its money counts as not recorded, none of it backed.
    let old =
      #"{"currencies":[{"currency":"USD","gross":"0.99","refunds":"0.00","net":"0.99","groups":[{"key":"k","units":1,"trials":0,"refunded":0,"gross":"0.99","refunds":"0.00","net":"0.99"}]}],"transactions":{"counted":1,"family_shared_excluded":0,"duplicates_merged":0,"refunded":0,"trials":0,"unpriced":0,"unrecognized_ownership_excluded":0,"undated_excluded":0},"unpriced":[],"errors":[]}"#
    let read = try RevenueReportCodec.read(Array(old.utf8), source: "old.json")
    #expect(F.usd(read)?.backing.notBacked[.notRecorded]?.gross == 99)
    #expect(F.usd(read)?.backing.backed.gross == 0)
    // Reasons that do not add up to not_backed are refused.
    let text = json.rendered()
    let edited = text.replacingOccurrences(of: #""reason": "unsigned""#, with: #""reason": "catalog_price""#)
    #expect(edited != text)
    _ = try RevenueReportCodec.read(Array(edited.utf8), source: "e.json")
    // Backed figures that are whole in themselves but more than the currency counted are refused.
    let inflated = text.replacingOccurrences(of: #""gross": "1.99""#, with: #""gross": "9.99""#)
      .replacingOccurrences(of: #""net": "1.99""#, with: #""net": "9.99""#)
    #expect(inflated != text)
    #expect(throws: ReceiptError.self) { try RevenueReportCodec.read(Array(inflated.utf8), source: "i.json") }
  }

  @Test func readerNamesThePathOfABadAmount() {
    let bad =
      #"{"currencies":[{"currency":"USD","groups":[{"key":"k","units":1,"trials":0,"refunded":0,"gross":"9.9","refunds":"0.00"}]}]}"#
    #expect(
      throws: ReceiptError.field(
        source: "p.json", path: "currencies[0].groups[0].gross",
        message: #"expected a USD amount with 2 decimals, found "9.9""#, line: nil, column: nil)
    ) { try RevenueReportCodec.read(Array(bad.utf8), source: "p.json") }
  }
}

@Suite struct RevenueTextTests {
  @Test func commissionTableFitsEightyColumns() throws {
    let result = try RevenueFixtures.run(
      ["revenue"] + RevenueCommandTests.family + ["--commission", "standard"], catalog: RevenueFixtures.exampleCatalog()
    )
    #expect(result.status == .ok)
    let lines = result.stdout.split(separator: "\n")
    #expect(lines.allSatisfy { $0.count <= 80 })
    let total = try #require(lines.first { $0.hasPrefix("  total") && $0.contains("74.90") })
    #expect(total.hasSuffix("45.43"))
    #expect(lines.contains { $0.contains("proceeds") })
  }
}
