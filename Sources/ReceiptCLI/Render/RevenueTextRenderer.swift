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
      out += backingLines(c, hasProceeds: report.hasProceeds, width: width)
      out += commitmentLine(c, width: width)
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
        (
          "partial refunds",
          "\(n.partialRefunds) (part of the price: revocationPercentage, e.g. REFUND_PRORATED 50000 = 50%, or Advanced Commerce item refunds)"
        )
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

  /// A currency's charges on commitment plans and the commitments they started (`CommitmentTotals`), one line;
  /// nothing when there are none.
  static func commitmentLine(_ c: CurrencyRevenue, width: Int) -> TerminalText {
    let t = c.commitments
    guard !t.isEmpty else { return "" }
    func money(_ v: Int64) -> String { Money(minorUnits: v, currency: c.currency).text }
    var text =
      "commitment plans: \(t.charges) \(t.charges == 1 ? "charge" : "charges") (gross \(money(t.chargesGross))); "
      + "\(t.started) \(t.started == 1 ? "commitment" : "commitments") started (committed \(money(t.committed)))"
    if t.startedWithoutPrice > 0 { text += ", \(t.startedWithoutPrice) without a commitmentPrice" }
    return "  " + TerminalText(text).wrapped(indent: 4, columns: width).dropFirst(4) + "\n"
  }

  /// How much of a currency's total rests on a verified signature (`moneyBacking`): Apple's root, a
  /// `--trust-root`, and the rest with its reasons, one short line each, as a finance person reads them out.
  static func backingLines(_ c: CurrencyRevenue, hasProceeds: Bool, width: Int) -> TerminalText {
    func money(_ v: Int64) -> String { Money(minorUnits: v, currency: c.currency).text }
    func amounts(_ f: BackedFigures, of total: RevenueGroup) -> String {
      var parts = ["gross \(money(f.gross)) of \(money(total.gross))", "net \(money(f.net)) of \(money(total.net))"]
      if hasProceeds { parts.append("proceeds \(money(f.proceeds ?? 0)) of \(money(total.proceeds ?? 0))") }
      return parts.joined(separator: ", ")
    }
    let b = c.backing
    let trust = b.backedThroughTrustRoot
    var apple = b.backed
    apple.transactions = apple.transactions &- trust.transactions
    apple.gross = apple.gross &- trust.gross
    apple.refunds = apple.refunds &- trust.refunds
    apple.estimatedProrationRefunds = apple.estimatedProrationRefunds &- trust.estimatedProrationRefunds
    apple.proceeds = apple.proceeds.map { $0 &- (trust.proceeds ?? 0) }
    var out: TerminalText = ""
    // First line at 2, the rest at 4, as the unread inputs' messages.
    func line(_ text: String) {
      out += "  " + TerminalText(text).wrapped(indent: 4, columns: width).dropFirst(4) + "\n"
    }
    if trust.isZero || !apple.isZero { line("backed by Apple's signature: \(amounts(apple, of: c.total))") }
    if !trust.isZero { line("backed through a --trust-root (not Apple's root): \(amounts(trust, of: c.total))") }
    let reasons = b.reasons
    if let rest = b.notBackedTotal, !reasons.isEmpty {
      let why = reasons.map { "\($0.figures.transactions) \($0.reason.explanation)" }.joined(separator: ", ")
      var parts = ["gross \(money(rest.gross))", "net \(money(rest.net))"]
      if hasProceeds { parts.append("proceeds \(money(rest.proceeds ?? 0))") }
      line("not backed: \(parts.joined(separator: ", ")) (\(why))")
    }
    return out
  }
}
