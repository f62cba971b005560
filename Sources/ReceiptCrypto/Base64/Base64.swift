/// The one base64 decoder (RFC 4648): the standard (`+/`) and URL (`-_`) alphabets, with each caller's rules for
/// padding, whitespace and the bits past the last byte (`Base64.Rules`); a failure names its offset in the text.
///
/// Eight symbols at a time through a pair table while they are all in the alphabet at a group boundary; anything
/// else (whitespace, padding, a bad byte, the last partial group) goes one symbol at a time through the same state.
public enum Base64 {
  /// Which 64 symbols stand for the six-bit values.
  public enum Alphabet: Sendable, Equatable {
    /// `A-Z a-z 0-9 + /` (RFC 4648 section 4): certificates, PEM, app receipts.
    case standard
    /// `A-Z a-z 0-9 - _` (RFC 4648 section 5): JWS segments.
    case url
  }

  /// Where `=` padding may stand.
  public enum Padding: Sendable, Equatable {
    /// The text is a multiple of four long, with the one or two `=` that complete the last group.
    case required
    /// None, or exactly those that complete the last group (then the text is a multiple of four long).
    case optional
    /// Up to two after the last symbol, however many symbols there were; nothing but whitespace after them.
    case loose
  }

  /// What one caller accepts.
  public struct Rules: Sendable, Equatable {
    public var alphabet: Alphabet
    public var padding: Padding
    /// Space, tab, CR and LF skipped anywhere, and a leading UTF-8 byte order mark.
    public var skipsWhitespace: Bool
    /// The bits past the last whole byte must be zero (one spelling per byte string).
    public var canonical: Bool

    public init(alphabet: Alphabet, padding: Padding, skipsWhitespace: Bool, canonical: Bool) {
      self.alphabet = alphabet
      self.padding = padding
      self.skipsWhitespace = skipsWhitespace
      self.canonical = canonical
    }

    /// `x5c` entries and PEM bodies: standard alphabet, padded, nothing else.
    public static let strict = Rules(alphabet: .standard, padding: .required, skipsWhitespace: false, canonical: true)
    /// JWS segments (RFC 7515): URL alphabet, padding optional but exact, nothing else.
    public static let url = Rules(alphabet: .url, padding: .optional, skipsWhitespace: false, canonical: true)
    /// Base64 text as people paste it (app receipts): standard alphabet, whitespace anywhere, padding loose.
    public static let text = Rules(alphabet: .standard, padding: .loose, skipsWhitespace: true, canonical: false)
  }

  /// The decoded bytes of `text` under `rules`; a text longer than `limit` is refused before any is read.
  public static func decode(
    _ text: UnsafeBufferPointer<UInt8>, rules: Rules, limit: Int = .max
  ) throws(Base64Error) -> [UInt8] {
    let (start, end) = try symbolRange(text, rules: rules, limit: limit)
    let capacity = (end - start) / 4 * 3 + 3
    var failure: Base64Error?
    let out = [UInt8](unsafeUninitializedCapacity: capacity) { output, written in
      do throws(Base64Error) {
        written = try decode(text, from: start, to: end, into: output, rules: rules)
      } catch {
        failure = error
        written = 0
      }
    }
    if let failure { throw failure }
    return out
  }

  /// `decode` into the start of `output`, which grows when it is too short and is otherwise reused (a caller
  /// decoding many texts keeps one buffer, not an allocation each); returns how many bytes were written. What
  /// `output` holds past that count, or after a failure, is unspecified.
  public static func decode(
    _ text: UnsafeBufferPointer<UInt8>, rules: Rules, limit: Int = .max, into output: inout [UInt8]
  ) throws(Base64Error) -> Int {
    let (start, end) = try symbolRange(text, rules: rules, limit: limit)
    let capacity = (end - start) / 4 * 3 + 3
    if output.count < capacity { output.append(contentsOf: repeatElement(0, count: capacity - output.count)) }
    return try output.withUnsafeMutableBufferPointer { (buffer) throws(Base64Error) -> Int in
      try decode(text, from: start, to: end, into: buffer, rules: rules)
    }
  }

  /// What `decode(text, rules:)` gives without writing it: how many bytes, and the first six of them (fewer when
  /// there are fewer) from the top of `head` down, the first in its top byte; or the same error. A reader that
  /// needs only a decoded header and the length (a receipt cut short) checks the alphabet, not decodes it.
  public static func measure(
    _ text: UnsafeBufferPointer<UInt8>, rules: Rules, limit: Int = .max
  ) throws(Base64Error) -> (count: Int, head: UInt64) {
    let (start, end) = try symbolRange(text, rules: rules, limit: limit)
    let standard = rules.alphabet == .standard
    return try (standard ? standardPairs : urlPairs).withUnsafeBufferPointer {
      (pairs) throws(Base64Error) -> (count: Int, head: UInt64) in
      try (standard ? standardValues : urlValues).withUnsafeBufferPointer {
        (table) throws(Base64Error) -> (count: Int, head: UInt64) in
        try measure(text, from: start, to: end, rules: rules, pairs: pairs, table: table)
      }
    }
  }

