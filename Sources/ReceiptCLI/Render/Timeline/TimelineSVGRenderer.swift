import ReceiptModel

/// `timeline --format svg`: the chart alone, for tickets and docs; also the picture in the HTML page.
///
/// Accessible and machine-checkable: a `<title>` and `<desc>`, a hover `<title>` on every bar with the
/// transaction's fields, classes per kind (`bar owned`, `bar family-shared`, `bar revoked`, `zone
/// grace-period`, `gap`, `as-of`), `data-*` attributes with ISO dates, and Okabe–Ito colours that also
/// differ by pattern, so the kinds stay apart in grey and for colour-blind readers.
package enum TimelineSVGRenderer {
  /// Colours (Okabe–Ito, safe for the common colour-vision deficiencies).
  enum Palette {
    static let owned = "#0072B2"
    static let familyShared = "#E69F00"
    static let ownershipUnknown = "#999999"
    static let gracePeriod = "#F0E442"
    static let billingRetry = "#CC79A7"
    static let cancellation = "#D55E00"
    static let ink = "#000000"
    static let faint = "#555555"
  }

  /// Geometry in CSS pixels.
  enum Metric {
    static let margin = 12.0
    static let arrowRoom = 14.0
    static let captionHeight = 22.0
    static let laneLabelHeight = 18.0
    static let rowHeight = 14.0
    static let rowSpacing = 5.0
    static let laneSpacing = 12.0
    static let axisHeight = 34.0
    static let legendRowHeight = 18.0
    /// Average advance of a character at the label font size, to shorten labels that would not fit.
    static let characterWidth = 7.0
  }

  /// Renders one chart `width` pixels wide (at least 320). `idPrefix` keeps the pattern ids unique
  /// when several charts share a page; only letters, digits and hyphens of it are used.
  package static func render(_ chart: TimelineChart, width: Int = 680, idPrefix: String = "timeline") -> String {
    measured(chart, width: width, idPrefix: idPrefix).markup
  }

  /// Several charts in one SVG document, one under the other, each with its own ids (`doc1`, `doc2`, ...):
  /// what `--format svg` writes for several input documents.
  package static func render(_ charts: [TimelineChart], width: Int = 680, pageTitle: String) -> String {
    let n = MarkupText.number
    var body = ""
    var top = 0.0
    var widest = 320.0
    for (index, chart) in charts.enumerated() {
      let (markup, chartWidth, height) = measured(chart, width: width, idPrefix: "doc\(index + 1)")
      // A nested <svg> is positioned by x and y; the rest of its start tag is kept as it is.
      body += "<svg x=\"0\" y=\"\(n(top))\"" + markup.dropFirst("<svg".count)
      top += height
      widest = max(widest, chartWidth)
    }
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline-charts\" role=\"group\" "
      + "width=\"\(n(widest))\" height=\"\(n(top))\" viewBox=\"0 0 \(n(widest)) \(n(top))\">\n"
      + "<title>\(MarkupText.escape(pageTitle))</title>\n" + body + "</svg>\n"
  }

  /// The chart's markup with its width and height in pixels.
  static func measured(_ chart: TimelineChart, width: Int, idPrefix: String) -> (
    markup: String, width: Double, height: Double
  ) {
    let width = Double(max(320, min(width, 10_000)))
    let p = MarkupText.identifier(idPrefix)
    let scale = TimelineScale(chart: chart)
    let plotLeft = Metric.margin
    let plotRight = width - Metric.margin - Metric.arrowRoom
    func x(_ t: Timestamp) -> Double { plotLeft + scale.fraction(t) * (plotRight - plotLeft) }
    let e = MarkupText.escape
    let n = MarkupText.number

    var body = ""
    var y = Metric.captionHeight
    let lanesTop = y
    for (laneIndex, lane) in chart.lanes.enumerated() {
      let bars = TimelineScale.sorted(lane.bars)
      let (placements, rowCount) = TimelineScale.stack(bars)
      let maxLabel = Int((width - 2 * Metric.margin) / Metric.characterWidth)
      let statusText = TimelineTextRenderer.shortened(TerminalSafeText(lane.status).visible, to: max(8, maxLabel / 3))
      let labelText = TimelineTextRenderer.shortened(
        TerminalSafeText(lane.label).visible, to: max(4, maxLabel - statusText.count - 3))
      body +=
        "<g class=\"lane\" data-lane-index=\"\(laneIndex)\" data-lane=\"\(e(lane.label))\" "
        + "data-status=\"\(e(lane.status))\">\n"
      body +=
        "<text class=\"lane-label\" x=\"\(n(plotLeft))\" y=\"\(n(y + 13))\" font-size=\"12\" "
        + "font-weight=\"bold\" fill=\"\(Palette.ink)\">\(e(labelText)) <tspan class=\"status \(lane.tone.rawValue)\" "
        + "font-weight=\"normal\">— \(e(statusText))</tspan></text>\n"
      y += Metric.laneLabelHeight
      func rowTop(_ r: Int) -> Double { y + Double(r) * (Metric.rowHeight + Metric.rowSpacing) }
      if bars.isEmpty {
        body +=
          "<text class=\"empty\" x=\"\(n(plotLeft))\" y=\"\(n(y + 11))\" font-size=\"11\" "
          + "fill=\"\(Palette.faint)\">no transactions</text>\n"
      }
      // Gaps, zones, bars, then markers on top.
      for gap in TimelineScale.gaps(bars) {
        let mid = rowTop(0) + Metric.rowHeight / 2
        body +=
          "<line class=\"gap\" x1=\"\(n(x(gap.from)))\" y1=\"\(n(mid))\" x2=\"\(n(x(gap.to)))\" y2=\"\(n(mid))\" "
          + "stroke=\"\(Palette.faint)\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\" "
          + "data-start=\"\(gap.from.iso8601)\" data-end=\"\(gap.to.iso8601)\">"
          + "<title>No purchase from \(gap.from.iso8601) to \(gap.to.iso8601) "
          + "(\(days(gap.from, gap.to)))</title></line>\n"
      }
      for (bar, r) in placements {
        for zone in bar.zones {
          let end = zone.end ?? max(chart.evaluationMoment, zone.start)
          let x0 = x(zone.start)
          let name = zone.kind == .gracePeriod ? "Grace period" : "Billing retry"
          let until = zone.end.map { "to " + $0.iso8601 } ?? "still going on at the evaluation moment"
          body +=
            "<rect class=\"zone \(zone.kind.rawValue)\" x=\"\(n(x0))\" y=\"\(n(rowTop(r) + 2))\" "
            + "width=\"\(n(max(2, x(end) - x0)))\" height=\"\(n(Metric.rowHeight - 4))\" "
            + "fill=\"url(#\(p)-\(zone.kind.rawValue))\" stroke=\"\(Palette.faint)\" stroke-width=\"0.5\" "
            + "data-transaction-id=\"\(e(bar.transactionID))\" data-start=\"\(zone.start.iso8601)\""
            + (zone.end.map { " data-end=\"\($0.iso8601)\"" } ?? "") + ">"
            + "<title>\(name) of transaction \(e(bar.transactionID)) from \(zone.start.iso8601) "
            + "\(until)</title></rect>\n"
        }
      }
      for (bar, r) in placements {
        body += barElements(bar, top: rowTop(r), x: x, plotRight: plotRight, idPrefix: p)
      }
      for (bar, r) in placements {
        body += markerElements(bar, top: rowTop(r), x: x)
      }
      y = rowTop(max(rowCount, 1)) - Metric.rowSpacing + Metric.laneSpacing
      body += "</g>\n"
    }
    let lanesBottom = y

    // The evaluation moment across every lane, then the axis and the legend.
    let asOfX = x(chart.evaluationMoment)
    let asOfLabel = "as of " + chart.evaluationMoment.date
    let labelRight = asOfX + 4 + Double(asOfLabel.count) * 6 <= width - Metric.margin
    body +=
      "<g class=\"as-of-group\">"
      + "<line class=\"as-of\" data-as-of=\"\(chart.evaluationMoment.iso8601)\" x1=\"\(n(asOfX))\" "
      + "y1=\"\(n(lanesTop - 6))\" x2=\"\(n(asOfX))\" y2=\"\(n(lanesBottom + 4))\" stroke=\"\(Palette.ink)\" "
      + "stroke-width=\"1.5\" stroke-dasharray=\"5 3\"><title>Evaluated at \(chart.evaluationMoment.iso8601)"
      + "</title></line><text class=\"as-of-label\" x=\"\(n(labelRight ? asOfX + 4 : asOfX - 4))\" "
      + "y=\"\(n(lanesTop - 8))\" font-size=\"11\" text-anchor=\"\(labelRight ? "start" : "end")\" "
      + "fill=\"\(Palette.ink)\">\(asOfLabel)</text></g>\n"
    y = lanesBottom + 4
    body += axis(scale, top: y, left: plotLeft, right: plotRight, x: x)
    y += Metric.axisHeight
    let (legendMarkup, legendHeight) = legend(top: y, width: width, idPrefix: p)
    body += legendMarkup
    y += legendHeight + Metric.margin

    let height = y
    let barCount = chart.allBars.count
    var desc =
      "\(chart.lanes.count) lane\(chart.lanes.count == 1 ? "" : "s"), \(barCount) transaction"
      + "\(barCount == 1 ? "" : "s"), evaluated at \(chart.evaluationMoment.iso8601)."
    for lane in chart.lanes { desc += " " + e(lane.label) + ": " + e(lane.status) + "." }
    for field in chart.provenance.fields { desc += " " + e(field.name) + ": " + e(field.value) + "." }
    let markup =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline-chart\" role=\"img\" "
      + "aria-labelledby=\"\(p)-title \(p)-desc\" width=\"\(n(width))\" height=\"\(n(height))\" "
      + "viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"system-ui, -apple-system, 'Segoe UI', "
      + "Roboto, 'DejaVu Sans', sans-serif\">\n"
      + "<title id=\"\(p)-title\">Timeline: \(e(chart.title))</title>\n"
      + "<desc id=\"\(p)-desc\">\(desc)</desc>\n"
      + patterns(idPrefix: p)
      + "<rect class=\"background\" x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"#ffffff\"/>\n"
      + body + "</svg>\n"
    return (markup, width, height)
  }

  // MARK: - Pieces

  /// The bar itself (with its hover title), a trial/intro overlay, the voided part after a cancellation
  /// and the arrow of an open end.
  static func barElements(
    _ bar: TimelineBar, top: Double, x: (Timestamp) -> Double, plotRight: Double, idPrefix p: String
  ) -> String {
    let e = MarkupText.escape
    let n = MarkupText.number
    let x0 = x(bar.start)
    let x1 = bar.effectiveEnd.map(x) ?? plotRight
    let w = max(2, x1 - x0)
    var classes = ["bar", bar.ownership.rawValue]
    if bar.period != .regular { classes.append(bar.period.rawValue) }
    if let c = bar.cancellation { classes += c.kind == .refund ? ["revoked", "refunded"] : ["revoked"] }
    if bar.upgraded { classes.append("upgraded") }
    if bar.effectiveEnd == nil { classes.append("open-ended") }
    var attributes =
      "class=\"\(classes.joined(separator: " "))\" x=\"\(n(x0))\" y=\"\(n(top))\" width=\"\(n(w))\" "
      + "height=\"\(n(Metric.rowHeight))\" fill=\"url(#\(p)-\(bar.ownership.rawValue))\" "
    attributes +=
      bar.cancellation == nil
      ? "stroke=\"\(Palette.ink)\" stroke-width=\"0.5\" "
      : "stroke=\"\(Palette.cancellation)\" stroke-width=\"2\" "
    attributes +=
      "data-transaction-id=\"\(e(bar.transactionID))\" data-product-id=\"\(e(bar.productID))\" "
      + "data-start=\"\(bar.start.iso8601)\""
    switch bar.end {
    case .expires(let t): attributes += " data-end=\"\(t.iso8601)\""
    case .noExpiry: attributes += " data-end=\"\" data-open-end=\"no-expiry\""
    case .unknown: attributes += " data-end=\"\" data-open-end=\"unknown\""
    }
    if let c = bar.cancellation {
      attributes += " data-\(c.kind == .refund ? "refund" : "revocation")-date=\"\(c.date.iso8601)\""
    }
    attributes += " data-ownership=\"\(bar.ownership.rawValue)\" data-period=\"\(bar.period.rawValue)\""
    var out = "<rect \(attributes)><title>\(hoverTitle(bar))</title></rect>\n"
    if bar.period != .regular {
      out +=
        "<rect class=\"offer \(bar.period.rawValue)\" x=\"\(n(x0))\" y=\"\(n(top))\" width=\"\(n(w))\" "
        + "height=\"\(n(Metric.rowHeight))\" fill=\"url(#\(p)-\(bar.period.rawValue))\" pointer-events=\"none\"/>\n"
    }
    if let c = bar.cancellation, let expiry = bar.expiry, expiry > c.date {
      let v0 = x(max(c.date, bar.start))
      out +=
        "<rect class=\"voided\" x=\"\(n(v0))\" y=\"\(n(top + 1))\" width=\"\(n(max(0, x(expiry) - v0)))\" "
        + "height=\"\(n(Metric.rowHeight - 2))\" fill=\"none\" stroke=\"\(Palette.cancellation)\" "
        + "stroke-width=\"1\" stroke-dasharray=\"3 2\" data-start=\"\(c.date.iso8601)\" "
        + "data-end=\"\(expiry.iso8601)\"><title>Paid period voided by the "
        + "\(c.kind == .refund ? "refund" : "revocation") on \(c.date.iso8601)</title></rect>\n"
    }
    if bar.effectiveEnd == nil {
      let mid = top + Metric.rowHeight / 2
      out +=
        "<path class=\"open-end\" d=\"M\(n(x1)) \(n(top)) L\(n(x1 + 10)) \(n(mid)) L\(n(x1)) "
        + "\(n(top + Metric.rowHeight)) Z\" fill=\"\(Palette.ink)\"><title>"
        + (bar.end == .noExpiry ? "No expiry" : "Expiry not given") + "</title></path>\n"
    }
    return out
  }

  /// The cancellation cross and the upgrade triangle, drawn above every bar of the lane.
  static func markerElements(_ bar: TimelineBar, top: Double, x: (Timestamp) -> Double) -> String {
    let n = MarkupText.number
    let e = MarkupText.escape
    var out = ""
    if let c = bar.cancellation {
      let cx = x(max(c.date, bar.start))
      let verb = c.kind == .refund ? "Refunded" : "Revoked"
      out +=
        "<g class=\"marker \(c.kind.rawValue)\" data-date=\"\(c.date.iso8601)\" "
        + "data-transaction-id=\"\(e(bar.transactionID))\"><title>\(verb) on \(c.date.iso8601)"
        + (c.detail.map { ": " + e($0) } ?? "") + "</title>"
        + "<line x1=\"\(n(cx))\" y1=\"\(n(top - 3))\" x2=\"\(n(cx))\" y2=\"\(n(top + Metric.rowHeight + 3))\" "
        + "stroke=\"\(Palette.cancellation)\" stroke-width=\"3\"/>"
        + "<path d=\"M\(n(cx - 5)) \(n(top - 3)) L\(n(cx + 5)) \(n(top + 7)) M\(n(cx + 5)) \(n(top - 3)) "
        + "L\(n(cx - 5)) \(n(top + 7))\" stroke=\"\(Palette.cancellation)\" stroke-width=\"2\"/></g>\n"
    } else if bar.upgraded, let end = bar.effectiveEnd {
      let ux = x(end)
      out +=
        "<path class=\"marker upgrade\" data-transaction-id=\"\(e(bar.transactionID))\" "
        + "d=\"M\(n(ux - 5)) \(n(top + Metric.rowHeight)) L\(n(ux)) \(n(top - 4)) L\(n(ux + 5)) "
        + "\(n(top + Metric.rowHeight)) Z\" fill=\"\(Palette.ink)\"><title>Upgraded: superseded on "
        + "\(end.iso8601)</title></path>\n"
    }
    return out
  }

  /// The transaction's fields, one per line, for the bar's hover title.
  static func hoverTitle(_ bar: TimelineBar) -> String {
    let e = MarkupText.escape
    var lines = ["transaction \(e(bar.transactionID)) of \(e(bar.productID))"]
    switch bar.end {
    case .expires(let t): lines.append("\(bar.start.iso8601) to \(t.iso8601)")
    case .noExpiry: lines.append("from \(bar.start.iso8601), no expiry")
    case .unknown: lines.append("from \(bar.start.iso8601), expiry not given")
    }
    lines.append(bar.ownership.rawValue + (bar.period == .regular ? "" : ", " + bar.period.rawValue))
    if let c = bar.cancellation {
      lines.append(
        "\(c.kind == .refund ? "refunded" : "revoked") \(c.date.iso8601)" + (c.detail.map { ": " + e($0) } ?? ""))
    }
    if bar.upgraded { lines.append("upgraded") }
    for field in bar.fields { lines.append(e(field.name) + ": " + e(field.value)) }
    return lines.joined(separator: "\n")
  }

  /// Axis line with ticks on round dates and their labels.
  static func axis(
    _ scale: TimelineScale, top: Double, left: Double, right: Double, x: (Timestamp) -> Double
  ) -> String {
    let n = MarkupText.number
    var out =
      "<g class=\"axis\">\n<line x1=\"\(n(left))\" y1=\"\(n(top))\" x2=\"\(n(right))\" y2=\"\(n(top))\" "
      + "stroke=\"\(Palette.ink)\" stroke-width=\"1\"/>\n"
    // About 64 px per date label at 10 px (wider for labels with a time of day).
    var (step, moments) = scale.ticks(maximumCount: max(1, Int((right - left) / 80)))
    if step?.isSubDay == true { (step, moments) = scale.ticks(maximumCount: max(1, Int((right - left) / 120))) }
    for moment in moments {
      let tx = x(moment)
      let label = TimelineScale.label(moment, step: step)
      // Labels near an edge are anchored inside the plot rather than cut off.
      let half = Double(label.count) * 3.2
      let anchor = tx - half < 0 ? "start" : (tx + half > right + Metric.arrowRoom + Metric.margin ? "end" : "middle")
      out +=
        "<g class=\"tick\" data-date=\"\(moment.iso8601)\"><line x1=\"\(n(tx))\" y1=\"\(n(top))\" "
        + "x2=\"\(n(tx))\" y2=\"\(n(top + 5))\" stroke=\"\(Palette.ink)\"/><text x=\"\(n(tx))\" y=\"\(n(top + 17))\" "
        + "font-size=\"10\" text-anchor=\"\(anchor)\" fill=\"\(Palette.ink)\">\(label)</text></g>\n"
    }
    return out + "</g>\n"
  }

  /// Swatches with the same fills as the chart, wrapped to the width; returns the markup and its height.
  static func legend(top: Double, width: Double, idPrefix p: String) -> (String, Double) {
    let n = MarkupText.number
    let entries: [(swatch: String, text: String)] = [
      ("fill=\"url(#\(p)-owned)\"", "owned"),
      ("fill=\"url(#\(p)-family-shared)\"", "family-shared"),
      ("fill=\"url(#\(p)-ownership-unknown)\"", "ownership unknown"),
      ("fill=\"url(#\(p)-owned)\"", "free trial"),
      ("fill=\"url(#\(p)-owned)\"", "intro offer"),
      ("fill=\"url(#\(p)-grace-period)\"", "grace period"),
      ("fill=\"url(#\(p)-billing-retry)\"", "billing retry"),
      ("fill=\"none\" stroke=\"\(Palette.cancellation)\" stroke-width=\"2\"", "refunded or revoked"),
      ("fill=\"none\" stroke=\"\(Palette.faint)\" stroke-dasharray=\"2 3\"", "gap before a renewal"),
    ]
    var out = "<g class=\"legend\">\n"
    var lx = Metric.margin
    var ly = top
    for entry in entries {
      let itemWidth = 22 + Double(entry.text.count) * 6.2 + 14
      if lx + itemWidth > width - Metric.margin, lx > Metric.margin {
        lx = Metric.margin
        ly += Metric.legendRowHeight
      }
      let overlay = entry.text == "free trial" ? "trial" : (entry.text == "intro offer" ? "intro" : nil)
      out +=
        "<rect x=\"\(n(lx))\" y=\"\(n(ly))\" width=\"18\" height=\"11\" \(entry.swatch)/>"
        + (overlay.map { "<rect x=\"\(n(lx))\" y=\"\(n(ly))\" width=\"18\" height=\"11\" fill=\"url(#\(p)-\($0))\"/>" }
          ?? "")
        + "<text x=\"\(n(lx + 22))\" y=\"\(n(ly + 10))\" font-size=\"11\" "
        + "fill=\"\(Palette.ink)\">\(entry.text)</text>\n"
      lx += itemWidth
    }
    return (out + "</g>\n", ly - top + Metric.legendRowHeight)
  }

  /// The fills: a colour and a texture per kind, so kinds differ without colour too.
  static func patterns(idPrefix p: String) -> String {
    func pattern(_ id: String, _ background: String?, _ texture: String, rotate: Int = 0, size: Int = 6) -> String {
      "<pattern id=\"\(p)-\(id)\" width=\"\(size)\" height=\"\(size)\" patternUnits=\"userSpaceOnUse\""
        + (rotate == 0 ? "" : " patternTransform=\"rotate(\(rotate))\"") + ">"
        + (background.map { "<rect width=\"\(size)\" height=\"\(size)\" fill=\"\($0)\"/>" } ?? "")
        + texture + "</pattern>\n"
    }
    let stripe =
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#000\" stroke-opacity=\"0.45\" stroke-width=\"2\"/>"
    return "<defs>\n"
      + pattern("owned", Palette.owned, "")
      + pattern("family-shared", Palette.familyShared, stripe, rotate: 45)
      + pattern(
        "ownership-unknown", Palette.ownershipUnknown,
        "<path d=\"M0 0 L6 6 M6 0 L0 6\" stroke=\"#000\" stroke-opacity=\"0.4\" stroke-width=\"1\"/>")
      + pattern("trial", nil, "<circle cx=\"3\" cy=\"3\" r=\"1.4\" fill=\"#ffffff\"/>")
      + pattern("intro", nil, "<line x1=\"3\" y1=\"0\" x2=\"3\" y2=\"6\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>")
      + pattern("grace-period", Palette.gracePeriod, stripe, rotate: -45)
      + pattern(
        "billing-retry", Palette.billingRetry,
        "<line x1=\"0\" y1=\"3\" x2=\"6\" y2=\"3\" stroke=\"#000\" stroke-opacity=\"0.45\" stroke-width=\"2\"/>")
      + "</defs>\n"
  }

  /// "3 days", "1 day", "5 hours" between two moments.
  static func days(_ a: Timestamp, _ b: Timestamp) -> String {
    let ms = b.milliseconds - a.milliseconds
    let d = ms / 86_400_000
    if d >= 1 { return "\(d) day\(d == 1 ? "" : "s")" }
    let h = ms / 3_600_000
    return h >= 1 ? "\(h) hour\(h == 1 ? "" : "s")" : "\(ms / 60_000) minutes"
  }
}
