/// What a document's signature vouches for, by field class: a verdict says which fields it covers, so that an
/// answer drawn from a field no signature covers is not read as Apple's.
///
/// A PKCS#7 app receipt (on-device, or a JSON body's `latest_receipt`) holds ids, products, dates, quantity, the
/// trial and intro flags, cancellation and the device hash, and nothing else: no ownership type, price or
/// currency (Apple's ASN.1 field table). A signed transaction (JWS) covers every field it carries. Unsigned data
/// covers nothing.
public struct SignatureCoverage: Hashable, Sendable {
  /// A class of fields a signature covers or not, named as JSON output names it.
  public enum FieldClass: String, Hashable, Sendable, CaseIterable, Comparable {
    /// `transaction_id`, `original_transaction_id`, `web_order_line_item_id`.
    case ids
    /// `product_id`.
    case products
    /// Purchase, original purchase and expiry dates.
    case dates
    /// `quantity`.
    case quantity
    /// `is_trial_period`, `is_in_intro_offer_period` (signed data: the offer type).
    case offerFlags = "trial-and-intro-flags"
    /// `cancellation_date` (signed data: the revocation).
    case cancellation
    /// The receipt's device hash (type 5), with the opaque value and bundle id it is made from.
    case deviceHash = "device-hash"
    /// The app's own purchase: the receipt's `original_application_version` and `original_purchase_date`
    /// (types 19 and 18; an AppTransaction's `originalApplicationVersion`, `originalPurchaseDate`).
    case appPurchase = "app-purchase"
    /// `in_app_ownership_type`: bought by the customer or shared through Family Sharing.
    case ownership
    /// The price paid.
    case price
    /// The price's currency.
    case currency

    /// The verifyReceipt JSON fields of the class, as a reason quotes them.
    public var verifyReceiptFields: String {
      switch self {
      case .ids: "transaction_id, original_transaction_id, web_order_line_item_id"
      case .products: "product_id"
      case .dates: "purchase_date, original_purchase_date, expires_date"
      case .quantity: "quantity"
      case .offerFlags: "is_trial_period, is_in_intro_offer_period"
      case .cancellation: "cancellation_date"
      case .deviceHash: "the receipt's device hash"
      case .appPurchase: "the receipt object's original_application_version, original_purchase_date"
      case .ownership: "in_app_ownership_type"
      case .price: "price"
      case .currency: "currency"
      }
    }

    private var order: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// Whether `a` comes before `b` in output.
    public static func < (a: FieldClass, b: FieldClass) -> Bool { a.order < b.order }
  }

  /// Which kind of signature it is.
  public enum Kind: String, Hashable, Sendable {
    /// A PKCS#7 app receipt.
    case appReceipt = "app-receipt"
    /// Signed transactions and renewal infos (JWS).
    case signedTransaction = "signed-transaction"
    /// No signature: unsigned data, a receipt with no signer, a `latest_receipt` that is not a receipt.
    case none
  }

  /// Which kind of signature it is.
  public var kind: Kind
  /// The field classes covered, in output order.
  public var covered: [FieldClass]

  /// - Parameters:
  ///   - kind: Which kind of signature it is.
  ///   - covered: The field classes it covers.
  public init(kind: Kind, covered: [FieldClass]) {
    self.kind = kind
    self.covered = covered.sorted()
  }

  /// What a PKCS#7 app receipt covers: every class but ownership, price and currency (reference §9.3).
  public static let appReceipt = SignatureCoverage(
    kind: .appReceipt,
    covered: [.ids, .products, .dates, .quantity, .offerFlags, .cancellation, .deviceHash, .appPurchase])
  /// What a verifyReceipt body's (or a notification v1's) signed `latest_receipt` covers of the JSON: the
  /// transactions it is compared with (`ReceiptBacking`), not the unsigned `receipt` object's app purchase.
  public static let latestReceipt = SignatureCoverage(
    kind: .appReceipt, covered: appReceipt.covered.filter { $0 != .appPurchase })
  /// What a signed transaction covers: every field it carries (it has no receipt device hash).
  public static let signedTransaction = SignatureCoverage(
    kind: .signedTransaction, covered: FieldClass.allCases.filter { $0 != .deviceHash })
  /// Nothing is covered.
  public static let none = SignatureCoverage(kind: .none, covered: [])

  /// The field classes not covered, in output order.
  public var uncovered: [FieldClass] { FieldClass.allCases.filter { !covered.contains($0) } }

  /// Whether `field` is covered.
  /// - Parameter field: A field class.
  /// - Returns: True when the signature vouches for it.
  public func covers(_ field: FieldClass) -> Bool { covered.contains(field) }

  /// What two signatures of one answer both cover (a document merged from several).
  /// - Parameter other: The other's coverage.
  /// - Returns: The classes both cover; the kind when both are of one kind, else the weaker's.
  public func intersection(_ other: SignatureCoverage) -> SignatureCoverage {
    let kind: Kind = self.kind == other.kind ? self.kind : other.covered.count < covered.count ? other.kind : self.kind
    return SignatureCoverage(kind: kind, covered: covered.filter(other.covers))
  }

  /// `ownership (in_app_ownership_type), price (price)`, for a line a support person reads out.
  /// - Parameter fields: Field classes.
  /// - Returns: Each class with its verifyReceipt fields, comma-separated.
  public static func phrase(_ fields: [FieldClass]) -> String {
    fields.map { "\($0.rawValue) (\($0.verifyReceiptFields))" }.joined(separator: ", ")
  }
}
