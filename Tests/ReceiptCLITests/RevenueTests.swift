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

@Suite struct RevenueValuationTests {
  typealias F = RevenueFixtures

  @Test func catalogPriceTimesQuantity() throws {
    let t = PurchaseTransaction(transactionID: "1", productID: "coins", quantity: 5, vocabulary: .test)
    #expect(try valueOf(t, catalog: F.catalog) == .paid(Money(minorUnits: 495, currency: "USD"), basis: .catalogPrice))
    let noQuantity = PurchaseTransaction(transactionID: "2", productID: "coins", quantity: nil, vocabulary: .test)
    #expect(
      try valueOf(noQuantity, catalog: F.catalog) == .paid(Money(minorUnits: 99, currency: "USD"), basis: .catalogPrice)
    )
  }

  @Test func trialIsZeroAndIntroUsesIntroPrice() throws {
    let trial = PurchaseTransaction(transactionID: "1", productID: "pro.monthly", offer: .freeTrial, vocabulary: .test)
    #expect(try valueOf(trial, catalog: F.catalog) == .trial(currency: "USD"))
    let intro = PurchaseTransaction(
      transactionID: "2", productID: "pro.yearly", offer: .introductoryPrice, vocabulary: .test)
    #expect(
      try valueOf(intro, catalog: F.catalog) == .paid(Money(minorUnits: 1999, currency: "USD"), basis: .introPrice))
    // An intro period whose catalog offer has no price is unpriced, not valued at the full price.
    var noIntroPrice = F.usdYearlyIntro
    noIntroPrice.introOffer?.price = nil
    let value = try valueOf(intro, catalog: Catalog([noIntroPrice]))
    guard case .unpriced = value else {
      Issue.record("expected unpriced, got \(value)")
      return
    }
  }

  @Test func unknownProductIsUnpriced() throws {
    let value = try valueOf(
      PurchaseTransaction(transactionID: "1", productID: "mystery", vocabulary: .test), catalog: F.catalog)
    guard case .unpriced(let reason) = value else {
      Issue.record("expected unpriced, got \(value)")
      return
    }
    #expect(reason.contains("not in the catalog"))
  }

  @Test func priceWithMoreDecimalsThanTheCurrencyFails() {
    let bad = CatalogProduct(
      productID: "x", type: .consumable, price: DecimalAmount(units: 3005, scale: 1), currency: "JPY")
    #expect(throws: ReceiptError.self) {
      try valueOf(PurchaseTransaction(transactionID: "1", productID: "x", vocabulary: .test), catalog: Catalog([bad]))
    }
  }

  @Test func moneyTextUsesMinorDigits() {
    #expect(Money(minorUnits: 2997, currency: "USD").text == "29.97")
    #expect(Money(minorUnits: 300, currency: "JPY").text == "300")
    #expect(Money(minorUnits: 1250, currency: "KWD").text == "1.250")
    #expect(Money(parsing: "29.97", currency: "USD")?.minorUnits == 2997)
    #expect(Money(parsing: "29.9", currency: "USD") == nil)
    #expect(Money(parsing: "-0.50", currency: "USD")?.minorUnits == -50)
  }
}

@Suite struct RevenueAggregationTests {
  typealias F = RevenueFixtures

  @Test func familySharedExcludedWhilePurchaserCounted() throws {
    let purchaser = F.document([
      PurchaseTransaction(
        transactionID: "p1", productID: "pro.monthly", ownership: .purchased, purchaseDate: F.day("2024-01-08"),
        vocabulary: .test)
    ])
    let member = F.document([
      PurchaseTransaction(
        transactionID: "m1", productID: "pro.monthly", ownership: .familyShared, purchaseDate: F.day("2024-01-08"),
        vocabulary: .test)
    ])
    let odd = F.document([
      PurchaseTransaction(
        transactionID: "u1", productID: "pro.monthly", ownership: .unrecognized("GIFTED"), vocabulary: .test)
    ])
    let r = try F.report([purchaser, member, odd])
    #expect(r.counts.counted == 1)
    #expect(r.counts.familySharedExcluded == 1)
    #expect(r.counts.unrecognizedOwnershipExcluded == 1)
    #expect(F.usd(r)?.total.gross == 999)
    #expect(F.usd(r)?.total.units == 1)
  }

