import ReceiptModel

/// Text from the input made safe to print on a terminal or in a page: every C0 and C1 control, DEL, the
/// line and paragraph separators and the bidirectional overrides and isolates become a visible `\u{1b}`,
/// so an id can neither move the cursor, recolour the screen, hide characters nor reorder a line.
///
/// Printable text, including non-ASCII letters, passes unchanged. `visible` holds one line with no
/// control character at all, so its `count` is the columns it takes for ordinary narrow characters.
package struct TerminalSafeText: Hashable, Sendable, CustomStringConvertible {
  /// The sanitised text.
  package let visible: String

  package init(_ raw: String) {
    // Fast path: most ids are plain printable ASCII, which `escaped` gives back unchanged.
    visible = Self.isPrintableASCII(raw, allowingNewline: false) ? raw : Self.escaped(raw)
  }

  /// `raw` with every scalar that `mustEscape` written as `\u{…}`: the slow path, for any text.
  static func escaped(_ raw: String) -> String {
    var out = ""
    out.reserveCapacity(raw.utf8.count)
    for scalar in raw.unicodeScalars {
      if TerminalSafeText.mustEscape(scalar) {
        out += "\\u{" + String(scalar.value, radix: 16) + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  package var description: String { visible }

  /// Whether every byte is printable ASCII (or a line break, when allowed). Read over the bytes in place: it
  /// runs for every piece of text output.
  static func isPrintableASCII(_ text: String, allowingNewline: Bool) -> Bool {
    let checked = text.utf8.withContiguousStorageIfAvailable { (bytes) -> Bool in
      for b in bytes where b &- 0x20 >= 0x5F {
        guard allowingNewline, b == 0x0A else { return false }
      }
      return true
    }
    if let checked { return checked }
    return text.utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || (allowingNewline && $0 == 0x0A) }
  }

  /// Scalars that change how a terminal or a bidi-aware viewer shows the text around them.
  package static func mustEscape(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1 (including CSI 0x9B)
    case 0x061C, 0x200E, 0x200F: true  // Arabic letter mark, left-to-right and right-to-left marks
    case 0x202A...0x202E, 0x2066...0x2069: true  // bidi embeddings, overrides and isolates
    case 0x2028, 0x2029: true  // line and paragraph separators
    default: false
    }
  }
}

/// Text on its way to a terminal: what every text renderer returns and every text writer accepts.
///
/// It can only be made from source-code literals, from `TerminalSafeText`, from numbers, and from
/// strings that it sanitises itself (`init(_:)` and string interpolation of a `String`), so an input
/// string cannot reach the terminal raw: a renderer cannot forget to sanitise, because it has no way
/// to add a `String` without sanitising it. Its own line breaks and colour (SGR) codes come only from
/// literals and `styled(_:sgr:)`. The layout operations (`count`, `wrapped`, `shortened`, `dropFirst`)
/// work on the visible characters and keep that property: a cut that would split a colour code
/// leaves the pieces escaped, never half a control sequence.
package struct TerminalText: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
  /// The text as written to the terminal.
  package private(set) var rendered: String

  /// Input text, sanitised with `TerminalSafeText`: line breaks and every control character become visible.
  package init(_ raw: String) { rendered = TerminalSafeText(raw).visible }

  package init(_ safe: TerminalSafeText) { rendered = safe.visible }

  /// Text assembled from other terminal text and literals: only line breaks and complete SGR codes
  /// may stay; anything else that controls the terminal is escaped.
  fileprivate init(assembled: String) { rendered = Self.repaired(assembled) }

  /// Text from a renderer that runs every input string through `TerminalSafeText` itself and lays out
  /// characters on its own (the timeline). Each use is listed by a test; other renderers compose
  /// `TerminalText` instead.
  package init(alreadySanitised text: String) { rendered = Self.repaired(text) }

  package init(stringLiteral value: String) { rendered = Self.repaired(value) }

  package init(stringInterpolation: Interpolation) { rendered = Self.repaired(stringInterpolation.text) }

  package var description: String { rendered }

  /// Literals stay as written; everything interpolated is sanitised unless it is already terminal text.
  package struct Interpolation: StringInterpolationProtocol {
    fileprivate var text = ""
    package init(literalCapacity: Int, interpolationCount: Int) { text.reserveCapacity(literalCapacity) }
    package mutating func appendLiteral(_ literal: String) { text += literal }
    package mutating func appendInterpolation(_ value: TerminalText) { text += value.rendered }
    package mutating func appendInterpolation(_ value: TerminalSafeText) { text += value.visible }
    package mutating func appendInterpolation(_ value: String) { text += TerminalSafeText(value).visible }
    package mutating func appendInterpolation(_ value: Substring) { text += TerminalSafeText(String(value)).visible }
    package mutating func appendInterpolation(_ value: some BinaryInteger) { text += String(value) }
    package mutating func appendInterpolation(_ value: some CustomStringConvertible) {
      text += TerminalSafeText(value.description).visible
    }
  }

  package static func + (lhs: TerminalText, rhs: TerminalText) -> TerminalText {
    TerminalText(trustedConcatenation: lhs.rendered + rhs.rendered)
  }

  package static func += (lhs: inout TerminalText, rhs: TerminalText) { lhs.rendered += rhs.rendered }

  /// Both halves already hold the invariant, so their concatenation does too.
  fileprivate init(trustedConcatenation: String) { rendered = trustedConcatenation }

  package var isEmpty: Bool { rendered.isEmpty }

  /// Room for `bytes` of text, so a block built piece by piece grows its storage once.
  package mutating func reserveCapacity(_ bytes: Int) { rendered.reserveCapacity(bytes) }

  /// `text` in the colour of an SGR parameter list such as `31` or `1;32`.
  package static func styled(_ text: TerminalText, sgr: String) -> TerminalText {
    guard !sgr.isEmpty, sgr.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x3B }) else { return text }
    return TerminalText(trustedConcatenation: "\u{1B}[\(sgr)m" + text.rendered + "\u{1B}[0m")
  }

  /// Columns taken for narrow characters: colour codes count for nothing.
  package var count: Int {
    // ASCII with no ESC and no CR (so no CR LF pair): one character per byte, no grapheme walk needed.
    let plain = rendered.utf8.withContiguousStorageIfAvailable { bytes in
      var any: UInt8 = 0
      for b in bytes {
        if b == 0x1B || b == 0x0D { return false }
        any |= b
      }
      return any < 0x80
    }
    if plain == true { return rendered.utf8.count }
    guard rendered.utf8.contains(0x1B) else { return rendered.count }
    return Self.withoutSGR(rendered).count
  }

  /// The text without its first `n` characters (the indent of a wrapped first line).
  package func dropFirst(_ n: Int) -> TerminalText { TerminalText(assembled: String(rendered.dropFirst(n))) }

  /// Without trailing spaces.
  package var trimmingTrailingSpaces: TerminalText {
    var s = rendered
    while s.hasSuffix(" ") { s.removeLast() }
    return TerminalText(trustedConcatenation: s)
  }

  /// Words wrapped to `columns`, each line indented by `indent` spaces (see `TextLayout.wrap`).
  package func wrapped(indent: Int, columns: Int) -> TerminalText {
    TerminalText(assembled: TextLayout.wrap(rendered, indent: indent, columns: columns))
  }

  /// Cut to `width` characters with "…" in the middle (see `TextLayout.shortened`).
  package func shortened(to width: Int) -> TerminalText {
    TerminalText(assembled: TextLayout.shortened(Self.withoutSGR(rendered), to: width))
  }

  /// Keeps line breaks and complete SGR sequences (`ESC [ digits/; m`); escapes every other control.
  static func repaired(_ text: String) -> String {
    // Fast path: printable ASCII and line breaks, which most output is and `repairedScalarByScalar` keeps.
    TerminalSafeText.isPrintableASCII(text, allowingNewline: true) ? text : repairedScalarByScalar(text)
  }

  /// `repaired` one scalar at a time: the slow path, for any text.
  static func repairedScalarByScalar(_ text: String) -> String {
    let scalars = Array(text.unicodeScalars)
    guard scalars.contains(where: { TerminalSafeText.mustEscape($0) && $0 != "\n" }) else { return text }
    var out = String.UnicodeScalarView()
    var i = 0
    while i < scalars.count {
      let scalar = scalars[i]
      if scalar == "\u{1B}", let end = sgrEnd(scalars, from: i) {
        out.append(contentsOf: scalars[i...end])
        i = end + 1
        continue
      }
      if scalar != "\n", TerminalSafeText.mustEscape(scalar) {
        out.append(contentsOf: ("\\u{" + String(scalar.value, radix: 16) + "}").unicodeScalars)
      } else {
        out.append(scalar)
      }
      i += 1
    }
    return String(out)
  }

  /// Index of the `m` ending an SGR sequence starting with ESC at `start`, if it is one.
  private static func sgrEnd(_ scalars: [Unicode.Scalar], from start: Int) -> Int? {
    var i = start + 1
    guard i < scalars.count, scalars[i] == "[" else { return nil }
    i += 1
    while i < scalars.count, i - start < 32 {
      let s = scalars[i]
      if s == "m" { return i }
      guard ("0"..."9").contains(s) || s == ";" else { return nil }
      i += 1
    }
    return nil
  }

  private static func withoutSGR(_ text: String) -> String {
    let scalars = Array(text.unicodeScalars)
    var out = String.UnicodeScalarView()
    var i = 0
    while i < scalars.count {
      if scalars[i] == "\u{1B}", let end = sgrEnd(scalars, from: i) {
        i = end + 1
        continue
      }
      out.append(scalars[i])
      i += 1
    }
    return String(out)
  }
}

