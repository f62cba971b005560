import ReceiptModel
import ReceiptRules

/// receipt-tool's own catalog JSON: `{"products": [{"product_id": ..., "type": ..., ...}]}`.
enum JSONCatalogFormat {
  static let productKeys: Set<String> = [
    "product_id", "type", "subscription_group", "entitlements", "price", "currency", "family_shareable",
    "intro_offer", "duration", "billing_plans",
  ]
  static let offerKeys: Set<String> = ["payment_mode", "period", "price", "periods"]
  /// The keys of a `billing_plans` entry: a `.storekit` file's `billingPlans` in this format's spelling.
  static let billingPlanKeys: Set<String> = ["type", "price", "commitment_price", "enabled"]
  /// The keys of `app`: the app the data must belong to.
  static let appKeys: Set<String> = ["bundle_id", "app_apple_id", "environment"]
  /// The keys of `paid_app`: the entitlement for customers who bought the app before it went free.
  static let paidAppKeys: Set<String> = ["entitlement", "before_version", "before_date", "version_kind"]

  /// True when the document looks like this format: `products` whose entries carry `product_id`, or only `app`
  /// or `paid_app`.
  static func recognises(_ root: JSONValue) -> Bool {
    if root.member("products") == nil, root.member("subscriptionGroups") == nil,
      root.member("app") != nil || root.member("paid_app") != nil
    {
      return true
    }
    guard case .array(let items)? = root.member("products") else { return false }
    return items.isEmpty ? root.member("subscriptionGroups") == nil : items.contains { $0.member("product_id") != nil }
  }

  static func load(_ root: JSONValue, source: String, defaultCurrency: String?) throws(ReceiptError) -> Catalog {
    let r = CatalogFieldReader(source: source)
    var catalog = Catalog()
    if let app = root.member("app"), app != .null { catalog.expectedApp = try loadApp(app, r) }
    if let paidApp = root.member("paid_app"), paidApp != .null { catalog.paidApp = try loadPaidApp(paidApp, r) }
    var firstIndex: [String: Int] = [:]
    let settingsOnly = root.member("app") != nil || root.member("paid_app") != nil
    let products = settingsOnly && root.member("products") == nil ? .array([]) : root.member("products")
    for (index, item) in try r.array(products ?? .null, "$.products").enumerated() {
      let path = "$.products[\(index)]"
      let product = try loadProduct(try r.object(item, path), path: path, r, defaultCurrency: defaultCurrency)
      if let earlier = firstIndex[product.productID] {
        throw r.fail(
          "\(path).product_id",
          "duplicate product id \(Excerpt.quoted(product.productID)) (first at $.products[\(earlier)])")
      }
      firstIndex[product.productID] = index
      catalog.add(product)
    }
    return catalog
  }

  /// `app`: the bundle id, Apple id and environment the data must belong to, each optional.
  static func loadApp(_ value: JSONValue, _ r: CatalogFieldReader) throws(ReceiptError) -> ExpectedApp {
    let app = try r.object(value, "$.app")
    try rejectUnknownKeys(app, allowed: appKeys, path: "$.app", r)
    var expected = ExpectedApp()
    func origin(_ key: String) -> String { "app.\(key) in \(r.source)" }
    if let id = try r.string(app, "bundle_id", "$.app") { expected.bundleID = .init(id, origin: origin("bundle_id")) }
    if let value = app.member("app_apple_id"), value != .null {
      guard case .number(let n) = value, let id = Int64(n), id > 0 else {
        throw r.fail(
          "$.app.app_apple_id", "expected the app's Apple id, a positive whole number, found \(value.excerpt)")
      }
      expected.appAppleID = .init(id, origin: origin("app_apple_id"))
    }
    if let name = try r.string(app, "environment", "$.app") {
      guard let environment = ExpectedApp.environment(named: name) else {
        throw r.fail(
          "$.app.environment",
          "unknown environment \(Excerpt.quoted(name)); expected \(Excerpt.listed(ExpectedApp.environments))")
      }
      expected.environment = .init(environment, origin: origin("environment"))
    }
    return expected
  }

