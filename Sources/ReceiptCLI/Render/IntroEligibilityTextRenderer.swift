import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `intro-eligibility --format text`: one block per product, status first, then the reason.
package enum IntroEligibilityTextRenderer {
  package static func render(
    _ results: [IntroEligibilityResult], time: EvaluationTime, color: Bool, width: Int = 80, nothing: String? = nil,
    signature: SignatureCheck? = nil, page: ResponsePage? = nil
  ) -> TerminalText {
    let layout = TextLayout(color: color, width: width)
    // The same words as entitlements, so the two answers read alike.
    let source = EntitlementsTextRenderer.sourceDescription(time.source)
    var head: [(TerminalText, TerminalText)] = [("As of", "\(time.time.iso8601WholeSeconds) (\(source))")]
    if let signature {
      var text = signature.summary
      if let caveat = SignatureCheckRendering.caveat(signature) { text += "; \(caveat)" }
      head.append(
        (
          "Signature",
          signature.verdict == .verified
            ? "\(text)" : layout.paint("\(text)", SignatureCheckRendering.tone(signature.verdict))
        ))
      if let device = SignatureCheckRendering.deviceRow(signature, layout: layout) { head.append(device) }
    }
    if let page, page.isPartial { head.append(("Page", "\(page.partialNote)")) }
    head.append(("Products", "\(results.count)"))
    var out = layout.fields(head)
    if results.isEmpty, let nothing {
      out += ("\nNo products to answer for: \(nothing)." as TerminalText).wrapped(indent: 0, columns: width) + "\n"
    }
    for r in results {
      let tone: TextLayout.Tone
      switch r.status {
      case .eligible: tone = .good
      case .ineligible: tone = .bad
      case .unknown: tone = .warn
      case .noIntroOffer: tone = .dim
      }
      out += "\n" + layout.paint(TerminalText(r.productID).wrapped(indent: 0, columns: width), .bold) + "\n"
      out += layout.fields(
        [
          ("Status", layout.paint("\(r.status.rawValue)", tone)),
          ("Group", "\(groupText(r))"),
          ("Reason", "\(r.reason)"),
        ], indent: 2)
    }
    return out
  }

  /// The group's id, `unknown`, or `(inferred)` when a subscription's chain placed the product (the reason says how).
  static func groupText(_ r: IntroEligibilityResult) -> String {
    guard r.groupInference != nil else { return r.subscriptionGroup ?? "unknown" }
    return "\(r.subscriptionGroup ?? "not named in the data") (inferred)"
  }
}
