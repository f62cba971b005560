import ReceiptModel
import ReceiptRules

/// Reads one catalog file; the format is recognised from its content.
public enum CatalogLoader {
  /// Every key either catalog format reads: one of these twice in an object is an error (others are skipped).
  static let readKeys: Set<String> = JSONCatalogFormat.productKeys.union(JSONCatalogFormat.offerKeys).union([
    "products", "subscriptionGroups", "nonRenewingSubscriptions", "subscriptions", "settings", "_storefront", "version",
    "major", "productID", "type", "displayPrice", "familyShareable", "introductoryOffer", "introductoryOffers",
    "numberOfPeriods", "paymentMode", "recurringSubscriptionPeriod", "subscriptionGroupID", "subscriptionPeriod", "id",
  ]).union(JSONCatalogFormat.appKeys).union(["app"])

  /// `currency` prices a `.storekit` file (over its storefront) and JSON entries that name no currency.
  public static func load(_ bytes: [UInt8], source: String, currency: String? = nil) throws(ReceiptError) -> Catalog {
    let root = try JSONValue.parse(bytes, source: source)
    guard case .object = root else {
      throw .field(
        source: source, path: "$", message: "a catalog is a JSON object, found \(root.excerpt)", line: nil, column: nil)
    }
    if let path = root.firstDuplicateKey(among: readKeys) {
      throw .field(
        source: source, path: path,
        message: "duplicate key; receipt-tool reads it and will not guess which value is meant",
        line: nil, column: nil)
    }
    if StoreKitConfigurationFormat.recognises(root) {
      return try StoreKitConfigurationFormat.load(root, source: source, currencyOption: currency)
    }
    if JSONCatalogFormat.recognises(root) {
      return try JSONCatalogFormat.load(root, source: source, defaultCurrency: currency)
    }
    throw .field(
      source: source, path: "$",
      message:
        "neither a receipt-tool catalog (\"products\" entries with \"product_id\") nor an Xcode .storekit file (\"subscriptionGroups\", or \"products\" entries with \"productID\")",
      line: nil, column: nil)
  }
}
