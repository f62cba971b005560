import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool entitlements`: what the customer may use at a moment, and why.
public enum EntitlementsCommand {
  public static let name = "entitlements"
  public static let abstract = "Show which entitlements a receipt grants, as of a moment, and why."
  public static let discussion =
    "Access is the union of every transaction of an entitlement's products, whatever their ownership: a customer who loses Family Sharing access keeps the entitlement when they also bought the product. Without a catalog every non-consumable or subscription product is its own entitlement; a product with no expires_date cannot be told apart from a consumable and is reported as unknown."

  public static let spec = CommandSpec(name: name, abstract: abstract, discussion: discussion, options: options, run: run)

  static let options: [OptionSpec] = [
    CommonOptions.format(DocumentFormat.names),
    CommonOptions.catalog,
    CommonOptions.asOf,
    OptionSpec(
      "require", value: "id",
      help: "Exit 1 unless this entitlement is active (or in its billing grace period); each missing one is named on standard error with its reason. Repeatable.",
      repeatable: true),
    OptionSpec("explain", help: "Under each entitlement, list every transaction considered and why it does or does not grant access."),
    CommonOptions.ndjson,
    CommonOptions.quiet,
  ]

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    let format = DocumentFormat(rawValue: args.value("format") ?? "text") ?? .text
    let asOf = try AsOfChoice.parse(args.value("as-of"))
    let catalog = try CatalogLoading.load(args, context)
    let explain = args.flag("explain")
    let required = args.all("require")
    let now = Timestamp.now()
    return DocumentRunner.run(
      paths: args.positionals, format: format, quiet: args.flag("quiet"), forceNDJSON: args.flag("ndjson"),
      context: context
    ) { (input) throws(ReceiptError) in
      let document = try ReceiptDecoder.decode(input.bytes, source: input.label)
      try document.requireValidStatus(source: input.label)
      let evaluation = try asOf.resolve(moment: document.moment, now: now)
      let results = entitlementStatuses(of: document, catalog: catalog, at: evaluation.time)
      return DocumentOutput(
        text: EntitlementsTextRenderer.render(
          results, evaluation: evaluation, explain: explain, color: context.environment.useColor,
          width: context.environment.columns),
        json: EntitlementsJSONRenderer.render(results, evaluation: evaluation, input: input, explain: explain),
        failedChecks: missingRequirements(required, results))
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
