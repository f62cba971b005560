import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// A file under ../shared/peer-fixtures, or nil (with a visible note) when ../shared is absent.
func peerFixture(_ relative: String) -> [UInt8]? {
  guard let shared = TestPaths.shared else {
    TestPaths.noteSharedMissing(relative)
    return nil
  }
  return try? FileInput.readAll(path: shared.appendingPathComponent("peer-fixtures/" + relative).path)
}

func loadCatalog(_ text: String, source: String = "cat.json", currency: String? = nil) throws(ReceiptError) -> Catalog {
  try CatalogLoader.load(Array(text.utf8), source: source, currency: currency)
}

func catalogError(_ text: String, currency: String? = nil) -> ReceiptToolError? {
  do {
    _ = try loadCatalog(text, currency: currency)
    return nil
  } catch {
    return .input(error)
  }
}

@Suite struct CatalogLoaderTests {
  @Test func loadsJSONCatalogExample() throws {
    let bytes = try FileInput.readAll(path: repoFile("examples/catalog.json"))
    let catalog = try CatalogLoader.load(bytes, source: "examples/catalog.json")
    #expect(catalog.order.count == 6)
    let monthly = try #require(catalog.product("com.acme.pro.monthly"))
    #expect(monthly.type == .autoRenewable)
    #expect(monthly.subscriptionGroup == "21000111")
    #expect(monthly.groupIsLocalToFile == false)
    #expect(monthly.entitlements == ["pro"])
    #expect(monthly.price == DecimalAmount(units: 999, scale: 2))
    #expect(monthly.currency == "USD")
    #expect(monthly.introOffer == IntroOffer(paymentMode: .freeTrial, period: "P1W"))
    #expect(catalog.product("com.acme.pass.season")?.duration?.days == 90)
    #expect(catalog.product("com.acme.photos.monthly")?.introOffer == nil)
    #expect(catalog.product("com.acme.coins.100")?.entitlements == ["com.acme.coins.100"])
  }

  @Test func loadsHandWrittenStoreKitExample() throws {
    let bytes = try FileInput.readAll(path: repoFile("examples/Acme.storekit"))
    let catalog = try CatalogLoader.load(bytes, source: "Acme.storekit")
    #expect(catalog.warnings.isEmpty)
    let yearly = try #require(catalog.product("com.acme.pro.yearly"))
    #expect(yearly.type == .autoRenewable)
    #expect(yearly.subscriptionGroup == "3F19ED53")
    #expect(yearly.groupIsLocalToFile)
    #expect(yearly.price == DecimalAmount(units: 7999, scale: 2))
    #expect(yearly.currency == "USD")
    #expect(yearly.introOffer?.paymentMode == .freeTrial)
    #expect(catalog.product("com.acme.photos.monthly")?.introOffer == nil)
    #expect(catalog.product("com.acme.pass.season")?.type == .nonRenewing)
    #expect(catalog.product("com.acme.lifetime")?.familyShareable == true)
  }

  /// Real files from ../shared/peer-fixtures; skipped with a note when ../shared is absent.
  @Test(arguments: [
    ("rudifa__ImplementingAStoreInYourAppUsingTheStoreKitAPI/Products.storekit", 11, "subscription.premium"),
    ("flutter__packages/Configuration.storekit", 4, "subscription_gold"),
  ])
  func loadsRealStoreKitFiles(_ relative: String, _ count: Int, _ subscription: String) throws {
    guard let bytes = peerFixture(relative) else { return }
    let catalog = try CatalogLoader.load(bytes, source: relative)
    #expect(catalog.order.count == count)
    let sub = try #require(catalog.product(subscription))
    #expect(sub.type == .autoRenewable)
    #expect(sub.groupIsLocalToFile)
  }

