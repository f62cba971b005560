/// Building blocks for the text renderers: aligned label/value blocks, tables and optional colour.
public struct TextLayout: Sendable {
  public var color: Bool
  public var width: Int

  public init(color: Bool, width: Int = 80) {
    self.color = color
    self.width = width
  }

  public enum Tone: Sendable { case good, warn, bad, dim, bold }

  /// `text` in ANSI colour when colour is on.
  public func paint(_ text: String, _ tone: Tone) -> String {
    guard color else { return text }
    let code: String
    switch tone {
    case .good: code = "32"
    case .warn: code = "33"
    case .bad: code = "31"
    case .dim: code = "2"
    case .bold: code = "1"
    }
    return "\u{1B}[\(code)m\(text)\u{1B}[0m"
  }

  /// Label/value lines with the values aligned; long values wrap under the value column.
  public func fields(_ rows: [(String, String)], indent: Int = 0, minimumLabelWidth: Int = 0) -> String {
    let labelWidth = max(minimumLabelWidth, (rows.map(\.0.count).max() ?? 0) + 2)
    let pad = String(repeating: " ", count: indent)
    var out = ""
    for (label, value) in rows {
      let valueIndent = indent + labelWidth
      // Wrapping is for reading; a value of many kilobytes stays on one line rather than taking seconds.
      guard value.utf8.count <= 4096 else {
        out += pad + label + String(repeating: " ", count: labelWidth - label.count) + value + "\n"
        continue
      }
      let wrapped = HelpGenerator.wrap(value, indent: valueIndent, columns: width)
      let firstLine = wrapped.dropFirst(valueIndent)
      out += pad + label + String(repeating: " ", count: labelWidth - label.count) + firstLine + "\n"
    }
    return out
  }

  /// A table with a header row; columns sized to their content, the widest `flexible` column
  /// truncated with "…" so the table fits `width`.
  public func table(header: [String], rows: [[String]], rightAligned: Set<Int> = [], flexible: Int? = nil, indent: Int = 0) -> String {
    var widths = header.map(\.count)
    for row in rows {
      for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
    }
    let total = indent + widths.reduce(0, +) + 2 * max(0, widths.count - 1)
    if let flexible, flexible < widths.count, total > width {
      widths[flexible] = max(header[flexible].count, 12, widths[flexible] - (total - width))
    }
    func line(_ cells: [String]) -> String {
      var parts: [String] = []
      for (i, w) in widths.enumerated() {
        var cell = i < cells.count ? cells[i] : ""
        if cell.count > w { cell = String(cell.prefix(max(1, w - 1))) + "…" }
        let padding = String(repeating: " ", count: w - cell.count)
        parts.append(rightAligned.contains(i) ? padding + cell : cell + padding)
      }
      var s = String(repeating: " ", count: indent) + parts.joined(separator: "  ")
      while s.hasSuffix(" ") { s.removeLast() }
      return s + "\n"
    }
    return line(header) + rows.map(line).joined()
  }
}

extension Optional where Wrapped == Timestamp {
  /// ISO 8601 or a dash.
  var display: String { self?.iso8601 ?? "-" }
}
