import ReceiptModel

/// ISO 4217 currencies the App Store sells in, with their minor-unit digits, and Apple storefront codes → currency.
public enum CurrencyTable {
  /// Decimals a price in `code` may have; nil for a code this table does not know.
  public static func minorDigits(_ code: String) -> Int? {
    if zeroDecimal.contains(code) { return 0 }
    if threeDecimal.contains(code) { return 3 }
    if twoDecimal.contains(code) { return 2 }
    return nil
  }

  /// The currency of an App Store storefront (`settings._storefront` in a `.storekit` file, ISO 3166 alpha-3).
  public static func currency(forStorefront storefront: String) -> String? {
    if euroStorefronts.contains(storefront) { return "EUR" }
    return storefronts[storefront]
  }

  static let zeroDecimal: Set<String> = [
    "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF",
  ]
  static let threeDecimal: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]
  static let twoDecimal: Set<String> = [
    "AED", "AMD", "ARS", "AUD", "AZN", "BAM", "BDT", "BGN", "BOB", "BRL", "BWP", "BYN", "CAD", "CHF", "CNY", "COP",
    "CRC", "CZK", "DKK", "DOP", "DZD", "EGP", "EUR", "GBP", "GEL", "GHS", "GTQ", "HKD", "HNL", "HUF", "IDR", "ILS",
    "INR", "JMD", "KES", "KGS", "KZT", "LBP", "LKR", "MAD", "MDL", "MKD", "MNT", "MOP", "MUR", "MXN", "MYR", "NGN",
    "NIO", "NOK", "NPR", "NZD", "PAB", "PEN", "PHP", "PKR", "PLN", "QAR", "RON", "RSD", "RUB", "SAR", "SEK", "SGD",
    "THB", "TRY", "TTD", "TWD", "TZS", "UAH", "USD", "UYU", "UZS", "VES", "ZAR",
  ]

  static let euroStorefronts: Set<String> = [
    "AUT", "BEL", "BGR", "CYP", "DEU", "ESP", "EST", "FIN", "FRA", "GRC", "HRV", "IRL", "ITA", "LTU", "LUX", "LVA",
    "MLT", "NLD", "PRT", "SVK", "SVN",
  ]
  static let storefronts: [String: String] = [
    "USA": "USD", "GBR": "GBP", "CAN": "CAD", "AUS": "AUD", "NZL": "NZD", "JPN": "JPY", "KOR": "KRW", "CHN": "CNY",
    "HKG": "HKD", "TWN": "TWD", "SGP": "SGD", "MYS": "MYR", "THA": "THB", "IDN": "IDR", "PHL": "PHP", "VNM": "VND",
    "IND": "INR", "PAK": "PKR", "CHE": "CHF", "SWE": "SEK", "NOR": "NOK", "DNK": "DKK", "POL": "PLN", "CZE": "CZK",
    "HUN": "HUF", "ROU": "RON", "TUR": "TRY", "RUS": "RUB", "UKR": "UAH", "ISR": "ILS", "SAU": "SAR", "ARE": "AED",
    "QAT": "QAR", "EGY": "EGP", "ZAF": "ZAR", "NGA": "NGN", "KEN": "KES", "TZA": "TZS", "KAZ": "KZT", "BRA": "BRL",
    "MEX": "MXN", "CHL": "CLP", "COL": "COP", "PER": "PEN",
  ]
}
