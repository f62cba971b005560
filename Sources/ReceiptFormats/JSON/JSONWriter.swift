import ReceiptModel

/// Serialises a `JSONValue` with members in the order they were built, so output is stable for scripts and golden files.
extension JSONValue {
  /// Pretty (two-space indent, one member per line) or compact (one line, for NDJSON).
  public func rendered(pretty: Bool = true) -> String {
    rendered(pretty: pretty, indent: 0)
  }

  /// Rendered as an element nested `indent` levels deep (lines after the first indented to match),
  /// for writing a large array one element at a time.
  public func rendered(pretty: Bool, indent: Int) -> String {
    // Bytes first, one String at the end: appending small Strings one by one cost more than the rest.
    var out: [UInt8] = []
    out.reserveCapacity(256)
    write(to: &out, pretty: pretty, indent: indent)
    return String(decoding: out, as: UTF8.self)
  }

  func write(to out: inout [UInt8], pretty: Bool, indent: Int) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .number(let n): JSONValue.appendUTF8(n, to: &out)
    case .string(let s): JSONValue.writeString(s, to: &out)
    case .array(let items):
      guard !items.isEmpty else {
        out.append(contentsOf: "[]".utf8)
        return
      }
      out.append(UInt8(ascii: "["))
      // By index: `for item in items` would copy (retain and release) each element.
      for i in items.indices {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        if pretty { JSONValue.newline(&out, indent + 1) }
        items[i].write(to: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { JSONValue.newline(&out, indent) }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      guard !members.isEmpty else {
        out.append(contentsOf: "{}".utf8)
        return
      }
      out.append(UInt8(ascii: "{"))
      for i in members.indices {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        if pretty { JSONValue.newline(&out, indent + 1) }
        JSONValue.writeString(members[i].key, to: &out)
        out.append(UInt8(ascii: ":"))
        if pretty { out.append(UInt8(ascii: " ")) }
        members[i].value.write(to: &out, pretty: pretty, indent: indent + 1)
      }
      if pretty { JSONValue.newline(&out, indent) }
      out.append(UInt8(ascii: "}"))
    }
  }

  private static func newline(_ out: inout [UInt8], _ indent: Int) {
    out.append(0x0A)
    // Indents copied from a run of spaces, not appended one space at a time (every line has one).
    var count = 2 * indent
    while count > 0 {
      let n = min(count, spaces.count)
      spaces.withUnsafeBufferPointer { out.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<n])) }
      count -= n
    }
  }

  private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

  /// Appends a String's UTF-8 bytes, in place when it is stored contiguously.
  private static func appendUTF8(_ s: String, to out: inout [UInt8]) {
    var native = s
    native.makeContiguousUTF8()
    if native.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) == nil {
      out.append(contentsOf: native.utf8)
    }
  }

  static func writeString(_ s: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    // Read in place (native and small strings are contiguous); a bridged one is made contiguous first.
    if s.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
      var native = s
      native.makeContiguousUTF8()
      if native.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) == nil {
        Array(native.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &out) }
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// Copies runs of bytes that need no escape in one append: a 50 MB value must not take seconds.
  private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    guard let base = bytes.baseAddress else { return }
    var runStart = 0
    var i = 0
    while i < bytes.count {
      // Eight bytes at a time while none needs a look: printable ASCII other than '"', '\' and DEL.
      i = WordScan.skip(base, from: i, to: bytes.count) { v in
        WordScan.equal(v, 0x22) | WordScan.equal(v, 0x5C) | WordScan.equal(v, 0x7F) | WordScan.below(v, 0x20)
          | WordScan.nonASCII(v)
      }
      guard i < bytes.count else { break }
      let b = base[i]
      if b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F {
        if runStart < i { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
        out.append(contentsOf: escape(b).utf8)
        runStart = i + 1
      } else if b == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(base[i + 1]) {
        // C1 controls (U+0080-U+009F, such as CSI U+009B) are escaped too, so JSON on a terminal cannot drive it.
        if runStart < i { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
        out.append(contentsOf: ("\\u00" + String(base[i + 1], radix: 16)).utf8)
        i += 1
        runStart = i + 1
      }
      i += 1
    }
    if runStart < bytes.count {
      out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: bytes.count - runStart))
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
