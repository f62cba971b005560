import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool intro-eligibility`: may this customer still get each product's introductory offer?
struct IntroEligibilityCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    name: "intro-eligibility",
    abstract: "Decide, per product, whether the customer can still get its introductory offer.",
    discussion:
      "Every transaction counts, FAMILY_SHARED ones included: an offer a family member used through Family Sharing makes the whole subscription group ineligible here too, as does a subscription in the group that is active or whose renewal is in the billing grace period or billing retry. Groups come from the catalog and from subscription_group_identifier, linked through shared product ids.",
    options: [
      OptionSpec(
        "product", value: "id",
        help:
          "Answer for this product id. Repeatable. (default: every auto-renewable product in the catalog and the receipt)",
        repeatable: true),
      CommonOptions.catalog,
      CommonOptions.currency,
      CommonOptions.asOf,
      OptionSpec(
        "expect", value: "status",
        help: "Exit 1 unless every product has this status: eligible, ineligible, unknown or no_intro_offer.",
        allowed: IntroEligibilityStatus.allCases.map(\.rawValue)),
      PartialHistory.option,
      CommonOptions.format(DocumentFormat.names),
      OutputSchemas.option,
    ] + CommonOptions.reading(oneCustomer: true))

  var options: DocumentCommandOptions
  var asOf: AsOfChoice
  var products: [String]
  var expected: IntroEligibilityStatus?
  var allowPartial: Bool

  init(_ arguments: ParsedArguments) throws(ReceiptToolError) {
    options = try DocumentCommandOptions(arguments, command: Self.configuration.name)
    asOf = try AsOfChoice(arguments, command: Self.configuration.name)
    products = arguments.all("product")
    expected = arguments.value("expect").flatMap(IntroEligibilityStatus.init(rawValue:))
    allowPartial = arguments.flag("allow-partial")
  }

  func validate() throws(ReceiptToolError) {
    try options.inputs.validate(command: Self.configuration.name)
    if products.contains("") {
      throw Self.usage("The value '' is invalid for '--product <id>'. Please provide a product id.")
    }
  }

  func run(_ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    let now = Timestamp.now()
    let check = expected.map { "--expect \($0.rawValue)" }
    return try options.run(context, check: check) { (input, catalog, style, signatures) throws(ReceiptError) in
      let history = try context.decode(input, keepsFieldsOnlyDecodeShows: false, signatures: signatures)
      let review = options.inputs.signatures.review(history.provenance.signatureCheck)
      try history.requireValidStatus(
        source: input.label, consequence: "Without a valid receipt, eligibility cannot be judged.")
      let time = try asOf.resolve(moment: history.moment, now: now)
      let results = decideIntroEligibility(
        products: products.isEmpty ? nil : products, history: history, catalog: catalog, at: time)
      let signature = history.provenance.signatureCheck
      return DocumentOutput(
        text: IntroEligibilityTextRenderer.render(
          results, time: time, color: style.color, width: style.width,
          nothing: results.isEmpty
            ? nothingToAnswerReason(of: history, at: time.time, kind: "auto-renewable subscription purchase") : nil,
          signature: signature, page: PartialHistory.page(of: history)),
        writeJSON: { w, _ in
          IntroEligibilityJSONRenderer.write(
            results, time: time, input: input, signature: signature, page: history.provenance.page, to: &w)
        },
        failedChecks: unmet(results) + review.failedChecks
          + PartialHistory.failedChecks(history, check: check, allowed: allowPartial),
        warnings: review.warnings + catalogDisagreements(of: history, catalog: catalog)
          + NotificationEffects.unknownEventWarnings(in: history) + ReadingWarnings.shown(in: history)
          + PartialHistory.warnings(history)
          + storeStatusesWithoutTransaction(in: history).map(\.sentence))
    }
  }

  /// One sentence per product whose status is not the one `--expect` asked for.
  func unmet(_ results: [IntroEligibilityResult]) -> [String] {
    guard let expected else { return [] }
    guard !results.isEmpty else {
      return [
        "--expect \(expected.rawValue) has no product to check: neither --product, the catalog nor the receipt names an auto-renewable product."
      ]
    }
    return results.filter { $0.status != expected }.map {
      "expected \($0.productID) to be \(expected.rawValue), but it is \($0.reason)"
    }
  }
}
