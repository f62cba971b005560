import ReceiptModel

/// An introductory offer as a catalog describes it.
public struct IntroOffer: Hashable, Sendable {
  /// How the offer is paid for: free trial, pay as you go, or pay up front.
  public var paymentMode: IntroPaymentMode
  /// ISO 8601 period of one offer period (`P1W`), when known.
  public var period: String?
  /// The offer price for the paid modes.
  public var price: DecimalAmount?
  /// Number of periods for pay-as-you-go.
  public var periods: Int?

  /// Describes an offer.
  /// - Parameters:
  ///   - paymentMode: How it is paid for.
  ///   - period: ISO 8601 period of one offer period, when known.
  ///   - price: The offer price for the paid modes.
  ///   - periods: Number of periods for pay-as-you-go.
  public init(paymentMode: IntroPaymentMode, period: String? = nil, price: DecimalAmount? = nil, periods: Int? = nil) {
    self.paymentMode = paymentMode
    self.period = period
    self.price = price
    self.periods = periods
  }
}

/// An ISO 8601 period such as `P1W`, `P1M`, `P90D`, `P1Y`.
public struct ISOPeriod: Hashable, Sendable {
  /// Whole years (`Y`).
  public var years: Int
  /// Whole months (`M`).
  public var months: Int
  /// Days (`D`), with weeks (`W`) counted as seven days.
  public var days: Int
  /// The period as written (`P1M`).
  public var text: String

  /// Parses `PnYnMnWnD` (each part optional, at least one present); nil otherwise.
  public init?(_ text: String) {
    var y = 0
    var m = 0
    var d = 0
    var rest = Substring(text)
    guard rest.first == "P", rest.count > 1 else { return nil }
    rest = rest.dropFirst()
    var number = ""
    var order = 0
    for c in rest {
      if c.isASCII, c.isNumber {
        number.append(c)
        guard number.count <= 5 else { return nil }
        continue
      }
      guard let n = Int(number) else { return nil }
      number = ""
      let units: [Character: Int] = ["Y": 1, "M": 2, "W": 3, "D": 4]
      guard let rank = units[c], rank > order else { return nil }
      order = rank
      switch c {
      case "Y": y = n
      case "M": m = n
      case "W": d += n * 7
      default: d += n
      }
    }
    guard number.isEmpty, order > 0 else { return nil }
    years = y
    months = m
    days = d
    self.text = text
  }

  /// `start` plus this period, calendar-aware for months and years (clamped to the month's end).
  public func added(to start: Timestamp) -> Timestamp? {
    let (dayCount, msOfDay) = start.milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
    let (y0, m0, d0) = Timestamp.civil(fromDays: dayCount)
    let totalMonths = (y0 * 12 + (m0 - 1)) + Int64(years) * 12 + Int64(months)
    let y = totalMonths / 12
    let m = totalMonths % 12 + 1
    guard y <= 9999 else { return nil }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
    let monthDays: [Int64] = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    let d = min(d0, monthDays[Int(m - 1)])
    let days = Timestamp.days(year: y, month: m, day: d) + Int64(self.days)
    return Timestamp(milliseconds: days * 86_400_000 + msOfDay)
  }
}

/// One way a subscription can be billed, as a catalog lists it (a `.storekit` version 5 `billingPlans` entry).
public struct CatalogBillingPlan: Hashable, Sendable {
  /// `billingPlanType`: `BILLED_UPFRONT` or `MONTHLY`.
  public var type: BillingPlanType
  /// `displayPrice`: the price of one charge on this plan (a month's, for `MONTHLY`), in the product's currency.
  public var price: DecimalAmount?
  /// `commitmentDisplayPrice`: the price of the whole commitment, in the product's currency.
  public var commitmentPrice: DecimalAmount?
  /// `isEnabled`: whether the plan is offered; nil when the catalog does not say.
  public var isEnabled: Bool?

  /// Describes a billing plan.
  /// - Parameters:
  ///   - type: How it bills.
  ///   - price: The price of one charge.
  ///   - commitmentPrice: The price of the whole commitment.
  ///   - isEnabled: Whether it is offered.
  public init(
    type: BillingPlanType, price: DecimalAmount? = nil, commitmentPrice: DecimalAmount? = nil, isEnabled: Bool? = nil
  ) {
    self.type = type
    self.price = price
    self.commitmentPrice = commitmentPrice
    self.isEnabled = isEnabled
  }
}

/// One product as the catalog(s) describe it.
public struct CatalogProduct: Hashable, Sendable {
  /// The product id, as receipts and the App Store name it.
  public var productID: String
  /// What kind of product it is.
  public var type: ProductType
  /// The catalog's group id (a `.storekit` group id is local to its file; see `groupIsLocalToFile`).
  public var subscriptionGroup: String?
  /// Entitlement names; defaults to the product id.
  public var entitlements: [String]
  /// The product's price in `currency`, when the catalog gives one.
  public var price: DecimalAmount?
  /// The ISO 4217 code of `price`.
  public var currency: String?
  /// Whether the catalog lets Family Sharing share it; nil when the catalog does not say.
  public var familyShareable: Bool?
  /// nil: the product has no introductory offer.
  public var introOffer: IntroOffer?
  /// Access length of a non-renewing subscription.
  public var duration: ISOPeriod?
  /// The catalog file this entry came from.
  public var origin: String
  /// The ways the subscription can be billed (`.storekit` version 5 `billingPlans`); empty when the catalog lists
  /// none, and then `price` is the up-front price.
  public var billingPlans: [CatalogBillingPlan] = []
  /// True for a `.storekit` group id, which names the group only within its file
  /// (receipts carry App Store group ids; `SubscriptionGroups` links the two through shared products).
  public var groupIsLocalToFile: Bool = false

