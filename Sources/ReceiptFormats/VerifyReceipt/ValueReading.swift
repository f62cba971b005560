import ReceiptModel

/// A step in a JSON path, for messages such as `latest_receipt_info[3].expires_date_ms`.
/// Keys are the decoder's own names (static text), so a step costs no retain: every member of every row takes one.
enum PathComponent {
  case key(StaticString)
  case index(Int)
}

/// A formatted date as read: Apple's spelling checked, its time worked out only when asked for, or any other
/// spelling's time.
enum FormattedDate {
  case apple(Timestamp.AppleUTCFields)
  case time(Timestamp)

  var timestamp: Timestamp {
    switch self {
    case .apple(let fields): fields.timestamp
    case .time(let t): t
    }
  }
}

/// Reads the loosely typed scalars of Apple's JSON with the current path at hand for messages.
///
/// Apple sends most numbers and booleans as strings, and some producers send them as JSON
/// numbers and booleans; both are accepted. Empty strings and null mean "absent". Anything
/// else that cannot be interpreted is an error naming the path and the value.
struct ValueReading {
  var reader: JSONReader
  let source: String
  var path: [PathComponent] = []
  /// The key of the member being read, the step after `path`; it joins `path` only when something nests under
  /// it (an object or an array element), so that reading one member pushes and pops nothing.
  var member: StaticString?
  /// The key (its index in the matcher) that followed each key (index 63: the object's start) the last time, 64
  /// entries for each of five key lists from its `guesses` place: rows repeat their keys in one order, so the next
  /// key is guessed and checked by a compare (`KeyMatcher.readMember`, `readKey`) instead of scanned and hashed.
  /// 0xFF: no guess. An array, not a `SIMD64`: a vector read at a varying index is copied out whole first.
  var keyAfter = ValueReading.noGuesses
  /// A `keyAfter` that guesses nothing, shared until written.
  static let noGuesses = [UInt8](repeating: 0xFF, count: 320)
  /// Guess keys as above; false scans and hashes every key (tests compare both ways).
  var guessesKeys = true
  /// Read row fields of a plain shape (digits, Apple's dates, `"false"`) without scanning them (`PlainStrings`);
  /// false scans every value (tests compare both ways).
  var plainStrings = true
  /// Keep credentials (`latest_receipt`, `password`) for `--show-secrets`.
  var keepSecrets = false
  /// Product ids, subscription groups and other repeating texts.
  var interner = StringInterner()
  /// Original transaction ids, apart from the texts: a thousand chains cannot evict five products.
  var chainIDs = StringInterner()
  /// Read large transaction arrays in pieces on every core (`TransactionArraySplit`), or nil for one thread;
  /// tests compare both ways.
  var pieces: TransactionArraySplit.Pieces?
  /// How many arrays were read with some piece another thread parsed (for tests).
  var arraysReadInPieces = 0
  /// Pass over a transaction object that repeats one read before in this document byte for byte, adding it as
  /// another copy of its transaction (`RowCopies`); false reads every object (tests compare both ways).
  var readsCopiesOnce = true
  /// The transaction objects read so far that a later one may repeat.
  var rowCopies = RowCopies()
  /// How many objects were passed over as copies (for tests).
  var copiesPassed = 0

  init(reader: JSONReader, source: String) {
    self.reader = reader
    self.source = source
    // A row's members are read three or four steps deep (`receipt.in_app[0]`): one allocation, not one a doubling.
    path.reserveCapacity(Self.usualPathDepth)
  }

  /// How many steps a path is given room for at once.
  static var usualPathDepth: Int { 8 }

  var pathString: String {
    var s = ""
    for component in path {
      switch component {
      case .key(let k):
        if !s.isEmpty { s += "." }
        s += k.description
      case .index(let i): s += "[\(i)]"
      }
    }
    if let member {
      if !s.isEmpty { s += "." }
      s += member.description
    }
    return s.isEmpty ? "(top level)" : s
  }

