import ReceiptModel

/// An Advanced Commerce API response (Cancel, Change Metadata, Migrate, Modify, Price Change, Revoke a
/// subscription): the subscription's `signedTransactionInfo` and `signedRenewalInfo`. (Request Refund answers with
/// `signedTransactionInfo` alone, the shape of Get Transaction Info: it is read as that, and named an Advanced
/// Commerce response when its transaction carries `advancedCommerceInfo`.)
public struct AdvancedCommerceResponse: Sendable, Hashable {
  /// `signedTransactionInfo`: the transaction the request made or changed, still signed.
  public var signedTransactionInfo: NestedJWS<JWSTransactionPayload>?
  /// `signedRenewalInfo`: the subscription's renewal info, still signed.
  public var signedRenewalInfo: NestedJWS<JWSRenewalInfoPayload>?
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []

  static let keys = SignedKeys(["signedTransactionInfo", "signedRenewalInfo"])

  static func read(_ r: inout PayloadReading) throws -> AdvancedCommerceResponse {
    var response = AdvancedCommerceResponse()
    response.unreadKeys = try r.forEachMember(keys) { r, index in
      if index == 0 {
        response.signedTransactionInfo = try PayloadDecoding.nested(&r, as: JWSTransactionPayload.self)
      } else {
        response.signedRenewalInfo = try PayloadDecoding.nested(&r, as: JWSRenewalInfoPayload.self)
      }
    }
    return response
  }
}

extension JWSTransactionPayload {
  /// Whether the transaction was made through the Advanced Commerce API: it carries `advancedCommerceInfo`.
  var isAdvancedCommerce: Bool { advancedCommerceInfo != nil }
}

extension SignedDataMapping.Builder {
  /// The item refunds an Advanced Commerce transaction states (`advancedCommerceInfo.items[].refunds[]`), carried
  /// as read otherwise: `refundAmount` in milliunits of the transaction's `currency` and `refundDate` in
  /// milliseconds, each a whole number. A refund missing either, or whose value cannot be read, is not booked
  /// and is named in a warning with its path and value; so is a transaction without a currency.
  mutating func itemRefunds(_ info: [StatedField], currency: String?, path: String) -> [ItemRefund] {
    let at = SignedDataPath.join(path, "advancedCommerceInfo")
    guard case .array(let items)? = info.last(where: { $0.name == "items" })?.value else { return [] }
    var refunds: [ItemRefund] = []
    let limit = SignedDataMapping.maxItemRefunds
    if items.count > limit {
      warnings.append(
        DataWarning(
          path: at + ".items",
          message: "\(ReadingWarnings.itemRefundPrefix): only the first \(limit) items' refunds are booked"))
    }
    for (i, item) in items.prefix(limit).enumerated() {
      guard case .object(let itemFields) = item,
        case .array(let listed)? = itemFields.last(where: { $0.name == "refunds" })?.value
      else { continue }
      var sku: String?
      if case .text(let s)? = itemFields.last(where: { $0.name == "SKU" })?.value { sku = s }
      if listed.count > limit {
        warnings.append(
          DataWarning(
            path: "\(at).items[\(i)].refunds",
            message: "\(ReadingWarnings.itemRefundPrefix): only the first \(limit) refunds are booked"))
      }
      for (j, refund) in listed.prefix(limit).enumerated() {
        let place = "\(at).items[\(i)].refunds[\(j)]"
        guard case .object(let fields) = refund else {
          warnings.append(DataWarning(path: place, message: "\(ReadingWarnings.itemRefundPrefix): not an object"))
          continue
        }
        func field(_ name: String) -> StatedField.Value? { fields.last { $0.name == name }?.value }
        func whole(_ name: String) -> Int64? {
          guard case .number(let text)? = field(name) else { return nil }
          return Int64(text)
        }
        let amount = whole("refundAmount").flatMap { $0 >= 0 ? $0 : nil }
        let date = whole("refundDate").flatMap { Timestamp(milliseconds: $0) }
        guard let amount, let date, let currency else {
          let found = [
            field("refundAmount").map { "refundAmount \(Self.shown($0))" },
            field("refundDate").map { "refundDate \(Self.shown($0))" },
          ].compactMap { $0 }
          let why =
            currency == nil
            ? "the transaction states no currency"
            : "it needs a refundAmount (whole milliunits, not below 0) and a refundDate (milliseconds)"
              + (found.isEmpty ? "" : ", found \(found.joined(separator: ", "))")
          warnings.append(DataWarning(path: place, message: "\(ReadingWarnings.itemRefundPrefix): \(why)"))
          continue
        }
        func text(_ name: String) -> String? {
          if case .text(let s)? = field(name) { return s }
          return nil
        }
        refunds.append(
          ItemRefund(
            sku: sku, amount: StatedPrice(amount: DecimalAmount(units: amount, scale: 3), currency: currency),
            date: date, type: text("refundType"), reason: text("refundReason")))
      }
    }
    return refunds
  }

  /// A carried value as a warning quotes it.
  static func shown(_ value: StatedField.Value) -> String {
    switch value {
    case .number(let n): n
    case .text(let s): Excerpt.quoted(s)
    case .flag(let b): String(b)
    case .date(let d): d.iso8601
    case .list, .object, .array: "(not a number)"
    }
  }

  /// The transaction and the renewal info, as a statuses item's are read.
  mutating func read(_ response: AdvancedCommerceResponse) throws(ReceiptError) {
    unread(response.unreadKeys, path: "")
    if let t = response.signedTransactionInfo?.decoded {
      header(t.header, t.source)
      try transaction(t.payload, path: "signedTransactionInfo > payload")
    }
    if let r = response.signedRenewalInfo?.decoded {
      header(r.header, r.source)
      renewal(r.payload, path: "signedRenewalInfo > payload", status: nil)
    }
  }
}
