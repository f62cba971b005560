import ReceiptModel

/// Look Up Order ID: `status` (0 valid, 1 invalid order id) and the order's `signedTransactions`.
public struct OrderLookupResponse: Sendable, Hashable {
  /// `status`: 0 the order id is valid, 1 it is not.
  public var status: Int64?
  /// `signedTransactions`: the order's transactions, each decoded or carried with why not.
  public var signedTransactions: [NestedJWS<JWSTransactionPayload>] = []
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []

  static let keys = SignedKeys(["status", "signedTransactions"])

  static func read(_ r: inout PayloadReading) throws -> OrderLookupResponse {
    var response = OrderLookupResponse()
    response.unreadKeys = try r.forEachMember(keys) { r, index in
      if index == 0 {
        response.status = try r.integer()
      } else {
        try r.forEachElement { r in
          guard let jws = try PayloadDecoding.nested(&r, as: JWSTransactionPayload.self) else {
            throw r.fieldError("expected a JWS string, found null", at: r.reader.offset)
          }
          response.signedTransactions.append(jws)
        }
      }
    }
    return response
  }

  /// Apple's `OrderLookupStatus`, in words.
  static func status(_ code: Int64) -> ResponseStatus {
    switch code {
    case 0: ResponseStatus(field: "status", code: 0, meaning: "The order id is valid.", isValid: true)
    case 1:
      ResponseStatus(
        field: "status", code: 1, meaning: "The order id is invalid: the App Store found no such order.",
        isValid: false)
    default:
      ResponseStatus(
        field: "status", code: code, meaning: "Unknown status \(code); Apple documents 0 (valid) and 1 (invalid).",
        isValid: false)
    }
  }
}

extension SignedDataMapping.Builder {
  /// The order's transactions, and its status: an invalid order id is said, never read as an empty history.
  mutating func read(_ response: OrderLookupResponse) throws(ReceiptError) {
    unread(response.unreadKeys, path: "")
    if let code = response.status {
      responseStatus = OrderLookupResponse.status(code)
    } else {
      warnings.append(DataWarning(path: "status", message: "no status: whether the order id is valid is not said"))
    }
    for i in response.signedTransactions.indices {
      guard case .decoded(let jws) = response.signedTransactions[i] else { continue }
      header(jws.header, jws.source)
      try transaction(jws.payload, path: "signedTransactions[\(i)] > payload")
    }
  }
}