  /// A field error at the value that starts at `offset`.
  func fieldError(_ message: String, at offset: Int) -> ReceiptError {
    let place = reader.error("", at: offset)
    return .field(source: source, path: pathString, message: message, line: place.line, column: place.column)
  }

  /// Runs `body` with the member being read (if any) moved into `path`, for what nests under it.
  @inline(__always)
  mutating func nesting<R>(_ body: (inout ValueReading) throws -> R) rethrows -> R {
    guard let enclosing = member else { return try body(&self) }
    path.append(.key(enclosing))
    member = nil
    defer {
      path.removeLast()
      member = enclosing
    }
    return try body(&self)
  }

  mutating func withIndex<R>(_ index: Int, _ body: (inout ValueReading) throws -> R) rethrows -> R {
    try nesting { r in
      r.path.append(.index(index))
      defer { r.path.removeLast() }
      return try body(&r)
    }
  }

  /// Rethrows JSON syntax errors as positioned `ReceiptError`s.
  func syntax(_ e: JSONSyntaxError) -> ReceiptError { .syntax(source: source, e) }

  /// The next value's kind and where it starts.
  mutating func peek() throws -> (JSONKind, Int) {
    let kind = try reader.peek()
    return (kind, reader.offset)
  }

  func wrongType(_ kind: JSONKind, expected: String, at offset: Int) -> ReceiptError {
    fieldError("expected \(expected), found \(kind.noun)", at: offset)
  }

  /// Text of a number token, clipped for messages.
  func numberText(_ t: JSONReader.NumberToken) -> String { Excerpt.clip(reader.text(t.start, t.end)) }

  // MARK: Scalars

  /// How a value that repeats across rows is shared.
  enum Sharing {
    case none
    /// Through `interner`: product ids, subscription groups.
    case byText
    /// Through `chainIDs`: original transaction ids.
    case byChainID
  }

  /// The String of a token; repeating values are shared through an interner.
  mutating func string(_ token: JSONStringToken, sharing: Sharing) -> String {
    guard !token.hasEscapes else { return reader.string(token) }
    switch sharing {
    case .none: return reader.string(token)
    case .byText: return reader.withBytes(token) { interner.string($0) }
    case .byChainID: return reader.withBytes(token) { chainIDs.string($0) }
    }
  }

  /// What every scalar reader shares: null and "" are absent (nil); a string goes to `string` (with the token and
  /// where the value starts), a number to `number` and a boolean to `bool`, each reading it; any other kind, or
  /// one given no reader, is the wrong type, named by `expected`.
  @inline(__always)
  private mutating func scalar<T>(
    expected: String, string: (inout ValueReading, JSONStringToken, Int) throws -> T?,
    number: ((inout ValueReading, Int) throws -> T?)? = nil, bool: ((inout ValueReading) throws -> T?)? = nil
  ) throws -> T? {
    let (kind, at) = try peek()
    switch kind {
    case .string:
      // `peek` left the reader at the opening quote, which `readStringToken` would look for again.
      let token = try reader.scanString()
      return reader.isEmpty(token) ? nil : try string(&self, token, at)
    case .number:
      if let number { return try number(&self, at) }
    case .bool:
      if let bool { return try bool(&self) }
    case .null:
      try reader.readNull()
      return nil
    default:
      break
    }
    throw wrongType(kind, expected: expected, at: at)
  }

  /// A number's text as it stands.
  private mutating func numberAsText() throws -> String {
    let t = try reader.readNumberToken()
    return reader.text(t.start, t.end)
  }

  /// A string; numbers are accepted as their text (some producers send versions as numbers). "" and null are nil.
  /// `repeating` marks values most rows share (a product id), which are interned.
  mutating func text(repeating: Bool = false) throws -> String? {
    try scalar(
      expected: "a string", string: { r, token, _ in r.string(token, sharing: repeating ? .byText : .none) },
      number: { r, _ in try r.numberAsText() })
  }

