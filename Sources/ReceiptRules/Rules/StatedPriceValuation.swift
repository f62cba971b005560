import ReceiptModel

/// Values a transaction at the price the data itself states [S27] §6 (signed transactions' `price` in milliunits and
/// `currency`: after any offer discount, and × quantity for consumables, so never multiplied again).
/// The stated price wins over the catalog's.
/// - Parameter transaction: a transaction the purchaser owns.
/// - Returns: its value, or nil when the data states no price.
func valueFromStatedPrice(_ transaction: PurchaseTransaction) -> TransactionValue? {
  guard let stated = transaction.price else { return nil }
  let digits = minorDigits(ofCurrency: stated.currency)
  guard let minor = stated.amount.rescaled(to: digits) else {
    return .unpriced(
      reason: "the transaction's price \(stated.amount.text) \(stated.currency) has more decimals than the currency")
  }
  return .paid(Money(minorUnits: minor.units, currency: stated.currency), basis: .transactionPrice)
}

/// Where the data's own facts about a transaction disagree with the catalog: its price and its product type.
/// The data wins in both cases; each disagreement is one sentence for a warning.
/// - Parameters:
///   - transaction: a transaction.
///   - catalog: the products the app sells.
/// - Returns: the disagreements, empty when there are none or nothing to compare.
public func catalogDisagreements(of transaction: PurchaseTransaction, catalog: Catalog) -> [String] {
  // Without a stated type or a stated price there is nothing to compare: no catalog lookup.
  guard transaction.productType != nil || transaction.price != nil else { return [] }
  guard let product = catalog.product(transaction.productID) else { return [] }
  var out: [String] = []
  // Made only for a disagreement: quoting every transaction's id was a fifth of `entitlements --catalog`.
  var id: String { "transaction \(Excerpt.quoted(transaction.transactionID)) (\(transaction.productID))" }
  if let stated = transaction.productType, stated != product.type {
    out.append(
      "\(id): the data says \(stated.description), the catalog \(product.type.description); the data's type is used")
  }
  if transaction.isOwnedByPurchaser, transaction.offer == nil, let stated = transaction.price,
    let currency = product.currency
  {
    switch listedCharge(on: transaction.billing?.plan, product) {
    case .price(let listed):
      if let disagreement = priceDisagreement(stated, listed: listed, currency: currency, id: id, transaction) {
        out.append(disagreement)
      }
    case .noPlan(let plan):
      out.append(
        "\(id): priced from the transaction on billing plan \(plan.raw); the catalog lists no \(plan.raw) "
          + "billing plan for it, so the price is not compared")
    case .none:
      break
    }
  }
  return out
}

/// What the catalog lists for one charge on a billing plan.
enum ListedCharge {
  /// The price of one charge.
  case price(DecimalAmount)
  /// The catalog lists billing plans, or the transaction's plan bills other than up front, and that plan is not
  /// among them.
  case noPlan(BillingPlanType)
  /// The catalog gives no price.
  case none
}

/// The catalog's price of one charge on `plan`: that billing plan's own price when the catalog lists billing plans
/// (a `MONTHLY` plan's is a month's); the product's price when it lists none and the plan bills up front or is not
/// stated (data from before billing plans).
func listedCharge(on plan: BillingPlanType?, _ product: CatalogProduct) -> ListedCharge {
  guard let plan else { return product.price.map { .price($0) } ?? .none }
  if let listed = product.billingPlans.first(where: { $0.type == plan }) {
    return listed.price.map { .price($0) } ?? .none
  }
  if product.billingPlans.isEmpty, plan == .billedUpfront { return product.price.map { .price($0) } ?? .none }
  return .noPlan(plan)
}

/// The sentence saying a stated price is not the catalog's `listed` price × units; nil when they agree.
func priceDisagreement(
  _ stated: StatedPrice, listed: DecimalAmount, currency: String, id: @autoclosure () -> String,
  _ transaction: PurchaseTransaction
) -> String? {
  let statedAmount = stated.amount.rescaled(to: 3)
  let perUnit = listed.rescaled(to: 3).flatMap { p in
    let (total, overflow) = p.units.multipliedReportingOverflow(by: units(of: transaction))
    return overflow ? nil : total
  }
  if stated.currency.uppercased() != currency.uppercased() || statedAmount?.units != perUnit {
    let shown = stated.amountInMinorDigits
    return
      "\(id()): priced from the transaction at \(shown) \(stated.currency); the catalog says \(listed.text) \(currency) × \(units(of: transaction))"
  }
  return nil
}

/// The disagreements of every transaction of `history`, in order.
/// - Parameters:
///   - history: a document's transactions.
///   - catalog: the products the app sells.
/// - Returns: one sentence per disagreement.
public func catalogDisagreements(of history: PurchaseHistory, catalog: Catalog) -> [String] {
  guard !catalog.isEmpty else { return [] }
  var out: [String] = []
  let all = history.transactions
  // Only a transaction that states a type or a price can disagree: asked by index, so no other one is copied.
  for i in all.indices where all[i].productType != nil || all[i].price != nil {
    out += catalogDisagreements(of: all[i], catalog: catalog)
  }
  return out
}
