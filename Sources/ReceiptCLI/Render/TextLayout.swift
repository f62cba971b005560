import ReceiptFormats
import ReceiptModel

/// Building blocks for the text renderers: aligned label/value blocks, tables and optional colour.
package struct TextLayout: Sendable {
  package var color: Bool
  package var width: Int

  package init(color: Bool, width: Int = 80) {
    self.color = color
    self.width = width
  }

  package enum Tone: Sendable { case good, warn, bad, dim, bold }

  /// `text` in ANSI colour when colour is on.
  package func paint(_ text: TerminalText, _ tone: Tone) -> TerminalText {
    guard color else { return text }
    let code: String
    switch tone {
    case .good: code = "32"
    case .warn: code = "33"
    case .bad: code = "31"
    case .dim: code = "2"
    case .bold: code = "1"
    }
    return TerminalText.styled(text, sgr: code)
  }

  /// Label/value lines with the values aligned; long values wrap under the value column.
  package func fields(_ rows: [(TerminalText, TerminalText)], indent: Int = 0, minimumLabelWidth: Int = 0)
    -> TerminalText
  {
    // Each row's pieces go into one byte buffer: the block becomes a String once, not by appends per piece.
    var out = TerminalTextBuilder(capacity: rows.count * (indent + minimumLabelWidth + 56))
    appendFields(rows, indent: indent, minimumLabelWidth: minimumLabelWidth, to: &out)
    return out.text
  }

  /// `fields` appended to a builder, for a renderer that writes a whole document into one.
  package func appendFields(
    _ rows: [(TerminalText, TerminalText)], indent: Int = 0, minimumLabelWidth: Int = 0,
    to out: inout TerminalTextBuilder
  ) {
    var widest = 0
    for row in rows { widest = max(widest, row.0.count) }
    let labelWidth = max(minimumLabelWidth, widest + 2)
    let valueIndent = indent + labelWidth
    for (label, value) in rows {
      out.appendSpaces(indent)
      out.append(label)
      out.appendSpaces(labelWidth - label.count)
      appendFieldValue(value, valueIndent: valueIndent, to: &out)
      out.appendNewline()
    }
  }

  /// The value of one of `appendFields`' rows, after its label: on the line when it fits, else wrapped with
  /// its lines after the first indented by `valueIndent`.
  package func appendFieldValue(_ value: TerminalText, valueIndent: Int, to out: inout TerminalTextBuilder) {
    // Wrapping is for reading; a value of many kilobytes stays on one line rather than taking seconds.
    let valueWidth = max(20, width - valueIndent)
    if value.rendered.utf8.count > 4096 || Self.fitsOneLine(value.rendered, width: valueWidth) {
      out.append(value)
    } else if !out.appendWrapped(value, indent: valueIndent, width: valueWidth) {
      out.append(value.wrapped(indent: valueIndent, columns: width).dropFirst(valueIndent))
    }
  }

  /// Whether `wrap` would leave `text` as it is on one line: printable ASCII, single spaces only between
  /// words, and no longer than the line. Most values are, and they then skip the word split.
  static func fitsOneLine(_ text: String, width: Int) -> Bool {
    let utf8 = text.utf8
    guard utf8.count <= width else { return false }
    return utf8.withContiguousStorageIfAvailable { bytes in
      var previous: UInt8 = 0x20
      for b in bytes {
        guard b > 0x20 && b < 0x7F || b == 0x20 && previous != 0x20 else { return false }
        previous = b
      }
      return previous != 0x20 || bytes.isEmpty
    } ?? false
  }

  /// `n` spaces (none for a negative `n`).
  static func spaces(_ n: Int) -> TerminalText {
    // Every row of every block pads with a few spaces: made once, not per row.
    n < commonSpaces.count ? commonSpaces[max(0, n)] : TerminalText(spaceString(n))
  }

  private static let commonSpaces = (0..<64).map { TerminalText(spaceString($0)) }

  /// From bytes: `String(repeating: " ", count:)` appends one string per space.
  private static func spaceString(_ n: Int) -> String {
    String(decoding: [UInt8](repeating: 0x20, count: n), as: UTF8.self)
  }

  /// A table with a header row; columns sized to their content. When it is wider than `width`, the
  /// `flexible` columns are narrowed (the widest first, to no less than 12 characters or their header)
  /// and their long cells shortened in the middle with "…", keeping the start and the end of an id
  /// (`com.example.a…promo2026`), where product ids differ. `style` decorates a body cell after padding,
  /// so colour escape codes never count towards column widths.
  package func table(
    header: [TerminalText], rows: [[TerminalText]], rightAligned: Set<Int> = [], flexible: [Int] = [],
    indent: Int = 0,
    style: ((_ row: Int, _ column: Int, _ cell: TerminalText) -> TerminalText)? = nil
  ) -> TerminalText {
    var widths = header.map(\.count)
    for row in rows {
      for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
    }
    if width < Self.listLayoutBelow {
      return list(header: header, rows: rows, indent: indent, style: style)
    }
    widths = fitted(
      widths, header: header.map(\.count), flexible: flexible.filter { $0 >= 0 && $0 < widths.count }, indent: indent)
    func line(_ cells: [TerminalText], row: Int?) -> TerminalText {
      var parts: [TerminalText] = []
      for (i, w) in widths.enumerated() {
        var cell: TerminalText = i < cells.count ? cells[i] : ""
        if cell.count > w { cell = cell.shortened(to: w) }
        let padding = Self.spaces(w - cell.count)
        let shown = row.flatMap { r in style.map { $0(r, i, cell) } } ?? cell
        parts.append(rightAligned.contains(i) ? padding + shown : shown + padding)
      }
      return (Self.spaces(indent) + parts.joined(separator: "  ")).trimmingTrailingSpaces + "\n"
    }
    return line(header, row: nil) + rows.enumerated().map { line($1, row: $0) }.joined()
  }

  /// Below this many columns a table becomes a list: one block per row, a `header: cell` line per column.
  package static let listLayoutBelow = 60

  /// The rows of a table as blocks of `header: value` lines, for terminals too narrow for columns.
  func list(
    header: [TerminalText], rows: [[TerminalText]], indent: Int,
    style: ((_ row: Int, _ column: Int, _ cell: TerminalText) -> TerminalText)?
  ) -> TerminalText {
    var blocks: [TerminalText] = []
    for (r, row) in rows.enumerated() {
      let pairs = header.enumerated().map { (i, name) -> (TerminalText, TerminalText) in
        let cell: TerminalText = i < row.count ? row[i] : ""
        return (name + ":", style.map { $0(r, i, cell) } ?? cell)
      }
      blocks.append(fields(pairs, indent: indent))
    }
    return blocks.joined(separator: "\n")
  }

  /// Column widths narrowed so the table fits `width`: the flexible columns are capped at the highest
  /// common level that fits, never below their minimum (so a table of many long columns may still overflow).
  func fitted(_ widths: [Int], header: [Int], flexible: [Int], indent: Int) -> [Int] {
    func total(_ w: [Int]) -> Int { indent + w.reduce(0, +) + 2 * max(0, w.count - 1) }
    guard !flexible.isEmpty, total(widths) > width else { return widths }
    let minimum = Dictionary(flexible.map { ($0, max(header[$0], 12)) }, uniquingKeysWith: max)
    func capped(at level: Int) -> [Int] {
      var w = widths
      for i in flexible { w[i] = min(widths[i], max(minimum[i] ?? 12, level)) }
      return w
    }
    // The highest cap that fits, by bisection over the widest column's width.
    var low = 0
    var high = flexible.map { widths[$0] }.max() ?? 0
    while low < high {
      let mid = low + (high - low + 1) / 2
      if total(capped(at: mid)) <= width { low = mid } else { high = mid - 1 }
    }
    return capped(at: low)
  }

  /// `text` cut to `width` characters with "…" in the middle: the start and end of an id tell products apart.
  static func shortened(_ text: String, to width: Int) -> String {
    guard width > 1 else { return "…" }
    let keep = width - 1
    let tail = keep / 2
    return String(text.prefix(keep - tail)) + "…" + String(text.suffix(tail))
  }
}

