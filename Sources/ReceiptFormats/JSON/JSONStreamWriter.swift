import ReceiptModel

/// Writes JSON as it is produced, into a buffer handed to `drain` whenever it passes `limit` bytes, so a large
/// document's output never sits whole in memory. For the same value it writes exactly what
/// `JSONValue.rendered(pretty:indent:)` writes: members in the order given, two-space indents when pretty.
///
/// Keys are written as given, unescaped: they are the renderers' own ASCII literals.
package struct JSONStreamWriter {
  /// What was written and not yet drained.
  package private(set) var bytes: [UInt8] = []
  private let pretty: Bool
  /// The nesting level of the container being written (the indent of its members is one more).
  private var depth: Int
  /// Nothing written yet in the current container (so no comma before the next member or element).
  private var first = true
  private let limit: Int
  private let drain: (([UInt8]) -> Void)?

  /// - Parameters:
  ///   - pretty: two-space indents, one member per line; otherwise one line.
  ///   - indent: the level of the value written, as `rendered(pretty:indent:)` takes it.
  ///   - limit: the buffer is drained once it holds this many bytes (at `flushIfFull`).
  ///   - drain: receives the bytes written; nil keeps them all in `bytes`.
  package init(pretty: Bool, indent: Int = 0, limit: Int = 1 << 16, drain: (([UInt8]) -> Void)? = nil) {
    self.pretty = pretty
    self.depth = indent
    self.limit = limit
    self.drain = drain
    bytes.reserveCapacity(drain == nil ? 256 : limit + 4096)
  }

  /// Hands what was written to `drain` once it is over the limit.
  package mutating func flushIfFull() {
    if bytes.count >= limit { flush() }
  }

  /// Hands everything written to `drain` (nothing without one).
  package mutating func flush() {
    guard let drain, !bytes.isEmpty else { return }
    drain(bytes)
    bytes.removeAll(keepingCapacity: true)
  }

  // MARK: Containers

  package mutating func beginObject() {
    bytes.append(UInt8(ascii: "{"))
    depth += 1
    first = true
  }

  package mutating func endObject() { close(UInt8(ascii: "}")) }

  package mutating func beginArray() {
    bytes.append(UInt8(ascii: "["))
    depth += 1
    first = true
  }

  package mutating func endArray() { close(UInt8(ascii: "]")) }

  private mutating func close(_ bracket: UInt8) {
    depth -= 1
    // An empty container is `{}` or `[]`, on one line.
    if !first, pretty { newline() }
    bytes.append(bracket)
    first = false
  }

  /// Starts the next element of the array being written.
  package mutating func element() {
    if !first { bytes.append(UInt8(ascii: ",")) }
    if pretty { newline() }
    first = false
  }

  /// Starts the member `key` of the object being written.
  package mutating func key(_ key: StaticString) {
    separate()
    bytes.append(UInt8(ascii: "\""))
    key.withUTF8Buffer { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: pretty ? [0x22, 0x3A, 0x20] : [0x22, 0x3A])
  }

  /// Starts a member whose key is text (escaped as a JSON string).
  package mutating func key(text: String) {
    separate()
    JSONValue.writeString(text, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
    if pretty { bytes.append(UInt8(ascii: " ")) }
  }

  private mutating func separate() {
    if !first { bytes.append(UInt8(ascii: ",")) }
    if pretty { newline() }
    first = false
  }

  private mutating func newline() {
    bytes.append(0x0A)
    var count = 2 * depth
    while count > 0 {
      let n = min(count, Self.spaces.count)
      Self.spaces.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<n])) }
      count -= n
    }
  }

  private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

  // MARK: Values

  /// A whole value, as `JSONValue.rendered` writes it at this place.
  package mutating func value(_ value: JSONValue) {
    value.write(to: &bytes, pretty: pretty, indent: depth)
  }

  package mutating func null() { bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

  package mutating func bool(_ b: Bool) {
    if b {
      bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
    } else {
      bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
    }
  }

  /// A string, escaped as `JSONValue.string` is.
  package mutating func string(_ s: String) { JSONValue.writeString(s, to: &bytes) }

  /// A string, or null.
  package mutating func string(_ s: String?) {
    if let s { string(s) } else { null() }
  }

  /// An integer as decimal digits (`JSONValue.int`), or null.
  package mutating func int(_ i: Int?) {
    guard var v = i else { return null() }
    if v == 0 { return bytes.append(UInt8(ascii: "0")) }
    if v == .min { return bytes.append(contentsOf: String(v).utf8) }
    if v < 0 {
      bytes.append(UInt8(ascii: "-"))
      v = -v
    }
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    let count = withUnsafeMutableBytes(of: &digits) { raw -> Int in
      var n = 0
      while v > 0 {
        raw[23 - n] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
        v /= 10
        n += 1
      }
      return n
    }
    withUnsafeBytes(of: &digits) { bytes.append(contentsOf: $0[(24 - count)...]) }
  }

  /// A moment as `Timestamp.iso8601` spells it, quoted, or null.
  package mutating func date(_ t: Timestamp?) {
    guard let t else { return null() }
    let ms = t.milliseconds
    guard ms >= 0, ms <= Timestamp.maximumMilliseconds else { return string(t.iso8601) }
    let (days, msOfDay) = ms.quotientAndRemainder(dividingBy: 86_400_000)
    let (y, m, d) = Timestamp.civil(fromDays: days)
    let seconds = msOfDay / 1000
    let milli = msOfDay % 1000
    bytes.append(UInt8(ascii: "\""))
    put(y, 4)
    bytes.append(UInt8(ascii: "-"))
    put(m, 2)
    bytes.append(UInt8(ascii: "-"))
    put(d, 2)
    bytes.append(UInt8(ascii: "T"))
    put(seconds / 3600, 2)
    bytes.append(UInt8(ascii: ":"))
    put(seconds / 60 % 60, 2)
    bytes.append(UInt8(ascii: ":"))
    put(seconds % 60, 2)
    if milli != 0 {
      bytes.append(UInt8(ascii: "."))
      put(milli, 3)
    }
    bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
  }

  /// `v` (0 ≤ v < 10^width) in exactly `width` digits.
  private mutating func put(_ v: Int64, _ width: Int) {
    var divisor: Int64 = 1
    for _ in 1..<width { divisor *= 10 }
    var v = v
    while divisor > 0 {
      bytes.append(UInt8(truncatingIfNeeded: 0x30 + v / divisor % 10))
      v %= divisor
      divisor /= 10
    }
  }
}
