import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import Testing

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? Timestamp.epoch }

private let monthly = "com.acme.pro.monthly"
private let proCatalog = Catalog([CatalogProduct(productID: monthly, type: .autoRenewable, entitlements: ["pro"])])

/// The reasons of an expired subscription and of nothing bought, byte for byte, in every form the goldens do not
/// show: each is made in one go from its parts, and must read as the sentences appended piece by piece did.
struct EntitlementReasonTextTests {
  static func history(
    _ vocabulary: FieldVocabulary = .test, renewal: RenewalState? = nil, moment: DataMoment? = nil
  ) -> PurchaseHistory {
    var h = PurchaseHistory(format: .handBuilt)
    h.transactions = [
      PurchaseTransaction(
        transactionID: "10", productID: monthly, purchaseDate: at("2024-05-01"), expiresDate: at("2024-06-01"),
        vocabulary: vocabulary)
    ]
    h.renewals = renewal.map { [$0] } ?? []
    h.moment = moment
    return h
  }

  static func pro(_ h: PurchaseHistory, _ time: String) throws -> EntitlementResult {
    try #require(entitlementStatuses(of: h, catalog: proCatalog, at: at(time)).first { $0.id == "pro" })
  }

  @Test func expiredNotRenewedAfterItsGracePeriod() throws {
    let renewal = RenewalState(
      originalTransactionID: "10", expirationIntent: ExpirationIntent(code: "1"), isInBillingRetryPeriod: false,
      gracePeriodExpiresDate: at("2024-06-17"), vocabulary: .test)
    let r = try Self.pro(Self.history(renewal: renewal), "2024-07-01")
    #expect(r.state == .expired && r.expiresDate == at("2024-06-01") && r.gracePeriodExpiresDate == at("2024-06-17"))
    #expect(
      r.reason
        == "com.acme.pro.monthly expired on 2024-06-01T00:00:00Z and was not renewed: the customer cancelled the subscription; the billing grace period ended on 2024-06-17T00:00:00Z."
    )
  }

  @Test func expiredWithoutAnIntent() throws {
    let renewal = RenewalState(originalTransactionID: "10", vocabulary: .test)
    let r = try Self.pro(Self.history(renewal: renewal), "2024-07-01")
    #expect(r.reason == "com.acme.pro.monthly expired on 2024-06-01T00:00:00Z and has not been renewed.")
  }

  @Test func expiredWhereTheDataHoldsNoRenewalState() throws {
    let r = try Self.pro(Self.history(.testWithoutRenewalState), "2024-07-01")
    #expect(r.state == .expired && r.gracePeriodExpiresDate == nil)
    #expect(
      r.reason
        == "com.acme.pro.monthly expired on 2024-06-01T00:00:00Z; the on-device receipt holds no renewal state, so whether it renews, is in billing retry or in a grace period cannot be told from it (server data says)."
    )
  }

  @Test func nothingBoughtSaysByWhenOnlyBeforeTheDataMoment() throws {
    let later = DataMoment(time: at("2024-08-01"), field: "request_date", description: "the request")
    let before = try Self.pro(Self.history(moment: later), "2024-04-01")
    #expect(before.state == .notPurchased && before.deciding == nil && before.expiresDate == nil)
    #expect(before.reason == "The receipt holds no purchase of com.acme.pro.monthly by 2024-04-01T00:00:00Z.")
    let unnamed = try Self.pro(Self.history(), "2024-04-01")
    #expect(unnamed.reason == "The receipt holds no purchase of com.acme.pro.monthly.")
  }
}
