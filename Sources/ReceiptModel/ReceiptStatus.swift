/// The `status` of a verifyReceipt response, with Apple's meaning.
public struct ReceiptStatus: Hashable, Sendable {
  /// Apple's code: 0 valid, 21000-21010 and 21100-21199 problems.
  public var code: Int64

  /// Wraps a `status` code.
  /// - Parameter code: The code as received.
  public init(_ code: Int64) { self.code = code }

  /// Statuses under which the body still carries a receipt that can be trusted.
  /// 21006: valid receipt whose (iOS 6-style) subscription has expired.
  public var carriesValidReceipt: Bool { code == 0 || code == 21006 }

  /// Apple's meaning, in words a support person can read out.
  public var meaning: String {
    switch code {
    case 0: return "The receipt is valid."
    case 21000: return "The request to the App Store was not made using the HTTP POST request method."
    case 21001: return "This status code is no longer sent by the App Store."
    case 21002: return "The receipt-data was malformed, or the service had a temporary issue; try again."
    case 21003: return "The receipt could not be authenticated."
    case 21004: return "The shared secret does not match the one on file for the account."
    case 21005: return "The receipt server was temporarily unable to provide the receipt; try again."
    case 21006: return "The receipt is valid, but the subscription has expired."
    case 21007:
      return
        "This receipt is from the test (sandbox) environment, but it was sent to the production environment for verification."
    case 21008:
      return
        "This receipt is from the production environment, but it was sent to the test (sandbox) environment for verification."
    case 21009: return "Internal data access error; try again later."
    case 21010: return "The user account cannot be found or has been deleted."
    case 21100...21199: return "Internal data access error (21100-21199); see is-retryable."
    default: return "Unknown status code \(code); Apple documents 0, 21000-21010 and 21100-21199."
    }
  }

  /// Whether Apple documents this code.
  public var isKnown: Bool { code == 0 || (21000...21010).contains(code) || (21100...21199).contains(code) }
}
