import ReceiptModel

/// Get Test Notification Status: the TEST notification's `signedPayload` and Apple's `sendAttempts`.
public struct TestNotificationStatusResponse: Sendable, Hashable {
  /// `signedPayload`: the test notification, still signed.
  public var signedPayload: NestedJWS<NotificationV2Payload>?
  /// `sendAttempts`: each attempt's date and result.
  public var sendAttempts: [SendAttempt] = []
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []
  /// Things carried through (keys of an attempt that are not read).
  public var notes: [SignedDataNote] = []

  static let keys = SignedKeys(["signedPayload", "sendAttempts"])

  static func read(_ r: inout PayloadReading) throws -> TestNotificationStatusResponse {
    var response = TestNotificationStatusResponse()
    response.unreadKeys = try r.forEachMember(keys) { r, index in
      if index == 0 {
        response.signedPayload = try PayloadDecoding.nested(&r, as: NotificationV2Payload.self)
      } else {
        response.sendAttempts = try r.sendAttempts()
      }
    }
    response.notes = r.notes
    return response
  }
}

extension SignedDataMapping.Builder {
  /// The test notification as a notification is read, and its send attempts.
  mutating func read(_ response: TestNotificationStatusResponse) throws(ReceiptError) {
    unread(response.unreadKeys, path: "")
    notes(response.notes, path: "")
    var delivered = DeliveredNotification()
    delivered.sendAttempts = response.sendAttempts
    switch response.signedPayload {
    case .decoded(let jws)?:
      header(jws.header, jws.source)
      try notificationPayload(jws.payload, path: "signedPayload > payload")
      delivered.notificationType = notification?.notificationType
      delivered.notificationUUID = jws.payload.notificationUUID
      delivered.signedDate = jws.payload.signedDate
    case .undecodable(let error)?: delivered.problem = error.detail
    case nil: delivered.problem = "no signedPayload"
    }
    deliveries.append(delivered)
  }
}
