import ReceiptModel

/// Reads the strictly typed JSON of signed payloads (dates are JSON numbers, flags JSON booleans) with the
/// path at hand for messages. Absent and `null` both mean "not set", as in Apple's own Codable models.
struct PayloadReading {
  var reader: JSONReader
  /// Where the JSON text sits, e.g. `signedTransactions[3] > payload`.
  let base: LazyPath
  var steps: [String] = []
  var notes: [SignedDataNote] = []
  /// Nested JWS failures carried instead of thrown (strict == false).
  var carried: [SignedDataError] = []
  let strict: Bool
  /// The document's signature checks, which a nested JWS adds to.
  var checks: JWSChecks?

  init(reader: JSONReader, base: LazyPath, strict: Bool) {
    self.reader = reader
    self.base = base
    self.strict = strict
  }

  /// The path inside the JSON text: `data.status`, `eligibleWinBackOfferIds[1]`.
  var relativePath: String {
    var s = ""
    for step in steps {
      if !s.isEmpty, !step.hasPrefix("[") { s += "." }
      s += step
    }
    return s
  }

  var path: String { SignedDataPath.join(base.text, relativePath) }

  func fieldError(_ detail: String, at offset: Int) -> SignedDataError {
    let place = reader.error("", at: offset)
    return SignedDataError(.field, path: path, detail: detail, line: place.line, column: place.column)
  }

  mutating func note(_ message: String) {
    notes.append(SignedDataNote(path: relativePath, message: message))
  }

  mutating func step<R>(_ name: String, _ body: (inout PayloadReading) throws -> R) rethrows -> R {
    steps.append(name)
    defer { steps.removeLast() }
    return try body(&self)
  }

  mutating func peek() throws -> (JSONKind, Int) {
    let kind = try reader.peek()
    return (kind, reader.offset)
  }

  func wrongType(_ kind: JSONKind, _ expected: String, at offset: Int) -> SignedDataError {
    fieldError("expected \(expected), found \(kind.noun)", at: offset)
  }

  /// True (and the null consumed) when the next value is null.
  mutating func skipNull() throws -> Bool {
    guard try reader.peek() == .null else { return false }
    try reader.readNull()
    return true
  }

  // MARK: Scalars

  mutating func string() throws -> String? {
    if try skipNull() { return nil }
    let (kind, at) = try peek()
    guard kind == .string else { throw wrongType(kind, "a string", at: at) }
    return try reader.readString()
  }

  /// The string token itself, for signed strings decoded without building a String.
  mutating func stringToken() throws -> JSONStringToken? {
    if try skipNull() { return nil }
    let (kind, at) = try peek()
    guard kind == .string else { throw wrongType(kind, "a string", at: at) }
    return try reader.readStringToken()
  }

  mutating func bool() throws -> Bool? {
    if try skipNull() { return nil }
    let (kind, at) = try peek()
    guard kind == .bool else { throw wrongType(kind, "a boolean", at: at) }
    return try reader.readBool()
  }

  /// A whole JSON number that fits in Int64.
  mutating func integer() throws -> Int64? {
    if try skipNull() { return nil }
    let (kind, at) = try peek()
    guard kind == .number else { throw wrongType(kind, "an integer", at: at) }
    let t = try reader.readNumberToken()
    let text = reader.text(t.start, t.end)
    guard t.isInteger, let value = Int64(text) else {
      throw fieldError("\(Excerpt.clip(text)) is not an integer in range", at: at)
    }
    return value
  }

  /// Milliseconds since 1970 as a JSON number. Xcode writes fractions (`1697679936049.7297`); they are cut
  /// to the millisecond below, which is the precision Apple's own tests compare at. Exponents are refused.
  mutating func milliseconds() throws -> Int64? {
    if try skipNull() { return nil }
    let (kind, at) = try peek()
    guard kind == .number else { throw wrongType(kind, "a number of milliseconds since 1970", at: at) }
    let t = try reader.readNumberToken()
    let parsed = reader.withBytes(t) { PayloadReading.parseMilliseconds($0) }
    guard let parsed else {
      throw fieldError("\(Excerpt.clip(reader.text(t.start, t.end))) is not a number of milliseconds", at: at)
    }
    return parsed
  }

