import ReceiptModel

// Get Test Notification Status: the TEST notification's `signedPayload` and Apple's `sendAttempts`, the shape of a
// Get Notification History item (`NotificationHistoryItem`).

extension SignedDataMapping.Builder {
  /// The test notification as a notification is read, and its send attempts.
  mutating func read(testNotificationStatus response: NotificationHistoryItem) throws(ReceiptError) {
    unread(response.unreadKeys, path: "")
    notes(response.notes, path: "")
    deliveries.append(try delivered(response, path: ""))
  }
}
