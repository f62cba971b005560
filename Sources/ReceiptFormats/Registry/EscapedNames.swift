/// The strings of a document's first bytes as JSON reads them, escapes taken out: format sniffs decide on decoded
/// keys, so `{"\u0073ignedPayload": ...}` is recognised as `{"signedPayload": ...}` is. Only the slow path of a
/// sniff: `QuotedNameSet`'s walk decodes a string only when it holds a backslash.
enum EscapedNames {
  /// A JSON string's content with its escapes taken out (UTF-8); nil for a broken escape or a lone surrogate.
  static func unescaped(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    var out: [UInt8] = []
    var i = 0
    func hex4(_ at: Int) -> UInt32? {
      guard at + 4 <= text.count else { return nil }
      var value: UInt32 = 0
      for k in at..<(at + 4) {
        let c = text[k]
        let digit: UInt8
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
        default: return nil
        }
        value = value << 4 | UInt32(digit)
      }
      return value
    }
    while i < text.count {
      let c = text[i]
      guard c == 0x5C else {
        out.append(c)
        i += 1
        continue
      }
      guard i + 1 < text.count else { return nil }
      let e = text[i + 1]
      i += 2
      switch e {
      case UInt8(ascii: "\""), 0x5C, UInt8(ascii: "/"): out.append(e)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        guard var scalar = hex4(i) else { return nil }
        i += 4
        if (0xD800..<0xDC00).contains(scalar) {
          guard i + 6 <= text.count, text[i] == 0x5C, text[i + 1] == UInt8(ascii: "u"), let low = hex4(i + 2),
            (0xDC00..<0xE000).contains(low)
          else { return nil }
          i += 6
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let unicode = Unicode.Scalar(scalar) else { return nil }
        out.append(contentsOf: Array(String(Character(unicode)).utf8))
      default: return nil
      }
    }
    return out
  }
}
