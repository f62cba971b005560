import ReceiptFormats
import ReceiptModel

/// A history read from a page with `hasMore` true covers only the pages read: its answer says so, and the checks
/// (`--require`, `--expect`) fail on it unless `--allow-partial` is given, since the pages not read may change it.
enum PartialHistory {
  /// `--allow-partial`.
  static let option = OptionSpec(
    "allow-partial",
    help:
      "Check a partial history (an App Store Server API page with hasMore true) as it is; by default the checks fail on one, since the pages not read may change the answer."
  )

  /// The page, when the history is partial.
  static func page(of history: PurchaseHistory) -> ResponsePage? {
    history.provenance.page.flatMap { $0.isPartial ? $0 : nil }
  }

  /// The failed check for a partial history, when checks were asked for and a partial one is not allowed.
  /// - Parameters:
  ///   - history: the history checked.
  ///   - check: the checks asked for (`--require pro`), nil when none.
  ///   - allowed: whether `--allow-partial` was given.
  /// - Returns: one sentence, or none.
  static func failedChecks(_ history: PurchaseHistory, check: String?, allowed: Bool) -> [String] {
    guard let check, !allowed, let page = page(of: history) else { return [] }
    return [
      "\(check) is not checked against \(page.partialNote); read every page (with --one-customer) or give --allow-partial"
    ]
  }

  /// The warnings every answer from a partial history carries on stderr.
  static func warnings(_ history: PurchaseHistory) -> [String] {
    page(of: history).map { [$0.partialNote] } ?? []
  }
}
