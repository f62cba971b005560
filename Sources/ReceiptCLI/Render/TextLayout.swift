import ReceiptFormats
import ReceiptModel
import ReceiptRules

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
    let labelWidth = max(minimumLabelWidth, (rows.map(\.0.count).max() ?? 0) + 2)
    let pad = Self.spaces(indent)
    var out: TerminalText = ""
    for (label, value) in rows {
      let valueIndent = indent + labelWidth
      let gap = Self.spaces(labelWidth - label.count)
      // Wrapping is for reading; a value of many kilobytes stays on one line rather than taking seconds.
      guard value.rendered.utf8.count <= 4096 else {
        out += pad + label + gap + value + "\n"
        continue
      }
      let firstLine = value.wrapped(indent: valueIndent, columns: width).dropFirst(valueIndent)
      out += pad + label + gap + firstLine + "\n"
    }
    return out
  }

  /// `n` spaces (none for a negative `n`).
  static func spaces(_ n: Int) -> TerminalText { TerminalText(String(repeating: " ", count: max(0, n))) }

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
}
