import ReceiptModel
import ReceiptRules

/// Typed reads of catalog JSON values; every failure names the file, the JSON path and the value.
struct CatalogFieldReader {
  var source: String

  func fail(_ path: String, _ message: String) -> ReceiptError {
    .field(source: source, path: path, message: message, line: nil, column: nil)
  }

  func object(_ value: JSONValue, _ path: String) throws(ReceiptError) -> JSONValue {
    guard case .object = value else { throw fail(path, "expected an object, found \(value.excerpt)") }
    return value
  }

  func array(_ value: JSONValue, _ path: String) throws(ReceiptError) -> [JSONValue] {
    guard case .array(let items) = value else { throw fail(path, "expected an array, found \(value.excerpt)") }
    return items
  }

  /// A member that must be a non-empty string when present (and not null).
  func string(_ parent: JSONValue, _ key: String, _ path: String) throws(ReceiptError) -> String? {
    guard let value = parent.member(key), value != .null else { return nil }
    guard case .string(let s) = value, !s.isEmpty else {
      throw fail("\(path).\(key)", "expected a non-empty string, found \(value.excerpt)")
    }
    return s
  }

  func requiredString(_ parent: JSONValue, _ key: String, _ path: String) throws(ReceiptError) -> String {
    guard let s = try string(parent, key, path) else { throw fail("\(path).\(key)", "missing") }
    return s
  }

  /// A string, or a number kept as its text (group ids are sometimes written as numbers).
  func identifier(_ parent: JSONValue, _ key: String, _ path: String) throws(ReceiptError) -> String? {
    if case .number(let n)? = parent.member(key) { return n }
    return try string(parent, key, path)
  }

  func bool(_ parent: JSONValue, _ key: String, _ path: String) throws(ReceiptError) -> Bool? {
    guard let value = parent.member(key), value != .null else { return nil }
    guard case .bool(let b) = value else {
      throw fail("\(path).\(key)", "expected true or false, found \(value.excerpt)")
    }
    return b
  }

  func positiveInt(_ parent: JSONValue, _ key: String, _ path: String) throws(ReceiptError) -> Int? {
    guard let value = parent.member(key), value != .null else { return nil }
    guard case .number(let n) = value, let i = Int(n), i > 0 else {
      throw fail("\(path).\(key)", "expected a positive whole number, found \(value.excerpt)")
    }
    return i
  }

  func period(_ parent: JSONValue, _ key: String, _ path: String) throws(ReceiptError) -> ISOPeriod? {
    guard let text = try string(parent, key, path) else { return nil }
    guard let p = ISOPeriod(text) else {
      throw fail("\(path).\(key)", "\(Excerpt.quoted(text)) is not an ISO 8601 period such as P1W, P1M, P90D or P1Y")
    }
    return p
  }

  /// A price as a decimal string or JSON number, read exactly and checked against the currency's decimals.
  /// With no known currency the amount is still validated, and returned at its written scale.
  func price(_ parent: JSONValue, _ key: String, _ path: String, currency: String?) throws(ReceiptError)
    -> DecimalAmount?
  {
    guard let value = parent.member(key), value != .null else { return nil }
    let at = "\(path).\(key)"
    let text: String
    switch value {
    case .string(let s): text = s
    case .number(let n): text = n
    default: throw fail(at, "expected a decimal price such as \"9.99\", found \(value.excerpt)")
    }
    if text.hasPrefix("-") { throw fail(at, "\(value.excerpt) is negative; prices cannot be") }
    guard let amount = DecimalAmount(parsing: text) else {
      throw fail(at, "\(value.excerpt) is not a decimal number such as \"9.99\"")
    }
    guard let currency, let digits = CurrencyTable.minorDigits(currency) else { return amount }
    guard let exact = amount.rescaled(to: digits) else {
      throw fail(at, "\(value.excerpt) has more decimals than \(currency) allows (\(digits))")
    }
    return exact
  }

  func currency(_ parent: JSONValue, _ key: String, _ path: String) throws(ReceiptError) -> String? {
    guard let code = try string(parent, key, path) else { return nil }
    guard CurrencyTable.minorDigits(code) != nil else {
      throw fail("\(path).\(key)", "\(Excerpt.quoted(code)) is not an ISO 4217 currency code this tool knows")
    }
    return code
  }
}
