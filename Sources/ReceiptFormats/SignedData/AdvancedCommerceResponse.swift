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