  static func measure(
    _ input: UnsafeBufferPointer<UInt8>, from start: Int, to n: Int, rules: Rules, pairs: UnsafeBufferPointer<UInt16>,
    table: UnsafeBufferPointer<UInt8>
  ) throws(Base64Error) -> (count: Int, head: UInt64) {
    var head: UInt64 = 0
    var i = start
    // Eight symbols at a time while all are in the alphabet, as `decode` steps, nothing stored: at a group
    // boundary with no padding seen, so the rest decodes alone in the state `decode` would reach it in.
    if let inBase = input.baseAddress, let pairBase = pairs.baseAddress {
      var from = UnsafeRawPointer(inBase) + start
      var steps = (n &- start) / 8
      while steps > 0 {
        guard let bytes = sixBytes(of: from, pairs: pairBase) else { break }
        if i == start { head = bytes }
        from += 8
        i &+= 8
        steps &-= 1
      }
    }
    let whole = (i &- start) / 8 &* 6
    guard i < n else { return (whole, head) }
    // The rest (the last group, or everything from the first whitespace or bad byte) through `decode` itself.
    let capacity = (n &- i) / 4 &* 3 &+ 3
    var failure: Base64Error?
    let rest = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { output -> Int in
      do throws(Base64Error) {
        let written = try decode(input, from: i, to: n, into: output, rules: rules, pairs: pairs, table: table)
        if whole == 0 {
          for k in 0..<min(written, 6) { head |= UInt64(output[k]) << UInt64(56 &- 8 &* k) }
        }
        return written
      } catch {
        failure = error
        return 0
      }
    }
    if let failure { throw failure }
    return (whole &+ rest, head)
  }

  /// Where the symbols of `text` lie: past a byte order mark the rules skip, and before exact padding, which is
  /// checked here from the length before any symbol is read.
  static func symbolRange(
    _ text: UnsafeBufferPointer<UInt8>, rules: Rules, limit: Int
  ) throws(Base64Error) -> (start: Int, end: Int) {
    guard text.count <= limit else { throw Base64Error(.tooLong(limit: limit), at: limit) }
    var start = 0
    if rules.skipsWhitespace, text.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
    var end = text.count
    if rules.padding != .loose {
      // Exact padding is checked from the length before any symbol is read: the trailing `=` are cut off here,
      // and one anywhere else is misplaced.
      var padding = 0
      while end > start, text[end - 1] == UInt8(ascii: "=") {
        end -= 1
        padding += 1
      }
      if padding > 0 {
        guard padding <= 2, text.count % 4 == 0, (4 - end % 4) % 4 == padding else {
          throw Base64Error(.misplacedPadding, at: end)
        }
      }
      guard end % 4 != 1 else { throw Base64Error(.impossibleLength, at: end) }
      if rules.padding == .required, padding == 0, end % 4 != 0 { throw Base64Error(.missingPadding, at: end) }
    }
    return (start, end)
  }

  /// `decode` over an array.
  public static func decode(_ text: [UInt8], rules: Rules, limit: Int = .max) throws(Base64Error) -> [UInt8] {
    try text.withUnsafeBufferPointer { (buffer) throws(Base64Error) in try decode(buffer, rules: rules, limit: limit) }
  }

