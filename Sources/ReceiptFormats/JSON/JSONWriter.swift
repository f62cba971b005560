import ReceiptModel
import ReceiptRules

/// Serialises a `JSONValue` with members in the order they were built, so output is stable for scripts and golden files.
extension JSONValue {
  /// Pretty (two-space indent, one member per line) or compact (one line, for NDJSON).
  public func rendered(pretty: Bool = true) -> String {
    rendered(pretty: pretty, indent: 0)
  }

  /// Rendered as an element nested `indent` levels deep (lines after the first indented to match),
  /// for writing a large array one element at a time.
  public func rendered(pretty: Bool, indent: Int) -> String {
    var out = ""
    write(to: &out, pretty: pretty, indent: indent)
    return out
  }

  private func write(to out: inout String, pretty: Bool, indent: Int) {
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n): out += n
    case .string(let s): JSONValue.writeString(s, to: &out)
    case .array(let items):
      guard !items.isEmpty else {
        out += "[]"
        return
      }
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        if pretty { JSONValue.newline(&out, indent + 1) }
        item.write(to: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { JSONValue.newline(&out, indent) }
      out += "]"
    case .object(let members):
      guard !members.isEmpty else {
        out += "{}"
        return
      }
      out += "{"
      for (i, member) in members.enumerated() {
        if i > 0 { out += "," }
        if pretty { JSONValue.newline(&out, indent + 1) }
        JSONValue.writeString(member.key, to: &out)
        out += pretty ? ": " : ":"
        member.value.write(to: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { JSONValue.newline(&out, indent) }
      out += "}"
    }
  }

  private static func newline(_ out: inout String, _ indent: Int) {
    out += "\n"
    out += String(repeating: "  ", count: indent)
  }

  static func writeString(_ s: String, to out: inout String) {
    out += "\""
    var native = s
    native.makeContiguousUTF8()
    if native.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
      Array(native.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &out) }
    }
    out += "\""
  }

  /// Copies runs of bytes that need no escape in one append: a 50 MB value must not take seconds.
  private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout String) {
    guard let base = bytes.baseAddress else { return }
    var runStart = 0
    var i = 0
    while i < bytes.count {
      let b = base[i]
      if b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F {
        if runStart < i {
          out += String(decoding: UnsafeBufferPointer(start: base + runStart, count: i - runStart), as: UTF8.self)
        }
        out += escape(b)
        runStart = i + 1
      } else if b == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(base[i + 1]) {
        // C1 controls (U+0080-U+009F, such as CSI U+009B) are escaped too, so JSON on a terminal cannot drive it.
        if runStart < i {
          out += String(decoding: UnsafeBufferPointer(start: base + runStart, count: i - runStart), as: UTF8.self)
        }
        out += "\\u00" + String(base[i + 1], radix: 16)
        i += 1
        runStart = i + 1
      }
      i += 1
    }
    if runStart < bytes.count {
      out += String(decoding: UnsafeBufferPointer(start: base + runStart, count: bytes.count - runStart), as: UTF8.self)
    }
  }

  /// The JSON escape for one ASCII byte that cannot appear raw in a string.
  private static func escape(_ b: UInt8) -> String {
    switch b {
    case 0x22: return "\\\""
    case 0x5C: return "\\\\"
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x09: return "\\t"
    default:
      let hex = String(b, radix: 16)
      return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
  }

  // Builders that keep renderers short.
  public static func str(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
  public static func int<I: BinaryInteger>(_ i: I?) -> JSONValue { i.map { .number(String($0)) } ?? .null }
  public static func flag(_ b: Bool?) -> JSONValue { b.map(JSONValue.bool) ?? .null }
}
