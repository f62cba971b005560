import Testing

@testable import ReceiptModel

/// Issue 39: what each kind of signature covers, by field class (reference §9.3), and what a verdict vouches for.
@Suite struct SignatureCoverageTests {
  @Test func aReceiptCoversNoOwnershipPriceOrCurrency() {
    #expect(SignatureCoverage.appReceipt.uncovered == [.ownership, .price, .currency])
    #expect(
      SignatureCoverage.appReceipt.covered.map(\.rawValue) == [
        "ids", "products", "dates", "quantity", "trial-and-intro-flags", "cancellation", "device-hash", "app-purchase",
      ])
    // A verifyReceipt body's latest_receipt vouches for the transactions it is compared with, not the receipt object.
    #expect(SignatureCoverage.latestReceipt.uncovered == [.appPurchase, .ownership, .price, .currency])
    #expect(SignatureCoverage.signedTransaction.uncovered == [.deviceHash])
    #expect(SignatureCoverage.none.covered.isEmpty)
    #expect(SignatureCoverage.phrase([.ownership, .price]) == "ownership (in_app_ownership_type), price (price)")
  }

  @Test func onlyAVerdictThatHoldsVouches() {
    var check = SignatureCheck(.verified)
    check.coverage = .appReceipt
    #expect(check.vouched == .appReceipt)
    for verdict in [SignatureCheck.Verdict.invalid, .unsigned, .notChecked] {
      check.verdict = verdict
      #expect(check.vouched == .none)
    }
    #expect(SignatureCheck.unsigned("verifyReceipt JSON").coverage == .none)
  }

  @Test func documentsCombinedAreCoveredByWhatAllCover() {
    var receipt = SignatureCheck(.verified)
    receipt.coverage = .appReceipt
    receipt.uncoveredInAnswer = [.ownership]
    var jws = SignatureCheck(.verified)
    jws.coverage = .signedTransaction
    let combined = SignatureCheck.combining([jws, receipt], none: SignatureCheck(.unsigned))
    #expect(combined.coverage.kind == .appReceipt)
    #expect(
      combined.coverage.covered == [.ids, .products, .dates, .quantity, .offerFlags, .cancellation, .appPurchase])
    #expect(combined.uncoveredInAnswer == [.ownership])
    #expect(SignatureCheck.combining([jws, jws], none: SignatureCheck(.unsigned)).coverage == .signedTransaction)
  }
}
