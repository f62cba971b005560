import ReceiptModel

/// Minor-unit digits of a currency (ISO 4217): 0 for JPY, KRW and the like, 3 for BHD, KWD, ...; 2 otherwise.
public func minorDigits(ofCurrency code: String) -> Int {
  // The catalog already rejects codes it does not know; 2 is ISO 4217's usual exponent.
  CurrencyTable.minorDigits(code.uppercased()) ?? 2
}

extension StatedPrice {
  /// The amount in its currency's minor digits (`9.99` for 9990 milliunits of USD), as stated when it has more.
  public var amountInMinorDigits: String { (amount.rescaled(to: minorDigits(ofCurrency: currency)) ?? amount).text }
}

/// An amount of one currency in its minor units (cents for USD, yen for JPY).
public struct Money: Hashable, Sendable {
  public var minorUnits: Int64
  public var currency: String

  public init(minorUnits: Int64, currency: String) {
    self.minorUnits = minorUnits
    self.currency = currency
  }

  /// `29.97`, `300` (JPY), `1.250` (KWD).
  public var text: String {
    DecimalAmount(units: minorUnits, scale: minorDigits(ofCurrency: currency)).text
  }

  /// Parses an amount written with exactly the currency's minor digits (as `text` writes it); nil otherwise.
  public init?(parsing text: String, currency: String) {
    let negative = text.hasPrefix("-")
    let digits = minorDigits(ofCurrency: currency)
    guard let amount = DecimalAmount(parsing: negative ? String(text.dropFirst()) : text), amount.scale == digits
    else { return nil }
    minorUnits = negative ? -amount.units : amount.units
    self.currency = currency
  }
}

/// `a + b`, or a data error naming `what` when the sum does not fit. Inlined, with the error made out of line:
/// every figure of every event is added through here.
@inline(__always)
func addMoney(_ a: Int64, _ b: Int64, what: String) throws(ReceiptError) -> Int64 {
  let (sum, overflow) = a.addingReportingOverflow(b)
  if overflow { throw totalTooLarge(what) }
  return sum
}

@inline(never)
private func totalTooLarge(_ what: String) -> ReceiptError {
  .data(source: nil, message: "\(what): the total is too large to compute exactly")
}

/// What one owner transaction is worth, as far as the catalog says.
public enum TransactionValue: Hashable, Sendable {
  /// Paid: the catalog (or intro) price × quantity.
  case paid(Money, basis: PriceBasis)
  /// A free-trial period: worth 0. The currency is the product's catalog currency, when known.
  case trial(currency: String?)
  /// No price is known; never counted as 0.
  case unpriced(reason: String)

  public enum PriceBasis: String, Sendable {
    case catalogPrice = "catalog price"
    case introPrice = "introductory price"
    case transactionPrice = "priced from the transaction"
  }
}

/// How many units a transaction is. Apple always sends `quantity`; when it is missing the
/// transaction counts as one unit (one purchase), which is what every receipt without it has meant.
public func units(of transaction: PurchaseTransaction) -> Int64 { Int64(transaction.quantity ?? 1) }

/// Values one owner transaction [S33] §7.4, §7.6: a free trial (stated by the data, or an introductory offer whose catalog
/// offer is a free trial) is 0; an introductory-price period is the catalog's intro price; otherwise the
/// catalog price; × quantity. Without a price and currency in the catalog the transaction is unpriced, never 0.
/// - Parameters:
///   - transaction: a transaction the purchaser owns.
///   - catalog: prices and currencies.
/// - Returns: its value, or why it has none.
/// - Throws: `ReceiptError` when the catalog price has more decimals than the currency has or the product overflows.
public func valueOf(_ transaction: PurchaseTransaction, catalog: Catalog) throws(ReceiptError) -> TransactionValue {
  try valueOf(transaction, product: CatalogProductFacts(catalog.product(transaction.productID)))
}

/// `valueOf(_:catalog:)` with the transaction's catalog entry already looked up (`CatalogLookup`).
func valueOf(_ transaction: PurchaseTransaction, product facts: CatalogProductFacts) throws(ReceiptError)
  -> TransactionValue
{
  let product = facts.product
  let offer = transaction.offer
  let inIntroductoryPrice = offer.map { $0.usesIntroductoryOffer && $0.pricing != nil && !$0.isFreeTrial } ?? false
  if offer?.isFreeTrial == true || (inIntroductoryPrice && product?.introOffer?.paymentMode == .freeTrial) {
    return .trial(currency: product?.currency ?? transaction.price?.currency)
  }
  if let stated = valueFromStatedPrice(transaction) { return stated }
  guard let product else { return .unpriced(reason: "product not in the catalog") }
  guard let currency = product.currency else { return .unpriced(reason: "the catalog gives no currency") }
  let price: DecimalAmount
  let basis: TransactionValue.PriceBasis
  if inIntroductoryPrice {
    guard let intro = product.introOffer?.price else {
      return .unpriced(reason: "introductory-offer period, and the catalog gives no introductory price")
    }
    price = intro
    basis = .introPrice
  } else {
    // A charge on a billing plan is one charge of that plan: a MONTHLY commitment's is a month's price.
    switch listedCharge(on: transaction.billing?.plan, product) {
    case .price(let p): price = p
    case .noPlan(let plan):
      return .unpriced(reason: "billing plan \(plan.raw), which the catalog does not list for the product")
    case .none: return .unpriced(reason: "the catalog gives no price")
    }
    basis = .catalogPrice
  }
  let digits = facts.currencyDigits ?? minorDigits(ofCurrency: currency)
  guard let minor = price.rescaled(to: digits) else {
    throw .data(
      source: product.origin.isEmpty ? nil : product.origin,
      message:
        "\(product.productID): \(basis.rawValue) \(price.text) cannot be written in \(currency)'s \(digits) minor digits"
    )
  }
  let (total, overflow) = minor.units.multipliedReportingOverflow(by: units(of: transaction))
  if overflow {
    throw .data(
      source: nil, message: "transaction \(Excerpt.quoted(transaction.transactionID)): price × quantity is too large")
  }
  return .paid(Money(minorUnits: total, currency: currency), basis: basis)
}

/// A product's catalog entry and its currency's minor digits, as valuing reads them.
final class CatalogProductFacts {
  let product: CatalogProduct?
  /// `minorDigits(ofCurrency:)` of the product's currency.
  let currencyDigits: Int?

  init(_ product: CatalogProduct?) {
    self.product = product
    currencyDigits = product?.currency.map { minorDigits(ofCurrency: $0) }
  }
}