  /// Strict standard base64 (`Rules.strict`), or nil.
  public static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
    try? decode(Array(text), rules: .strict)
  }

  /// Strict standard base64 of a String's bytes, or nil.
  public static func decode(_ text: String) -> [UInt8]? { decode(Array(text.utf8)) }

  /// The text of `bytes`, with `=` padding when `padded`.
  public static func encode(_ bytes: [UInt8], alphabet: Alphabet = .standard, padded: Bool = true) -> String {
    let symbols = alphabet == .standard ? standardSymbols : urlSymbols
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i < bytes.count {
      let n = bytes.count - i
      let v = UInt32(bytes[i]) << 16 | UInt32(n > 1 ? bytes[i + 1] : 0) << 8 | UInt32(n > 2 ? bytes[i + 2] : 0)
      for k in 0..<4 {
        if k <= min(n, 3) {
          out.append(symbols[Int(v >> UInt32(18 - 6 * k) & 63)])
        } else if padded {
          out.append(UInt8(ascii: "="))
        }
      }
      i += 3
    }
    return String(decoding: out, as: UTF8.self)
  }

  static let standardSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
  static let urlSymbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

  /// What each byte means: its six bits, or one of the markers below.
  static let standardValues = symbolValues(standardSymbols)
  static let urlValues = symbolValues(urlSymbols)
  static let invalid: UInt8 = 0xFF
  static let space: UInt8 = 0xFE
  static let pad: UInt8 = 0xFD

  static func symbolValues(_ symbols: [UInt8]) -> [UInt8] {
    var table = [UInt8](repeating: invalid, count: 256)
    for (i, c) in symbols.enumerated() { table[Int(c)] = UInt8(i) }
    for c in [0x20, 0x09, 0x0A, 0x0D] { table[c] = space }
    table[0x3D] = pad
    return table
  }

  /// The twelve bits of two symbols read as one little-endian 16-bit word (entry `second << 8 | first`), or
  /// `notAPair` when either byte is outside the alphabet: a group of four is two lookups and one test. Each
  /// alphabet's table is built the first time it is needed.
  static let standardPairs = pairValues(standardSymbols)
  static let urlPairs = pairValues(urlSymbols)
  static let notAPair: UInt16 = 0x8000

  /// The six bytes eight symbols at `from` make, in the word's top 48 bits, or nil when one is outside the alphabet:
  /// the step `decode` stores and `measure` only checks.
  @inline(__always) static func sixBytes(of from: UnsafeRawPointer, pairs: UnsafePointer<UInt16>) -> UInt64? {
    let word = UInt64(littleEndian: from.loadUnaligned(as: UInt64.self))
    let a = pairs[Int(truncatingIfNeeded: word & 0xFFFF)]
    let b = pairs[Int(truncatingIfNeeded: word >> 16 & 0xFFFF)]
    let c = pairs[Int(truncatingIfNeeded: word >> 32 & 0xFFFF)]
    let d = pairs[Int(truncatingIfNeeded: word >> 48)]
    guard (a | b | c | d) & notAPair == 0 else { return nil }
    return UInt64(a) << 52 | UInt64(b) << 40 | UInt64(c) << 28 | UInt64(d) << 16
  }

  static func pairValues(_ alphabet: [UInt8]) -> [UInt16] {
    [UInt16](unsafeUninitializedCapacity: 1 << 16) { buffer, count in
      // Filled with 0x80 bytes (0x8080 is also not a pair) eight words per step, then the 4,096 pairs through
      // pointers: built once per process, and every input pays for it. (memset's `rep stos` would count as an
      // instruction per byte.)
      let raw = UnsafeMutableRawBufferPointer(buffer)
      let fill: UInt64 = 0x8080_8080_8080_8080
      var offset = 0
      while offset &+ 64 <= raw.count {
        for word in 0..<8 { raw.storeBytes(of: fill, toByteOffset: offset &+ word &* 8, as: UInt64.self) }
        offset &+= 64
      }
      alphabet.withUnsafeBufferPointer { symbols in
        for (high, first) in symbols.enumerated() {
          let row = Int(first)
          let value = UInt16(truncatingIfNeeded: high << 6)
          for (low, second) in symbols.enumerated() {
            buffer[Int(second) << 8 | row] = value | UInt16(truncatingIfNeeded: low)
          }
        }
      }
      count = buffer.count
    }
  }

  /// Decodes `input[start..<end]` into `output` (at least `(end - start) / 4 * 3 + 3` bytes) and returns the
  /// count.
  static func decode(
    _ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, into output: UnsafeMutableBufferPointer<UInt8>,
    rules: Rules
  ) throws(Base64Error) -> Int {
    let standard = rules.alphabet == .standard
    return try (standard ? standardPairs : urlPairs).withUnsafeBufferPointer {
      (pairs) throws(Base64Error) -> Int in
      try (standard ? standardValues : urlValues).withUnsafeBufferPointer { (table) throws(Base64Error) -> Int in
        try decode(input, from: start, to: end, into: output, rules: rules, pairs: pairs, table: table)
      }
    }
  }

  static func decode(
    _ input: UnsafeBufferPointer<UInt8>, from start: Int, to n: Int, into output: UnsafeMutableBufferPointer<UInt8>,
    rules: Rules, pairs: UnsafeBufferPointer<UInt16>, table: UnsafeBufferPointer<UInt8>
  ) throws(Base64Error) -> Int {
    var accumulator: UInt32 = 0
    var bits = 0
    var padding = 0
    // Symbols read one at a time; whole groups of four leave the count's remainder as it is.
    var symbols = 0
    var o = 0
    var i = start
    while i < n {
      // Whole quanta at a group boundary: no carried bits, so four symbols make three bytes, stored as one
      // 32-bit word whose fourth byte the next group (or nothing) overwrites.
      if bits == 0, padding == 0, let inBase = input.baseAddress, let outBase = output.baseAddress,
        let pairBase = pairs.baseAddress
      {
        let raw = UnsafeRawPointer(inBase)
        let out = UnsafeMutableRawPointer(outBase)
        // Eight symbols make six bytes, stored as one 64-bit word whose last two bytes the next step (or the
        // end of the text) overwrites: steps that fit the input and the output with those two spare bytes.
        // Walked by two moving pointers, not base plus offset: fewer registers, so nothing spills in the step.
        let planned = min((n &- i) / 8, max(0, output.count &- o &- 2) / 6)
        var steps = planned
        var from = raw + i
        var to = out + o
        while steps > 0 {
          guard let bytes = sixBytes(of: from, pairs: pairBase) else { break }
          to.storeBytes(of: bytes.bigEndian, as: UInt64.self)
          from += 8
          to += 6
          steps &-= 1
        }
        i &+= (planned &- steps) &* 8
        o &+= (planned &- steps) &* 6
        // Groups that fit both the input and the output with the spare byte each 32-bit store writes.
        let groups = min((n &- i) / 4, max(0, output.count &- o &- 1) / 3)
        if groups >= 1 {
          let word = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt32.self))
          let a = pairBase[Int(truncatingIfNeeded: word & 0xFFFF)]
          let b = pairBase[Int(truncatingIfNeeded: word >> 16)]
          if (a | b) & notAPair == 0 {
            out.storeBytes(of: (UInt32(a) << 20 | UInt32(b) << 8).bigEndian, toByteOffset: o, as: UInt32.self)
            o &+= 3
            i &+= 4
          }
        }
        guard i < n else { break }
      }
      let c = input[i]
      let value = table[Int(c)]
      switch value {
      case pad:
        // Exact padding was cut off before the loop: any `=` left is in the middle.
        guard rules.padding == .loose else { throw Base64Error(.misplacedPadding, at: i) }
        padding += 1
        guard padding <= 2 else { throw Base64Error(.tooMuchPadding, at: i) }
        i += 1
        continue
      case space where rules.skipsWhitespace:
        i += 1
        continue
      case space, invalid:
        throw Base64Error(.invalidCharacter(c), at: i)
      default: break
      }
      guard padding == 0 else { throw Base64Error(.symbolAfterPadding, at: i) }
      accumulator = accumulator << 6 | UInt32(value)
      bits += 6
      symbols += 1
      if bits >= 8 {
        bits -= 8
        // Cannot fail: the capacity holds three bytes for every four symbols, plus three.
        guard o < output.count else { throw Base64Error(.tooLong(limit: output.count), at: i) }
        output[o] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
        o += 1
        accumulator &= (1 << UInt32(bits)) - 1
      }
      i += 1
    }
    guard symbols % 4 != 1 else { throw Base64Error(.impossibleLength, at: n) }
    if rules.canonical, accumulator != 0 {
      // At the last symbol, found here rather than tracked: the loop keeps no more state than it needs.
      var last = n - 1
      while last > start, table[Int(input[last])] >= 64 { last -= 1 }
      throw Base64Error(.nonZeroTrailingBits, at: last)
    }
    return o
  }
}

/// Why a text is not base64 under a caller's rules, and the offset (0-based, in the whole text) where it shows.
public struct Base64Error: Error, Equatable, Sendable {
  public enum Reason: Equatable, Sendable {
    /// A byte outside the alphabet (and outside the whitespace and padding the rules allow).
    case invalidCharacter(UInt8)
    /// 4n+1 symbols cannot come from any byte string.
    case impossibleLength
    /// `=` somewhere other than completing the last group (`Padding.required`, `.optional`).
    case misplacedPadding
    /// No `=` where the rules require the last group completed.
    case missingPadding
    /// A third `=` (`Padding.loose`).
    case tooMuchPadding
    /// A symbol after `=` (`Padding.loose`).
    case symbolAfterPadding
    /// The last symbol carries bits that no encoder sets (a non-canonical spelling).
    case nonZeroTrailingBits
    /// Longer than the limit the caller gave.
    case tooLong(limit: Int)
  }

  public var reason: Reason
  public var offset: Int

  public init(_ reason: Reason, at offset: Int) {
    self.reason = reason
    self.offset = offset
  }
}
