/// Whether an on-device receipt was issued to a given device: its hash (attribute 5) against SHA-1 over the device
/// identifier, the opaque value (attribute 4) and the bundle id attribute's value bytes (Apple, "Validating
/// receipts locally").
public enum DeviceCheck: Hashable, Sendable {
  /// No device identifier was given.
  case notChecked
  /// The hash matches: the receipt was issued to this device.
  case matches(deviceID: String)
  /// The hash differs: the receipt was issued to another device (or altered).
  case mismatch(deviceID: String, receiptHash: String, computed: String)
  /// The receipt lacks what the hash needs (attribute 4, 5 or 2).
  case cannotCheck(deviceID: String, missing: String)

  /// A stable name for machine-readable output.
  public var result: String {
    switch self {
    case .notChecked: "not-checked"
    case .matches: "match"
    case .mismatch: "mismatch"
    case .cannotCheck: "cannot-check"
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
    }
  }
}
