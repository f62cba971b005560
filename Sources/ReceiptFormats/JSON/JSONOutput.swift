import ReceiptModel

/// Where a renderer writes JSON: bytes as it goes (`JSONStreamWriter`) or a tree (`JSONTreeWriter`). A renderer
/// written once against this protocol gives both, and the two give the same text (`JSONTreeWriter` is the plain
/// reference the stream writer is held to). Calls nest as JSON does: `key` or `element` before each value of an
/// object or array.
public protocol JSONOutput {
  mutating func beginObject()
  mutating func endObject()
  mutating func beginArray()
  mutating func endArray()
  /// Starts the next element of the array being written.
  mutating func element()
  /// Starts the member `key` of the object being written (a renderer's own ASCII literal).
  mutating func key(_ key: StaticString)
  /// Starts a member whose key is text (escaped as a JSON string).
  mutating func key(text: String)
  /// A whole value, at this place.
  mutating func value(_ value: JSONValue)
  mutating func null()
  mutating func bool(_ b: Bool)
  mutating func string(_ s: String)
  /// The string `first + second`, written without joining them.
  mutating func string(_ first: String, _ second: String)
  /// An integer as decimal digits (`JSONValue.int`), or null.
  mutating func int(_ i: Int?)
  /// A moment as `Timestamp.iso8601` spells it, quoted, or null.
  mutating func date(_ t: Timestamp?)
  /// Members (or elements) a renderer writes alike in many documents, as their compact text
  /// (`"anchor":null,"chain":[]`): keys and strings without escapes, `null`, `true`, `false`, integers, objects and
  /// arrays. A compact stream writer copies it whole; any other writer replays it call by call (`replay(fixed:)`).
  mutating func fixed(_ compact: StaticString)
}

// Inlinable: specialised in the renderers' module, a call per member goes straight to the writer.
extension JSONOutput {
  /// A string, or null.
  @inlinable public mutating func string(_ s: String?) {
    if let s { string(s) } else { null() }
  }

  /// A boolean, or null.
  @inlinable public mutating func flag(_ b: Bool?) {
    if let b { bool(b) } else { null() }
  }

  /// An object: `body` writes its members.
  @inlinable public mutating func object(_ body: (inout Self) -> Void) {
    beginObject()
    body(&self)
    endObject()
  }

  /// An array of `items`, each written by `body` as one element.
  @inlinable public mutating func array<C: Collection>(_ items: C, _ body: (inout Self, C.Element) -> Void) {
    beginArray()
    for item in items {
      element()
      body(&self, item)
    }
    endArray()
  }

  /// An array of strings.
  @inlinable public mutating func array(strings: some Collection<String>) {
    array(strings) { w, s in w.string(s) }
  }

  /// The member `key`: a string or null.
  @inlinable public mutating func member(_ key: StaticString, _ s: String?) {
    self.key(key)
    string(s)
  }

  /// The member `key`: a boolean.
  @inlinable public mutating func member(_ key: StaticString, bool b: Bool) {
    self.key(key)
    bool(b)
  }

  /// The member `key`: an integer or null, as `JSONValue.int` writes it.
  @inlinable public mutating func member<I: BinaryInteger>(_ key: StaticString, int i: I?) {
    self.key(key)
    guard let i else { return null() }
    if let exact = Int(exactly: i) { int(exact) } else { value(.int(i)) }
  }

  /// The member `key`: a moment or null.
  @inlinable public mutating func member(_ key: StaticString, date t: Timestamp?) {
    self.key(key)
    date(t)
  }

  /// The member `key`: an object whose members `body` writes.
  @inlinable public mutating func member(_ key: StaticString, object body: (inout Self) -> Void) {
    self.key(key)
    object(body)
  }
}