extension TextLayout {

  /// Wraps words to `columns`, every line indented by `indent` spaces (the first one included).
  package static func wrap(_ text: String, indent: Int, columns: Int) -> String {
    let width = max(20, columns - indent)
    if let wrapped = wrapPrintableASCII(text, indent: indent, width: width) { return wrapped }
    return wrapCharacters(text, indent: indent, width: width)
  }

  /// `wrap` for any text, counting characters.
  static func wrapCharacters(_ text: String, indent: Int, width: Int) -> String {
    var lines: [String] = []
    var line = ""
    for whole in text.split(separator: " ", omittingEmptySubsequences: true) {
      // A word longer than a line (a long product id) is split, so no line runs past `columns`.
      var word = whole
      if word.count > width {
        if !line.isEmpty { lines.append(line) }
        line = ""
        var start = word.startIndex
        while let end = word.index(start, offsetBy: width, limitedBy: word.endIndex), end < word.endIndex {
          lines.append(String(word[start..<end]))
          start = end
        }
        word = word[start...]
      }
      if line.isEmpty {
        line = String(word)
      } else if line.count + 1 + word.count <= width {
        line += " " + word
      } else {
        lines.append(line)
        line = String(word)
      }
    }
    if !line.isEmpty || lines.isEmpty { lines.append(line) }
    let pad = String(repeating: " ", count: indent)
    return lines.map { pad + $0 }.joined(separator: "\n")
  }

