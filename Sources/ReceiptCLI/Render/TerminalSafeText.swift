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
  private var bytes: [UInt8] = []

  package init(capacity: Int) { bytes.reserveCapacity(capacity) }

  package mutating func append(_ text: TerminalText) {
    let utf8 = text.rendered.utf8
    if utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil { bytes.append(contentsOf: utf8) }
  }

  /// `n` spaces (none for a negative `n`).
  package mutating func appendSpaces(_ n: Int) {
    // Copied from a run of spaces: `repeatElement` appended them one at a time (4% of `decode`).
    var n = n
    while n > 0 {
      let k = min(n, Self.spaces.count)
      Self.spaces.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<k])) }
      n -= k
    }
  }

  private static let spaces = [UInt8](repeating: 0x20, count: 64)

  package mutating func appendNewline() { bytes.append(0x0A) }

  /// Printable ASCII `text` wrapped to `width` columns, its lines after the first indented by `indent` spaces
  /// (the first goes on where the builder is): only spaces and line breaks are added. False, with nothing
  /// written, for any other text.
  package mutating func appendWrapped(_ text: TerminalText, indent: Int, width: Int) -> Bool {
    TextLayout.appendWrappedPrintableASCII(text.rendered, indent: indent, width: width, firstIndent: false, to: &bytes)
  }

  package var text: TerminalText { TerminalText(builtBytes: bytes) }

  /// Bytes another builder made (`takeBytes`), added as they are.
  package mutating func append(built other: [UInt8]) { bytes.append(contentsOf: other) }

  /// How many bytes are held.
  package var count: Int { bytes.count }

  /// The bytes written so far, leaving the builder empty (with its capacity) to go on: the text is
  /// handed out in pieces, each cut after a line.
  package mutating func takeBytes() -> [UInt8] {
    let taken = bytes
    bytes.removeAll(keepingCapacity: true)
    return taken
  }
}

extension TerminalText {
  /// Only `TerminalTextBuilder` makes these, from the bytes of terminal text, spaces and line breaks.
  fileprivate init(builtBytes: [UInt8]) { self.init(trustedConcatenation: String(decoding: builtBytes, as: UTF8.self)) }
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
