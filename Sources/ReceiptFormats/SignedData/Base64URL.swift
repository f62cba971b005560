import ReceiptCrypto
import ReceiptModel

/// Why a base64url text could not be decoded, and where.
public struct Base64URLError: Error, Equatable, Sendable {
  /// What was wrong with the text (ReceiptCrypto's reasons; `Base64.Rules.url` refuses only the five below).
  public typealias Reason = Base64Error.Reason

  /// What was wrong.
  public var reason: Reason
  /// Offset in the encoded text (0-based) of the offending character.
  public var offset: Int

  public init(reason: Reason, offset: Int) {
    self.reason = reason
    self.offset = offset
  }

  /// `invalid base64url character '+' at offset 17`, without the text itself.
  public var message: String {
    switch reason {
    case .invalidCharacter(let b):
      let hint =
        b == UInt8(ascii: "+") || b == UInt8(ascii: "/")
        ? " ('+' and '/' are standard base64; base64url uses '-' and '_')" : ""
      return "invalid base64url character \(Base64URL.describe(byte: b)) at offset \(offset)\(hint)"
    case .impossibleLength:
      return "base64url text of \(offset) characters is one too long or too short (length 4n+1 is impossible)"
    case .misplacedPadding, .missingPadding, .tooMuchPadding, .symbolAfterPadding:
      return "misplaced '=' padding at offset \(offset)"
    case .nonZeroTrailingBits:
      return "non-canonical base64url: the last character at offset \(offset) has bits set past the end of the data"
    case .tooLong(let limit):
      return "base64url text longer than \(limit) characters"
    }
  }
}

/// Strict base64url (RFC 4648 §5) for JWS segments: ReceiptCrypto's decoder with `Base64.Rules.url` (padding
/// optional but exact, bits past the data zero), and the errors in base64url's words.
public enum Base64URL {
  /// Decodes `text`; the default limit (16 MiB of text) keeps one segment from asking for unbounded memory.
  public static func decode(_ text: UnsafeBufferPointer<UInt8>, limit: Int = 16 << 20) throws(Base64URLError) -> [UInt8]
  {
    do {
      return try Base64.decode(text, rules: .url, limit: limit)
    } catch {
      throw Base64URLError(reason: error.reason, offset: error.offset)
    }
  }

  /// Decodes `text` into the start of `output` (grown when too short, else reused) and returns the byte count.
  public static func decode(
    _ text: UnsafeBufferPointer<UInt8>, limit: Int = 16 << 20, into output: inout [UInt8]
  ) throws(Base64URLError) -> Int {
    do {
      return try Base64.decode(text, rules: .url, limit: limit, into: &output)
    } catch {
      throw Base64URLError(reason: error.reason, offset: error.offset)
    }
  }

  /// Decodes the bytes of `text`.
  public static func decode(_ text: [UInt8], limit: Int = 16 << 20) throws(Base64URLError) -> [UInt8] {
    try text.withUnsafeBufferPointer { (buffer) throws(Base64URLError) in try decode(buffer, limit: limit) }
  }

  /// Encodes without padding (JWS style).
  public static func encode(_ bytes: [UInt8]) -> String { Base64.encode(bytes, alphabet: .url, padded: false) }

  /// `'+'`, or `byte 0x0A` for what cannot be shown; never more than one character of the input.
  static func describe(byte b: UInt8) -> String {
    if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
    let hex = String(b, radix: 16, uppercase: true)
    return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
  }
}