  @Test func realStoreKitV1WithoutStorefrontIsUnpricedWithWarningUnlessCurrencyGiven() throws {
    guard let bytes = peerFixture("rudifa__ImplementingAStoreInYourAppUsingTheStoreKitAPI/Products.storekit") else {
      return
    }
    let unpriced = try CatalogLoader.load(bytes, source: "Products.storekit")
    #expect(unpriced.product("nonconsumable.car")?.price == nil)
    #expect(unpriced.warnings.count == 1)
    #expect(unpriced.warnings.first?.contains("--currency") == true)
    let priced = try CatalogLoader.load(bytes, source: "Products.storekit", currency: "EUR")
    #expect(priced.product("nonconsumable.car")?.price == DecimalAmount(units: 199, scale: 2))
    #expect(priced.product("nonconsumable.car")?.currency == "EUR")
    #expect(priced.warnings.isEmpty)
    let pro = try #require(priced.product("subscription.pro"))
    #expect(
      pro.introOffer == IntroOffer(paymentMode: .payUpFront, period: "P2M", price: DecimalAmount(units: 199, scale: 2)))
    #expect(priced.product("subscription.premium")?.introOffer == nil)
    #expect(priced.product("subscription.standard")?.introOffer == nil)
  }

  @Test func storefrontTableGivesCurrencyAndMinorDigits() throws {
    let doc = """
      {"settings": {"_storefront": "JPN"}, "products": [
        {"productID": "a", "type": "Consumable", "displayPrice": "120"}]}
      """
    #expect(try loadCatalog(doc).product("a")?.currency == "JPY")
    #expect(try loadCatalog(doc).product("a")?.price == DecimalAmount(units: 120, scale: 0))
    let fractional = doc.replacing("\"120\"", with: "\"1.5\"")
    #expect(catalogError(fractional)?.message.contains("more decimals than JPY allows") == true)
  }

  @Test func storeKitIntroductoryOffersArray() throws {
    let doc = """
      {"subscriptionGroups": [{"id": "G1", "subscriptions": [
        {"productID": "s", "type": "RecurringSubscription", "subscriptionGroupID": "G1",
         "recurringSubscriptionPeriod": "P1M", "displayPrice": "4.99", "someFutureKey": {},
         "introductoryOffers": [{"paymentMode": "payAsYouGo", "displayPrice": "0.99", "numberOfPeriods": 3,
           "subscriptionPeriod": "P1M"}]}]}], "settings": {"_storefront": "USA"}}
      """
    let offer = try #require(try loadCatalog(doc).product("s")?.introOffer)
    #expect(
      offer
        == IntroOffer(paymentMode: .payAsYouGo, period: "P1M", price: DecimalAmount(units: 99, scale: 2), periods: 3))
  }

  @Test func laterCatalogOverridesEarlierPerProduct() throws {
    var catalog = try loadCatalog(
      #"{"products": [{"product_id": "a", "type": "consumable"}, {"product_id": "b", "type": "consumable"}]}"#)
    catalog.merge(
      try loadCatalog(#"{"products": [{"product_id": "a", "type": "non_consumable", "entitlements": ["x"]}]}"#))
    #expect(catalog.product("a")?.type == .nonConsumable)
    #expect(catalog.product("a")?.entitlements == ["x"])
    #expect(catalog.order == ["a", "b"])
  }

  @Test func jsonPriceAsNumberIsExact() throws {
    let c = try loadCatalog(
      #"{"products": [{"product_id": "a", "type": "consumable", "price": 0.30, "currency": "USD"}]}"#)
    #expect(c.product("a")?.price == DecimalAmount(units: 30, scale: 2))
  }

  /// Every bad catalog: exit 65, naming the file, the JSON path and the value.
  @Test(arguments: [
    (
      #"{"products": [{"product_id": "a", "type": "consumable"}, {"product_id": "a", "type": "consumable"}]}"#,
      "cat.json: $.products[1].product_id: duplicate product id \"a\" (first at $.products[0])"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "subscription"}]}"#,
      "cat.json: $.products[0].type: unknown product type \"subscription\""
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable", "price": "-1.00", "currency": "USD"}]}"#,
      "cat.json: $.products[0].price: \"-1.00\" is negative"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable", "price": "abc", "currency": "USD"}]}"#,
      "cat.json: $.products[0].price: \"abc\" is not a decimal number"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable", "price": true, "currency": "USD"}]}"#,
      "cat.json: $.products[0].price: expected a decimal price such as \"9.99\", found true"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable", "price": "9.999", "currency": "USD"}]}"#,
      "cat.json: $.products[0].price: \"9.999\" has more decimals than USD allows (2)"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable", "price": "9.99"}]}"#,
      "cat.json: $.products[0].price: a price needs a currency"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable", "price": "9.99", "currency": "XYZ"}]}"#,
      "cat.json: $.products[0].currency: \"XYZ\" is not an ISO 4217 currency code"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "non_renewing", "duration": "90 days"}]}"#,
      "cat.json: $.products[0].duration: \"90 days\" is not an ISO 8601 period"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "auto_renewable", "intro_offer": {"payment_mode": "free_trial", "period": "P1X"}}]}"#,
      "cat.json: $.products[0].intro_offer.period: \"P1X\" is not an ISO 8601 period"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "auto_renewable", "intro_offer": {"payment_mode": "trial"}}]}"#,
      "cat.json: $.products[0].intro_offer.payment_mode: unknown payment mode \"trial\""
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable", "intro_offer": {"payment_mode": "free_trial"}}]}"#,
      "cat.json: $.products[0].intro_offer: only auto_renewable products have introductory offers"
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable", "entitlement": ["x"]}]}"#,
      "cat.json: $.products[0].entitlement: unknown key \"entitlement\""
    ),
    (
      #"{"products": [{"product_id": "a", "type": "consumable"}, {"type": "consumable"}]}"#,
      "cat.json: $.products[1].product_id: missing"
    ),
    (#"{"items": []}"#, "cat.json: $: neither a receipt-tool catalog"),
    (#"[1, 2]"#, "cat.json: $: a catalog is a JSON object, found an array"),
    (
      #"{"products": [{"productID": "a", "type": "Subscription"}]}"#,
      "cat.json: $.products[0].type: unknown product type \"Subscription\""
    ),
    (
      #"{"products": [{"productID": "a", "type": "Consumable"}, {"productID": "a", "type": "Consumable"}]}"#,
      "cat.json: $.products[1].productID: duplicate product id \"a\" (first at $.products[0])"
    ),
    (
      #"{"settings": {"_storefront": "USA"}, "products": [{"productID": "a", "type": "Consumable", "displayPrice": "-0.99"}]}"#,
      "cat.json: $.products[0].displayPrice: \"-0.99\" is negative"
    ),
    (
      #"{"subscriptionGroups": [{"id": "G", "subscriptions": [{"productID": "s", "type": "RecurringSubscription", "recurringSubscriptionPeriod": "monthly"}]}]}"#,
      "cat.json: $.subscriptionGroups[0].subscriptions[0].recurringSubscriptionPeriod: \"monthly\" is not an ISO 8601 period"
    ),
    (
      #"{"subscriptionGroups": [{"id": "G", "subscriptions": [{"productID": "s", "type": "RecurringSubscription", "introductoryOffer": {"paymentMode": "freeTrial"}}]}]}"#,
      "cat.json: $.subscriptionGroups[0].subscriptions[0].introductoryOffer.paymentMode: unknown payment mode \"freeTrial\""
    ),
  ])
  func badCatalogFailsWithPathAndValue(_ doc: String, _ expected: String) throws {
    let error = try #require(catalogError(doc))
    #expect(error.exitStatus == .dataError)
    #expect(error.message.hasPrefix(expected), "\(error.message)")
  }

  @Test func notJSONIsASyntaxError() throws {
    let error = try #require(catalogError("{nope"))
    #expect(error.exitStatus == .dataError)
    #expect(error.message.hasPrefix("cat.json:1:"))
  }
}

