import ReceiptModel
import ReceiptRules

/// What to do on the command line to decide an undecided answer. Rules say what is missing; only the
/// command line knows which option supplies it.
enum CommandLineHints {
  /// The hint for a missing fact, as the end of a sentence.
  static func hint(for missing: MissingKnowledge) -> String {
    switch missing {
    case .productType: "give a catalog with --catalog to say which"
    case .duration: "add a duration to the catalog"
    }
  }

  /// `sentence` with the hint for `missing` joined to it: "…subscription; give a catalog with --catalog to say which."
  static func adding(_ missing: MissingKnowledge?, to sentence: String) -> String {
    guard let missing else { return sentence }
    let body = sentence.utf8.last == UInt8(ascii: ".") ? String(sentence.utf8.dropLast()) ?? sentence : sentence
    return body + "; " + hint(for: missing) + "."
  }

  /// An entitlement result whose reason carries the hint it needs.
  static func adding(to result: EntitlementResult) -> EntitlementResult {
    var result = result
    addHint(to: &result)
    return result
  }

  /// Joins the hint a result needs to its reason, in place: a result is not copied to be given none.
  static func addHint(to result: inout EntitlementResult) {
    guard let missing = result.missingKnowledge else { return }
    result.reason = adding(missing, to: result.reason)
  }

  /// `--explain`'s sentence for one considered transaction, with its hint.
  static func explanation(_ c: ConsideredTransaction) -> String {
    adding(c.grant.missingKnowledge, to: c.grant.explanation(of: c.transaction))
  }
}
