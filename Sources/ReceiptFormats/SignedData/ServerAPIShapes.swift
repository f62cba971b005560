import ReceiptModel

/// The App Store Server API's top-level shapes: which responses are read as their own kind, and which requests
/// and responses hold no purchase data and are refused by name. A new response is one reader file and one entry
/// here.
enum ServerAPIShapes {
  /// A response read as its own kind.
  enum ReadShape: Equatable {
    case notificationHistory, testNotificationStatus, appData, orderLookup, advancedCommerce, renewalExtension
  }

  /// The response a top-level object is, from its keys; nil for the shapes read elsewhere (histories,
  /// statuses, Get Transaction Info, notification bodies, payloads).
  static func readShape(_ keys: Set<String>) -> ReadShape? {
    if keys.contains("notificationHistory") { return .notificationHistory }
    if keys.contains("signedPayload") { return keys.contains("sendAttempts") ? .testNotificationStatus : nil }
    if keys.contains("signedAppTransactionInfo") { return .appData }
    if keys.contains("signedTransactions") {
      let paged: Set<String> = ["bundleId", "appAppleId", "environment", "revision", "hasMore"]
      return keys.contains("status") && keys.isDisjoint(with: paged) ? .orderLookup : nil
    }
    if keys.contains("signedTransactionInfo"), keys.contains("signedRenewalInfo"),
      keys.isDisjoint(with: ["notificationType", "data", "status"])
    {
      return .advancedCommerce
    }
    if keys.contains("success"), keys.contains("webOrderLineItemId"), !keys.contains("transactionId") {
      return .renewalExtension
    }
    if keys.contains("requestIdentifier"), keys.isSubset(of: massExtensionKeys) { return .renewalExtension }
    return nil
  }

  static let massExtensionKeys: Set<String> = [
    "requestIdentifier", "complete", "completeDate", "succeededCount", "failedCount",
  ]

  /// Requests and responses that hold no purchase data, by the keys that make them: every key listed present.
  static let refused: [(name: String, keys: [String])] = [
    ("an Advanced Commerce API request (requestInfo)", ["requestInfo"]),
    ("an App Store Server API error response (errorCode)", ["errorCode"]),
    ("a Retention Messaging real-time request (userLocale, requestIdentifier)", ["userLocale", "requestIdentifier"]),
    ("a Retention Messaging message list (messageIdentifiers)", ["messageIdentifiers"]),
    ("a Retention Messaging image list (imageIdentifiers)", ["imageIdentifiers"]),
    ("a Retention Messaging default message (messageIdentifier)", ["messageIdentifier"]),
    ("a Retention Messaging real-time URL (realtimeURL)", ["realtimeURL"]),
    ("a Retention Messaging performance test (config, requestId)", ["config", "requestId"]),
    ("a Retention Messaging performance test result (config, target)", ["config", "target"]),
    ("an extend-renewal-date request (extendByDays)", ["extendByDays"]),
    ("a Send Consumption Information request (customerConsented)", ["customerConsented"]),
    ("a Request a Test Notification response (testNotificationToken)", ["testNotificationToken"]),
    ("a Get Notification History request (startDate, endDate)", ["startDate", "endDate"]),
  ]

  /// Keys that send a JSON object to the signed-data reader, so that it is read or refused by name here (words
  /// that could be a verifyReceipt value, such as `config`, are left out: such objects stay "not a receipt").
  static let sniffKeys = [
    "notificationHistory", "sendAttempts", "signedAppTransactionInfo", "requestIdentifier", "requestInfo",
    "errorCode", "userLocale", "messageIdentifiers", "imageIdentifiers", "messageIdentifier", "realtimeURL",
    "extendByDays", "customerConsented", "testNotificationToken",
  ]

  /// What a refused object is, from its keys; nil when no refused shape fits.
  static func refusedShape(_ keys: some Sequence<String>) -> String? {
    let present = Set(keys)
    return refused.first { $0.keys.allSatisfy(present.contains) }?.name
  }

  /// Every key of a refused shape, each once.
  static let refusedKeyNames = Array(Set(refused.flatMap(\.keys))).sorted()

  /// What receipt-tool reads, for the end of a refusal.
  static let kindsRead =
    "receipt-tool reads verifyReceipt responses and notifications, app receipts, StoreKit 2 signed data "
    + "(transactions, renewal info, app transactions, V2 notifications) and the App Store Server API responses "
    + "that carry purchases (Get Transaction History, Get Refund History, Get All Subscription Statuses, "
    + "Get Transaction Info, Get App Transaction Info, Look Up Order ID, Get Notification History, "
    + "Get Test Notification Status, renewal-date extensions, Advanced Commerce)"

  /// The refusal of an object that holds no purchase data: what it looks like, when a shape fits, else its keys.
  /// - Parameters:
  ///   - shape: the refused shape that fits, if any.
  ///   - keys: the object's top-level keys.
  ///   - path: where the object is.
  /// - Returns: the error, `.notPurchaseData`.
  static func notPurchaseData(shape: String?, keys: [String], path: String) -> SignedDataError {
    let what: String
    if let shape {
      what = "the object looks like \(shape), which holds no purchase"
    } else if keys.isEmpty {
      what = "the object has no fields, so it fits no kind of purchase data"
    } else {
      let shown = keys.prefix(8).map { Excerpt.quoted($0) }.joined(separator: ", ")
      what = "the object's fields \(shown)\(keys.count > 8 ? ", …" : "") fit no kind of purchase data"
    }
    return SignedDataError(.notPurchaseData, path: path, detail: "\(what); \(kindsRead)")
  }
}
