import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// An Advanced Commerce transaction's item refunds (`advancedCommerceInfo.items[].refunds[]`, Apple's
/// AdvancedCommerceTransactionInfo, AdvancedCommerceTransactionItem and AdvancedCommerceRefund models): read typed,
/// booked by revenue on their own dates, and what cannot be read is named, never dropped.
@Suite struct ItemRefundTests {
  /// A 19.99 bundle of two items; the first refunded 4.99 a month later, the second's refund unreadable.
  static func payload(revoked: Bool = false, secondAmount: String = #""half""#) -> String {
    """
    {"transactionId":"3000000700001","originalTransactionId":"3000000700001","productId":"com.acme.ac.bundle",
     "purchaseDate":1767614400000,"type":"Non-Consumable","inAppOwnershipType":"PURCHASED",
     "signedDate":1770292800000,"price":19990,"currency":"USD",\(revoked ? #""revocationDate":1772712000000,"# : "")
     "advancedCommerceInfo":{"taxCode":"C003-00-2","items":[
       {"SKU":"com.acme.ac.item1","price":9990,"refunds":[{"refundAmount":4990,"refundDate":1770292800000,
        "refundReason":"UNSATISFIED_RESOURCE_QUALITY","refundType":"CUSTOM"}]},
       {"SKU":"com.acme.ac.item2","price":10000,"refunds":[{"refundAmount":\(secondAmount),"refundDate":1770292800000}]}]}}
    """
  }

  static func history(_ json: String) throws -> PurchaseHistory {
    try FormatRegistry.standard.decode(Array(json.utf8), source: "payload.json")
  }

  @Test func itemRefundsAreReadAndAnUnreadableOneIsNamed() throws {
    let h = try Self.history(Self.payload())
    let t = try #require(h.transactions.first)
    #expect(
      t.itemRefunds == [
        ItemRefund(
          sku: "com.acme.ac.item1", amount: StatedPrice(amount: DecimalAmount(units: 4990, scale: 3), currency: "USD"),
          date: try #require(Timestamp(milliseconds: 1_770_292_800_000)), type: "CUSTOM",
          reason: "UNSATISFIED_RESOURCE_QUALITY")
      ])
    let warning = try #require(h.warnings.first { $0.path.hasSuffix("items[1].refunds[0]") })
    #expect(warning.message.contains(#"refundAmount "half""#))
    #expect(ReadingWarnings.shown(in: h).contains { $0.contains("item refunds not booked") })
    // A negative amount is no refund either.
    let negative = try Self.history(Self.payload(secondAmount: "-10"))
    #expect(negative.transactions.first?.itemRefunds.count == 1)
    #expect(negative.warnings.contains { $0.message.contains("refundAmount -10") })
  }

  @Test func revenueBooksEachOnItsDateAndNotBesideAWholeRefund() throws {
    let h = try Self.history(Self.payload(secondAmount: "5000"))
    let report = try RevenueFixtures.report([h], catalog: Catalog(), by: .month)
    let usd = try #require(RevenueFixtures.usd(report))
    #expect(usd.groups.first { $0.key == "2026-01" }?.gross == 1999)
    // 4.99 and 5.00, both refunded in February.
    #expect(usd.groups.first { $0.key == "2026-02" }?.refunds == 999)
    #expect(report.counts.partialRefunds == 1)
    #expect(report.counts.refunded == 1)
    // A whole refund books the whole price once; the items' refunds are part of it.
    let revoked = try RevenueFixtures.report(
      [try Self.history(Self.payload(revoked: true, secondAmount: "5000"))], catalog: Catalog(), by: .month)
    #expect(RevenueFixtures.usd(revoked)?.total.refunds == 1999)
    #expect(revoked.counts.partialRefunds == 0)
    // Through the ledger: the reduce step books what one machine books.
    var ledger = PurchaseLedger()
    ledger.add(h)
    var reduction = LedgerReduction()
    for record in try ledger.records(catalog: Catalog(), copy: "c") {
      guard case .record(let read) = try LedgerCodec.read(Array(LedgerCodec.write(.record(record)).utf8), source: "t")
      else {
        Issue.record("not a record")
        return
      }
      reduction.add(read)
    }
    let reduced = try reduction.report(grouping: .month, range: PurchaseDateRange(), commission: .none)
    #expect(reduced.currencies == report.currencies)
  }
}
