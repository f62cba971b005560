import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `revenue --format text`: per currency a table of rows and its total, then the transaction counts,
/// unpriced products and unreadable inputs.
package enum RevenueTextRenderer {
  package static func render(_ report: RevenueReport, grouping: RevenueGrouping, color: Bool = false, width: Int = 80)
    -> TerminalText
  {
    let layout = TextLayout(color: color, width: width)
    var out: TerminalText = ""
    let currencies = report.currencies
    if currencies.isEmpty {
      out += "No priced revenue.\n"
    }
    for c in currencies {
      if !out.isEmpty { out += "\n" }
      out += layout.paint("\(c.currency)", .bold) + "\n"
      var header: [TerminalText] = [
        grouping == .none ? "group" : "\(grouping.rawValue)", "units", "trials", "refunded", "gross", "refunds", "net",
      ]
      if report.hasProceeds { header.append("proceeds") }
      func money(_ v: Int64) -> String { Money(minorUnits: v, currency: c.currency).text }
      func cells(_ g: RevenueGroup) -> [TerminalText] {
        var row = [
          g.key, String(g.units), String(g.trials), String(g.refunded), money(g.gross), money(g.refunds), money(g.net),
        ]
        if let p = g.proceeds { row.append(money(p)) }
        return row.map { TerminalText($0) }
      }
      out += layout.table(
        // With --by none the single row is the total; printing it twice says nothing.
        header: header, rows: c.groups.map(cells) + (grouping == .none ? [] : [cells(c.total)]),
        rightAligned: Set(1..<header.count),
        flexible: [0], indent: 2)
      let estimated = c.groups.filter(\.hasEstimate)
      if !estimated.isEmpty {
        out += "  \(RevenueReportCodec.prorationBasis) (in net; Apple states no amount)\n"
        out += layout.table(
          header: [header[0], "units", "estimated refund"],
          rows: estimated.map {
            [
              TerminalText($0.key), TerminalText(String($0.upgradeProrations)),
              TerminalText(money($0.estimatedProrationRefunds)),
            ]
          },
          rightAligned: [1, 2], flexible: [0], indent: 4)
      }
    }
    let n = report.counts
    var rows: [(TerminalText, TerminalText)] = [
      ("counted", "\(n.counted) (PURCHASED, or no ownership field)"),
      ("trials", "\(n.trials)"),
      ("refunded", "\(n.refunded)"),
      ("unpriced", n.unpriced == 0 ? "0" : "\(n.unpriced) (no catalog price; not in the totals)"),
      ("family-shared excluded", "\(n.familySharedExcluded) (FAMILY_SHARED copies are never revenue)"),
      ("duplicates merged", "\(n.duplicatesMerged) (the same transaction_id read again)"),
    ]
    if n.pricedFromTransaction > 0 {
      rows.append(
        ("priced from transaction", "\(n.pricedFromTransaction) (the signed transaction's price and currency)"))
    }
    if n.partialRefunds > 0 {
      rows.append(
        ("partial refunds", "\(n.partialRefunds) (revocationPercentage of the price, e.g. REFUND_PRORATED 50000 = 50%)")
      )
    }
    if n.refundsReversed > 0 {
      rows.append(
        (
          "refunds reversed",
          "\(n.refundsReversed) (REFUND_REVERSED or a later-signed copy without it: the sale stands)"
        ))
    }
    if n.unrecognizedOwnershipExcluded > 0 {
      rows.append(
        ("unrecognized ownership", "\(n.unrecognizedOwnershipExcluded) (not known to be the purchaser's; not counted)"))
    }
    if n.upgradeProrations > 0 {
      rows.append(("upgrade prorations", "\(n.upgradeProrations) (estimated from dates, not Apple's figures)"))
    }
    if n.upgradesNotEstimated > 0 {
      rows.append(
        ("upgrades not estimated", "\(n.upgradesNotEstimated) (no price, dates or replacing purchase to estimate from)")
      )
    }
    if n.unknownOwnershipExcluded > 0 {
      rows.append(
        (
          "unknown ownership",
          "\(n.unknownOwnershipExcluded) (on-device receipts cannot say who bought them; not counted: use "
            + "verifyReceipt or App Store Server API data, which state in_app_ownership_type)"
        ))
    }
    if n.undatedExcluded > 0 {
      rows.append(("undated excluded", "\(n.undatedExcluded) (no purchase date, so outside --from/--to)"))
    }
    out += "\nTransactions\n" + layout.fields(rows, indent: 2)
    let unpriced = report.unpricedProducts
    if !unpriced.isEmpty {
      out += "\nUnpriced products\n"
      out += layout.table(
        header: ["product", "units"], rows: unpriced.map { ["\($0.productID)", "\($0.units)"] }, rightAligned: [1],
        flexible: [0], indent: 2)
    }
    if !report.errors.isEmpty {
      out += "\n" + layout.paint("Not read (their transactions are missing from the totals)", .bad) + "\n"
      for e in report.errors {
        out += "  " + TerminalText(e.message).wrapped(indent: 4, columns: width).dropFirst(4) + "\n"
      }
    }
    return out
  }
}
