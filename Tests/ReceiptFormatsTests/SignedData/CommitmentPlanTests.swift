import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// App Store Server API 1.21's commitment plans (`billingPlanType`, `commitmentInfo`, `renewalBillingPlanType`)
/// and `advancedCommerceInfo`, read from payloads built after Apple's models (JWSTransactionDecodedPayload,
/// JWSRenewalInfoDecodedPayload, TransactionCommitmentInfo, RenewalCommitmentInfo in
/// apple/app-store-server-library-swift 6.0).
@Suite struct CommitmentPlanTests {
  static func history(_ json: String) throws -> PurchaseHistory {
    try FormatRegistry.standard.decode(Array(json.utf8), source: "payload.json")
  }

  /// The third monthly charge of a year's commitment: 9.99 a month, 119.88 in all.
  static let monthlyCharge = #"""
    {"transactionId":"2000000900000303","originalTransactionId":"2000000900000101","productId":"com.acme.pro.yearly",
     "purchaseDate":1772712000000,"expiresDate":1775390400000,"type":"Auto-Renewable Subscription",
     "inAppOwnershipType":"PURCHASED","signedDate":1772715600000,"environment":"Sandbox","price":9990,
     "currency":"USD","billingPlanType":"MONTHLY",
     "commitmentInfo":{"billingPeriodNumber":3,"commitmentExpiresDate":1799150400000,"commitmentPrice":119880,
     "totalBillingPeriods":12}}
    """#

  static let commitmentRenewal = #"""
    {"originalTransactionId":"2000000900000101","productId":"com.acme.pro.yearly",
     "autoRenewProductId":"com.acme.pro.yearly","autoRenewStatus":1,"renewalDate":1775390400000,
     "renewalPrice":9990,"currency":"USD","signedDate":1772715600000,"renewalBillingPlanType":"MONTHLY",
     "commitmentInfo":{"commitmentAutoRenewProductId":"com.acme.pro.yearly","commitmentAutoRenewStatus":0,
     "commitmentRenewalBillingPlanType":"BILLED_UPFRONT","commitmentRenewalDate":1799150400000,
     "commitmentRenewalPrice":99990}}
    """#

  @Test func transactionCarriesItsBillingPlanAndCommitment() throws {
    let h = try Self.history(Self.monthlyCharge)
    let t = try #require(h.transactions.first)
    #expect(t.billing?.plan == .monthly)
    let c = try #require(t.billing?.commitment)
    #expect(c.billingPeriodNumber == 3 && c.totalBillingPeriods == 12)
    #expect(c.expiresDate?.milliseconds == 1_799_150_400_000)
    #expect(c.price == StatedPrice(amount: DecimalAmount(units: 119_880, scale: 3), currency: "USD"))
    #expect(t.price == StatedPrice(amount: DecimalAmount(units: 9990, scale: 3), currency: "USD"))
    #expect(h.warnings.isEmpty)
    // Read, not kept as a raw stated field as well.
    #expect(!t.statedFields.contains { $0.name == "billingPlanType" || $0.name == "commitmentInfo" })
  }

  @Test func renewalInfoSaysWhatTheCommitmentRenewsInto() throws {
    let h = try Self.history(Self.commitmentRenewal)
    let r = try #require(h.renewals.first)
    #expect(r.billingPlan == .monthly)
    #expect(
      r.commitment
        == RenewalCommitment(
          autoRenewProductID: "com.acme.pro.yearly", autoRenewStatus: .off, billingPlan: .billedUpfront,
          renewalDate: Timestamp(milliseconds: 1_799_150_400_000),
          renewalPrice: StatedPrice(amount: DecimalAmount(units: 99_990, scale: 3), currency: "USD")))
    #expect(h.warnings.isEmpty)
  }

  /// A plan Apple may add later is kept as read and named in a warning, never dropped.
  @Test func unknownBillingPlanIsCarriedAndFlagged() throws {
    let json = Self.monthlyCharge.replacingOccurrences(of: #""MONTHLY""#, with: #""QUARTERLY""#)
    let h = try Self.history(json)
    #expect(h.transactions.first?.billing?.plan == .unrecognized("QUARTERLY"))
    #expect(h.warnings.contains { $0.path == "billingPlanType" && $0.message.contains("\"QUARTERLY\"") })

    let renewal = Self.commitmentRenewal.replacingOccurrences(
      of: #""commitmentRenewalBillingPlanType":"BILLED_UPFRONT""#,
      with: #""commitmentRenewalBillingPlanType":"WEEKLY""#)
    let r = try Self.history(renewal)
    #expect(r.renewals.first?.commitment?.billingPlan == .unrecognized("WEEKLY"))
    #expect(
      r.warnings.contains {
        $0.path == "commitmentInfo.commitmentRenewalBillingPlanType" && $0.message.contains("\"WEEKLY\"")
      })
  }

  @Test func unknownCommitmentKeysAreNamedNotDropped() throws {
    let json = Self.monthlyCharge.replacingOccurrences(
      of: #""totalBillingPeriods":12"#, with: #""totalBillingPeriods":12,"commitmentCurrency":"USD""#)
    let h = try Self.history(json)
    #expect(h.warnings.contains { $0.path == "commitmentInfo" && $0.message.contains("\"commitmentCurrency\"") })
    #expect(h.transactions.first?.billing?.commitment?.totalBillingPeriods == 12)
  }

  @Test func commitmentPriceWithoutCurrencyIsSaidAndNotUsed() throws {
    let json = Self.monthlyCharge.replacingOccurrences(of: #""currency":"USD","#, with: "")
    let h = try Self.history(json)
    #expect(h.transactions.first?.billing?.commitment?.price == nil)
    #expect(h.warnings.contains { $0.path == "commitmentInfo.commitmentPrice" })
  }

  @Test func billingPeriodOutsideTheCommitmentIsSaid() throws {
    let json = Self.monthlyCharge.replacingOccurrences(
      of: #""billingPeriodNumber":3"#, with: #""billingPeriodNumber":13"#)
    let h = try Self.history(json)
    #expect(h.transactions.first?.billing?.commitment?.billingPeriodNumber == 13)
    #expect(h.warnings.contains { $0.path == "commitmentInfo.billingPeriodNumber" && $0.message.contains("13 of 12") })
  }

  @Test func malformedCommitmentFailsNamingThePath() {
    let json = Self.monthlyCharge.replacingOccurrences(
      of: #""billingPeriodNumber":3"#, with: #""billingPeriodNumber":"3""#)
    #expect {
      _ = try Self.history(json)
    } throws: { error in
      (error as? ReceiptError)?.path == "commitmentInfo.billingPeriodNumber"
    }
    let notObject = #"{"transactionId":"1","productId":"p","commitmentInfo":[]}"#
    #expect {
      _ = try Self.history(notObject)
    } throws: { error in
      (error as? ReceiptError)?.path == "commitmentInfo"
    }
  }

  /// `advancedCommerceInfo` is carried as read, under Apple's names, for `decode` to show.
  @Test func advancedCommerceInfoIsCarriedAsRead() throws {
    let json = #"""
      {"transactionId":"1","productId":"p","advancedCommerceInfo":{"estimatedTax":1500,"period":"P1M",
       "items":[{"SKU":"com.acme.sku","price":9990,"refunds":[{"refundAmount":5000,"refundType":"PRORATED"}],
       "revocationDate":null}],"descriptors":{"displayName":"Premium"}}}
      """#
    let h = try Self.history(json)
    let t = try #require(h.transactions.first)
    let field = try #require(t.statedFields.last)
    #expect(field.name == "advancedCommerceInfo")
    let refund: StatedField.Value = .object([
      StatedField("refundAmount", .number("5000")), StatedField("refundType", .text("PRORATED")),
    ])
    #expect(
      field.value
        == .object([
          StatedField("estimatedTax", .number("1500")), StatedField("period", .text("P1M")),
          StatedField(
            "items",
            .array([
              .object([
                StatedField("SKU", .text("com.acme.sku")), StatedField("price", .number("9990")),
                StatedField("refunds", .array([refund])),
              ])
            ])),
          StatedField("descriptors", .object([StatedField("displayName", .text("Premium"))])),
        ]))
    let renewal = try Self.history(
      #"{"originalTransactionId":"1","autoRenewStatus":1,"advancedCommerceInfo":{"consistencyToken":"t"}}"#)
    #expect(
      renewal.renewals.first?.statedFields.last
        == StatedField("advancedCommerceInfo", .object([StatedField("consistencyToken", .text("t"))])))
  }

  /// Apple's own model test payloads (../shared; skipped with a note when absent).
  @Test func applesModelPayloadsCarryTheirCommitments() throws {
    let apple = SignedDataFixtures.appleDirectory
    if let bytes = SignedDataFixtures.bytes(apple + "signedTransaction.json") {
      let h = try FormatRegistry.standard.decode(bytes, source: "signedTransaction.json")
      let t = try #require(h.transactions.first)
      #expect(t.billing?.plan == .monthly)
      #expect(
        t.billing?.commitment
          == TransactionCommitment(
            billingPeriodNumber: 3, totalBillingPeriods: 12, expiresDate: Timestamp(milliseconds: 1_698_150_000_000),
            price: StatedPrice(amount: DecimalAmount(units: 119_880, scale: 3), currency: "USD")))
      #expect(t.statedFields.last?.name == "advancedCommerceInfo")
    }
    if let bytes = SignedDataFixtures.bytes(apple + "signedRenewalInfo.json") {
      let h = try FormatRegistry.standard.decode(bytes, source: "signedRenewalInfo.json")
      let r = try #require(h.renewals.first)
      #expect(r.billingPlan == .monthly)
      #expect(r.commitment?.autoRenewProductID == "com.example.product.commitment")
      #expect(r.commitment?.autoRenewStatus == .on && r.commitment?.billingPlan == .monthly)
      #expect(r.commitment?.renewalDate?.milliseconds == 1_698_149_500_000)
      #expect(r.commitment?.renewalPrice == StatedPrice(amount: DecimalAmount(units: 9990, scale: 3), currency: "USD"))
    }
  }
}
