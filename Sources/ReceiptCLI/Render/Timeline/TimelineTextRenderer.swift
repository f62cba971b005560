import ReceiptModel

/// `timeline --format text`: the lanes on a shared time axis, each lane's status and reason, a legend.
///
/// Every mark is a distinct character, so the chart reads without colour; colour (when the caller asks)
/// only paints those same characters. Below `narrowWidth` columns the chart becomes a list.
package enum TimelineTextRenderer {
  /// Narrower than this, a chart would be too coarse to read: the list layout is used instead.
  package static let narrowWidth = 60

  /// The characters of the chart, one per mark.
  enum Mark: Character, CaseIterable {
    case owned = "="
    case familyShared = "~"
    case ownershipUnknown = "?"
    case trial = "t"
    case intro = "i"
    case gap = "."
    case cancellation = "X"
    case upgrade = "^"
    case gracePeriod = "g"
    case billingRetry = "r"
    case openEnd = ">"
    case asOf = "|"
    case blank = " "

    var meaning: String {
      switch self {
      case .owned: "owned"
      case .familyShared: "family-shared"
      case .ownershipUnknown: "ownership unknown"
      case .trial: "free trial (t~ shared)"
      case .intro: "intro offer (i~ shared)"
      case .gap: "gap before a renewal"
      case .cancellation: "refund or revocation"
      case .upgrade: "upgraded"
      case .gracePeriod: "grace period"
      case .billingRetry: "billing retry"
      case .openEnd: "no expiry"
      case .asOf: "as of"
      case .blank: ""
      }
    }

    /// ANSI SGR code, nil for no colour.
    var sgr: String? {
      switch self {
      case .owned: "34"
      case .familyShared: "35"
      case .ownershipUnknown, .gap: "2"
      case .trial, .intro: "36"
      case .cancellation: "1;31"
      case .upgrade, .asOf, .openEnd: "1"
      case .gracePeriod: "33"
      case .billingRetry: "31"
      case .blank: nil
      }
    }
  }

  /// `render` for a terminal: every input-derived string in the chart already went through
  /// `TerminalSafeText`, so the text is marked sanitised here, beside the code that sanitised it.
  package static func terminalText(_ chart: TimelineChart, width: Int = 80, color: Bool = false) -> TerminalText {
    TerminalText(alreadySanitised: render(chart, width: width, color: color))
  }

  /// Renders one chart. `width` is the terminal's columns (`COLUMNS`); `color` adds ANSI colour.
  package static func render(_ chart: TimelineChart, width: Int = 80, color: Bool = false) -> String {
    let width = max(20, min(width, 1000))
    var out = header(chart, width: width)
    if width < narrowWidth {
      out += list(chart, width: width, color: color)
    } else {
      out += diagram(chart, width: width, color: color)
    }
    out += "\n" + status(chart, width: width, color: color)
    if width >= narrowWidth {
      out += "\n" + legend(width: width, color: color)
    }
    return out
  }

  // MARK: - Header and status

  static func header(_ chart: TimelineChart, width: Int) -> String {
    var out = wrap("Timeline: " + safe(chart.title), width: width, indent: 2)
    let fields = chart.provenance.fields
    let labelWidth = (fields.map { safe($0.name).count }.max() ?? 0) + 2
    for field in fields {
      let name = safe(field.name)
      if width >= narrowWidth {
        let lead = "  " + name + String(repeating: " ", count: labelWidth - name.count)
        out += wrap(safe(field.value), width: width, indent: 2 + labelWidth, prefix: lead)
      } else {
        out += wrap("  " + name + ": " + safe(field.value), width: width, indent: 4)
      }
    }
    var asOf = "As of " + chart.evaluationMoment.iso8601WholeSeconds
    if let source = chart.evaluationMomentSource { asOf += " (" + safe(source) + ")" }
    return out + wrap(asOf, width: width, indent: 2)
  }

  static func status(_ chart: TimelineChart, width: Int, color: Bool) -> String {
    guard !chart.lanes.isEmpty else { return wrap("No purchases to draw.", width: width, indent: 2) }
    var out = ""
    for lane in chart.lanes {
      let word = safe(lane.status)
      let head = wrap(safe(lane.label) + ": " + word, width: width, indent: 2)
      out += color ? paintLast(word, in: head, tone: lane.tone) : head
      out += wrap("  " + safe(lane.reason), width: width, indent: 2)
    }
    return out
  }

  static func legend(width: Int, color: Bool) -> String {
    let items = Mark.allCases.filter { $0 != .blank }.map { mark -> String in
      let symbol = String(mark.rawValue)
      return (color ? paint(symbol, mark.sgr) : symbol) + " " + mark.meaning
    }
    // Wrapped by hand: the colour codes must not count towards the width.
    var out = "Legend:"
    var lineLength = out.count
    for (mark, item) in zip(Mark.allCases.filter { $0 != .blank }, items) {
      let length = 2 + mark.meaning.count + 2
      if lineLength + length > width {
        out += "\n "
        lineLength = 1
      }
      out += "  " + item
      lineLength += length
    }
    return out + "\n"
  }

  // MARK: - The chart

  static func diagram(_ chart: TimelineChart, width: Int, color: Bool) -> String {
    let scale = TimelineScale(chart: chart)
    let columns = width - 4
    func column(_ t: Timestamp) -> Int { column(milliseconds: t.milliseconds) }
    func column(milliseconds t: Int64) -> Int {
      let c = (scale.fraction(milliseconds: t) * Double(columns - 1)).rounded()
      return Int(exactly: c).map { min(columns - 1, max(0, $0)) } ?? 0
    }
    let asOfColumn = column(chart.evaluationMoment)
    var out = "\n" + asOfCaption(chart.evaluationMoment, column: asOfColumn, columns: columns, color: color)
    for lane in chart.lanes {
      let word = shortened(safe(lane.status), to: max(8, width / 3))
      let label = shortened(safe(lane.label), to: width - word.count - 2)
      out += label + "  " + (color ? paint(word, sgr(lane.tone)) : word) + "\n"
      var rows = grid(lane, chart: chart, columns: columns, column: column)
      for r in rows.indices where rows[r][asOfColumn] != .cancellation && rows[r][asOfColumn] != .upgrade {
        rows[r][asOfColumn] = .asOf
      }
      for row in rows { out += "  " + line(row, color: color) + "\n" }
    }
    return out + axis(scale, columns: columns, asOfColumn: asOfColumn, color: color, column: column)
  }

  /// `| as of 2024-06-15` with the bar over the marker's column (or the caption before it near the edge).
  static func asOfCaption(_ moment: Timestamp, column: Int, columns: Int, color: Bool) -> String {
    let text = "as of " + moment.date
    let bar = color ? paint("|", Mark.asOf.sgr) : "|"
    if column + 2 + text.count <= columns {
      return "  " + String(repeating: " ", count: column) + bar + " " + text + "\n"
    }
    let pad = String(repeating: " ", count: max(0, column - text.count - 1))
    return "  " + pad + text + " " + bar + "\n"
  }

  /// A lane's rows of marks: bars stacked so that overlapping transactions never hide each other.
  static func grid(
    _ lane: TimelineLane, chart: TimelineChart, columns: Int, column: (Timestamp) -> Int
  ) -> [[Mark]] {
    let bars = TimelineScale.sorted(lane.bars)
    guard !bars.isEmpty else { return [] }
    let (placements, rowCount) = TimelineScale.stack(bars)
    var rows = Array(repeating: Array(repeating: Mark.blank, count: columns), count: rowCount)
    // Gaps in the lane's coverage, on the first row.
    for gap in TimelineScale.gaps(bars) {
      let from = column(gap.from) + 1
      let to = column(gap.to) - 1
      if from <= to { for c in from...to where rows[0][c] == .blank { rows[0][c] = .gap } }
    }
    for (bar, r) in placements {
      for zone in bar.zones {
        let zoneEnd = zone.end ?? max(chart.evaluationMoment, zone.start)
        for c in column(zone.start)...max(column(zone.start), column(zoneEnd)) {
          rows[r][c] = zone.kind == .gracePeriod ? .gracePeriod : .billingRetry
        }
      }
    }
    for (bar, r) in placements {
      let first = column(bar.start)
      let last = bar.effectiveEnd.map(column) ?? columns - 1
      for c in first...max(first, last) { rows[r][c] = fill(bar, offset: c - first) }
      if bar.effectiveEnd == nil { rows[r][max(first, last)] = .openEnd }
    }
    // Markers last, so that the next bar starting in the same column never hides them.
    for (bar, r) in placements {
      let first = column(bar.start)
      let last = bar.effectiveEnd.map(column) ?? columns - 1
      if let cancellation = bar.cancellation {
        rows[r][column(max(cancellation.date, bar.start))] = .cancellation
      } else if bar.upgraded {
        rows[r][max(first, last)] = .upgrade
      }
    }
    return rows
  }

  /// The mark of a bar's cell: its ownership, alternating with the offer's letter in a trial or intro.
  static func fill(_ bar: TimelineBar, offset: Int) -> Mark {
    let ownership: Mark =
      switch bar.ownership {
      case .owned: .owned
      case .familyShared: .familyShared
      case .unknown: .ownershipUnknown
      }
    switch bar.period {
    case .regular: return ownership
    case .freeTrial: return bar.ownership == .owned || offset % 2 == 0 ? .trial : ownership
    case .introductoryOffer: return bar.ownership == .owned || offset % 2 == 0 ? .intro : ownership
    }
  }

  static func line(_ row: [Mark], color: Bool) -> String {
    var s = ""
    if !color {
      s = String(row.map(\.rawValue))
    } else {
      var i = 0
      while i < row.count {
        var j = i
        while j < row.count, row[j] == row[i] { j += 1 }
        s += paint(String(repeating: row[i].rawValue, count: j - i), row[i].sgr)
        i = j
      }
    }
    while s.hasSuffix(" ") { s.removeLast() }
    return s
  }

  /// Ticks (`+`, the as-of `|`) and their dates under the last lane.
  static func axis(
    _ scale: TimelineScale, columns: Int, asOfColumn: Int, color: Bool, column: (Timestamp) -> Int
  ) -> String {
    var (step, moments) = scale.ticks(maximumCount: max(1, columns / (TimelineScale.labelWidth(step: nil) + 2)))
    if step?.isSubDay == true {
      (step, moments) = scale.ticks(maximumCount: max(1, columns / (TimelineScale.labelWidth(step: step) + 2)))
    }
    var marks = Array(repeating: Mark.blank, count: columns)
    var labels = Array(repeating: Character(" "), count: columns)
    var nextFree = 0
    for moment in moments {
      let c = column(moment)
      let text = Array(TimelineScale.label(moment, step: step))
      let start = min(c, columns - text.count)
      guard start >= nextFree, start >= 0 else { continue }
      marks[c] = .gap
      for (k, ch) in text.enumerated() { labels[start + k] = ch }
      nextFree = start + text.count + 2
    }
    var tickLine = line(marks, color: false).map { $0 == "." ? "+" : $0 }
    tickLine += String(repeating: " ", count: max(0, asOfColumn + 1 - tickLine.count))
    var chars = Array(tickLine)
    if asOfColumn < chars.count { chars[asOfColumn] = "|" }
    var ticks = String(chars)
    if color, asOfColumn < chars.count {
      ticks = String(chars[..<asOfColumn]) + paint("|", Mark.asOf.sgr) + String(chars[(asOfColumn + 1)...])
    }
    var dateLine = String(labels)
    while dateLine.hasSuffix(" ") { dateLine.removeLast() }
    return "  " + ticks + "\n  " + dateLine + "\n"
  }

  // MARK: - The list layout for narrow terminals

  static func list(_ chart: TimelineChart, width: Int, color: Bool) -> String {
    var out = ""
    for lane in chart.lanes {
      out += "\n" + wrap(safe(lane.label), width: width, indent: 2)
      let bars = TimelineScale.sorted(lane.bars)
      if bars.isEmpty { out += "  (no transactions)\n" }
      var coveredUntil: Timestamp?
      for bar in bars {
        if let covered = coveredUntil, bar.start > covered {
          out += wrap("  . gap " + covered.date + " to " + bar.start.date, width: width, indent: 4)
        }
        if let end = bar.effectiveEnd {
          coveredUntil = max(coveredUntil ?? end, end)
        } else {
          coveredUntil = Timestamp(milliseconds: Timestamp.maximumMilliseconds)
        }
        let symbol = fill(bar, offset: 0).rawValue
        let mark = color ? paint(String(symbol), fill(bar, offset: 0).sgr) : String(symbol)
        let head = "  " + String(symbol) + " " + safe(bar.transactionID) + " " + safe(bar.productID)
        let wrapped = wrap(head, width: width, indent: 4)
        out += color ? "  " + mark + String(wrapped.dropFirst(3)) : wrapped
        out += wrap("    " + describe(bar, asOf: chart.evaluationMoment), width: width, indent: 4)
      }
    }
    return out
  }

  /// One sentence-like line of a bar's dates and marks for the list layout.
  static func describe(_ bar: TimelineBar, asOf: Timestamp) -> String {
    var parts: [String] = []
    switch bar.end {
    case .expires(let e): parts.append(bar.start.date + " to " + e.date)
    case .noExpiry: parts.append("from " + bar.start.date + ", no expiry")
    case .unknown: parts.append("from " + bar.start.date + ", expiry unknown")
    }
    parts.append(bar.ownership == .unknown ? "ownership unknown" : bar.ownership.rawValue)
    switch bar.period {
    case .regular: break
    case .freeTrial: parts.append("free trial")
    case .introductoryOffer: parts.append("intro offer")
    }
    if let c = bar.cancellation {
      var text = "X " + (c.kind == .refund ? "refunded " : "revoked ") + c.date.date
      if let detail = c.detail { text += " (" + safe(detail) + ")" }
      parts.append(text)
    }
    if bar.upgraded { parts.append("^ upgraded") }
    for zone in bar.zones {
      let name = zone.kind == .gracePeriod ? "g grace period " : "r billing retry "
      parts.append(name + zone.start.date + " to " + (zone.end?.date ?? "now"))
    }
    return parts.joined(separator: ", ")
  }

  // MARK: - Helpers

  static func safe(_ raw: String) -> String { TerminalSafeText(raw).visible }

  static func paint(_ text: String, _ sgr: String?) -> String {
    guard let sgr else { return text }
    return "\u{1B}[" + sgr + "m" + text + "\u{1B}[0m"
  }

  static func sgr(_ tone: TimelineTone) -> String? {
    switch tone {
    case .good: "32"
    case .warning: "33"
    case .bad: "31"
    case .neutral: "2"
    }
  }

  /// Colours `word` where it ends `text` (the status after the label); unpainted if wrapping cut it.
  static func paintLast(_ word: String, in text: String, tone: TimelineTone) -> String {
    guard !word.isEmpty, text.hasSuffix(word + "\n") else { return text }
    return String(text.dropLast(word.count + 1)) + paint(word, sgr(tone)) + "\n"
  }

  /// `text` cut to `width` characters with "…" in the middle, so both ends of an id stay readable.
  static func shortened(_ text: String, to width: Int) -> String {
    guard text.count > width else { return text }
    guard width > 1 else { return "…" }
    let keep = width - 1
    return String(text.prefix(keep - keep / 2)) + "…" + String(text.suffix(keep / 2))
  }

  /// Word-wraps `text` (whose own leading spaces are kept) to `width` after `prefix`, continuation lines
  /// indented by `indent`; a word longer than a line is cut, so no line is ever wider than `width`.
  static func wrap(_ text: String, width: Int, indent: Int, prefix: String = "") -> String {
    let indent = min(indent, width / 2)
    let lead = text.prefix { $0 == " " }
    let words = text.dropFirst(lead.count).split(separator: " ", omittingEmptySubsequences: true)
    var lines: [String] = []
    var current = prefix.count < width ? prefix + lead : String(lead)
    var currentHasWord = false
    let continuation = String(repeating: " ", count: indent)
    for wordSlice in words {
      var word = String(wordSlice)
      while !word.isEmpty {
        let room = width - current.count - (currentHasWord ? 1 : 0)
        if word.count <= room {
          current += (currentHasWord ? " " : "") + word
          currentHasWord = true
          word = ""
        } else if currentHasWord || (current.count > continuation.count && word.count <= width - indent) {
          lines.append(current)
          current = continuation
          currentHasWord = false
        } else {
          // A word wider than the whole line: cut it.
          let fits = max(1, room)
          current += word.prefix(fits)
          word = String(word.dropFirst(fits))
          lines.append(current)
          current = continuation
        }
      }
    }
    if currentHasWord || lines.isEmpty { lines.append(current) }
    return lines.map { $0 + "\n" }.joined()
  }
}
