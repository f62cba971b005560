import ReceiptModel

/// Issue 30's hand-written crossgrade, in the shape of RevenueCat's receipt pair: one chain, a trial of `monthly`,
/// two renewals, a crossgrade to `annual`. Shared by the rules' tests and the app receipt's.
package enum CrossgradeChain {
  /// A moment written `2020-07-14T19:33:26Z`.
  package static func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? .epoch }

  /// One subscription row; a vocabulary without renewal state (an on-device receipt's) leaves ownership unknown.
  package static func row(
    _ id: String, chain: String, _ product: String, from: String, to: String, trial: Bool = false,
    group: String? = nil, vocabulary: FieldVocabulary = .test
  ) -> PurchaseTransaction {
    PurchaseTransaction(
      transactionID: id, originalTransactionID: chain, productID: product,
      ownership: vocabulary.holdsRenewalState ? .purchased : .unknown, purchaseDate: at(from), expiresDate: at(to),
      offer: trial ? .freeTrial : nil, subscriptionGroup: group, vocabulary: vocabulary)
  }

  /// The chain as `format` reads it. Only the newest row names the group, as in verifyReceipt's
  /// latest_receipt_info; with `namesGroup` false (the on-device twin) no row names it.
  package static func history(
    vocabulary: FieldVocabulary, format: FormatIdentity, namesGroup: Bool
  ) -> PurchaseHistory {
    let v = vocabulary
    let g = namesGroup ? "20662382" : nil
    var h = PurchaseHistory(format: format)
    h.provenance.status = ReceiptStatus(0)
    h.transactions = [
      row(
        "1", chain: "1", "monthly", from: "2020-07-14T19:33:26Z", to: "2020-07-14T19:36:26Z", trial: true,
        vocabulary: v),
      row("2", chain: "1", "monthly", from: "2020-07-14T19:36:26Z", to: "2020-07-14T19:41:26Z", vocabulary: v),
      row("3", chain: "1", "monthly", from: "2020-07-14T19:41:26Z", to: "2020-07-14T19:46:26Z", vocabulary: v),
      row("4", chain: "1", "annual", from: "2020-07-22T17:00:00Z", to: "2020-07-22T18:00:00Z", group: g, vocabulary: v),
    ]
    return h
  }

  /// Every moment a transaction of `h` starts or ends, a second either side, and moments between and after.
  package static func moments(of h: PurchaseHistory) -> [String] {
    var out: [String] = ["2019-01-01T00:00:00Z", "2020-08-01T00:00:00Z", "2030-01-01T00:00:00Z"]
    for t in h.transactions {
      for d in [t.purchaseDate, t.expiresDate].compactMap({ $0 }) {
        for delta: Int64 in [-1000, 0, 1000, 60_000] {
          if let m = Timestamp(milliseconds: d.milliseconds + delta) { out.append(m.iso8601) }
        }
      }
    }
    return out
  }
}
