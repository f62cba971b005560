import ReceiptModel

/// What a V2 notification's `notificationType` and `subtype` state beyond the signed transaction and renewal
/// info they carry (Apple, App Store Server Notifications: notificationType, subtype). The transaction and
/// renewal info decide access, revenue and eligibility; the type fills only what Apple's documentation says it
/// means when the renewal info leaves it out.
public enum NotificationEffects {
  /// Types whose `data` is about the app or an external purchase, never an App Store purchase of a customer's.
  public static func isAboutTheApp(_ type: Coded<NotificationTypeV2>?) -> Bool {
    switch type?.known {
    case .test?, .externalPurchaseToken?, .rescindConsent?: true
    default: false
    }
  }

  /// `EXPIRED`'s subtype is why the subscription expired (the `expirationIntent` codes 1 to 4); `DID_FAIL_TO_RENEW`
  /// and `GRACE_PERIOD_EXPIRED` mean Apple is retrying the charge, `DID_RENEW` that it is not. A value the renewal
  /// info states is never changed.
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
    case .didRenew?:
      if renewal.isInBillingRetryPeriod == nil { renewal.isInBillingRetryPeriod = false }
    default:
      break
    }
  }
}
