import ReceiptModel

/// The App Store Server API's renewal-date extension responses: Extend a Subscription Renewal Date
/// (`originalTransactionId`, `webOrderLineItemId`, `success`, `effectiveDate`), Extend Subscription Renewal Dates
/// for All Active Subscribers (`requestIdentifier`) and Get Status of Subscription Renewal Date Extensions
/// (`requestIdentifier`, `complete`, `completeDate`, `succeededCount`, `failedCount`). None holds a transaction:
/// each says what became of an extension, and is read for that.
public struct RenewalExtensionResponse: Sendable, Hashable {
  /// Which of the three responses it is.
  public enum Kind: Sendable, Hashable {
    /// One subscription's extension.
    case single
    /// A request to extend every active subscriber's renewal date.
    case massRequest
    /// The status of such a request.
    case massStatus
  }

  /// `originalTransactionId`: the subscription extended.
  public var originalTransactionId: String?
  /// `webOrderLineItemId`: the subscription period extended.
  public var webOrderLineItemId: String?
  /// `success`: whether the extension took.
  public var success: Bool?
  /// `effectiveDate`: the new renewal date.
  public var effectiveDate: Timestamp?
  /// `requestIdentifier`: the mass extension's id.
  public var requestIdentifier: String?
  /// `complete`: whether the mass extension has finished.
  public var complete: Bool?
  /// `completeDate`: when it finished.
  public var completeDate: Timestamp?
  /// `succeededCount`: how many subscriptions were extended.
  public var succeededCount: Int64?
  /// `failedCount`: how many could not be.
  public var failedCount: Int64?
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []

  static let keys = SignedKeys([
    "originalTransactionId", "webOrderLineItemId", "success", "effectiveDate", "requestIdentifier", "complete",
    "completeDate", "succeededCount", "failedCount",
  ])

  /// Which response it is, from its fields.
  public var kind: Kind {
    if requestIdentifier == nil { return .single }
    return complete == nil && completeDate == nil && succeededCount == nil && failedCount == nil
      ? .massRequest : .massStatus
  }

  static func read(_ r: inout PayloadReading) throws -> RenewalExtensionResponse {
    var x = RenewalExtensionResponse()
    x.unreadKeys = try r.forEachMember(keys) { r, index in
      switch index {
      case 0: x.originalTransactionId = try r.string()
      case 1: x.webOrderLineItemId = try r.string()
      case 2: x.success = try r.bool()
      case 3: x.effectiveDate = try r.date()
      case 4: x.requestIdentifier = try r.string()
      case 5: x.complete = try r.bool()
      case 6: x.completeDate = try r.date()
      case 7: x.succeededCount = try r.integer()
      default: x.failedCount = try r.integer()
      }
    }
    return x
  }
}

extension SignedDataMapping.Builder {
  /// What became of the extension, under Apple's names; no purchase.
  mutating func read(_ x: RenewalExtensionResponse) {
    unread(x.unreadKeys, path: "")
    var f: [StatedField] = []
    f.add("originalTransactionId", x.originalTransactionId)
    f.add("webOrderLineItemId", x.webOrderLineItemId)
    f.add("success", flag: x.success)
    f.add("effectiveDate", date: x.effectiveDate)
    f.add("requestIdentifier", x.requestIdentifier)
    f.add("complete", flag: x.complete)
    f.add("completeDate", date: x.completeDate)
    f.add("succeededCount", number: x.succeededCount)
    f.add("failedCount", number: x.failedCount)
    if keepsStatedFields { documentFields = f }
    switch x.kind {
    case .single:
      let outcome =
        x.success == true
        ? "extended" + (x.effectiveDate.map { " to \($0.iso8601)" } ?? "")
        : (x.success == false ? "not extended" : "extension not said")
      contentNote = "no transaction: originalTransactionId \(x.originalTransactionId ?? "(none)") \(outcome)"
    case .massRequest:
      contentNote = "no transaction: a request to extend every active subscriber's renewal date"
    case .massStatus:
      contentNote =
        "no transaction: \(x.succeededCount.map(String.init) ?? "?") extended, "
        + "\(x.failedCount.map(String.init) ?? "?") failed, " + (x.complete == true ? "complete" : "not complete")
    }
  }
}