  /// `in_app_ownership_type`: Apple's two values compared in place (no String per row); any other value is kept
  /// as its text, as `text(repeating:)` reads it. "" and null are nil.
  mutating func ownership() throws -> Ownership? {
    if plainStrings {
      if reader.plainString("\"PURCHASED\"") { return .purchased }
      if reader.plainString("\"FAMILY_SHARED\"") { return .familyShared }
    }
    return try scalar(
      expected: "a string",
      string: { r, token, _ in
        if r.reader.stringEquals(token, "PURCHASED") { return .purchased }
        if r.reader.stringEquals(token, "FAMILY_SHARED") { return .familyShared }
        return .unrecognized(r.string(token, sharing: .byText))
      },
      number: { r, _ in .unrecognized(try r.numberAsText()) })
  }

  /// An identifier: a string, or an integer number kept as its digits.
  mutating func identifier(sharing: Sharing = .none) throws -> String? {
    if plainStrings, let token = reader.plainDigitString(limit: 64) {
      reader.step(past: token)
      return string(token, sharing: sharing)
    }
    return try scalar(
      expected: "a string identifier", string: { r, token, _ in r.string(token, sharing: sharing) },
      number: { r, at in
        let t = try r.reader.readNumberToken()
        guard t.isInteger else {
          throw r.fieldError("\(r.numberText(t)) is not an identifier (identifiers are strings of digits)", at: at)
        }
        return r.reader.text(t.start, t.end)
      })
  }

  /// A `*_ms` value: milliseconds since 1970 as a digit string or an integer number.
  mutating func milliseconds() throws -> Timestamp? {
    if plainStrings, let token = reader.plainDigitString(limit: 16),
      let t = reader.withBytes(token, { Timestamp.parse(milliseconds: $0) })
    {
      reader.step(past: token)
      return t
    }
    return try scalar(
      expected: "a millisecond timestamp",
      string: { r, token, at in
        let parsed = token.hasEscapes ? nil : r.reader.withBytes(token) { Timestamp.parse(milliseconds: $0) }
        guard let parsed else { throw r.badMilliseconds(Excerpt.quoted(r.reader.string(token)), at: at) }
        return parsed
      },
      number: { r, at in try r.millisecondsNumber(at: at) })
  }

  /// A JSON number meaning milliseconds since 1970: an integer in range, else an error at `at`.
  private mutating func millisecondsNumber(at: Int) throws -> Timestamp {
    let t = try reader.readNumberToken()
    let parsed = t.isInteger ? reader.withBytes(t) { Timestamp.parse(milliseconds: $0) } : nil
    guard let parsed else { throw badMilliseconds(numberText(t), at: at) }
    return parsed
  }

  func badMilliseconds(_ shown: String, at offset: Int) -> ReceiptError {
    fieldError("\(shown) is not a millisecond timestamp (digits only, 1970 to 9999)", at: offset)
  }

  /// A formatted date (`2020-07-23 19:32:51 Etc/GMT`, ISO 8601), or digits meaning milliseconds
  /// (iOS 6-style bodies put milliseconds in `expires_date`).
  mutating func formattedDate() throws -> Timestamp? {
    if plainStrings, let t = reader.appleDateString() { return t }
    return try scalar(
      expected: "a date string",
      string: { r, token, at in
        if !token.hasEscapes,
          let t = r.reader.withBytes(token, { Timestamp.parse(formatted: $0) ?? Timestamp.parse(milliseconds: $0) })
        {
          return t
        }
        let s = r.reader.string(token)
        if let t = Timestamp.parse(formatted: s) ?? Timestamp.parse(milliseconds: Array(s.utf8)) { return t }
        throw r.fieldError("\(Excerpt.quoted(s)) is not a date (expected \"YYYY-MM-DD HH:MM:SS Etc/GMT\")", at: at)
      },
      number: { r, at in try r.millisecondsNumber(at: at) })
  }

