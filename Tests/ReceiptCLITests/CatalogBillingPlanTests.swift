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

  /// The JSON catalog's `billing_plans` are the `.storekit` file's `billingPlans` in this format's spelling: the
  /// example twin of AcmeCommitment.storekit loads to the same plans.
  @Test func theJSONCatalogsBillingPlansAreTheStoreKitFilesOnes() throws {
    let json = try CatalogLoader.load(
      try FileInput.readAll(path: repoFile("examples/commitment-catalog.json")), source: "commitment-catalog.json")
    let storeKit = try CatalogLoader.load(
      try FileInput.readAll(path: repoFile("examples/AcmeCommitment.storekit")), source: "AcmeCommitment.storekit")
    #expect(json.warnings.isEmpty)
    #expect(
      json.product("com.acme.pro.yearly")?.billingPlans == storeKit.product("com.acme.pro.yearly")?.billingPlans)
  }

  /// Our own format refuses what it cannot use: a plan Apple has not documented, a second plan of one type, a
  /// plan of a product that is not a subscription, a price without a currency, a key it does not know.
  @Test func badJSONBillingPlansFailNamingThePath() {
    func product(_ plans: String, type: String = "auto_renewable", currency: String = #","currency":"USD""#)
      -> String
    {
      #"{"products":[{"product_id":"p","type":"\#(type)"\#(currency),"billing_plans":\#(plans)}]}"#
    }
    let cases: [(String, String)] = [
      (product(#"[{"type":"QUARTERLY"}]"#), #"billing_plans[0].type: unknown billing plan "QUARTERLY""#),
      (product(#"[{"type":"MONTHLY"},{"type":"MONTHLY"}]"#), #"billing_plans[1].type: a second "MONTHLY""#),
      (product(#"[{"type":"MONTHLY"}]"#, type: "non_consumable"), "only auto_renewable products have billing plans"),
      (product(#"[{"type":"MONTHLY","price":"9.99"}]"#, currency: ""), "billing_plans[0]: a price needs a currency"),
      (product(#"[{"type":"MONTHLY","cost":"9.99"}]"#), #"billing_plans[0].cost: unknown key "cost""#),
    ]
    for (json, expected) in cases {
      let message = catalogError(json)?.message ?? "(no error)"
      #expect(message.contains(expected), "\(message)")
    }
  }
}
