import ReceiptCrypto
import ReceiptModel

/// Why an app receipt could not be read: where (byte offset and ASN.1 path) and what.
///
/// One line, no exit codes: the command layer decides how to report it.
public struct AppReceiptError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What kind of failure, so callers can word a hint without parsing the message.
  public enum Kind: Sendable, Equatable {
    /// The bytes are not an app receipt in any form this reader knows.
    case notAReceipt
    /// An iOS 6 style transaction receipt (base64 of a NeXTSTEP plist with `purchase-info`).
    case legacyTransactionReceipt
    /// It starts like an app receipt but the structure is broken (truncated, corrupted, bad base64).
    case malformed
    /// Well formed, but a value cannot be interpreted (a bad date, a negative quantity, a duplicate field).
    case badValue
  }

  /// What kind of failure it is.
  public var kind: Kind
  /// Byte offset of the failing element. Within the DER bytes (after base64 decoding) when `path` starts with
  /// an ASN.1 step; within the input text when `path` names the input layer (`base64`, `JSON`).
  public var offset: Int
  /// Steps from the outside in, e.g. `["content", "SET", "attribute 17", "in-app 3", "type 1704"]`.
  public var path: [String]
  /// What is wrong, without the position.
  public var message: String

  /// Makes an error.
  /// - Parameters:
  ///   - kind: What kind of failure.
  ///   - offset: Byte offset of the failing element.
  ///   - path: ASN.1 steps from the outside in.
  ///   - message: What is wrong, without the position.
  public init(_ kind: Kind, offset: Int, path: [String], message: String) {
    self.kind = kind
    self.offset = offset
    self.path = path
    self.message = message
  }

  /// `byte 1834 (content > SET > attribute 17 > in-app 3 > type 1704): ...`, always one line.
  public var description: String {
    // Written in one allocation and searched for line breaks in place: the detail of every latest_receipt cut short.
    let steps = path.isEmpty ? "" : " (" + path.joined(separator: " > ") + ")"
    let capacity = 7 + JoinedText.decimalCapacity + steps.utf8.count + message.utf8.count
    var text = JoinedText.make(capacity: capacity) { text in
      text.append("byte ")
      text.append(decimal: offset)
      text.append(steps)
      text.append(": ")
      text.append(message)
    }
    // `mayHoldLineBreak`'s byte test, written here: from another module it is a call a byte.
    let mayBreak = text.withUTF8 { bytes in bytes.contains { $0 &- 0x0A < 4 || $0 == 0xC2 || $0 == 0xE2 } }
    return mayBreak ? text.onOneLine : text
  }
}
