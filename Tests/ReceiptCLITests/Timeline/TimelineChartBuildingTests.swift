import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The chart `timeline` draws, built from purchase histories whose facts are written out here (or read by
/// eye from the example files): the bars restate the data and the lanes carry `entitlements`' answers.
@Suite struct TimelineChartBuildingTests {
  static func at(_ text: String) -> Timestamp {
    Timestamp.parse(formatted: text) ?? Timestamp(unchecked: 0)
  }

  static func chart(_ history: PurchaseHistory, at time: String, catalog: Catalog = Catalog()) -> TimelineChart {
    let evaluation = EvaluationTime(time: at(time), source: .given)
    let results = entitlementStatuses(of: history, catalog: catalog, at: evaluation.time).map(
      CommandLineHints.adding(to:))
    return TimelineChartBuilding.chart(
      history: history, results: results, catalog: catalog, evaluation: evaluation, label: "customer.json")
  }

  static func history(_ transactions: [PurchaseTransaction], renewals: [RenewalState] = []) -> PurchaseHistory {
    var history = PurchaseHistory(format: FormatIdentity(name: "test", description: "test document"))
    history.transactions = transactions
    history.renewals = renewals
    return history
  }

  @Test func familyRevokedButPurchasedExample() throws {
    let bytes = try Data(
      contentsOf: TestPaths.packageRoot.appendingPathComponent("examples/family-revoked-but-purchased.json"))
    let history = try FormatRegistry.standard.decode(Array(bytes), source: "x", options: DecodeOptions())
    let chart = Self.chart(history, at: "2024-06-15")
    #expect(chart.lanes.map(\.label) == ["com.acme.pro.yearly"])
    let lane = try #require(chart.lanes.first)
    #expect(lane.status == "active" && lane.tone == .good)
    #expect(lane.reason.hasPrefix("Family Sharing access to com.acme.pro.yearly was revoked on 2024-03-01T18:20:11Z"))
    let shared = try #require(lane.bars.first { $0.transactionID == "2200000101" })
    #expect(shared.ownership == .familyShared)
    #expect(shared.start == Self.at("2023-09-01T10:00:00Z"))
    #expect(shared.end == .expires(Self.at("2024-09-01T10:00:00Z")))
    #expect(shared.cancellation?.kind == .revocation && shared.cancellation?.date == Self.at("2024-03-01T18:20:11Z"))
    #expect(shared.cancellation?.detail == "another reason, cancellation_reason 0")
    let own = try #require(lane.bars.first { $0.transactionID == "3100" })
    #expect(own.ownership == .owned && own.cancellation == nil && own.period == .regular)
    #expect(own.end == .expires(Self.at("2025-03-02T09:14:05Z")))
    #expect(own.fields.contains(TimelineField("in_app_ownership_type", "PURCHASED")))
    #expect(chart.provenance.fields.contains(TimelineField("bundle id", "com.acme.notes")))
    // Read without a verifier: its latest_receipt was not looked at.
    #expect(chart.provenance.signature?.verdict == .notChecked)
    #expect(chart.evaluationMomentSource == "given with --as-of")
  }

  @Test func trialsRefundsUpgradesAndRenewalZones() throws {
    let history = Self.history(
      [
        PurchaseTransaction(
          transactionID: "1", originalTransactionID: "1", productID: "monthly", purchaseDate: Self.at("2024-05-01"),
          expiresDate: Self.at("2024-05-08"), offer: .freeTrial, vocabulary: .test),
        PurchaseTransaction(
          transactionID: "2", originalTransactionID: "1", productID: "monthly", purchaseDate: Self.at("2024-05-08"),
          expiresDate: Self.at("2024-06-08"), vocabulary: .test),
        // Old receipts also set cancellation_date on an upgrade: the rule reads it as upgraded, and so does the bar.
        PurchaseTransaction(
          transactionID: "3", productID: "basic", purchaseDate: Self.at("2024-01-01"),
          expiresDate: Self.at("2024-02-01"), revocation: Revocation(date: Self.at("2024-01-15")), isUpgraded: true,
          vocabulary: .test),
        PurchaseTransaction(
          transactionID: "4", productID: "yearly", purchaseDate: Self.at("2024-01-01"),
          expiresDate: Self.at("2025-01-01"), revocation: Revocation(date: Self.at("2024-01-05"), reason: .appIssue),
          offer: .introductoryPrice, vocabulary: .test),
      ],
      renewals: [
        RenewalState(
          originalTransactionID: "1", isInBillingRetryPeriod: true, gracePeriodExpiresDate: Self.at("2024-06-24"),
          vocabulary: .test)
      ])
    let chart = Self.chart(history, at: "2024-06-15")
    let bars = Dictionary(uniqueKeysWithValues: chart.allBars.map { ($0.transactionID, $0) })
    #expect(bars["1"]?.period == .freeTrial && bars["1"]?.zones == [])
    // The renewal info speaks of the chain's newest period only.
    #expect(
      bars["2"]?.zones == [
        TimelineZone(kind: .billingRetry, start: Self.at("2024-06-08")),
        TimelineZone(kind: .gracePeriod, start: Self.at("2024-06-08"), end: Self.at("2024-06-24")),
      ])
    #expect(bars["3"]?.upgraded == true && bars["3"]?.cancellation == nil)
    #expect(bars["4"]?.period == .introductoryOffer && bars["4"]?.cancellation?.kind == .refund)
    #expect(bars["4"]?.cancellation?.detail == "the customer reported a problem with the app, cancellation_reason 1")
    let monthly = try #require(chart.lanes.first { $0.label == "monthly" })
    #expect(monthly.status == "grace_period" && monthly.tone == .warning)
    #expect(chart.lanes.first { $0.label == "yearly" }?.status == "refunded")
  }

  @Test func undrawableTransactionsAreListedAndUnknownsCarryTheHint() throws {
    var history = Self.history([
      PurchaseTransaction(
        transactionID: "9", productID: "mystery", purchaseDate: Self.at("2024-01-01"), vocabulary: .test),
      PurchaseTransaction(transactionID: "10", productID: "undated", vocabulary: .test),
    ])
    history.provenance.signature = SignatureFacts(algorithm: "ES256", keyID: nil, certificateCount: 0)
    history.provenance.signatureCheck = SignatureCheck(.notChecked, note: "signatures not checked")
    let chart = Self.chart(history, at: "2024-06-15")
    let mystery = try #require(chart.lanes.first { $0.label == "mystery" })
    #expect(mystery.bars.first?.end == .unknown)
    #expect(mystery.status == "unknown" && mystery.reason.hasSuffix("give a catalog with --catalog to say which."))
    #expect(chart.lanes.first { $0.label == "undated" }?.bars.isEmpty == true)
    let notDrawn = try #require(chart.provenance.extra.first { $0.name == "not drawn" })
    #expect(notDrawn.value.hasPrefix("transaction 10 (no purchase_date"))
    // The document's verdict, as every command shows it.
    #expect(chart.provenance.fields.contains(TimelineField("signature", "not-checked: signatures not checked")))
    // With a catalog, a non-consumable runs to the right edge and a consumable is a mark at its purchase.
    let catalog = Catalog([
      CatalogProduct(productID: "mystery", type: .nonConsumable, entitlements: ["pro"], origin: "test")
    ])
    #expect(Self.chart(history, at: "2024-06-15", catalog: catalog).allBars.first?.end == .noExpiry)
  }
}
