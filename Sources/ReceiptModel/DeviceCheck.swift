/// Whether a signed app receipt was issued to a given device: its hash (attribute 5) against SHA-1 over the
/// device identifier, the opaque value (attribute 4) and the bundle id attribute's value bytes (Apple, "Validating
/// receipts locally"). The receipt is an on-device one, or the one a verifyReceipt or Notification v1 body carries
/// in `latest_receipt`.
public enum DeviceCheck: Hashable, Sendable {
  /// No device identifier was given.
  case notChecked
  /// The hash matches: the receipt was issued to this device.
  case matches(deviceID: String)
  /// The hash differs: the receipt was issued to another device (or altered).
  case mismatch(deviceID: String, receiptHash: String, computed: String)
  /// The receipt lacks what the hash needs (attribute 4, 5 or 2).
  case cannotCheck(deviceID: String, missing: String)
  /// `latest_receipt` holds no readable receipt (a placeholder, cut short): there is no hash to check.
  case noReceipt(deviceID: String, latestReceipt: String)

  /// A stable name for machine-readable output.
  public var result: String {
    switch self {
    case .notChecked: "not-checked"
    case .matches: "match"
    case .mismatch: "mismatch"
    case .cannotCheck, .noReceipt: "cannot-check"
    }
  }

  /// The identifier checked against; nil when none was given.
  public var deviceID: String? {
    switch self {
    case .notChecked: nil
    case .matches(let id), .mismatch(let id, _, _), .cannotCheck(let id, _), .noReceipt(let id, _): id
    }
  }

  /// Whether the receipt was shown to be issued to the device asked about: false for a mismatch and for a
  /// receipt that cannot be checked; true when it matches or no device was asked about.
  public var isShownToMatch: Bool {
    switch self {
    case .notChecked, .matches: true
    case .mismatch, .cannotCheck, .noReceipt: false
    }
  }

  /// One line a support person can read out.
  public var summary: String {
    switch self {
    case .notChecked: "not checked (no --device-id given)"
    case .matches(let id): "issued to device \(id) (device hash matches)"
    case .mismatch(let id, let receipt, let computed):
      "NOT issued to device \(id): the receipt's device hash is \(receipt), that device's would be \(computed)"
    case .cannotCheck(let id, let missing): "cannot check device \(id): the receipt has no \(missing)"
    case .noReceipt(let id, let what): "cannot check device \(id): latest_receipt is \(what)"
    }
  }

  /// How little the check shows, most first: a mismatch, then what cannot be checked, then not asked, then a
  /// match. Several documents' checks combine to the one that shows least.
  private var weakness: Int {
    switch self {
    case .mismatch: 0
    case .cannotCheck, .noReceipt: 1
    case .notChecked: 2
    case .matches: 3
    }
  }

  /// The check that shows least of `checks` (the first of equals); nil when none has one.
  /// - Parameter checks: Each document's or item's check, nil where it has no receipt.
  /// - Returns: The weakest check.
  public static func weakest(_ checks: [DeviceCheck?]) -> DeviceCheck? {
    var weakest: DeviceCheck?
    for case let check? in checks where weakest.map({ check.weakness < $0.weakness }) ?? true { weakest = check }
    return weakest
  }
}