@Suite struct SubscriptionGroupsTests {
  @Test func storeKitGroupLinksToReceiptGroupThroughSharedProduct() throws {
    var monthly = CatalogProduct(
      productID: "m", type: .autoRenewable, subscriptionGroup: "3F19ED53", origin: "A.storekit")
    monthly.groupIsLocalToFile = true
    var yearly = CatalogProduct(
      productID: "y", type: .autoRenewable, subscriptionGroup: "3F19ED53", origin: "A.storekit")
    yearly.groupIsLocalToFile = true
    var other = CatalogProduct(
      productID: "o", type: .autoRenewable, subscriptionGroup: "3F19ED53", origin: "B.storekit")
    other.groupIsLocalToFile = true
    let catalog = Catalog([monthly, yearly, other])
    let groups = SubscriptionGroups(
      catalog: catalog,
      transactions: [
        PurchaseTransaction(transactionID: "1", productID: "m", subscriptionGroup: "21000111", vocabulary: .test)
      ])
    let g = try #require(groups.group(of: "y"))
    #expect(g.displayID == "21000111")
    #expect(g.productIDs == ["m", "y"])
    #expect(g.catalogIDs == ["3F19ED53"])
    // Same local id in another file is another group.
    #expect(groups.group(of: "o")?.productIDs == ["o"])
    #expect(groups.group(of: "o")?.displayID == "3F19ED53")
  }

  @Test func jsonCatalogGroupIdIsTheAppStoreId() {
    let catalog = Catalog([CatalogProduct(productID: "a", type: .autoRenewable, subscriptionGroup: "7")])
    let groups = SubscriptionGroups(
      catalog: catalog,
      transactions: [PurchaseTransaction(transactionID: "1", productID: "b", subscriptionGroup: "7", vocabulary: .test)]
    )
    #expect(groups.group(of: "a")?.productIDs == ["a", "b"])
  }

  @Test func unknownGroupWithoutCatalogOrGroupIdentifier() {
    let groups = SubscriptionGroups(
      catalog: Catalog(), transactions: [PurchaseTransaction(transactionID: "1", productID: "a", vocabulary: .test)])
    #expect(groups.group(of: "a") == nil)
  }

  /// The intro-eligibility rule on a catalog file as the loader reads it.
  @Test(arguments: ["examples/catalog.json", "examples/Acme.storekit"])
  func noIntroOfferFromCatalogFile(_ file: String) throws {
    let catalog = try CatalogLoader.load(try FileInput.readAll(path: repoFile(file)), source: file)
    var history = PurchaseHistory(format: VerifyReceiptFormats.response)
    history.transactions = [
      PurchaseTransaction(
        transactionID: "3", productID: "com.acme.photos.monthly",
        purchaseDate: Timestamp.parse(formatted: "2023-01-01T00:00:00Z"),
        expiresDate: Timestamp.parse(formatted: "2023-01-08T00:00:00Z"), offer: .freeTrial,
        subscriptionGroup: "21000222", vocabulary: .test)
    ]
    let at = EvaluationTime(time: Timestamp.parse(formatted: "2024-03-01T00:00:00Z") ?? .epoch, source: .given)
    let r = try #require(
      decideIntroEligibility(products: ["com.acme.photos.monthly"], history: history, catalog: catalog, at: at).first)
    #expect(r.status == .noIntroOffer)
    #expect(r.reason == "no_intro_offer: the catalog (\(file)) lists no introductory offer for com.acme.photos.monthly")
    // The .storekit group is linked to the receipt's group through the shared product.
    #expect(r.subscriptionGroup == "21000222")
  }

}
