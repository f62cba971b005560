import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// `.storekit` version 5 (Xcode 26.5): a subscription's `billingPlans`, as RevenueCat's
/// Tests/StoreKitUnitTests/UnitTestsConfiguration.storekit (purchases-ios ff486da) shows them.
@Suite struct CatalogBillingPlanTests {
  static func storeKit(plans: String, major: Int = 5) -> String {
    #"""
    {"settings":{"_storefront":"USA"},"subscriptionGroups":[{"id":"G1","subscriptions":[
     {"productID":"com.acme.pro.yearly","type":"RecurringSubscription","displayPrice":"99.99",
      "recurringSubscriptionPeriod":"P1Y","subscriptionGroupID":"G1","billingPlans":\#(plans)}]}],
     "version":{"major":\#(major),"minor":0}}
    """#
  }

  @Test func readsTheExampleBillingPlansWithoutAWarning() throws {
    let bytes = try FileInput.readAll(path: repoFile("examples/AcmeCommitment.storekit"))
    let catalog = try CatalogLoader.load(bytes, source: "AcmeCommitment.storekit")
    #expect(catalog.warnings.isEmpty)
    let yearly = try #require(catalog.product("com.acme.pro.yearly"))
    #expect(yearly.price == DecimalAmount(units: 9999, scale: 2))
    #expect(
      yearly.billingPlans == [
        CatalogBillingPlan(
          type: .billedUpfront, price: DecimalAmount(units: 9999, scale: 2),
          commitmentPrice: DecimalAmount(units: 9999, scale: 2), isEnabled: true),
        CatalogBillingPlan(
          type: .monthly, price: DecimalAmount(units: 999, scale: 2),
          commitmentPrice: DecimalAmount(units: 11988, scale: 2), isEnabled: true),
      ])
  }

  @Test func olderFilesHaveNoPlansAndANewerVersionIsSaid() throws {
    let none = try loadCatalog(Self.storeKit(plans: "null", major: 4), source: "a.storekit")
    #expect(none.product("com.acme.pro.yearly")?.billingPlans == [])
    #expect(none.warnings.isEmpty)
    let newer = try loadCatalog(Self.storeKit(plans: "[]", major: 6), source: "b.storekit")
    #expect(newer.warnings.contains { $0.contains("version 6 is newer") && $0.contains("1.x to 5.x") })
  }

  @Test func unknownPlanTypeIsKeptAndSaid() throws {
    let catalog = try loadCatalog(
      Self.storeKit(plans: #"[{"billingPlanType":"QUARTERLY","displayPrice":"29.99"}]"#), source: "c.storekit")
    #expect(catalog.product("com.acme.pro.yearly")?.billingPlans.first?.type == .unrecognized("QUARTERLY"))
    #expect(catalog.warnings.contains { $0.contains("\"QUARTERLY\"") && $0.contains("billingPlans") })
  }

  @Test func badPlansFailNamingThePath() {
    let twice = Self.storeKit(
      plans:
        #"[{"billingPlanType":"MONTHLY","displayPrice":"9.99"},{"billingPlanType":"MONTHLY","displayPrice":"8.99"}]"#)
    #expect(catalogError(twice)?.message.contains("billingPlans[1].billingPlanType") == true)
    let noType = Self.storeKit(plans: #"[{"displayPrice":"9.99"}]"#)
    #expect(catalogError(noType)?.message.contains("billingPlans[0]") == true)
    let badPrice = Self.storeKit(plans: #"[{"billingPlanType":"MONTHLY","displayPrice":"nine"}]"#)
    #expect(catalogError(badPrice)?.message.contains("billingPlans[0].displayPrice") == true)
  }
}