/// Terminal text built as bytes and made a `String` once: a block of many rows appends its pieces without a
/// `String` append (capacity checks, reallocation) per piece. It takes only terminal text, spaces and line
/// breaks, so the result holds the invariant of its pieces.
package struct TerminalTextBuilder {
  /// The text is `storage[..<used]`; the rest is room, so that appending a few bytes is a copy into it rather
  /// than an `Array.append(contentsOf:)`, which checks, grows and copies through a generic path on every call
  /// (8% of `decode`, whose blocks append a dozen pieces a row).
  private var storage: [UInt8]
  private var used = 0

  package init(capacity: Int) { storage = Self.room(max(64, capacity)) }

  /// `count` bytes of room, left as they are: every byte is written before `storage[..<used]` covers it.
  private static func room(_ count: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
  }

  /// Copies `count` bytes from `source` to the end; a few bytes (most pieces) one at a time, not through `memcpy`.
  @inline(__always)
  private mutating func write(_ source: UnsafeRawPointer?, count: Int) {
    guard count > 0, let source else { return }
    if storage.count - used < count { grow(toHold: used + count) }
    let at = used
    storage.withUnsafeMutableBufferPointer { room in
      guard let base = room.baseAddress else { return }
      let to = base + at
      if count <= 32 {
        let from = source.assumingMemoryBound(to: UInt8.self)
        for i in 0..<count { to[i] = from[i] }
      } else {
        UnsafeMutableRawPointer(to).copyMemory(from: source, byteCount: count)
      }
    }
    used += count
  }

  /// Room for `needed` bytes in all: at least twice the room there was.
  private mutating func grow(toHold needed: Int) {
    let old = storage
    storage = Self.room(max(needed, storage.count * 2))
    let kept = used
    storage.withUnsafeMutableBufferPointer { room in
      old.withUnsafeBufferPointer { from in
        guard let to = room.baseAddress, let from = from.baseAddress else { return }
        to.update(from: from, count: kept)
      }
    }
  }

  private mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
    write(UnsafeRawPointer(bytes.baseAddress), count: bytes.count)
  }

  package mutating func append(_ text: TerminalText) {
    let utf8 = text.rendered.utf8
    if utf8.withContiguousStorageIfAvailable({ write($0) }) == nil { Array(utf8).withUnsafeBufferPointer { write($0) } }
  }

  /// `n` spaces (none for a negative `n`).
  package mutating func appendSpaces(_ n: Int) {
    guard n > 0 else { return }
    if storage.count - used < n { grow(toHold: used + n) }
    let at = used
    storage.withUnsafeMutableBufferPointer { room in
      guard let base = room.baseAddress else { return }
      (base + at).initialize(repeating: 0x20, count: n)
    }
    used += n
  }

  package mutating func appendNewline() {
    if used == storage.count { grow(toHold: used + 1) }
    storage[used] = 0x0A
    used += 1
  }

  /// Printable ASCII `text` wrapped to `width` columns, its lines after the first indented by `indent` spaces
  /// (the first goes on where the builder is): only spaces and line breaks are added. False, with nothing
  /// written, for any other text.
  package mutating func appendWrapped(_ text: TerminalText, indent: Int, width: Int) -> Bool {
    var wrapped: [UInt8] = []
    guard
      TextLayout.appendWrappedPrintableASCII(
        text.rendered, indent: indent, width: width, firstIndent: false, to: &wrapped)
    else { return false }
    wrapped.withUnsafeBufferPointer { write($0) }
    return true
  }

  package var text: TerminalText {
    storage.withUnsafeBufferPointer { TerminalText(builtBytes: UnsafeBufferPointer(rebasing: $0[..<used])) }
  }

  /// Input text appended as it is when `TerminalText(text)` would leave it so and `TextLayout.appendFieldValue`
  /// would not wrap it at `valueIndent` (printable ASCII that fits the line, or over 4,096 bytes); false, with
  /// nothing written, for any other text.
  package mutating func appendPlainValue(_ text: String, layout: TextLayout, valueIndent: Int) -> Bool {
    let utf8 = text.utf8
    if utf8.count > 4096 {
      guard TerminalSafeText.isPrintableASCII(text, allowingNewline: false) else { return false }
    } else {
      // One line fits only printable ASCII (no controls, no non-ASCII): nothing to sanitise.
      guard TextLayout.fitsOneLine(text, width: max(20, layout.width - valueIndent)) else { return false }
    }
    if utf8.withContiguousStorageIfAvailable({ write($0) }) == nil { Array(utf8).withUnsafeBufferPointer { write($0) } }
    return true
  }

  /// A date as `TerminalText(date.display)` through `TextLayout.appendFieldValue` writes it, without making the
  /// string: its ISO 8601 bytes, or "-" for none; false, with nothing written, when it would not fit the line
  /// or is outside what `Timestamp.writeISO8601` writes.
  package mutating func appendDateValue(_ date: Timestamp?, layout: TextLayout, valueIndent: Int) -> Bool {
    let valueWidth = max(20, layout.width - valueIndent)
    guard let date else {
      write(UnsafeRawPointer(("-" as StaticString).utf8Start), count: 1)
      return true
    }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
      // ISO 8601 text has no spaces, so it fits one line exactly when it is no wider than the line.
      guard let base = buffer.baseAddress, let n = date.writeISO8601(to: base), n <= valueWidth else { return false }
      write(UnsafeBufferPointer(start: base, count: n))
      return true
    }
  }

  /// A literal (a label): appended as it is when printable ASCII, else as `TerminalText(stringLiteral:)` makes it.
  package mutating func append(literal: StaticString) {
    let text = UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount)
    guard text.allSatisfy({ $0 &- 0x20 < 0x5F }) else {
      append(TerminalText(stringLiteral: literal.description))
      return
    }
    write(text)
  }

  /// Bytes another builder made (`takeBytes`), added as they are.
  package mutating func append(built other: [UInt8]) { other.withUnsafeBufferPointer { write($0) } }

  /// How many bytes are held.
  package var count: Int { used }

  /// The bytes written so far, leaving the builder empty (with its capacity) to go on: the text is
  /// handed out in pieces, each cut after a line.
  package mutating func takeBytes() -> [UInt8] {
    let taken = Array(storage[..<used])
    used = 0
    return taken
  }
}

extension TerminalText {
  /// Only `TerminalTextBuilder` makes these, from the bytes of terminal text, spaces and line breaks.
  fileprivate init(builtBytes: UnsafeBufferPointer<UInt8>) {
    self.init(trustedConcatenation: String(decoding: builtBytes, as: UTF8.self))
  }
}

extension Array where Element == TerminalText {
  /// The elements joined by `separator`.
  package func joined(separator: TerminalText = "") -> TerminalText {
    var out: TerminalText = ""
    for (i, element) in enumerated() {
      if i > 0 { out += separator }
      out += element
    }
    return out
  }
}
