import ReceiptModel

/// What a caller allows a decoder to do, the same for every input format.
public struct DecodeOptions: Sendable {
  /// Keep credentials (`latest_receipt`, a shared secret) for `--show-secrets`; otherwise only their presence.
  public var keepSecrets: Bool
  /// Build the `carriedFields` (undocumented attributes) and signed data's `statedFields` that only `decode`
  /// prints; commands that never read them skip the work. Warnings are kept either way.
  public var keepsFieldsOnlyDecodeShows: Bool
  /// Check signatures, with verifiers lent by the caller; nil reads without checking (`not-checked`).
  public var signatures: SignatureChecking?
  /// The device an on-device receipt's hash is checked against (`--device-id`); nil: not checked.
  public var deviceID: DeviceIdentifier?

  /// - Parameters:
  ///   - keepSecrets: keep credentials in the decoded history.
  ///   - keepsFieldsOnlyDecodeShows: build the carried and stated fields `decode` shows.
  ///   - signatures: check signatures with these verifiers; nil reads without checking.
  public init(
    keepSecrets: Bool = false, keepsFieldsOnlyDecodeShows: Bool = true, signatures: SignatureChecking? = nil
  ) {
    self.keepSecrets = keepSecrets
    self.keepsFieldsOnlyDecodeShows = keepsFieldsOnlyDecodeShows
    self.signatures = signatures
  }

  /// Other threads that may parse parts of one large document, given by the caller that owns them (the input
  /// pipeline); nil: the document is read on the calling thread alone.
  package var pieceHelpers: (any PieceHelpers)?
}

/// A device identifier as the receipt's hash uses it: iOS's identifierForVendor (a UUID, its 16 bytes) or
/// macOS's GUID (the primary network interface's MAC address, its bytes).
public struct DeviceIdentifier: Hashable, Sendable {
  /// The bytes hashed.
  public var bytes: [UInt8]
  /// As given, for messages.
  public var text: String

  /// Reads `8-4-4-4-12` hex as a UUID's 16 bytes; otherwise hex digits, optionally separated by `:` or `-`
  /// (`00:1c:42:00:00:08`), as bytes. Nil for anything else.
  public init?(_ text: String) {
    let digits = Array(text.utf8)
    guard !digits.isEmpty, digits.count <= 128 else { return nil }
    func nibble(_ c: UInt8) -> UInt8? {
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
      default: nil
      }
    }
    let hex = digits.filter { $0 != UInt8(ascii: ":") && $0 != UInt8(ascii: "-") }
    guard !hex.isEmpty, hex.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(hex.count / 2)
    var i = 0
    while i + 1 < hex.count {
      guard let high = nibble(hex[i]), let low = nibble(hex[i + 1]) else { return nil }
      bytes.append(high << 4 | low)
      i += 2
    }
    self.bytes = bytes
    self.text = text
  }
}
