import ReceiptModel

/// Why a base64url text could not be decoded, and where.
public struct Base64URLError: Error, Equatable, Sendable {
  /// What was wrong with the text.
  public enum Reason: Equatable, Sendable {
    /// A byte outside `A-Z a-z 0-9 - _` (and `=` padding at the very end).
    case invalidCharacter(UInt8)
    /// A length of 4n+1 characters cannot come from any byte string.
    case impossibleLength
    /// `=` somewhere other than the last one or two places, or the wrong number of `=`.
    case misplacedPadding
    /// The last character carries bits that no encoder sets (non-canonical encoding).
    case nonZeroTrailingBits
    /// Longer than the limit the caller gave.
    case tooLong(limit: Int)
  }

  /// What was wrong.
  public var reason: Reason
  /// Offset in the encoded text (0-based) of the offending character.
  public var offset: Int

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
    case .misplacedPadding:
      return "misplaced '=' padding at offset \(offset)"
    case .nonZeroTrailingBits:
      return "non-canonical base64url: the last character at offset \(offset) has bits set past the end of the data"
    case .tooLong(let limit):
      return "base64url text longer than \(limit) characters"
    }
  }
}

/// Strict base64url (RFC 4648 §5) decoding, padding optional, for JWS segments.
///
/// Table driven over raw bytes: one lookup per character and no String work, because a
/// Transaction History dump decodes hundreds of thousands of segments.
public enum Base64URL {
  /// 0...63 for the alphabet, `pad` for `=`, `invalid` for everything else.
  static let invalid: UInt8 = 0xFF
  static let pad: UInt8 = 0xFE

  static let table: [UInt8] = {
    var t = [UInt8](repeating: invalid, count: 256)
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
    t[Int(UInt8(ascii: "="))] = pad
    return t
  }()

  /// The alphabet, for encoding (tests and the fixture generator's Swift twin).
  static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// Decodes `text`; the default limit (16 MiB of text) keeps one segment from asking for unbounded memory.
  public static func decode(_ text: UnsafeBufferPointer<UInt8>, limit: Int = 16 << 20) throws(Base64URLError) -> [UInt8]
  {
    guard text.count <= limit else { throw Base64URLError(reason: .tooLong(limit: limit), offset: limit) }
    // Strip trailing padding: at most two '=' and only when the padded length is a multiple of 4.
    var n = text.count
    var padding = 0
    while n > 0, text[n - 1] == UInt8(ascii: "=") {
      n -= 1
      padding += 1
    }
    if padding > 0 {
      guard padding <= 2, text.count % 4 == 0, (n + padding) % 4 == 0, (4 - n % 4) % 4 == padding else {
        throw Base64URLError(reason: .misplacedPadding, offset: n)
      }
    }
    let remainder = n % 4
    guard remainder != 1 else { throw Base64URLError(reason: .impossibleLength, offset: n) }
    let outCount = n / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
    var failure: Base64URLError? = nil
    let out = table.withUnsafeBufferPointer { t in
      [UInt8](unsafeUninitializedCapacity: outCount) { buffer, initialized in
        var i = 0
        var o = 0
        // Whole quads: four lookups; any invalid value has its high bits set, so one OR finds it.
        while n - i >= 4 {
          let a = t[Int(text[i])]
          let b = t[Int(text[i &+ 1])]
          let c = t[Int(text[i &+ 2])]
          let d = t[Int(text[i &+ 3])]
          if (a | b | c | d) & 0xC0 != 0 {
            failure = firstBad(text, from: i, to: i + 4, table: t)
            initialized = o
            return
          }
          buffer[o] = a << 2 | b >> 4
          buffer[o &+ 1] = b << 4 | c >> 2
          buffer[o &+ 2] = c << 6 | d
          i &+= 4
          o &+= 3
        }
        if remainder > 0 {
          if let bad = firstBad(text, from: i, to: n, table: t) {
            failure = bad
            initialized = o
            return
          }
          let a = t[Int(text[i])]
          let b = t[Int(text[i &+ 1])]
          buffer[o] = a << 2 | b >> 4
          o &+= 1
          if remainder == 3 {
            let c = t[Int(text[i &+ 2])]
            buffer[o] = b << 4 | c >> 2
            o &+= 1
            if c & 0x03 != 0 { failure = Base64URLError(reason: .nonZeroTrailingBits, offset: i + 2) }
          } else if b & 0x0F != 0 {
            failure = Base64URLError(reason: .nonZeroTrailingBits, offset: i + 1)
          }
        }
        initialized = o
      }
    }
    if let failure { throw failure }
    return out
  }

  /// Decodes the bytes of `text`.
  public static func decode(_ text: [UInt8], limit: Int = 16 << 20) throws(Base64URLError) -> [UInt8] {
    do {
      return try text.withUnsafeBufferPointer { buffer in try decode(buffer, limit: limit) }
    } catch let e as Base64URLError {
      throw e
    } catch {
      // `withUnsafeBufferPointer` rethrows untyped; only Base64URLError can arrive here.
      throw Base64URLError(reason: .impossibleLength, offset: 0)
    }
  }

  private static func firstBad(
    _ text: UnsafeBufferPointer<UInt8>, from: Int, to: Int, table t: UnsafeBufferPointer<UInt8>
  ) -> Base64URLError? {
    var j = from
    while j < to {
      let v = t[Int(text[j])]
      if v == pad { return Base64URLError(reason: .misplacedPadding, offset: j) }
      if v == invalid { return Base64URLError(reason: .invalidCharacter(text[j]), offset: j) }
      j += 1
    }
    return nil
  }

  /// Encodes without padding (JWS style).
  public static func encode(_ bytes: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i + 3 <= bytes.count {
      let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
      for shift in [18, 12, 6, 0] { out.append(alphabet[Int(v >> UInt32(shift) & 63)]) }
      i += 3
    }
    let rest = bytes.count - i
    if rest == 1 {
      let v = UInt32(bytes[i]) << 16
      for shift in [18, 12] { out.append(alphabet[Int(v >> UInt32(shift) & 63)]) }
    } else if rest == 2 {
      let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
      for shift in [18, 12, 6] { out.append(alphabet[Int(v >> UInt32(shift) & 63)]) }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `'+'`, or `byte 0x0A` for what cannot be shown; never more than one character of the input.
  static func describe(byte b: UInt8) -> String {
    if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
    let hex = String(b, radix: 16, uppercase: true)
    return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
  }
}
