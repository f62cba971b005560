import ReceiptModel

/// What a V2 notification's `notificationType` and `subtype` state beyond the signed transaction and renewal
/// info they carry (Apple, App Store Server Notifications: notificationType, subtype). The transaction and
/// renewal info decide access, revenue and eligibility; the type fills only what Apple's documentation says it
/// means when the renewal info leaves it out.
public enum NotificationEffects {
  /// How the warning about a type or subtype this version does not know begins: every command shows it.
  public static let unknownEventPrefix = "a notification type or subtype receipt-tool does not know"

  /// The warnings of `history` about notification types or subtypes this version does not know.
  public static func unknownEventWarnings(in history: PurchaseHistory) -> [String] {
    history.warnings.filter { $0.message.hasPrefix(unknownEventPrefix) }.map { "\($0.path): \($0.message)" }
  }

  /// The warning for an unknown `notificationType` or `subtype`, when either is unknown.
  static func unknownEvent(_ n: NotificationV2Payload) -> String? {
    var unknown: [String] = []
    if let t = n.notificationType, t.known == nil { unknown.append("notificationType \(Excerpt.quoted(t.raw))") }
    if let s = n.subtype, s.known == nil { unknown.append("subtype \(Excerpt.quoted(s.raw))") }
    guard !unknown.isEmpty else { return nil }
    return unknownEventPrefix + " (\(unknown.joined(separator: ", "))): carried through; the transaction and "
      + "renewal info it holds are read as they are, and the type itself changes nothing"
  }

  /// Types whose `data` is about the app or an external purchase, never an App Store purchase of a customer's.
  public static func isAboutTheApp(_ type: Coded<NotificationTypeV2>?) -> Bool {
    switch type?.known {
    case .test?, .externalPurchaseToken?, .rescindConsent?: true
    default: false
    }
  }

  /// `EXPIRED`'s subtype is why the subscription expired (the `expirationIntent` codes 1 to 4); `DID_FAIL_TO_RENEW`
  /// and `GRACE_PERIOD_EXPIRED` mean Apple is retrying the charge. A value the renewal info states is never changed.
  /// - Parameters:
  ///   - renewal: the notification's renewal info (or an empty one).
  ///   - type: the notification's type.
  ///   - subtype: its subtype.
  public static func fillRenewal(
    _ renewal: inout JWSRenewalInfoPayload, type: NotificationTypeV2?, subtype: NotificationSubtype?
  ) {
    switch type {
    case .expired?:
      guard renewal.expirationIntent == nil else { return }
      switch subtype {
      case .voluntary?: renewal.expirationIntent = Coded(.customerCancelled)
      case .billingRetry?: renewal.expirationIntent = Coded(.billingError)
      case .priceIncrease?: renewal.expirationIntent = Coded(.declinedPriceIncrease)
      case .productNotForSale?: renewal.expirationIntent = Coded(.productUnavailable)
      default: break
      }
    case .didFailToRenew?, .gracePeriodExpired?:
      if renewal.isInBillingRetryPeriod == nil { renewal.isInBillingRetryPeriod = true }
    default:
      break
    }
  }
}