  @Test func duplicatesAcrossArraysAndDocumentsCountOnce() throws {
    let t = PurchaseTransaction(
      transactionID: "p1", productID: "coins", purchaseDate: F.day("2024-01-08"), vocabulary: .test)
    // The decoder merged one in_app/latest_receipt_info pair in each document.
    let a = F.document([t], duplicateRows: 1)
    var later = t
    later.revocation = F.day("2024-01-09").map { Revocation(date: $0) }
    let b = F.document([later], duplicateRows: 1)
    let r = try F.report([a, b])
    #expect(r.counts.counted == 1)
    #expect(r.counts.duplicatesMerged == 3)
    // The later copy knew of the refund.
    #expect(r.counts.refunded == 1)
    #expect(F.usd(r)?.total.gross == 99)
  }

  @Test func refundsCountInGrossAndRefunds() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(
          transactionID: "1", productID: "coins", quantity: 2, purchaseDate: F.day("2024-01-01"),
          revocation: F.day("2024-01-02").map { Revocation(date: $0) }, vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", productID: "coins", purchaseDate: F.day("2024-01-03"), vocabulary: .test),
      ])
    ])
    let total = try #require(F.usd(r)?.total)
    #expect(total.gross == 297)
    #expect(total.refunds == 198)
    #expect(total.net == 99)
    #expect(total.refunded == 2)
    #expect(r.counts.refunded == 1)
  }

  @Test func trialsAreCountedAtZero() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(
          transactionID: "1", productID: "pro.monthly", purchaseDate: F.day("2024-01-01"), offer: .freeTrial,
          vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", originalTransactionID: "1", productID: "pro.monthly", purchaseDate: F.day("2024-01-08"),
          vocabulary: .test),
      ])
    ])
    let total = try #require(F.usd(r)?.total)
    #expect(total.units == 2)
    #expect(total.trials == 1)
    #expect(total.gross == 999)
    #expect(r.counts.trials == 1)
    #expect(r.counts.counted == 2)
  }

  @Test func introPricePeriods() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(
          transactionID: "1", productID: "pro.yearly", purchaseDate: F.day("2024-01-01"), offer: .introductoryPrice,
          vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", originalTransactionID: "1", productID: "pro.yearly", purchaseDate: F.day("2025-01-01"),
          vocabulary: .test),
      ])
    ])
    let gross = try #require(F.usd(r)?.total.gross)
    #expect(gross == Int64(1999 + 4999))
  }

  @Test func unpricedProductsAreListedNotZero() throws {
    let r = try F.report([
      F.document([
        PurchaseTransaction(transactionID: "1", productID: "mystery", quantity: 2, vocabulary: .test),
        PurchaseTransaction(transactionID: "2", productID: "mystery", vocabulary: .test),
        PurchaseTransaction(transactionID: "3", productID: "coins", vocabulary: .test),
      ])
    ])
    #expect(r.counts.unpriced == 2)
    #expect(r.counts.counted == 3)
    #expect(r.unpricedProducts.map(\.productID) == ["mystery"])
    #expect(r.unpricedProducts.first?.units == 3)
    #expect(F.usd(r)?.groups.map(\.key) == ["coins"])
  }

  @Test func consumableQuantity() throws {
    let r = try F.report([
      F.document([PurchaseTransaction(transactionID: "1", productID: "coins", quantity: 7, vocabulary: .test)])
    ])
    #expect(F.usd(r)?.total.units == 7)
    #expect(F.usd(r)?.total.gross == 693)
  }

  @Test func groupingByMonthAndRange() throws {
    let docs = [
      F.document([
        PurchaseTransaction(
          transactionID: "1", productID: "coins", purchaseDate: F.day("2024-01-31"), vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", productID: "coins", purchaseDate: F.day("2024-02-01"), vocabulary: .test),
        PurchaseTransaction(
          transactionID: "3", productID: "coins", purchaseDate: F.day("2024-02-29"), vocabulary: .test),
        PurchaseTransaction(transactionID: "4", productID: "coins", purchaseDate: nil, vocabulary: .test),
      ])
    ]
    let r = try F.report(docs, by: .month)
    #expect(F.usd(r)?.groups.map(\.key) == ["2024-01", "2024-02", "undated"])
    #expect(F.usd(r)?.groups.map(\.units) == [1, 2, 1])
    let feb = try F.report(
      docs, by: .month, range: PurchaseDateRange(from: F.day("2024-02-01"), to: F.day("2024-03-01")))
    #expect(F.usd(feb)?.groups.map(\.key) == ["2024-02"])
    #expect(feb.counts.counted == 2)
    #expect(feb.counts.undatedExcluded == 1)
  }

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

@Suite struct CommissionTests {
  typealias F = RevenueFixtures

  @Test func roundingHalfUpPerTransaction() throws {
    // 9.99 at 30%: commission 2.997 rounds to 3.00.
    #expect(try proceeds(of: 999, commissionPercent: 30) == 699)
    #expect(try proceeds(of: 999, commissionPercent: 15) == 849)  // 1.4985 → 1.50
    #expect(try proceeds(of: 10, commissionPercent: 15) == 8)  // 1.5 → 2
    #expect(commissionPercent(plan: .smallBusiness, paidServiceBefore: nil) == 15)
    #expect(commissionPercent(plan: .standard, paidServiceBefore: nil) == 30)
  }

  /// A monthly subscriber: a trial week, then 13 paid months. Paid service reaches a year at
  /// the 13th paid month (the trial week does not count), whose proceeds are at 15%.
  @Test func standardCrossesTheFirstPaidYear() throws {
    var transactions = [
      PurchaseTransaction(
        transactionID: "t0", originalTransactionID: "t0", productID: "pro.monthly",
        purchaseDate: F.day("2023-01-01"), expiresDate: F.day("2023-01-08"), offer: .freeTrial, vocabulary: .test)
    ]
    var start = try #require(F.day("2023-01-08"))
    for i in 1...13 {
      let end = try #require(ISOPeriod("P1M")?.added(to: start))
      transactions.append(
        PurchaseTransaction(
          transactionID: "t\(i)", originalTransactionID: "t0", productID: "pro.monthly", purchaseDate: start,
          expiresDate: end, vocabulary: .test))
      start = end
    }
    let r = try F.report([F.document(transactions)], by: .day, commission: .standard)
    let groups = try #require(F.usd(r)?.groups)
    #expect(groups.count == 14)
    // 12 paid months (2023-01-08 … 2024-01-08) reach 365 days, so the 13th month is at 15%.
    let proceedsByMonth = groups.map { $0.proceeds ?? -1 }
    #expect(proceedsByMonth.first == 0)  // the trial
    #expect(proceedsByMonth.dropFirst().dropLast().allSatisfy { $0 == 699 })
    #expect(proceedsByMonth.last == 849)
    let total = try #require(F.usd(r)?.total.proceeds)
    #expect(total == Int64(12 * 699 + 849))
    // Small business: 15% everywhere.
    let small = try F.report([F.document(transactions)], commission: .smallBusiness)
    let smallTotal = try #require(F.usd(small)?.total.proceeds)
    #expect(smallTotal == Int64(13 * 849))
  }

  @Test func refundedTransactionsHaveNoProceeds() throws {
    let r = try F.report(
      [
        F.document([
          PurchaseTransaction(
            transactionID: "1", productID: "coins", revocation: F.day("2024-01-02").map { Revocation(date: $0) },
            vocabulary: .test),
          PurchaseTransaction(transactionID: "2", productID: "coins", vocabulary: .test),
        ])
      ], commission: .standard)
    #expect(F.usd(r)?.total.proceeds == 69)
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

  @Test func mergeRejectsPartsWithAndWithoutProceeds() throws {
    let docs = [F.document([PurchaseTransaction(transactionID: "1", productID: "coins", vocabulary: .test)])]
    var merged = try F.report(docs, commission: .standard)
    #expect(throws: ReceiptError.self) { try merged.merge(try F.report(docs)) }
  }

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