  /// Digits with an optional sign and fraction; floor of the value; nil for exponents or more than 16 digits.
  static func parseMilliseconds(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
    var i = 0
    var negative = false
    if i < b.count, b[i] == UInt8(ascii: "-") {
      negative = true
      i += 1
    }
    var value: Int64 = 0
    var digits = 0
    while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
      guard digits < 16 else { return nil }
      value = value * 10 + Int64(b[i] - 0x30)
      digits += 1
      i += 1
    }
    guard digits > 0 else { return nil }
    var fractionNonZero = false
    if i < b.count, b[i] == UInt8(ascii: ".") {
      i += 1
      while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
        if b[i] != 0x30 { fractionNonZero = true }
        i += 1
      }
    }
    guard i == b.count else { return nil }
    if negative { return fractionNonZero ? -value - 1 : -value }
    return value
  }

  /// A date that must lie in 1970...9999: anything else fails, as a transaction cannot be dated by guesswork.
  mutating func date() throws -> Timestamp? {
    let (_, at) = try peek()
    guard let ms = try milliseconds() else { return nil }
    guard let t = Timestamp(milliseconds: ms) else {
      throw fieldError("\(ms) milliseconds is outside 1970...9999", at: at)
    }
    return t
  }

  /// A date that may hold a placeholder (app transactions from Xcode say year 1): out of range is noted.
  mutating func lenientDate() throws -> (Timestamp?, Int64?) {
    guard let ms = try milliseconds() else { return (nil, nil) }
    guard let t = Timestamp(milliseconds: ms) else {
      note("\(ms) milliseconds is outside 1970...9999 (Xcode writes year 1 as a placeholder); never used as a moment")
      return (nil, ms)
    }
    return (t, ms)
  }

  mutating func coded<K>(_ type: K.Type) throws -> Coded<K>? where K.RawValue == String {
    guard let raw = try string() else { return nil }
    let value = Coded<K>(raw: raw)
    if value.known == nil { note("unrecognised value \(Excerpt.quoted(raw)); carried through") }
    return value
  }

  mutating func codedNumber<K>(_ type: K.Type) throws -> Coded<K>? where K.RawValue == Int64 {
    guard let raw = try integer() else { return nil }
    let value = Coded<K>(raw: raw)
    if value.known == nil { note("unrecognised value \(raw); carried through") }
    return value
  }

  mutating func stringArray(limit: Int = 10_000) throws -> [String]? {
    if try skipNull() { return nil }
    let (kind, at) = try peek()
    guard kind == .array else { throw wrongType(kind, "an array of strings", at: at) }
    try reader.beginArray()
    var out: [String] = []
    while try reader.nextElement() {
      guard out.count < limit else { throw fieldError("more than \(limit) elements", at: reader.offset) }
      let value = try step("[\(out.count)]") { r -> String in
        let (k, elementAt) = try r.peek()
        guard k == .string else { throw r.wrongType(k, "a string", at: elementAt) }
        return try r.reader.readString()
      }
      out.append(value)
    }
    return out
  }

  // MARK: Objects

  /// An object carried as read rather than interpreted (`advancedCommerceInfo`): its members under their own
  /// names, nulls left out; nil for null. Bounded by the reader's depth limit and the payload's size.
  mutating func carriedObject() throws -> [StatedField]? {
    if try skipNull() { return nil }
    let (kind, at) = try peek()
    guard kind == .object else { throw wrongType(kind, "an object", at: at) }
    guard case .object(let fields)? = Self.carried(try reader.readValue()) else { return nil }
    return fields
  }

  /// A JSON value as a stated value; nil for null.
  static func carried(_ value: JSONValue) -> StatedField.Value? {
    switch value {
    case .null: nil
    case .bool(let b): .flag(b)
    case .number(let n): .number(n)
    case .string(let s): .text(s)
    case .array(let items): .array(items.compactMap(carried))
    case .object(let members): .object(members.compactMap { m in carried(m.value).map { StatedField(m.key, $0) } })
    }
  }

  /// Notes the keys of the object just read that the tool does not know, so none is dropped unsaid.
  mutating func noteUnread(_ keys: [String]) {
    guard !keys.isEmpty else { return }
    note("keys receipt-tool does not read: \(keys.map(Excerpt.quoted).joined(separator: ", ")); left out")
  }

  /// Unknown keys kept per object: enough to show, bounded against a hostile payload.
  static let maxUnreadKeys = 256

  /// Visits each member of the object that comes next, telling `body` the key's index in `keys`.
  /// Keys not in the list are skipped and returned, in input order. A listed key given twice fails:
  /// the two values could disagree and the tool does not guess which is meant.
  @discardableResult
  mutating func forEachMember(_ keys: SignedKeys, _ body: (inout PayloadReading, Int) throws -> Void) throws
    -> [String]
  {
    let (kind, at) = try peek()
    guard kind == .object else { throw wrongType(kind, "an object", at: at) }
    try reader.beginObject()
    var seen: (UInt64, UInt64) = (0, 0)
    var unread: [String] = []
    while let key = try reader.nextKey() {
      guard let index = keys.matcher.index(of: key, in: reader) else {
        if unread.count < Self.maxUnreadKeys { unread.append(reader.string(key)) }
        try reader.skipValue()
        continue
      }
      let bit: UInt64 = 1 << UInt64(index & 63)
      let already = index < 64 ? seen.0 & bit != 0 : seen.1 & bit != 0
      guard !already else {
        throw step(keys.names[index]) {
          $0.fieldError("duplicate key; the tool will not guess which value is meant", at: key.start &- 1)
        }
      }
      if index < 64 { seen.0 |= bit } else { seen.1 |= bit }
      try step(keys.names[index]) { try body(&$0, index) }
    }
    return unread
  }
}

/// A key list and its matcher (at most 128 names).
/// A payload's or header's key list: the cases, in the order `SignedKeys` numbers them, named by their raw values
/// (the case names). `"\(key)"` would name them too, but through the runtime's conformance scan and a mirror: some
/// 2.4 million instructions a signed run paid once, more than the rest of a signed line's reading.
protocol SignedKeyList: CaseIterable, RawRepresentable where RawValue == String {
  /// `allCases`, made once (`allCases` of an enum makes its array at each call).
  static var ordered: [Self] { get }
}

extension SignedKeyList {
  /// The key `SignedKeys` numbered `index`.
  @inline(__always) static func at(_ index: Int) -> Self? {
    let cases = ordered
    return index >= 0 && index < cases.count ? cases[index] : nil
  }
}

struct SignedKeys: Sendable {
  let names: [String]
  let matcher: KeyMatcher
  init(_ names: [String]) {
    // The reader's own lists, not input: two words record the keys seen (`forEachMember`).
    precondition(names.count <= 128, "a signed key list holds at most 128 names")
    self.names = names
    matcher = KeyMatcher(names)
  }
}
