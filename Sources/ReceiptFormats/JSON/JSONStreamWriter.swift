import ReceiptModel

/// Writes JSON as it is produced, into a buffer handed to `drain` whenever it passes `limit` bytes, so a large
/// document's output never sits whole in memory. For the same value it writes exactly what
/// `JSONValue.rendered(pretty:indent:)` writes: members in the order given, two-space indents when pretty.
///
/// Bytes go straight into memory the writer owns (room made once per token, not per byte). Keys are written as
/// given, unescaped: they are the renderers' own ASCII literals.
package struct JSONStreamWriter {
  private let storage: Storage
  private let pretty: Bool
  /// The nesting level of the container being written (the indent of its members is one more).
  private var depth: Int
  /// Nothing written yet in the current container (so no comma before the next member or element).
  private var first = true
  private let limit: Int
  private let drain: ((UnsafeBufferPointer<UInt8>) -> Void)?

  /// - Parameters:
  ///   - pretty: two-space indents, one member per line; otherwise one line.
  ///   - indent: the level of the value written, as `rendered(pretty:indent:)` takes it.
  ///   - limit: the buffer is drained once it holds this many bytes (at `flushIfFull`).
  ///   - drain: receives the bytes written, valid during the call; nil keeps them all for `bytes`.
  ///   - capacity: room for this many bytes at first, without `drain` (with one, `limit` and some).
  package init(
    pretty: Bool, indent: Int = 0, limit: Int = 1 << 16, drain: ((UnsafeBufferPointer<UInt8>) -> Void)? = nil,
    capacity: Int = 4096
  ) {
    self.pretty = pretty
    self.depth = indent
    self.limit = limit
    self.drain = drain
    storage = Storage(capacity: drain == nil ? capacity : limit + 4096)
  }

  /// A writer for elements of the array `writer` is writing, made apart (on another thread) and added with
  /// `append(elements:)`; `continuing` when elements come before them. `capacity`: the bytes expected, so that
  /// the buffer is not grown (and copied) on the way.
  package init(elementsOf writer: JSONStreamWriter, continuing: Bool, capacity: Int = 4096) {
    self.init(pretty: writer.pretty, indent: writer.depth, capacity: capacity)
    first = !continuing
  }

  /// Adds elements written apart (`init(elementsOf:continuing:)`), at least one. A run of at least `limit`
  /// bytes goes straight to `drain`, after what was written before it, instead of through the buffer.
  package mutating func append(elements bytes: [UInt8]) {
    guard !bytes.isEmpty else { return }
    if let drain, bytes.count >= limit {
      flush()
      bytes.withUnsafeBufferPointer { drain($0) }
    } else {
      bytes.withUnsafeBufferPointer { storage.append($0) }
    }
    first = false
  }

  /// What was written and not yet drained.
  package var bytes: [UInt8] { Array(storage.written) }

  /// Hands what was written to `drain` once it is over the limit.
  package mutating func flushIfFull() {
    if storage.count >= limit { flush() }
  }

  /// Hands everything written to `drain` (nothing without one).
  package mutating func flush() {
    guard let drain, storage.count > 0 else { return }
    drain(storage.written)
    storage.count = 0
  }

  // MARK: Containers

  package mutating func beginObject() { open(UInt8(ascii: "{")) }

  package mutating func endObject() { close(UInt8(ascii: "}")) }

  package mutating func beginArray() { open(UInt8(ascii: "[")) }

  package mutating func endArray() { close(UInt8(ascii: "]")) }

  private mutating func open(_ bracket: UInt8) {
    storage.append(bracket)
    depth += 1
    first = true
  }

  private mutating func close(_ bracket: UInt8) {
    depth -= 1
    // An empty container is `{}` or `[]`, on one line.
    if !first, pretty { newline() }
    storage.append(bracket)
    first = false
  }

  /// Starts the next element of the array being written.
  package mutating func element() {
    if !first { storage.append(UInt8(ascii: ",")) }
    if pretty { newline() }
    first = false
  }

  /// Starts the member `key` of the object being written.
  package mutating func key(_ key: StaticString) {
    separate()
    let n = key.utf8CodeUnitCount
    let p = storage.room(n + 4)
    p[0] = UInt8(ascii: "\"")
    Storage.copy(key.utf8Start, to: p + 1, count: n)
    p[n + 1] = UInt8(ascii: "\"")
    p[n + 2] = UInt8(ascii: ":")
    if pretty {
      p[n + 3] = UInt8(ascii: " ")
      storage.count += n + 4
    } else {
      storage.count += n + 3
    }
  }

  /// Starts a member whose key is text (escaped as a JSON string).
  package mutating func key(text: String) {
    separate()
    string(text)
    storage.append(UInt8(ascii: ":"))
    if pretty { storage.append(UInt8(ascii: " ")) }
  }

  /// A fixed run (`JSONOutput.fixed`): copied as it is when compact, replayed call by call when pretty.
  package mutating func fixed(_ compact: StaticString) {
    guard !pretty else { return replay(fixed: compact) }
    separate()
    storage.append(ascii: compact)
  }

  @inline(__always) private mutating func separate() {
    if !first { storage.append(UInt8(ascii: ",")) }
    if pretty { newline() }
    first = false
  }

  private mutating func newline() {
    let n = 2 * depth
    let p = storage.room(n + 1)
    p[0] = 0x0A
    (p + 1).initialize(repeating: UInt8(ascii: " "), count: n)
    storage.count += n + 1
  }

  // MARK: Values

  /// A whole value, as `JSONValue.rendered` writes it at this place.
  package mutating func value(_ value: JSONValue) {
    var out: [UInt8] = []
    value.write(to: &out, pretty: pretty, indent: depth)
    out.withUnsafeBufferPointer { storage.append($0) }
  }

  package mutating func null() { storage.append(ascii: "null") }

  package mutating func bool(_ b: Bool) { storage.append(ascii: b ? "true" : "false") }

  /// A string, escaped as `JSONValue.string` is.
  package mutating func string(_ s: String) {
    // ASCII without anything to escape (ids, product ids, dates, the renderers' own words) is copied as it
    // is, and checked where it was copied to.
    let storage = storage
    guard s.utf8.withContiguousStorageIfAvailable({ storage.appendQuotedIfPlain($0) }) != true else { return }
    var out: [UInt8] = []
    JSONValue.writeString(s, to: &out)
    out.withUnsafeBufferPointer { storage.append($0) }
  }

  /// The string `first + second`, escaped as `JSONValue.string` is, without joining them (a verdict's summary).
  package mutating func string(_ first: String, _ second: String) {
    let storage = storage
    let plain = first.utf8.withContiguousStorageIfAvailable { a in
      second.utf8.withContiguousStorageIfAvailable { b in storage.appendQuotedIfPlain(a, then: b) }
    }
    guard plain != true else { return }
    string(first + second)
  }

  /// An integer as decimal digits (`JSONValue.int`), or null.
  package mutating func int(_ i: Int?) {
    guard let i else { return null() }
    var v = i.magnitude
    var digits = 1
    var rest = v / 10
    while rest > 0 {
      digits += 1
      rest /= 10
    }
    let sign = i < 0 ? 1 : 0
    let p = storage.room(digits + sign)
    if sign == 1 { p[0] = UInt8(ascii: "-") }
    var k = digits + sign
    repeat {
      k -= 1
      p[k] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
      v /= 10
    } while k > sign
    storage.count += digits + sign
  }

  /// A moment as `Timestamp.iso8601` spells it, quoted, or null.
  package mutating func date(_ t: Timestamp?) {
    guard let t else { return null() }
    let p = storage.room(26)
    guard let written = t.writeISO8601(to: p + 1) else { return string(t.iso8601) }
    p[0] = UInt8(ascii: "\"")
    p[written + 1] = UInt8(ascii: "\"")
    storage.count += written + 2
  }

  /// The bytes: a growable buffer the writer alone holds.
  private final class Storage {
    var base: UnsafeMutablePointer<UInt8>
    var capacity: Int
    var count = 0

    init(capacity: Int) {
      self.capacity = max(64, capacity)
      base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    /// Where the next `n` bytes go (the caller writes them, then adds to `count`).
    @inline(__always) func room(_ n: Int) -> UnsafeMutablePointer<UInt8> {
      if capacity - count < n { grow(to: count + n) }
      return base + count
    }

    private func grow(to minimum: Int) {
      let larger = max(minimum, 2 * capacity)
      let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
      moved.update(from: base, count: count)
      base.deallocate()
      base = moved
      capacity = larger
    }

    @inline(__always) func append(_ b: UInt8) {
      room(1).pointee = b
      count += 1
    }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) {
      guard let from = bytes.baseAddress else { return }
      room(bytes.count).update(from: from, count: bytes.count)
      count += bytes.count
    }

    /// Copies `count` bytes: whole words (the last one overlapping the one before) for up to 64 bytes, where the
    /// call to memcpy costs more than the copy.
    @inline(__always) static func copy(
      _ from: UnsafePointer<UInt8>, to: UnsafeMutablePointer<UInt8>, count n: Int
    ) {
      if n < 8 {
        var i = 0
        while i < n {
          to[i] = from[i]
          i &+= 1
        }
      } else if n <= 64 {
        var i = 0
        while n &- i > 8 {
          UnsafeMutableRawPointer(to + i).storeBytes(
            of: UnsafeRawPointer(from + i).loadUnaligned(as: UInt64.self), as: UInt64.self)
          i &+= 8
        }
        UnsafeMutableRawPointer(to + n - 8).storeBytes(
          of: UnsafeRawPointer(from + n - 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
      } else {
        to.update(from: from, count: n)
      }
    }

    /// Writes `bytes` as a quoted string when none needs an escape (printable ASCII other than '"' and '\\'),
    /// and says whether it did; otherwise writes nothing. The bytes are copied, then checked a word at a time
    /// where they were copied to: room is made for a word past them, whose bytes the check masks off.
    @inline(__always) func appendQuotedIfPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
      let n = bytes.count
      let p = room(n &+ 10)
      guard Self.copyIfPlain(bytes, to: p + 1) else { return false }
      p[0] = UInt8(ascii: "\"")
      p[n &+ 1] = UInt8(ascii: "\"")
      count &+= n &+ 2
      return true
    }

    /// `first` then `second` as one quoted string, as `appendQuotedIfPlain(_:)` writes their join.
    func appendQuotedIfPlain(_ first: UnsafeBufferPointer<UInt8>, then second: UnsafeBufferPointer<UInt8>) -> Bool {
      let n = first.count &+ second.count
      let p = room(n &+ 10)
      guard Self.copyIfPlain(first, to: p + 1), Self.copyIfPlain(second, to: p + 1 + first.count) else {
        return false
      }
      p[0] = UInt8(ascii: "\"")
      p[n &+ 1] = UInt8(ascii: "\"")
      count &+= n &+ 2
      return true
    }

    /// Copies `bytes` to `p` (with room for a word past them) and says whether none needs an escape.
    @inline(__always) static func copyIfPlain(_ bytes: UnsafeBufferPointer<UInt8>, to p: UnsafeMutablePointer<UInt8>)
      -> Bool
    {
      let n = bytes.count
      if let from = bytes.baseAddress { copy(from, to: p, count: n) }
      var i = 0
      while i < n {
        var v = UInt64(littleEndian: UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self))
        // Past the end: bytes not written here, made spaces (which need no escape).
        if n &- i < 8 {
          let kept: UInt64 = (1 &<< UInt64((n &- i) &* 8)) &- 1
          v = (v & kept) | (0x2020_2020_2020_2020 & ~kept)
        }
        let needsEscape =
          WordScan.equal(v, 0x22) | WordScan.equal(v, 0x5C) | WordScan.equal(v, 0x7F) | WordScan.below(v, 0x20)
          | WordScan.nonASCII(v)
        if needsEscape != 0 { return false }
        i &+= 8
      }
      return true
    }

    func append(ascii text: StaticString) {
      append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
  }
}
