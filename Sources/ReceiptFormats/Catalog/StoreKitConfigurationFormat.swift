import ReceiptModel
import ReceiptRules

/// Xcode StoreKit configuration files (`.storekit`, format versions 1.x to 5.x; 5.0, from Xcode 26.5, adds
/// `billingPlans`).
/// Apple does not document the schema; unknown keys are ignored because Xcode keeps adding them.
enum StoreKitConfigurationFormat {
  static let productTypes: [String: ProductType] = [
    "Consumable": .consumable,
    "NonConsumable": .nonConsumable,
    "NonRenewingSubscription": .nonRenewing,
    "RecurringSubscription": .autoRenewable,
  ]
  static let paymentModes: [String: IntroPaymentMode] = [
    "free": .freeTrial, "payAsYouGo": .payAsYouGo, "payUpFront": .payUpFront,
  ]

  /// True when the document looks like a `.storekit` file.
  static func recognises(_ root: JSONValue) -> Bool {
    if root.member("subscriptionGroups") != nil || root.member("nonRenewingSubscriptions") != nil { return true }
    guard case .array(let items)? = root.member("products") else { return false }
    return items.contains { $0.member("productID") != nil }
  }

  static func load(_ root: JSONValue, source: String, currencyOption: String?) throws(ReceiptError) -> Catalog {
    let r = CatalogFieldReader(source: source)
    var catalog = Catalog()
    if case .number(let major)? = root.member("version")?.member("major"), let v = Int(major), !(1...5).contains(v) {
      catalog.warnings.append(
        "\(source): .storekit format version \(major) is newer than receipt-tool knows (1.x to 5.x); reading what it recognises"
      )
    }
    let currency = try resolveCurrency(root, source: source, option: currencyOption, r, warnings: &catalog.warnings)
    var seen: [String: String] = [:]

    func add(_ item: JSONValue, path: String, group: String?) throws(ReceiptError) {
      let product = try loadProduct(try r.object(item, path), path: path, group: group, currency: currency, r)
      if let earlier = seen[product.productID] {
        throw r.fail(
          "\(path).productID", "duplicate product id \(Excerpt.quoted(product.productID)) (first at \(earlier))")
      }
      seen[product.productID] = path
      for case .unrecognized(let raw) in product.billingPlans.map(\.type) {
        catalog.warnings.append(
          "\(source): \(path).billingPlans: billing plan type \(Excerpt.quoted(raw)) is not one receipt-tool knows "
            + "(BILLED_UPFRONT, MONTHLY); kept as read")
      }
      catalog.add(product)
    }

    for key in ["products", "nonRenewingSubscriptions"] {
      guard let value = root.member(key), value != .null else { continue }
      for (i, item) in try r.array(value, "$.\(key)").enumerated() { try add(item, path: "$.\(key)[\(i)]", group: nil) }
    }
    if let value = root.member("subscriptionGroups"), value != .null {
      for (g, groupValue) in try r.array(value, "$.subscriptionGroups").enumerated() {
        let gPath = "$.subscriptionGroups[\(g)]"
        let group = try r.object(groupValue, gPath)
        let id = try r.identifier(group, "id", gPath)
        guard let subs = group.member("subscriptions"), subs != .null else { continue }
        for (i, item) in try r.array(subs, "\(gPath).subscriptions").enumerated() {
          let path = "\(gPath).subscriptions[\(i)]"
          try add(item, path: path, group: try r.identifier(item, "subscriptionGroupID", path) ?? id)
        }
      }
    }
    return catalog
  }

  /// `--currency`, else the storefront's currency; nil (prices unpriced, with a warning) when neither is known.
  static func resolveCurrency(
    _ root: JSONValue, source: String, option: String?, _ r: CatalogFieldReader, warnings: inout [String]
  ) throws(ReceiptError) -> String? {
    if let option { return option }
    let settings = root.member("settings") ?? .null
    guard let storefront = try r.string(settings, "_storefront", "$.settings") else {
      warnings.append(
        "\(source): no settings._storefront, so the currency of its prices is unknown; they stay unpriced (give --currency)"
      )
      return nil
    }
    guard let currency = CurrencyTable.currency(forStorefront: storefront) else {
      warnings.append(
        "\(source): storefront \(Excerpt.quoted(storefront)) is not in receipt-tool's storefront table; its prices stay unpriced (give --currency)"
      )
      return nil
    }
    return currency
  }

