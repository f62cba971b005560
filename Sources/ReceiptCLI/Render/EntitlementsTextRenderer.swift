import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `entitlements --format text`: the as-of time, a table of entitlements, then each reason.
package enum EntitlementsTextRenderer {
  package static func render(
    _ answer: EntitlementsAnswer, evaluation: EvaluationTime, explain: Bool, color: Bool, width: Int = 80,
    signature: SignatureCheck? = nil, page: ResponsePage? = nil
  ) -> TerminalText {
    let results = answer.results
    let appleStatuses = answer.appleStatuses
    let unreadStatuses = answer.unreadStatuses
    let nothing = answer.nothing
    let layout = TextLayout(color: color, width: width)
    var out: TerminalText = "As of \(evaluation.time.iso8601WholeSeconds) (\(sourceDescription(evaluation.source)))\n"
    if let signature { out += SignatureCheckRendering.line(signature, color: color, width: width) }
    if let page, page.isPartial {
      out += ("This is \(page.partialNote)." as TerminalText).wrapped(indent: 2, columns: width).dropFirst(2) + "\n"
    }
    out += "\n"
    var unread: TerminalText = ""
    if !unreadStatuses.isEmpty {
      unread = "\nApple's status of subscriptions whose transactions could not be read:\n"
      for u in unreadStatuses {
        unread += ("- \(u.sentence)." as TerminalText).wrapped(indent: 2, columns: width).dropFirst(2) + "\n"
      }
    }
    guard !results.isEmpty else {
      guard unreadStatuses.isEmpty else {
        return out + "No entitlement can be decided: no transaction could be read.\n" + unread
      }
      return out + "No entitlements: \(nothing ?? "the receipt holds no non-consumable or subscription purchase").\n"
    }
    let header: [TerminalText] = ["ENTITLEMENT", "STATUS", "PRODUCT", "OWNERSHIP", "EXPIRES"]
    let rows = results.map { r -> [TerminalText] in
      let t = r.decidingRow
      return [r.id, r.state.rawValue, t?.productID ?? "-", t?.ownership.raw ?? "-", expiresCell(r)].map {
        TerminalText($0)
      }
    }
    // Both ids may be long (without a catalog the entitlement is the product id); the status is
    // coloured after layout.
    out += layout.table(header: header, rows: rows, flexible: [0, 2]) { row, column, cell in
      column == 1 && row < results.count ? layout.paint(cell, tone(results[row].state)) : cell
    }
    out += "\n"
    for (i, r) in results.enumerated() {
      out += ("\(r.id): \(r.reason)" as TerminalText).wrapped(indent: 2, columns: width).dropFirst(2) + "\n"
      if i < appleStatuses.count, let apple = appleStatuses[i] {
        out += ("\(appleStatusLine(apple))" as TerminalText).wrapped(indent: 4, columns: width).dropFirst(2) + "\n"
      }
      if explain {
        for c in r.considered {
          out +=
            "  - " + TerminalText(CommandLineHints.explanation(c)).wrapped(indent: 4, columns: width).dropFirst(4)
            + "\n"
        }
      }
    }
    return out + unread
  }

  /// Apple's own status beside ours: agreeing, or why not.
  static func appleStatusLine(_ c: StoreStatusComparison) -> String {
    let asOf = c.status.asOf.map { " as of \($0.iso8601)" } ?? ""
    let head = "Apple's status: \(c.status.code) (\(c.status.meaning))\(asOf)"
    return head + (c.explanation.map { "; differs: \($0)" } ?? "; agrees")
  }

  /// The day only: a full time here would narrow the product column and shorten its ids at 80
  /// columns; the reason under the table gives the exact time.
  static func expiresCell(_ r: EntitlementResult) -> String {
    if r.state == .gracePeriod, let grace = r.gracePeriodExpiresDate { return grace.date }
    if let e = r.expiresDate { return e.date }
    return r.state == .active ? "never" : "-"
  }

  static func sourceDescription(_ source: EvaluationTime.Source) -> String {
    switch source {
    case .given: "given with --as-of"
    case .data(let moment): moment.description
    case .now: "the current time"
    }
  }

  static func tone(_ state: EntitlementState) -> TextLayout.Tone {
    switch state {
    case .active: .good
    case .gracePeriod, .billingRetry, .unknown: .warn
    case .notPurchased: .dim
    case .expired, .refunded, .revoked, .upgraded: .bad
    }
  }
}
