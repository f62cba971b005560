import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// The map step (records per document) and the reduce step (`LedgerReduction`) against one machine's report.
@Suite struct LedgerReductionTests {
  typealias F = RevenueFixtures

  /// Two stored receipts of one customer: the later one repeats the first purchase and knows of a refund and an
  /// upgrade; a family-shared copy never counts.
  static func documents() -> [PurchaseHistory] {
    let first = PurchaseTransaction(
      transactionID: "10", originalTransactionID: "10", productID: "pro.monthly", quantity: 1,
      purchaseDate: F.day("2024-01-01"), expiresDate: F.day("2024-01-31"), vocabulary: .verifyReceipt)
    var upgraded = first
    upgraded.isUpgraded = true
    let yearly = PurchaseTransaction(
      transactionID: "11", originalTransactionID: "10", productID: "pro.yearly", quantity: 1,
      purchaseDate: F.day("2024-01-16"), expiresDate: F.day("2025-01-16"), vocabulary: .verifyReceipt)
    var coins = PurchaseTransaction(
      transactionID: "12", productID: "coins", quantity: 3, purchaseDate: F.day("2024-02-01"),
      vocabulary: .verifyReceipt)
    let shared = PurchaseTransaction(
      transactionID: "13", productID: "coins", ownership: .familyShared, quantity: 1,
      purchaseDate: F.day("2024-02-02"), vocabulary: .verifyReceipt)
    let a = F.document([first, coins], duplicateRows: 1)
    coins.revocation = F.day("2024-03-01").map { Revocation(date: $0) }
    let b = F.document([upgraded, yearly, coins, shared], duplicateRows: 2)
    return [a, b]
  }

  static func reduced(_ docs: [PurchaseHistory], repeat times: Int = 1, by grouping: RevenueGrouping = .month)
    throws -> RevenueReport
  {
    var records: [LedgerRecord] = []
    for (i, doc) in docs.enumerated() {
      var ledger = PurchaseLedger()
      ledger.add(doc)
      records += try ledger.records(catalog: F.catalog, copy: "doc\(i)")
    }
    var reduction = LedgerReduction()
    for _ in 0..<times {
      // Reversed, as a shuffle may deliver copies in any order.
      for r in records.reversed() { reduction.add(r) }
    }
    return try reduction.report(grouping: grouping, range: PurchaseDateRange(), commission: .standard)
  }

  @Test func reduceEqualsOneMachine() throws {
    let one = try F.report(Self.documents(), by: .month, commission: .standard)
    let reduced = try Self.reduced(Self.documents())
    #expect(reduced.currencies == one.currencies)
    #expect(reduced.counts == one.counts)
    // 1 + 2 rows within documents, 2 transactions (10 and 12) in both documents.
    #expect(one.counts.duplicatesMerged == 5)
    #expect(one.counts.familySharedExcluded == 1)
    // 3 coins at 0.99 refunded on 2024-03-01, dated by the refund.
    #expect(F.usd(reduced)?.groups.first { $0.key == "2024-03" }?.refunds == 297)
    // The monthly upgraded on 2024-01-16 with 15 of 30 days unused: half of 9.99, rounded half-up.
    #expect(F.usd(reduced)?.total.estimatedProrationRefunds == 500)
  }

