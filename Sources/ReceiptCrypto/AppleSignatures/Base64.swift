/// Strict standard base64 (RFC 4648 section 4), as `x5c` entries and PEM bodies use it: the `+/` alphabet, length
/// a multiple of four, `=` padding only at the end, zero padding bits. Nothing else is accepted.
public enum Base64 {
  /// The decoded bytes, or nil when `text` is not strict base64.
  public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
    let chars = Array(text)
    guard chars.count % 4 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(chars.count / 4 * 3)
    var i = 0
    while i < chars.count {
      let isLast = i + 4 == chars.count
      var values: [UInt8] = []
      var padding = 0
      for c in chars[i..<(i + 4)] {
        if c == UInt8(ascii: "=") {
          padding += 1
          continue
        }
        guard padding == 0, let v = value(c) else { return nil }
        values.append(v)
      }
      guard padding <= 2, padding == 0 || isLast else { return nil }
      let n =
        UInt32(values[0]) << 18 | UInt32(values[1]) << 12 | UInt32(values.count > 2 ? values[2] : 0) << 6
        | UInt32(values.count > 3 ? values[3] : 0)
      out.append(UInt8(n >> 16))
      if padding < 2 { out.append(UInt8(n >> 8 & 0xFF)) }
      if padding < 1 { out.append(UInt8(n & 0xFF)) }
      // Bits below the last whole byte must be zero (one spelling per byte string).
      if padding == 1, n & 0xFF != 0 { return nil }
      if padding == 2, n & 0xFFFF != 0 { return nil }
      i += 4
    }
    return out
  }

  /// The decoded bytes of a String.
  public static func decode(_ text: String) -> [UInt8]? { decode(Array(text.utf8)) }

  static func value(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
    case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
    case UInt8(ascii: "+"): return 62
    case UInt8(ascii: "/"): return 63
    default: return nil
    }
  }
}