extension JSONOutput {
  /// Writes the members or elements of a fixed run (`fixed(_:)`) one call each: what every writer but a compact
  /// stream writer does with it, and the plain form that writer's copy is held to. A string followed by a colon
  /// is a key; anything the grammar of `fixed(_:)` does not allow ends the run.
  public mutating func replay(fixed compact: StaticString) {
    let bytes = UnsafeBufferPointer(start: compact.utf8Start, count: compact.utf8CodeUnitCount)
    var i = 0
    func text() -> String? {
      guard i < bytes.count, bytes[i] == UInt8(ascii: "\""),
        let end = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: "\""))
      else { return nil }
      defer { i = end + 1 }
      return String(decoding: bytes[(i + 1)..<end], as: UTF8.self)
    }
    func word(_ w: String) -> Bool {
      guard bytes[i...].starts(with: w.utf8) else { return false }
      i += w.utf8.count
      return true
    }
    // Members until `close` (nil: the run's end), each a key and a value, or elements, each a value.
    func items(until close: UInt8?, members: Bool?) -> Bool {
      var first = true
      while i < bytes.count, bytes[i] != close {
        if !first {
          guard bytes[i] == UInt8(ascii: ",") else { return false }
          i += 1
        }
        first = false
        let start = i
        if members != false, let key = text(), i < bytes.count, bytes[i] == UInt8(ascii: ":") {
          i += 1
          self.key(text: key)
        } else {
          guard members != true else { return false }
          i = start
          element()
        }
        guard value() else { return false }
      }
      guard close != nil else { return true }
      guard i < bytes.count else { return false }
      i += 1
      return true
    }
    func value() -> Bool {
      guard i < bytes.count else { return false }
      switch bytes[i] {
      case UInt8(ascii: "{"):
        i += 1
        beginObject()
        defer { endObject() }
        return items(until: UInt8(ascii: "}"), members: true)
      case UInt8(ascii: "["):
        i += 1
        beginArray()
        defer { endArray() }
        return items(until: UInt8(ascii: "]"), members: false)
      case UInt8(ascii: "\""):
        guard let s = text() else { return false }
        string(s)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        let start = i
        i += 1
        while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
        guard let n = Int(String(decoding: bytes[start..<i], as: UTF8.self)) else { return false }
        int(n)
      default:
        if word("null") {
          null()
        } else if word("true") {
          bool(true)
        } else if word("false") {
          bool(false)
        } else {
          return false
        }
      }
      return true
    }
    _ = items(until: nil, members: nil)
  }
}

extension JSONStreamWriter: JSONOutput {}

/// Builds the `JSONValue` a sequence of `JSONOutput` calls describes: the plain form the stream writer is held to,
/// and the tree for callers that keep one (a merged report, a schema test).
package struct JSONTreeWriter: JSONOutput {
  // Open containers, innermost last, each appended to in place: one enum of containers popped, extended and
  // pushed back copied its members on every value.
  private var isObject: [Bool] = []
  private var objects: [[(key: String, value: JSONValue)]] = []
  /// The key of the member each open object is writing next.
  private var keys: [String] = []
  private var arrays: [[JSONValue]] = []
  /// The value written, once its outermost container is closed (or its only scalar written).
  package private(set) var value: JSONValue?

  package init() {}

  /// The tree `body` writes.
  package static func tree(_ body: (inout JSONTreeWriter) -> Void) -> JSONValue {
    var w = JSONTreeWriter()
    body(&w)
    return w.value ?? .null
  }

  private mutating func put(_ v: JSONValue) {
    switch isObject.last {
    case nil: value = v
    case true?: objects[objects.count - 1].append((keys[keys.count - 1], v))
    case false?: arrays[arrays.count - 1].append(v)
    }
  }

  package mutating func beginObject() {
    isObject.append(true)
    objects.append([])
    keys.append("")
  }

  package mutating func endObject() {
    guard isObject.last == true else { return }
    isObject.removeLast()
    keys.removeLast()
    put(.object(objects.removeLast()))
  }

  package mutating func beginArray() {
    isObject.append(false)
    arrays.append([])
  }

  package mutating func endArray() {
    guard isObject.last == false else { return }
    isObject.removeLast()
    put(.array(arrays.removeLast()))
  }

  package mutating func element() {}

  package mutating func key(_ key: StaticString) { self.key(text: "\(key)") }

  package mutating func key(text: String) {
    guard isObject.last == true else { return }
    keys[keys.count - 1] = text
  }

  package mutating func value(_ value: JSONValue) { put(value) }
  package mutating func null() { put(.null) }
  package mutating func bool(_ b: Bool) { put(.bool(b)) }
  package mutating func string(_ s: String) { put(.string(s)) }
  package mutating func string(_ first: String, _ second: String) { put(.string(first + second)) }
  package mutating func int(_ i: Int?) { put(.int(i)) }
  package mutating func date(_ t: Timestamp?) { put(.str(t?.iso8601)) }
  package mutating func fixed(_ compact: StaticString) { replay(fixed: compact) }
}