  /// Charges of a year billed monthly (`commitmentInfo`), the first repeated in a second document: the commitment
  /// totals of the reduce step are one machine's, each charge and each commitment once.
  @Test func commitmentTotalsReduceAsOneMachine() throws {
    func charge(_ id: String, period: Int64, price: Int64?) -> PurchaseTransaction {
      var t = PurchaseTransaction(
        transactionID: id, originalTransactionID: "20", productID: "pro.monthly", quantity: 1,
        purchaseDate: F.day("2026-0\(period)-05"), expiresDate: F.day("2026-0\(period + 1)-05"),
        price: StatedPrice(amount: DecimalAmount(units: 999, scale: 2), currency: "USD"), vocabulary: .verifyReceipt)
      t.billing = BillingTerms(
        plan: .monthly,
        commitment: TransactionCommitment(
          billingPeriodNumber: period, totalBillingPeriods: 12,
          price: price.map { StatedPrice(amount: DecimalAmount(units: $0, scale: 2), currency: "USD") }))
      return t
    }
    let docs = [
      F.document([charge("20", period: 1, price: 11988)]),
      F.document([charge("20", period: 1, price: 11988), charge("21", period: 2, price: 11988)]),
    ]
    let one = try F.report(docs, by: .month, commission: .standard)
    let reduced = try Self.reduced(docs, repeat: 2)
    #expect(reduced.currencies == one.currencies)
    var expected = CommitmentTotals()
    (expected.charges, expected.chargesGross, expected.started, expected.committed) = (2, 1998, 1, 11988)
    #expect(F.usd(one)?.commitments == expected)
  }

  @Test func reduceIsIdempotent() throws {
    let once = try Self.reduced(Self.documents())
    let twice = try Self.reduced(Self.documents(), repeat: 2)
    #expect(twice.currencies == once.currencies)
    #expect(twice.counts == once.counts)
    #expect(twice.unpriced == once.unpriced)
  }
}

/// `LedgerCodec`: every field of a record survives a write and a read, plain and keyed.
@Suite struct LedgerCodecTests {
  @Test func everyFieldRoundTrips() throws {
    let at = try #require(Timestamp(milliseconds: 1_705_363_200_000))
    let records = [
      LedgerRecord(
        transactionID: "id\twith tab", copy: "0123456789abcdef", productID: "pro.monthly", ownership: .purchased,
        units: 2, purchaseDate: Timestamp(milliseconds: 1_704_067_200_000),
        refundDate: Timestamp(milliseconds: 1_706_745_600_000),
        price: .paid(Money(minorUnits: 999, currency: "USD"), basis: .introPrice), paidServiceBefore: 86_400_000,
        upgrade: .estimated(at: at, refund: 500), duplicateRows: 3,
        evidence: MoneyEvidence(verdict: .verified, anchor: .trustRoot, ownershipSigned: true)),
      LedgerRecord(
        transactionID: "6", copy: "c", productID: "coins", ownership: .purchased, units: 1, purchaseDate: nil,
        refundDate: nil, price: .paid(Money(minorUnits: 99, currency: "USD"), basis: .transactionPrice),
        paidServiceBefore: nil, upgrade: nil,
        evidence: MoneyEvidence(verdict: .invalid, anchor: nil, ownershipSigned: false)),
      LedgerRecord(
        transactionID: "7", copy: "c", productID: "theme", ownership: .unrecognized("ODD"), units: 1,
        purchaseDate: nil, refundDate: nil, price: .notValued, paidServiceBefore: nil, upgrade: nil),
      LedgerRecord(
        transactionID: "8", copy: "c", productID: "t", ownership: .familyShared, units: 1, purchaseDate: nil,
        refundDate: nil, price: .trial(currency: "JPY"), paidServiceBefore: 0, upgrade: .nothingToRefund),
      LedgerRecord(
        transactionID: "9", copy: "c", productID: "t", ownership: .unknown, units: 1, purchaseDate: nil,
        refundDate: nil, price: .unpriced, paidServiceBefore: nil, upgrade: .notEstimated),
      LedgerRecord(
        transactionID: "10", copy: "c", productID: "pro.yearly", ownership: .purchased, units: 1, purchaseDate: nil,
        refundDate: nil, price: .paid(Money(minorUnits: 999, currency: "USD"), basis: .transactionPrice),
        paidServiceBefore: nil, upgrade: nil,
        commitment: TransactionCommitment(
          billingPeriodNumber: 1, totalBillingPeriods: 12,
          price: StatedPrice(amount: DecimalAmount(units: 119_880, scale: 3), currency: "USD"))),
      LedgerRecord(
        transactionID: "11", copy: "c", productID: "pro.yearly", ownership: .purchased, units: 1, purchaseDate: nil,
        refundDate: nil, price: .unpriced, paidServiceBefore: nil, upgrade: nil,
        commitment: TransactionCommitment(
          price: StatedPrice(amount: DecimalAmount(units: -5, scale: 1), currency: "EUR"))),
      LedgerRecord(
        transactionID: "12", copy: "c", productID: "pro.yearly", ownership: .purchased, units: 1, purchaseDate: nil,
        refundDate: nil, price: .unpriced, paidServiceBefore: nil, upgrade: nil, commitment: TransactionCommitment()),
    ]
    for record in records {
      let line = LedgerCodec.write(.record(record))
      #expect(!line.contains("\n"))
      #expect(try LedgerCodec.read(Array(line.utf8), source: "t") == .record(record))
      let keyed = LedgerCodec.writeKeyed(.record(record))
      #expect(keyed.split(separator: "\t", omittingEmptySubsequences: false).count == 2)
      #expect(try LedgerCodec.read(Array(keyed.utf8), source: "t") == .record(record))
    }
    let error = LedgerCodec.Line.error(RevenueInputError(input: "-:3", message: "not JSON"))
    #expect(try LedgerCodec.read(Array(LedgerCodec.write(error).utf8), source: "t") == error)
  }

