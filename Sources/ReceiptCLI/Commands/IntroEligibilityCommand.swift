import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool intro-eligibility`: may this customer still get each product's introductory offer?
public enum IntroEligibilityCommand {
  public static let name = "intro-eligibility"
  public static let abstract = "Decide, per product, whether the customer can still get its introductory offer."
  public static let discussion =
    "Every transaction counts, FAMILY_SHARED ones included: an offer a family member used through Family Sharing makes the whole subscription group ineligible here too, as does a subscription in the group that is active or whose renewal is in the billing grace period or billing retry. Groups come from the catalog and from subscription_group_identifier, linked through shared product ids."

  public static let spec = CommandSpec(name: name, abstract: abstract, discussion: discussion, options: options, run: run)

  static let options: [OptionSpec] = [
    OptionSpec(
      "product", value: "id",
      help: "Answer for this product id. Repeatable. (default: every auto-renewable product in the catalog and the receipt)",
      repeatable: true),
    CommonOptions.catalog,
    CommonOptions.currency,
    CommonOptions.asOf,
    OptionSpec(
      "expect", value: "status",
      help: "Exit 1 unless every product has this status: eligible, ineligible, unknown or no_intro_offer.",
      allowed: IntroEligibilityStatus.allCases.map(\.rawValue)),
    CommonOptions.format(DocumentFormat.names),
    CommonOptions.ndjson,
    CommonOptions.quiet,
  ]

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    let format = DocumentFormat(rawValue: args.value("format") ?? "text") ?? .text
    let asOf = try AsOfChoice.parse(args.value("as-of"))
    let expected = args.value("expect").flatMap(IntroEligibilityStatus.init(rawValue:))
    let products = args.all("product")
    let catalog = try CatalogLoading.load(args, context)
    let now = Timestamp.now()
    return DocumentRunner.run(
      paths: args.positionals, format: format, quiet: args.flag("quiet"), forceNDJSON: args.flag("ndjson"),
      context: context
    ) { (input) throws(ReceiptError) in
      let document = try ReceiptDecoder.decode(input.bytes, source: input.label)
      try document.requireValidStatus(
        source: input.label, consequence: "Without a valid receipt, eligibility cannot be judged.")
      let time = try asOf.resolve(moment: document.moment, now: now)
      let results = decideIntroEligibility(
        products: products.isEmpty ? nil : products, document: document, catalog: catalog, at: time)
      var failed: [String] = []
      if let expected {
        for r in results where r.status != expected {
          failed.append("expected \(r.productID) to be \(expected.rawValue), but it is \(r.reason)")
        }
      }
      return DocumentOutput(
        text: IntroEligibilityTextRenderer.render(results, time: time, color: context.environment.useColor, width: context.environment.columns),
        json: IntroEligibilityJSONRenderer.render(results, time: time, input: input), failedChecks: failed)
    }
  }
}