  /// `paid_app`: the entitlement, and the version (with which version it is) or the date the app went free.
  static func loadPaidApp(_ value: JSONValue, _ r: CatalogFieldReader) throws(ReceiptError) -> PaidAppTerms {
    let at = "$.paid_app"
    let o = try r.object(value, at)
    try rejectUnknownKeys(o, allowed: paidAppKeys, path: at, r)
    var terms = PaidAppTerms(entitlement: try r.requiredString(o, "entitlement", at))
    let kinds = PaidAppTerms.VersionKind.allCases.map(\.rawValue)
    if let text = try r.string(o, "version_kind", at) {
      guard let kind = PaidAppTerms.VersionKind(rawValue: text) else {
        throw r.fail(
          "\(at).version_kind", "unknown version kind \(Excerpt.quoted(text)); expected \(Excerpt.listed(kinds))")
      }
      terms.versionKind = kind
    }
    if let text = try r.string(o, "before_version", at) {
      guard let version = AppVersion(text) else {
        throw r.fail(
          "\(at).before_version",
          "\(Excerpt.quoted(text)) is not a version of dot-separated whole numbers such as \"42\" or \"2.1\"")
      }
      guard terms.versionKind != nil else {
        throw r.fail(
          "\(at).version_kind",
          "missing: before_version needs it, as Apple's original_application_version is CFBundleVersion on iOS and CFBundleShortVersionString on macOS; expected \(Excerpt.listed(kinds))"
        )
      }
      terms.beforeVersion = version
    } else if terms.versionKind != nil {
      throw r.fail("\(at).version_kind", "says which version before_version is, and there is no before_version")
    }
    if let text = try r.string(o, "before_date", at) {
      guard let date = Timestamp.parse(formatted: text) else {
        throw r.fail("\(at).before_date", "\(Excerpt.quoted(text)) is not a date such as \"2024-03-01T00:00:00Z\"")
      }
      terms.beforeDate = date
    }
    guard terms.beforeVersion != nil || terms.beforeDate != nil else {
      throw r.fail(at, "needs before_version or before_date (or both): when the app went free")
    }
    return terms
  }

  static func loadProduct(
    _ item: JSONValue, path: String, _ r: CatalogFieldReader, defaultCurrency: String?
  ) throws(ReceiptError) -> CatalogProduct {
    try rejectUnknownKeys(item, allowed: productKeys, path: path, r)
    let id = try r.requiredString(item, "product_id", path)
    let typeName = try r.requiredString(item, "type", path)
    guard let type = ProductType(rawValue: typeName) else {
      throw r.fail(
        "\(path).type",
        "unknown product type \(Excerpt.quoted(typeName)); expected \(Excerpt.listed(ProductType.allCases.map(\.rawValue)))"
      )
    }
    let explicitCurrency = try r.currency(item, "currency", path)
    let currency = explicitCurrency ?? defaultCurrency
    let price = try r.price(item, "price", path, currency: currency)
    if price != nil, currency == nil {
      throw r.fail("\(path).price", "a price needs a currency: add \"currency\" (ISO 4217) or give --currency")
    }
    var entitlements: [String]?
    if let value = item.member("entitlements"), value != .null {
      let names = try r.array(value, "\(path).entitlements")
      guard !names.isEmpty else {
        throw r.fail("\(path).entitlements", "is empty; omit it to use the product id as the entitlement")
      }
      var list: [String] = []
      for (i, name) in names.enumerated() {
        guard case .string(let s) = name, !s.isEmpty else {
          throw r.fail("\(path).entitlements[\(i)]", "expected a non-empty string, found \(name.excerpt)")
        }
        list.append(s)
      }
      entitlements = list
    }
    var offer: IntroOffer?
    if let value = item.member("intro_offer"), value != .null {
      let at = "\(path).intro_offer"
      guard type == .autoRenewable else {
        throw r.fail(
          at, "only auto_renewable products have introductory offers; this one is \(Excerpt.quoted(typeName))")
      }
      let o = try r.object(value, at)
      try rejectUnknownKeys(o, allowed: offerKeys, path: at, r)
      let modeName = try r.requiredString(o, "payment_mode", at)
      guard let mode = IntroPaymentMode(rawValue: modeName) else {
        throw r.fail(
          "\(at).payment_mode",
          "unknown payment mode \(Excerpt.quoted(modeName)); expected \(Excerpt.listed(IntroPaymentMode.allCases.map(\.rawValue)))"
        )
      }
      offer = IntroOffer(
        paymentMode: mode, period: try r.period(o, "period", at)?.text,
        price: try r.price(o, "price", at, currency: currency), periods: try r.positiveInt(o, "periods", at))
    }
    var product = CatalogProduct(
      productID: id, type: type, subscriptionGroup: try r.identifier(item, "subscription_group", path),
      entitlements: entitlements, price: price, currency: price == nil ? explicitCurrency : currency,
      familyShareable: try r.bool(item, "family_shareable", path), introOffer: offer,
      duration: try r.period(item, "duration", path), origin: r.source)
    product.billingPlans = try billingPlans(item, path: path, type: type, currency: currency, r)
    return product
  }

