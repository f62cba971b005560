/// Serialises a `JSONValue` with members in the order they were built, so output is stable for scripts and golden files.
extension JSONValue {
  /// Pretty (two-space indent, one member per line) or compact (one line, for NDJSON).
  public func rendered(pretty: Bool = true) -> String {
    var out = ""
    write(to: &out, pretty: pretty, indent: 0)
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
    for scalar in s.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          let hex = String(scalar.value, radix: 16)
          out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    out += "\""
  }

  // Builders that keep renderers short.
  public static func str(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
  public static func int<I: BinaryInteger>(_ i: I?) -> JSONValue { i.map { .number(String($0)) } ?? .null }
  public static func flag(_ b: Bool?) -> JSONValue { b.map(JSONValue.bool) ?? .null }
}
