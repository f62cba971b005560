import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `revenue --format csv`: a header row, then one row per currency and group (RFC 4180 quoting, LF line ends),
/// then one row per unpriced product: currency `unpriced`, the product id in the group column, its units,
/// and empty amounts, so that every counted transaction has a row. Cells are sanitised as text output is
/// (`TerminalSafeText`): CSV is often read on a terminal, and no id holds a control character legitimately.
/// Upgrade prorations get their own columns, marked `estimated`, when the report has any.
package enum RevenueCSVRenderer {
  /// The currency cell of an unpriced product's row.
  package static let unpricedCurrency = "unpriced"

  package static func render(_ report: RevenueReport, grouping: RevenueGrouping) -> String {
    var header = [
      "currency", grouping.rawValue == "none" ? "group" : grouping.rawValue, "units", "trials", "refunded", "gross",
      "refunds", "net",
    ]
    if report.hasProceeds { header.append("proceeds") }
    // Only when there is one, so that reports without an estimate keep their columns.
    let estimates = report.hasEstimates
    if estimates { header += ["upgrade_prorations", "estimated_proration_refunds", "estimated"] }
    var lines = [header.joined(separator: ",")]
    for c in report.currencies {
      for g in c.groups {
        func money(_ v: Int64) -> String { Money(minorUnits: v, currency: c.currency).text }
        var cells = [
          c.currency, g.key, String(g.units), String(g.trials), String(g.refunded), money(g.gross), money(g.refunds),
          money(g.net),
        ]
        if let p = g.proceeds { cells.append(money(p)) }
        if estimates {
          cells += [String(g.upgradeProrations), money(g.estimatedProrationRefunds), g.hasEstimate ? "true" : "false"]
        }
        lines.append(cells.map(field).joined(separator: ","))
      }
    }
    for u in report.unpricedProducts {
      var cells = [unpricedCurrency, u.productID, String(u.units), "", "", "", "", ""]
      if report.hasProceeds { cells.append("") }
      lines.append(cells.map(field).joined(separator: ","))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Quotes a cell holding a comma, quote or line break; a leading = + - @ is prefixed with ' so
  /// spreadsheets do not run a product id as a formula.
  static func field(_ s: String) -> String {
    var s = TerminalSafeText(s).visible
    if let first = s.first, "=+@".contains(first) || (first == "-" && !(s.dropFirst().first?.isNumber ?? false)) {
      s = "'" + s
    }
    guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
    return "\"" + s.replacing("\"", with: "\"\"") + "\""
  }
}
