import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool entitlements`: what the customer may use at a moment, and why.
struct EntitlementsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    name: "entitlements",
    abstract: "Show which entitlements a receipt grants, as of a moment, and why.",
    discussion:
      "Access is the union of every transaction of an entitlement's products, whatever their ownership: a customer who loses Family Sharing access keeps the entitlement when they also bought the product. Without a catalog every non-consumable or subscription product is its own entitlement; a product with no expires_date cannot be told apart from a consumable and is reported as unknown.",
    options: [
      CommonOptions.format(DocumentFormat.names),
      OutputSchemas.option,
      CommonOptions.catalog,
      CommonOptions.asOf,
      OptionSpec(
        "require", value: "id",
        help:
          "Exit 1 unless this entitlement is active (or in its billing grace period); each missing one is named on standard error with its reason. Repeatable.",
        repeatable: true),
      OptionSpec(
        "explain",
        help: "Under each entitlement, list every transaction considered and why it does or does not grant access."),
      PartialHistory.option,
    ] + CommonOptions.reading(oneCustomer: true))

  var options: DocumentCommandOptions
  var asOf: AsOfChoice
  var required: [String]
  var explain: Bool
  var allowPartial: Bool

  init(_ arguments: ParsedArguments) throws(ReceiptToolError) {
    options = try DocumentCommandOptions(arguments, command: Self.configuration.name)
    asOf = try AsOfChoice(arguments, command: Self.configuration.name)
    required = arguments.all("require")
    explain = arguments.flag("explain")
    allowPartial = arguments.flag("allow-partial")
  }

  func validate() throws(ReceiptToolError) {
    try options.inputs.validate(command: Self.configuration.name)
    if required.contains("") {
      throw Self.usage("The value '' is invalid for '--require <id>'. Please provide an entitlement id.")
    }
  }

  func run(_ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    let now = Timestamp.now()
    let check = required.isEmpty ? nil : required.map { "--require \($0)" }.joined(separator: " ")
    // The renderers' closures capture these, not `self`: a copy of the whole command per closure per document.
    let explain = explain
    let allowPartial = allowPartial
    return try options.run(context, check: check) { (input, catalog, style, signatures) throws(ReceiptError) in
      let history = try context.decode(input, keepsFieldsOnlyDecodeShows: false, signatures: signatures)
      var signature = history.provenance.signatureCheck
      signature.uncoveredInAnswer = uncoveredFields(
        readBy: FieldReads.entitlements(paidApp: catalog.paidApp != nil), in: history)
      let review = options.inputs.signatures.review(signature)
      try history.requireValidStatus(source: input.label)
      let evaluation = try asOf.resolve(moment: history.moment, now: now)
      var answer = answerEntitlements(of: history, catalog: catalog, at: evaluation.time)
      for i in answer.results.indices { CommandLineHints.addHint(to: &answer.results[i]) }
      // The renderers hold the pages, not the history: it is freed here, not copied into both and freed with them.
      let partialPage = PartialHistory.page(of: history)
      let page = history.provenance.page
      var failedChecks = Self.missingRequirements(required, answer.results)
      failedChecks.appendAll(review.failedChecks)
      failedChecks.appendAll(PartialHistory.failedChecks(history, check: check, allowed: allowPartial))
      // Findings go back with the output as warnings: this runs on worker threads and must not write itself.
      var warnings = review.warnings
      warnings.appendAll(answer.findings)
      warnings.appendAll(NotificationEffects.unknownEventWarnings(in: history))
      warnings.appendAll(ReadingWarnings.shown(in: history))
      warnings.appendAll(PartialHistory.warnings(history))
      return DocumentOutput(
        text: EntitlementsTextRenderer.render(
          answer, evaluation: evaluation, explain: explain, color: style.color, width: style.width,
          signature: signature, page: partialPage),
        writeJSON: { w, _ in
          EntitlementsJSONRenderer.write(
            answer, evaluation: evaluation, input: input, explain: explain, signature: signature, page: page, to: &w)
        },
        failedChecks: failedChecks, warnings: warnings)
    }
  }

  /// One sentence per required entitlement that is not active.
  static func missingRequirements(_ required: [String], _ results: [EntitlementResult]) -> [String] {
    required.compactMap { id in
      guard let r = results.first(where: { $0.id == id }) else {
        return "entitlement '\(id)' is not active: no product in the receipt or the catalog gives it."
      }
      return r.isActive ? nil : "entitlement '\(id)' is not active (\(r.state.rawValue)): \(r.reason)"
    }
  }
}

extension Array where Element == String {
  /// Appends `part`, making and growing no array when either is empty (most of a document's warnings and checks are:
  /// `+` makes a new array every time).
  mutating func appendAll(_ part: [String]) {
    if isEmpty {
      self = part
    } else if !part.isEmpty {
      append(contentsOf: part)
    }
  }
}