  @Test func aLineWithoutEvidenceIsNotRecordedAndABadOneIsNamed() throws {
    let old = #"{"id":"1","copy":"c","product":"p","ownership":"purchased","quantity":1,"value":"unpriced"}"#
    guard case .record(let r) = try LedgerCodec.read(Array(old.utf8), source: "t") else {
      Issue.record("not a record")
      return
    }
    #expect(r.evidence == .notRecorded)
    for bad in [
      #","signature":"approved","ownership_signed":true}"#, #","signature":"verified"}"#,
      #","signature":"verified","ownership_signed":true}"#,
      #","signature":"unsigned","anchor":"apple","ownership_signed":false}"#,
    ] {
      #expect(throws: ReceiptError.self) { try LedgerCodec.read(Array((old.dropLast() + bad).utf8), source: "t") }
    }
  }

  /// Every line names its schema version; a line of a later major version is refused by name, one without a
  /// version (written before versions were named) is read.
  @Test func aLineOfALaterSchemaVersionIsRefused() throws {
    let error = LedgerCodec.Line.error(RevenueInputError(input: "-:3", message: "not JSON"))
    let line = LedgerCodec.write(error)
    #expect(line.hasPrefix(#"{"schema_version":1,"#))
    let later = line.replacingOccurrences(of: #""schema_version":1"#, with: #""schema_version":2"#)
    #expect {
      try LedgerCodec.read(Array(later.utf8), source: "t")
    } throws: { e in
      "\(e)".contains("schema_version") && "\(e)".contains("2 is a later schema version")
    }
    let unversioned = line.replacingOccurrences(of: #""schema_version":1,"#, with: "")
    #expect(try LedgerCodec.read(Array(unversioned.utf8), source: "t") == error)
    let report = RevenueReportCodec.write(RevenueReport(hasProceeds: false)).rendered()
    let laterReport = report.replacingOccurrences(of: #""schema_version": 1"#, with: #""schema_version": 3"#)
    #expect(laterReport != report)
    #expect(throws: ReceiptError.self) { try RevenueReportCodec.read(Array(laterReport.utf8), source: "t") }
    #expect(throws: Never.self) { try RevenueReportCodec.read(Array(report.utf8), source: "t") }
  }

  @Test func aBadMemberIsNamed() {
    #expect(throws: ReceiptError.self) {
      try LedgerCodec.read(Array(#"{"id":"1","copy":"c","product":"p","ownership":"maybe"}"#.utf8), source: "t")
    }
  }
}
