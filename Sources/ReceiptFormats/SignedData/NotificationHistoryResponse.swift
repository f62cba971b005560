import ReceiptModel

/// Get Notification History: `notificationHistory[]`, each a `signedPayload` and its `sendAttempts`, with
/// `hasMore` and `paginationToken`.
public struct NotificationHistoryResponse: Sendable, Hashable {
  /// `paginationToken`: the token to ask for the next page with.
  public var paginationToken: String?
  /// `hasMore`: whether more pages follow.
  public var hasMore: Bool?
  /// `notificationHistory`: the page's notifications.
  public var notificationHistory: [NotificationHistoryItem] = []
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []
  /// Things carried through (keys of an item or attempt that are not read).
  public var notes: [SignedDataNote] = []

  /// The fields the tool reads.
  static let keys = SignedKeys(["paginationToken", "hasMore", "notificationHistory"])

  static func read(_ r: inout PayloadReading) throws -> NotificationHistoryResponse {
    var response = NotificationHistoryResponse()
    response.unreadKeys = try r.forEachMember(keys) { r, index in
      switch index {
      case 0: response.paginationToken = try r.string()
      case 1: response.hasMore = try r.bool()
      default:
        try r.forEachElement { r in response.notificationHistory.append(try NotificationHistoryItem.read(&r)) }
      }
    }
    response.notes = r.notes
    return response
  }
}

/// One `notificationHistory` item: the notification as sent and Apple's attempts to send it.
public struct NotificationHistoryItem: Sendable, Hashable {
  /// `signedPayload`: the notification, still signed.
  public var signedPayload: NestedJWS<NotificationV2Payload>?
  /// `sendAttempts`: each attempt's date and result.
  public var sendAttempts: [SendAttempt] = []
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []
  /// Things carried through (keys of an attempt that are not read), when the item is the whole document (Get
  /// Test Notification Status); a history's are the response's.
  public var notes: [SignedDataNote] = []

  static let keys = SignedKeys(["signedPayload", "sendAttempts"])

  static func read(_ r: inout PayloadReading) throws -> NotificationHistoryItem {
    var item = NotificationHistoryItem()
    item.unreadKeys = try r.forEachMember(keys) { r, index in
      if index == 0 {
        item.signedPayload = try PayloadDecoding.nested(&r, as: NotificationV2Payload.self)
      } else {
        item.sendAttempts = try r.sendAttempts()
      }
    }
    return item
  }
}

extension SignedDataMapping.Builder {
  /// One notification as sent: read as a notification is, and listed with its send attempts.
  mutating func delivered(_ item: NotificationHistoryItem, path: String) throws(ReceiptError) -> DeliveredNotification {
    var delivered = DeliveredNotification()
    delivered.sendAttempts = item.sendAttempts
    switch item.signedPayload {
    case .decoded(let jws)?:
      header(jws.header, jws.source)
      try notificationPayload(jws.payload, path: SignedDataPath.join(path, "signedPayload > payload"))
      delivered.notificationType = notification?.notificationType
      delivered.notificationUUID = jws.payload.notificationUUID
      delivered.signedDate = jws.payload.signedDate
    case .undecodable(let error)?: delivered.problem = error.detail
    case nil: delivered.problem = "no signedPayload"
    }
    return delivered
  }

  /// Every notification's transaction and renewal info, read as a notification's are, into one history; each
  /// notification and its send attempts listed.
  mutating func read(_ response: NotificationHistoryResponse) throws(ReceiptError) {
    unread(response.unreadKeys, path: "")
    notes(response.notes, path: "")
    page = ResponsePage(
      hasMore: response.hasMore, continuationField: "paginationToken", continuation: response.paginationToken)
    var chains: Set<String> = []
    var newest: Timestamp?
    for (i, item) in response.notificationHistory.enumerated() {
      let path = "notificationHistory[\(i)]"
      unread(item.unreadKeys, path: path)
      let delivered = try delivered(item, path: path)
      deliveries.append(delivered)
      newest = [newest, delivered.signedDate].compactMap { $0 }.max()
      if let t = item.signedPayload?.decoded?.payload.data?.signedTransactionInfo?.decoded?.payload,
        let chain = t.originalTransactionId ?? t.transactionId
      {
        chains.insert(chain)
      }
    }
    // The page's own facts, not the last notification's.
    notification = nil
    notificationSignedDate = newest
    let count = response.notificationHistory.count
    contentNote = "\(count) notification\(count == 1 ? "" : "s")"
    if chains.count > 1 {
      warnings.append(
        DataWarning(
          path: "notificationHistory",
          message:
            "\(ReadingWarnings.severalPurchasesPrefix) \(chains.count) purchases (originalTransactionId "
            + chains.sorted().prefix(5).map { Excerpt.quoted($0) }.joined(separator: ", ")
            + (chains.count > 5 ? ", …" : "")
            + "); they are answered as one customer's history, as --one-customer answers: a history asked for "
            + "without a transactionId may hold several customers"))
    }
  }
}