  /// `formattedDate()` with Apple's own spelling checked and its fields read but its time left to be worked out
  /// (`FormattedDate.timestamp`), for a row's dates whose `_ms` twin usually wins: the same values, and the same
  /// errors at the same places, as `formattedDate()`.
  mutating func formattedDateFields() throws -> FormattedDate? {
    if plainStrings, let fields = reader.appleDateFields() { return .apple(fields) }
    return try formattedDate().map(FormattedDate.time)
  }

  /// A boolean: JSON true/false, "true"/"false", "1"/"0", or the numbers 1/0.
  mutating func flag() throws -> Bool? {
    if plainStrings {
      if reader.plainString("\"false\"") { return false }
      if reader.plainString("\"true\"") { return true }
    }
    return try scalar(
      expected: "a boolean",
      string: { r, token, at in
        // The usual spellings, compared in place; anything else is read as text below.
        if r.reader.stringEquals(token, "false") || r.reader.stringEquals(token, "0") { return false }
        if r.reader.stringEquals(token, "true") || r.reader.stringEquals(token, "1") { return true }
        switch r.reader.string(token) {
        case "true", "1": return true
        case "false", "0": return false
        case let other:
          throw r.fieldError(
            "\(Excerpt.quoted(other)) is not a boolean (expected \"true\", \"false\", \"1\" or \"0\")", at: at)
        }
      },
      number: { r, at in
        let t = try r.reader.readNumberToken()
        switch r.reader.text(t.start, t.end) {
        case "1": return true
        case "0": return false
        default: throw r.fieldError("\(r.numberText(t)) is not a boolean (expected 1 or 0)", at: at)
        }
      },
      bool: { r in try r.reader.readBool() })
  }

  /// A whole number within `range`, as a JSON integer or a digit string.
  mutating func integer(in range: ClosedRange<Int64>, what: String) throws -> Int64? {
    // A row's `quantity`, "1": digits alone, read where they stand (the scan below gives the same value).
    if plainStrings, let token = reader.plainDigitString(limit: 18),
      let value = reader.withBytes(token, Self.shortInteger), range.contains(value)
    {
      reader.step(past: token)
      return value
    }
    return try scalar(
      expected: what,
      string: { r, token, at in
        if !token.hasEscapes, let value = r.reader.withBytes(token, Self.shortInteger), range.contains(value) {
          return value
        }
        let digits = r.reader.string(token)
        return try r.integer(digits, shown: Excerpt.quoted(digits), in: range, what: what, at: at)
      },
      number: { r, at in
        let t = try r.reader.readNumberToken()
        // A JSON integer (a response's `"status":0`) read where it stands: no text is made but for a message.
        if r.plainStrings, t.isInteger, let value = r.reader.withBytes(t, Self.shortInteger), range.contains(value) {
          return value
        }
        return try r.integer(r.reader.text(t.start, t.end), shown: r.numberText(t), in: range, what: what, at: at)
      })
  }

  /// `digits` as a whole number within `range`, else an error showing `shown`.
  private func integer(
    _ digits: String, shown: String, in range: ClosedRange<Int64>, what: String, at: Int
  ) throws -> Int64 {
    let body = digits.hasPrefix("-") ? digits.dropFirst() : Substring(digits)
    guard !body.isEmpty, body.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(digits) else {
      throw fieldError("\(shown) is not \(what)", at: at)
    }
    guard range.contains(value) else {
      throw fieldError("\(shown) is out of range for \(what) (\(range.lowerBound) to \(range.upperBound))", at: at)
    }
    return value
  }