  /// `billing_plans`: how an auto-renewable subscription can be billed, each plan's `type` (`BILLED_UPFRONT` or
  /// `MONTHLY`), `price` (one charge: a month's, for `MONTHLY`), `commitment_price` (the whole commitment) and
  /// `enabled`. Our own format: a type Apple has not documented is refused, not guessed at.
  static func billingPlans(
    _ item: JSONValue, path: String, type: ProductType, currency: String?, _ r: CatalogFieldReader
  ) throws(ReceiptError) -> [CatalogBillingPlan] {
    guard let list = item.member("billing_plans"), list != .null else { return [] }
    let at = "\(path).billing_plans"
    guard type == .autoRenewable else {
      throw r.fail(at, "only auto_renewable products have billing plans; this one is \(Excerpt.quoted(type.rawValue))")
    }
    var plans: [CatalogBillingPlan] = []
    for (i, value) in try r.array(list, at).enumerated() {
      let place = "\(at)[\(i)]"
      let o = try r.object(value, place)
      try rejectUnknownKeys(o, allowed: billingPlanKeys, path: place, r)
      let name = try r.requiredString(o, "type", place)
      let known: [BillingPlanType] = [.billedUpfront, .monthly]
      guard let plan = known.first(where: { $0.raw == name }) else {
        throw r.fail(
          "\(place).type", "unknown billing plan \(Excerpt.quoted(name)); expected \(Excerpt.listed(known.map(\.raw)))")
      }
      if plans.contains(where: { $0.type == plan }) {
        throw r.fail("\(place).type", "a second \(Excerpt.quoted(name)) billing plan")
      }
      let price = try r.price(o, "price", place, currency: currency)
      let commitment = try r.price(o, "commitment_price", place, currency: currency)
      if (price ?? commitment) != nil, currency == nil {
        throw r.fail(place, "a price needs a currency: add \"currency\" (ISO 4217) to the product or give --currency")
      }
      plans.append(
        CatalogBillingPlan(
          type: plan, price: price, commitmentPrice: commitment, isEnabled: try r.bool(o, "enabled", place)))
    }
    return plans
  }

  /// Our own format rejects unknown keys, so a typo (`entitlement`) is never silently ignored.
  static func rejectUnknownKeys(_ object: JSONValue, allowed: Set<String>, path: String, _ r: CatalogFieldReader)
    throws(ReceiptError)
  {
    guard case .object(let members) = object else { return }
    for member in members where !allowed.contains(member.key) {
      throw r.fail(
        "\(path).\(member.key)",
        "unknown key \(Excerpt.quoted(member.key)); expected \(Excerpt.listed(allowed.sorted()))")
    }
  }
}
