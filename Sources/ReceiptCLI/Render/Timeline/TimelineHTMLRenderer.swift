import ReceiptModel

/// `timeline --format html`: one self-contained page, one section per document.
///
/// Inline CSS and SVG only: no script, no network, no external font (a Content-Security-Policy forbids
/// all three, so even a value that escaped the escaping could not run). Each section gives the
/// provenance, the chart, each lane's status and reason, and a data table for screen readers. The
/// content is at most `pageWidth` CSS pixels wide, which fits A4 and Letter at 12 mm margins.
package enum TimelineHTMLRenderer {
  /// The widest the content gets, in CSS pixels: 186 mm, A4's width less two 12 mm margins.
  package static let pageWidth = 700
  /// The chart's width inside a section: the page less its 12 px padding on each side.
  package static let chartWidth = pageWidth - 2 * 12
  /// The widest the transaction table's box gets on a screen, centred on the page and wider than it where
  /// the window leaves 48 pixels each side: its ten columns read without breaking a word from about 700
  /// pixels; narrower, the box scrolls sideways on its own.
  package static let tableWidth = 960
  /// Narrower than this the table keeps this width and scrolls in its box, so its columns stay readable.
  package static let tableMinimumWidth = 640

  /// Renders a page of `charts`, one section each, under `pageTitle`.
  package static func render(_ charts: [TimelineChart], pageTitle: String = "Entitlement timeline") -> String {
    let e = MarkupText.escape
    var out = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <meta name="generator" content="receipt-tool timeline">
      <title>\(e(pageTitle))</title>
      <style>\(css)</style>
      </head>
      <body>
      <main>
      <h1>\(e(pageTitle))</h1>

      """
    if charts.isEmpty { out += "<p>No documents.</p>\n" }
    for (index, chart) in charts.enumerated() {
      out += section(chart, number: index + 1)
    }
    return out + "</main>\n</body>\n</html>\n"
  }

  static let css = """

    :root { color-scheme: light; }
    body { margin: 0; background: #ffffff; color: #111111;
      font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
    main { box-sizing: border-box; max-width: \(pageWidth)px; margin: 0 auto; padding: 12px; }
    h1 { font-size: 20px; margin: 8px 0 12px; }
    h2 { font-size: 17px; margin: 0 0 6px; overflow-wrap: anywhere; }
    h3 { font-size: 15px; margin: 14px 0 4px; }
    section.document { border-top: 2px solid #333333; padding-top: 10px; margin-bottom: 28px; }
    dl.provenance { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 8px; }
    dl.provenance dt { font-weight: 600; }
    dl.provenance dd { margin: 0; overflow-wrap: anywhere; }
    .unverified { color: #8a3b00; font-weight: 600; }
    figure { margin: 8px 0; }
    figure svg { display: block; max-width: 100%; height: auto; }
    ul.reasons { padding-left: 18px; margin: 4px 0; }
    ul.reasons li { overflow-wrap: anywhere; margin-bottom: 4px; }
    .status { font-weight: 600; padding: 0 4px; border-radius: 3px; border: 1px solid currentColor; }
    .status.good { color: #005a8c; } .status.warning { color: #7a5a00; } .status.bad { color: #a03c00; }
    .status.neutral { color: #444444; }
    .table-box { box-sizing: border-box; width: max(100%, min(\(tableWidth)px, calc(100vw - 96px)));
      margin-left: calc(50% - max(50%, min(\(tableWidth / 2)px, calc(50vw - 48px)))); overflow-x: auto; }
    table.transactions { width: 100%; min-width: \(tableMinimumWidth)px; table-layout: auto; border-collapse: collapse;
      font-size: 12px; }
    table.transactions .day { white-space: nowrap; }
    table.transactions caption { text-align: left; font-weight: 600; margin-bottom: 4px; }
    table.transactions th, table.transactions td { border: 1px solid #bbbbbb; padding: 2px 4px;
      vertical-align: top; text-align: left; overflow-wrap: normal; word-break: normal; hyphens: manual; }
    table.transactions details summary { cursor: default; }
    @page { margin: 12mm; }
    @media print {
      body { font-size: 11px; }
      main { max-width: none; padding: 0; }
      .table-box { width: auto; margin-left: 0; overflow: visible; }
      section.document + section.document { break-before: page; }
      figure, tr { break-inside: avoid; }
    }

    """

  static func section(_ chart: TimelineChart, number: Int) -> String {
    let e = MarkupText.escape
    var out = "<section class=\"document\" id=\"document-\(number)\" aria-labelledby=\"document-\(number)-title\">\n"
    out += "<h2 id=\"document-\(number)-title\">\(e(chart.title))</h2>\n<dl class=\"provenance\">\n"
    for field in chart.provenance.fields {
      let signature = chart.provenance.signature
      let unverified =
        field.name == "signature" && signature.map { $0.verdict != .verified } == true
        || field.name == "device" && signature?.device.map { !$0.isShownToMatch } == true
      out += "<dt>\(e(field.name))</dt><dd\(unverified ? " class=\"unverified\"" : "")>\(e(field.value))</dd>\n"
    }
    out +=
      "<dt>as of</dt><dd><time datetime=\"\(chart.evaluationMoment.iso8601)\">"
      + "\(chart.evaluationMoment.iso8601WholeSeconds)</time>"
      + (chart.evaluationMomentSource.map { " (" + e($0) + ")" } ?? "") + "</dd>\n</dl>\n"
    out += "<figure>\n" + TimelineSVGRenderer.render(chart, width: chartWidth, idPrefix: "doc\(number)") + "</figure>\n"
    out += "<h3>Status</h3>\n<ul class=\"reasons\">\n"
    for lane in chart.lanes {
      out +=
        "<li><strong>\(e(lane.label))</strong> <span class=\"status \(lane.tone.rawValue)\">"
        + "\(e(lane.status))</span> \(e(lane.reason))</li>\n"
    }
    if chart.lanes.isEmpty { out += "<li>No purchases to draw.</li>\n" }
    out += "</ul>\n"
    return out + table(chart) + "</section>\n"
  }

  /// Every transaction as a row, for screen readers and for print. Headers wrap only between words; ids,
  /// dates and field values may wrap only at the `<wbr>` points `breakable` and `date` give them.
  static func table(_ chart: TimelineChart) -> String {
    let e = MarkupText.escape
    let b = breakable
    var out =
      "<div class=\"table-box\">\n<table class=\"transactions\">\n<caption>Transactions</caption>\n<thead><tr>"
      + "<th scope=\"col\">Lane</th><th scope=\"col\">Transaction</th><th scope=\"col\">Product</th>"
      + "<th scope=\"col\">Ownership</th><th scope=\"col\">Period</th><th scope=\"col\">Start</th>"
      + "<th scope=\"col\">End</th><th scope=\"col\">Refund or revocation</th><th scope=\"col\">Renewal state</th>"
      + "<th scope=\"col\">Fields</th></tr></thead>\n<tbody>\n"
    for lane in chart.lanes {
      for bar in TimelineScale.sorted(lane.bars) {
        let end: String
        switch bar.end {
        case .expires(let t): end = date(t.iso8601)
        case .noExpiry: end = "no expiry"
        case .unknown: end = "not given"
        }
        let cancellation = bar.cancellation.map { c in
          "\(c.kind == .refund ? "refunded" : "revoked") \(date(c.date.iso8601))"
            + (c.detail.map { " (" + b($0) + ")" } ?? "")
        }
        var renewal = bar.zones.map { z in
          "\(z.kind == .gracePeriod ? "grace period" : "billing retry") from \(date(z.start.iso8601))"
            + (z.end.map { " to " + date($0.iso8601) } ?? "")
        }
        if bar.upgraded { renewal.insert("upgraded", at: 0) }
        let fields = bar.fields.map { "<div>\(e($0.name)): \(b($0.value))</div>" }.joined()
        out +=
          "<tr data-transaction-id=\"\(e(bar.transactionID))\"><td>\(b(lane.label))</td>"
          + "<th scope=\"row\">\(b(bar.transactionID))</th><td>\(b(bar.productID))</td>"
          + "<td>\(bar.ownership.rawValue)</td><td>\(bar.period.rawValue)</td><td>\(date(bar.start.iso8601))</td>"
          + "<td>\(end)</td><td>\(cancellation ?? "-")</td>"
          + "<td>\(renewal.isEmpty ? "-" : renewal.joined(separator: "; "))</td>"
        let fieldsCell = fields.isEmpty ? "-" : "<details><summary>\(bar.fields.count)</summary>\(fields)</details>"
        out += "<td>\(fieldsCell)</td></tr>\n"
      }
    }
    return out + "</tbody>\n</table>\n</div>\n"
  }

  /// Escaped text that may wrap after a `.`, `_` or `/` followed by more of the word
  /// (`com.<wbr>acme.<wbr>pro`), as ids and field names read; nowhere else inside a word.
  static func breakable(_ text: String) -> String {
    var out = ""
    var segment = ""
    var afterSeparator = false
    for character in text {
      if afterSeparator && (character.isLetter || character.isNumber) {
        out += MarkupText.escape(segment) + "<wbr>"
        segment = ""
      }
      segment.append(character)
      afterSeparator = character == "." || character == "_" || character == "/"
    }
    return out + MarkupText.escape(segment)
  }

  /// An ISO 8601 date-time that may wrap before its time, never inside its day:
  /// `<span class="day">2024-03-01</span><wbr>T18:20:11Z`.
  static func date(_ iso8601: String) -> String {
    guard let t = iso8601.firstIndex(of: "T") else { return MarkupText.escape(iso8601) }
    return "<span class=\"day\">" + MarkupText.escape(String(iso8601[..<t])) + "</span><wbr>"
      + MarkupText.escape(String(iso8601[t...]))
  }
}