  /// `wrap` for printable ASCII (one byte, one column), written straight into one buffer; nil for other text.
  static func wrapPrintableASCII(_ text: String, indent: Int, width: Int) -> String? {
    var out: [UInt8] = []
    let pad = max(0, indent)
    out.reserveCapacity(text.utf8.count + 2 * (pad + 1) + text.utf8.count / max(1, width) * (pad + 1))
    guard appendWrappedPrintableASCII(text, indent: indent, width: width, firstIndent: true, to: &out) else {
      return nil
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// `wrapPrintableASCII` appended to `out`, with or without the first line's indent (`fields` writes its first
  /// line after the label); false, with nothing written, for text that is not printable ASCII.
  static func appendWrappedPrintableASCII(
    _ text: String, indent: Int, width: Int, firstIndent: Bool, to out: inout [UInt8]
  ) -> Bool {
    let pad = max(0, indent)
    let done = text.utf8.withContiguousStorageIfAvailable { (bytes) -> Bool in
      for b in bytes where b < 0x20 || b > 0x7E { return false }
      var lines = 0
      // Whether the last line begun holds a word, and its length.
      var open = false
      var length = 0
      // The words of the line so far that stand in the text as they will be written (one space apart): copied
      // as one run when the line ends, not word by word.
      var run = 0..<0
      func flush() {
        if !run.isEmpty { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run])) }
        run = 0..<0
      }
      func beginLine() {
        flush()
        if lines > 0 { out.append(0x0A) }
        if lines > 0 || firstIndent { out.append(contentsOf: repeatElement(0x20, count: pad)) }
        lines += 1
      }
      var i = 0
      while i < bytes.count {
        guard bytes[i] != 0x20 else {
          i += 1
          continue
        }
        var start = i
        while i < bytes.count, bytes[i] != 0x20 { i += 1 }
        // A word longer than a line is cut into lines of `width`; its last piece goes on as a word.
        if i - start > width {
          open = false
          while i - start > width {
            beginLine()
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<(start + width)]))
            start += width
          }
        }
        let n = i - start
        if open, length + 1 + n <= width {
          length += 1 + n
          if !run.isEmpty, start == run.upperBound + 1 {
            run = run.lowerBound..<i
            continue
          }
          flush()
          out.append(0x20)
        } else {
          beginLine()
          open = true
          length = n
        }
        run = start..<i
      }
      if lines == 0 { beginLine() }
      flush()
      return true
    }
    return done ?? false
  }
}