  /// Describes a product; only the id and type are required.
  /// - Parameters:
  ///   - productID: The product id.
  ///   - type: What kind of product it is.
  ///   - subscriptionGroup: The catalog's group id.
  ///   - entitlements: Entitlement names; nil means the product id alone.
  ///   - price: The price, when known.
  ///   - currency: The ISO 4217 code of `price`.
  ///   - familyShareable: Whether Family Sharing may share it.
  ///   - introOffer: The introductory offer, if any.
  ///   - duration: Access length of a non-renewing subscription.
  ///   - origin: The catalog file the entry came from.
  public init(
    productID: String, type: ProductType, subscriptionGroup: String? = nil, entitlements: [String]? = nil,
    price: DecimalAmount? = nil, currency: String? = nil, familyShareable: Bool? = nil,
    introOffer: IntroOffer? = nil, duration: ISOPeriod? = nil, origin: String = ""
  ) {
    self.productID = productID
    self.type = type
    self.subscriptionGroup = subscriptionGroup
    self.entitlements = entitlements ?? [productID]
    self.price = price
    self.currency = currency
    self.familyShareable = familyShareable
    self.introOffer = introOffer
    self.duration = duration
    self.origin = origin
  }
}

/// Products from one or more catalog files; later files override earlier ones per product.
public struct Catalog: Sendable {
  /// Products by id; the last definition of an id wins.
  public private(set) var products: [String: CatalogProduct] = [:]
  /// Product ids in the order they were first defined, for stable output.
  public private(set) var order: [String] = []
  /// Non-fatal notes from loading (e.g. a `.storekit` file whose currency is unknown).
  public var warnings: [String] = []
  /// The app the data must belong to (the JSON catalog's `app`); options given on the command line override it.
  public var expectedApp = ExpectedApp()
  /// The entitlement for customers who bought the app before it went free (the JSON catalog's `paid_app`).
  public var paidApp: PaidAppTerms?
  /// The catalog's entitlements in the order their first product is defined, each with every non-consumable and
  /// subscription product that names it: where `entitlementDefinitions` starts for every document, so kept as
  /// products are added rather than made per document.
  public private(set) var definedEntitlements: [EntitlementDefinition] = []
  /// Where each entitlement is in `definedEntitlements`.
  private var entitlementPlaces: [String: Int] = [:]

  /// An empty catalog: every product's type is then unknown unless the data says.
  public init() {}

  /// A catalog of these products; a later one with the same id overrides an earlier one.
  /// - Parameter products: The products, in definition order.
  public init(_ products: [CatalogProduct]) {
    for p in products { add(p) }
  }

  /// Whether the catalog lists no products.
  public var isEmpty: Bool { products.isEmpty }

  /// Adds a product, replacing any with the same id but keeping its first place in `order`.
  /// - Parameter product: The product to add.
  public mutating func add(_ product: CatalogProduct) {
    let isNew = products[product.productID] == nil
    if isNew { order.append(product.productID) }
    products[product.productID] = product
    // A new product comes last in `order`, so its entitlements go after the others; a replaced one may change any.
    if isNew {
      define(product)
    } else {
      (definedEntitlements, entitlementPlaces) = ([], [:])
      for id in order { if let p = products[id] { define(p) } }
    }
  }

  /// Adds `product` to the entitlements it names, after every product before it in `order`.
  private mutating func define(_ product: CatalogProduct) {
    guard product.type != .consumable else { return }
    for entitlement in product.entitlements {
      guard let place = entitlementPlaces[entitlement] else {
        entitlementPlaces[entitlement] = definedEntitlements.count
        definedEntitlements.append(EntitlementDefinition(id: entitlement, productIDs: [product.productID]))
        continue
      }
      if !definedEntitlements[place].productIDs.contains(product.productID) {
        definedEntitlements[place].productIDs.append(product.productID)
      }
    }
  }

  /// Where the entitlement named `id` is in `definedEntitlements`, if the catalog defines it.
  public func place(ofEntitlement id: String) -> Int? { entitlementPlaces[id] }

  /// Merges `other` over this catalog.
  public mutating func merge(_ other: Catalog) {
    expectedApp = other.expectedApp.over(expectedApp)
    paidApp = other.paidApp ?? paidApp
    // Into an empty catalog (every load's first file), the other's products as they are: adding them one by one
    // gives the same ids, entries and order (an id is in `order` once, and `products` holds exactly those).
    if order.isEmpty, products.isEmpty {
      (products, order) = (other.products, other.order)
      (definedEntitlements, entitlementPlaces) = (other.definedEntitlements, other.entitlementPlaces)
      warnings += other.warnings
      return
    }
    for id in other.order {
      if let p = other.products[id] { add(p) }
    }
    warnings += other.warnings
  }

  /// The product with this id, if the catalog lists it.
  /// - Parameter id: The product id.
  /// - Returns: The catalog's entry, or nil.
  public func product(_ id: String) -> CatalogProduct? { products[id] }

  /// Every product in definition order.
  public var allProducts: [CatalogProduct] { order.compactMap { products[$0] } }
}