  static func loadProduct(
    _ item: JSONValue, path: String, group: String?, currency: String?, _ r: CatalogFieldReader
  ) throws(ReceiptError) -> CatalogProduct {
    let id = try r.requiredString(item, "productID", path)
    let typeName = try r.requiredString(item, "type", path)
    guard let type = productTypes[typeName] else {
      throw r.fail(
        "\(path).type",
        "unknown product type \(Excerpt.quoted(typeName)); expected \(Excerpt.listed(productTypes.keys.sorted()))")
    }
    let price = try r.price(item, "displayPrice", path, currency: currency)
    _ = try r.period(item, "recurringSubscriptionPeriod", path)
    var product = CatalogProduct(
      productID: id, type: type, subscriptionGroup: type == .autoRenewable ? group : nil,
      price: currency == nil ? nil : price, currency: price == nil ? nil : currency,
      familyShareable: try r.bool(item, "familyShareable", path),
      introOffer: try introOffer(item, path: path, currency: currency, r), origin: r.source)
    product.groupIsLocalToFile = product.subscriptionGroup != nil
    product.billingPlans = try billingPlans(item, path: path, currency: currency, r)
    return product
  }

  /// `billingPlans` (version 5): each plan's type and prices. A plan type Apple does not document is kept as
  /// read; the catalog's warnings say so.
  static func billingPlans(_ item: JSONValue, path: String, currency: String?, _ r: CatalogFieldReader)
    throws(ReceiptError) -> [CatalogBillingPlan]
  {
    guard let list = item.member("billingPlans"), list != .null else { return [] }
    var plans: [CatalogBillingPlan] = []
    for (i, value) in try r.array(list, "\(path).billingPlans").enumerated() {
      let at = "\(path).billingPlans[\(i)]"
      let o = try r.object(value, at)
      let type = BillingPlanType(raw: try r.requiredString(o, "billingPlanType", at))
      if plans.contains(where: { $0.type == type }) {
        throw r.fail("\(at).billingPlanType", "a second \(Excerpt.quoted(type.raw)) billing plan")
      }
      let price = try r.price(o, "displayPrice", at, currency: currency)
      let commitment = try r.price(o, "commitmentDisplayPrice", at, currency: currency)
      plans.append(
        CatalogBillingPlan(
          type: type, price: currency == nil ? nil : price, commitmentPrice: currency == nil ? nil : commitment,
          isEnabled: try r.bool(o, "isEnabled", at)))
    }
    return plans
  }

  /// `introductoryOffer` (object or null), or the newer `introductoryOffers` array.
  static func introOffer(_ item: JSONValue, path: String, currency: String?, _ r: CatalogFieldReader)
    throws(ReceiptError) -> IntroOffer?
  {
    var offerValue: JSONValue?
    var at = "\(path).introductoryOffer"
    if let single = item.member("introductoryOffer"), single != .null {
      offerValue = single
    } else if let list = item.member("introductoryOffers"), list != .null {
      let offers = try r.array(list, "\(path).introductoryOffers")
      offerValue = offers.first
      at = "\(path).introductoryOffers[0]"
    }
    guard let offerValue else { return nil }
    let o = try r.object(offerValue, at)
    let modeName = try r.requiredString(o, "paymentMode", at)
    guard let mode = paymentModes[modeName] else {
      throw r.fail(
        "\(at).paymentMode",
        "unknown payment mode \(Excerpt.quoted(modeName)); expected \(Excerpt.listed(paymentModes.keys.sorted()))")
    }
    let price = try r.price(o, "displayPrice", at, currency: currency)
    return IntroOffer(
      paymentMode: mode, period: try r.period(o, "subscriptionPeriod", at)?.text,
      price: mode == .freeTrial || currency == nil ? nil : price, periods: try r.positiveInt(o, "numberOfPeriods", at))
  }
}
