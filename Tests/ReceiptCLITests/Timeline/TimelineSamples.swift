import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport

@testable import ReceiptCLI

/// Hand-built charts for the timeline tests. Dates are those of the examples they mirror (read from the
/// example files, not from any renderer output).
enum TimelineSamples {
  static func t(_ text: String) -> Timestamp {
    guard let stamp = Timestamp.parse(formatted: text) else { preconditionFailure("bad sample date \(text)") }
    return stamp
  }

  /// examples/family-revoked-but-purchased.json: a FAMILY_SHARED yearly copy revoked on 2024-03-01 and
  /// the customer's own yearly purchase (3100), evaluated at the receipt's request_date 2024-06-15.
  static let familyRevokedButPurchased = TimelineChart(
    title: "family-revoked-but-purchased.json",
    provenance: TimelineProvenance(
      file: "examples/family-revoked-but-purchased.json", inputKind: "verifyReceipt response",
      environment: "Production", signature: .unsigned("verifyReceipt response")),
    evaluationMoment: t("2024-06-15T00:00:00Z"), evaluationMomentSource: "the receipt's request_date",
    lanes: [
      TimelineLane(
        label: "com.acme.pro.yearly", status: "active", tone: .good,
        reason: "Family Sharing access to com.acme.pro.yearly was revoked on 2024-03-01T18:20:11Z; the customer's "
          + "own purchase (transaction 3100) keeps it active until 2025-03-02T09:14:05Z.",
        bars: [
          TimelineBar(
            transactionID: "2200000101", productID: "com.acme.pro.yearly", start: t("2023-09-01T10:00:00Z"),
            end: .expires(t("2024-09-01T10:00:00Z")), ownership: .familyShared,
            cancellation: TimelineCancellation(
              date: t("2024-03-01T18:20:11Z"), kind: .revocation, detail: "cancellation_reason 0"),
            fields: [
              TimelineField("transaction_id", "2200000101"), TimelineField("in_app_ownership_type", "FAMILY_SHARED"),
            ]),
          TimelineBar(
            transactionID: "3100", productID: "com.acme.pro.yearly", start: t("2024-03-02T09:14:05Z"),
            end: .expires(t("2025-03-02T09:14:05Z")), ownership: .owned,
            fields: [TimelineField("transaction_id", "3100"), TimelineField("in_app_ownership_type", "PURCHASED")]),
        ])
    ])

  /// A history with every mark: a trial, renewals, a refund, a gap, grace and billing retry, an upgrade,
  /// a family-shared lifetime unlock and a transaction of unknown ownership.
  static let everyMark = TimelineChart(
    title: "every mark", provenance: TimelineProvenance(file: "-", inputKind: "verifyReceipt response"),
    evaluationMoment: t("2024-05-10T00:00:00Z"),
    lanes: [
      TimelineLane(
        label: "pro", status: "billing_retry", tone: .warning, reason: "Apple is retrying the charge.",
        bars: [
          TimelineBar(
            transactionID: "r2", productID: "pro.monthly", start: t("2024-01-08T00:00:00Z"),
            end: .expires(t("2024-02-08T00:00:00Z"))),
          TimelineBar(
            transactionID: "r1", productID: "pro.monthly", start: t("2024-01-01T00:00:00Z"),
            end: .expires(t("2024-01-08T00:00:00Z")), period: .freeTrial),
          TimelineBar(
            transactionID: "r3", productID: "pro.monthly", start: t("2024-02-08T00:00:00Z"),
            end: .expires(t("2024-03-08T00:00:00Z")),
            cancellation: TimelineCancellation(date: t("2024-02-20T00:00:00Z"), kind: .refund)),
          TimelineBar(
            transactionID: "r4", productID: "pro.monthly", start: t("2024-04-01T00:00:00Z"),
            end: .expires(t("2024-05-01T00:00:00Z")),
            zones: [
              TimelineZone(kind: .gracePeriod, start: t("2024-05-01T00:00:00Z"), end: t("2024-05-06T00:00:00Z")),
              TimelineZone(kind: .billingRetry, start: t("2024-05-06T00:00:00Z")),
            ]),
        ]),
      TimelineLane(
        label: "basic", status: "upgraded", tone: .bad, reason: "Upgraded to pro.",
        bars: [
          TimelineBar(
            transactionID: "b1", productID: "basic.monthly", start: t("2023-12-01T00:00:00Z"),
            end: .expires(t("2024-01-01T00:00:00Z")), ownership: .unknown, upgraded: true)
        ]),
      TimelineLane(
        label: "lifetime", status: "active", tone: .good, reason: "Shared by the family organiser.",
        bars: [
          TimelineBar(
            transactionID: "l1", productID: "lifetime.unlock", start: t("2023-12-15T00:00:00Z"), end: .noExpiry,
            ownership: .familyShared)
        ]),
    ])

  /// Every string a hostile input could control, with markup, terminal escapes and a bidi override.
  static let hostileText = "<script>alert(1)</script>\u{1B}[31m&\"'\u{202E}gnp.exe\u{7}"

  static let hostile = TimelineChart(
    title: hostileText,
    provenance: TimelineProvenance(
      file: hostileText, inputKind: hostileText, environment: hostileText,
      extra: [TimelineField(hostileText, hostileText)]),
    evaluationMoment: t("2024-06-15T00:00:00Z"), evaluationMomentSource: hostileText,
    lanes: [
      TimelineLane(
        label: hostileText, status: hostileText, reason: hostileText,
        bars: [
          TimelineBar(
            transactionID: hostileText, productID: hostileText, start: t("2024-01-01T00:00:00Z"),
            end: .expires(t("2024-12-01T00:00:00Z")),
            cancellation: TimelineCancellation(date: t("2024-02-01T00:00:00Z"), kind: .refund, detail: hostileText),
            fields: [TimelineField(hostileText, hostileText)])
        ])
    ])
}
