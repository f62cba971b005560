/// One page of a paged App Store Server API response (`hasMore`, with `revision` or `paginationToken`).
public struct ResponsePage: Hashable, Sendable {
  /// `hasMore`: more pages follow, so the history this page gives is not the whole of it.
  public var hasMore: Bool?
  /// The field to ask for the next page with (`revision`, `paginationToken`), as the response names it.
  public var continuationField: String
  /// Its value, when given.
  public var continuation: String?

  /// - Parameters:
  ///   - hasMore: `hasMore` as given.
  ///   - continuationField: the field that continues the history.
  ///   - continuation: its value.
  public init(hasMore: Bool?, continuationField: String, continuation: String?) {
    self.hasMore = hasMore
    self.continuationField = continuationField
    self.continuation = continuation
  }

  /// Whether the response says more pages follow: an answer from it covers only the pages read.
  public var isPartial: Bool { hasMore == true }

  /// The sentence every answer from a partial page carries, in the response's own field names.
  public var partialNote: String {
    let next = continuation.map { ", the next page is asked for with \(continuationField) \(Excerpt.quoted($0))" } ?? ""
    return "a partial history: hasMore is true (more pages follow)\(next); the answer covers only this page"
  }
}

/// A response's own status (Look Up Order ID's `status`): a document that says it is invalid carries no answer.
public struct ResponseStatus: Hashable, Sendable {
  /// The field, as the response names it.
  public var field: String
  /// Its value.
  public var code: Int64
  /// Apple's meaning, in words a support person can read out.
  public var meaning: String
  /// Whether the status says the response holds what was asked for.
  public var isValid: Bool

  /// - Parameters:
  ///   - field: the field's name.
  ///   - code: its value.
  ///   - meaning: Apple's meaning.
  ///   - isValid: whether the response holds what was asked for.
  public init(field: String, code: Int64, meaning: String, isValid: Bool) {
    self.field = field
    self.code = code
    self.meaning = meaning
    self.isValid = isValid
  }
}

/// One notification as Get Notification History or Get Test Notification Status lists it: what it was and how
/// Apple's attempts to send it went.
public struct DeliveredNotification: Hashable, Sendable {
  /// `notificationType` and `subtype`, joined (`DID_RENEW / BILLING_RECOVERY`); nil when it could not be read.
  public var notificationType: String?
  /// `notificationUUID`.
  public var notificationUUID: String?
  /// The notification's `signedDate`.
  public var signedDate: Timestamp?
  /// Why its `signedPayload` could not be read, when it could not.
  public var problem: String?
  /// `sendAttempts`, in order.
  public var sendAttempts: [SendAttempt] = []

  /// A notification with nothing known yet.
  public init() {}
}

/// One of Apple's attempts to send a notification.
public struct SendAttempt: Hashable, Sendable {
  /// `attemptDate`.
  public var attemptDate: Timestamp?
  /// `sendAttemptResult` as given (`SUCCESS`, `TIMED_OUT`, ...).
  public var result: String?

  /// - Parameters:
  ///   - attemptDate: when Apple tried.
  ///   - result: how it went.
  public init(attemptDate: Timestamp?, result: String?) {
    self.attemptDate = attemptDate
    self.result = result
  }
}