  /// The value of an optional `-` and 1 to 18 ASCII digits (which always fit), else nil.
  static func shortInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
    let negative = bytes.first == UInt8(ascii: "-")
    let digits = negative ? UnsafeBufferPointer(rebasing: bytes.dropFirst()) : bytes
    guard !digits.isEmpty, digits.count <= 18 else { return nil }
    var value: Int64 = 0
    for b in digits {
      let digit = b &- 0x30
      guard digit < 10 else { return nil }
      value = value &* 10 &+ Int64(digit)
    }
    return negative ? -value : value
  }

  /// A small code Apple sends as a digit string ("1") or number; kept as its text.
  mutating func code() throws -> String? {
    try scalar(
      expected: "a string or number code", string: { r, token, _ in r.reader.string(token) },
      number: { r, _ in try r.numberAsText() }, bool: { r in try r.reader.readBool() ? "true" : "false" })
  }

  // MARK: Containers

  /// Visits each element of an array of objects; a single object counts as a one-element
  /// array (iOS 6-style `latest_receipt_info`) unless `singleObjectAllowed` is false; null counts as empty.
  mutating func forEachObject(singleObjectAllowed: Bool = true, _ body: (inout ValueReading, Int) throws -> Void) throws
  {
    let (kind, at) = try peek()
    switch kind {
    case .null:
      try reader.readNull()
    case .object where singleObjectAllowed:
      try withIndex(0) { try body(&$0, 0) }
    case .array:
      try reader.beginArray()
      var i = 0
      while try reader.nextElement() {
        try withIndex(i) { inner in
          let (k, elementAt) = try inner.peek()
          guard k == .object else { throw inner.wrongType(k, expected: "an object", at: elementAt) }
          try body(&inner, i)
        }
        i += 1
      }
    default:
      throw wrongType(kind, expected: "an array of objects", at: at)
    }
  }

  /// How long Apple's `*_pst` dates are: `2023-02-05 04:00:00 America/Los_Angeles`.
  static var pacificDateLength: Int { 39 }

  /// Visits each member of an object, telling `body` the member's index in `keys` (nil for keys
  /// receipt-tool does not read, which are skipped unless `body` reads them).
  ///
  /// A key receipt-tool reads that appears twice in one object is an error: the two values could
  /// disagree and the tool does not guess which one is meant. `guesses` is where the key list's 64 entries of
  /// `keyAfter` start (0, 64, 128, 192 or 256); `learns`: a key not guessed is written there for the next object of
  /// the list (false for an object a document holds once: writing copied the shared guesses for nothing).
  mutating func forEachMember(
    _ keys: KeyMatcher, names: [StaticString], guesses: Int, learns: Bool = true,
    _ body: (inout ValueReading, Int) throws -> Void
  ) throws {
    try reader.beginObject()
    try nesting { r in
      // Key lists have fewer than 63 names, so one word records which were seen.
      var seen: UInt64 = 0
      var previous = 63
      while true {
        let guess = Int(r.keyAfter[guesses &+ previous])
        let index: Int
        let keyAt: Int
        if r.guessesKeys, let at = keys.readMember(guess, from: &r.reader) {
          // The usual case: the guessed key, written without whitespace, read with its comma and colon at once.
          index = guess
          keyAt = at
        } else {
          guard try r.reader.beginKey() else { break }
          keyAt = r.reader.offset
          if r.guessesKeys, keys.readKey(guess, from: &r.reader) {
            index = guess
          } else {
            let key = try r.reader.scanString()
            guard let found = keys.index(of: key, in: r.reader) else {
              try r.reader.endKey()
              try r.reader.skipValue()
              continue
            }
            index = found
            if learns { r.keyAfter[guesses &+ previous] = UInt8(truncatingIfNeeded: found) }
          }
          try r.reader.endKey()
        }
        previous = index & 63
        // Names after `names` are known only to be guessed (Apple's `*_pst` dates): skipped as any unknown key,
        // at once when plain text as long as Apple's Pacific dates.
        guard index < names.count else {
          if !r.plainStrings || !r.reader.skipPlainString(length: Self.pacificDateLength) { try r.reader.skipValue() }
          continue
        }
        let bit: UInt64 = 1 << UInt64(index & 63)
        r.member = names[index]
        guard seen & bit == 0 else {
          throw r.fieldError(
            "duplicate key; receipt-tool reads it and will not guess which value is meant", at: keyAt)
        }
        seen |= bit
        try body(&r, index)
        r.member = nil
      }
    }
  }
}
