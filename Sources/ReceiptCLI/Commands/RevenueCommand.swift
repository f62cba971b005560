import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool revenue`: the purchaser's revenue over every document read.
public enum RevenueCommand {
  public static let name = "revenue"
  public static let abstract = "Owner-only revenue; family-shared copies never count."
  public static let discussion = """
    Transactions are de-duplicated by transaction_id across in_app, latest_receipt_info and every document read. Only PURCHASED transactions (and those with no ownership field, from receipts older than Family Sharing) are revenue; FAMILY_SHARED copies are only counted in family_shared_excluded. Each is valued at its catalog price × quantity (a missing quantity counts as 1); a free trial is 0; an introductory-offer period is the catalog's intro price; without a catalog price it is listed as unpriced, never valued at 0. Receipts carry no storefront, so a product has one price: its catalog price. Currencies are never added together.

    --commission estimates proceeds (commission rounded half-up per transaction). Taxes and regional terms are not modelled: App Store Connect reports are the record.

    With --merge the files are earlier 'revenue --format json' outputs, which are summed; de-duplication and the commission year are per part, so split inputs by customer.
    """

  public static let spec = CommandSpec(name: name, abstract: abstract, discussion: discussion, options: options, run: run)

  static let options: [OptionSpec] = [
    CommonOptions.catalog,
    OptionSpec("by", value: "grouping", help: "Rows by product, purchase month or day (UTC), or one row. (default: product)", allowed: RevenueGrouping.allCases.map(\.rawValue)),
    OptionSpec("from", value: "time", help: "Only transactions purchased at or after this time (same syntax as --as-of)."),
    OptionSpec("to", value: "time", help: "Only transactions purchased before this time (same syntax as --as-of)."),
    OptionSpec(
      "commission", value: "plan",
      help: "Estimate proceeds: standard (30%, 15% after a year of paid service on a subscription), small-business (15%) or none. (default: none)",
      allowed: CommissionPlan.allCases.map(\.rawValue)),
    CommonOptions.format(["text", "json", "csv"]),
    OptionSpec("merge", help: "The files are earlier 'revenue --format json' outputs: sum them."),
    CommonOptions.ndjson,
    CommonOptions.quiet,
  ]

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    let catalog = args.flag("merge") ? Catalog() : try CatalogLoading.load(args, context)
    return try run(args, context, catalog: catalog)
  }

  /// The command with its catalog already loaded (tests pass one built in code).
  static func run(_ args: ParsedArguments, _ context: CommandContext, catalog: Catalog) throws(ReceiptToolError) -> ExitStatus {
    let grouping = RevenueGrouping(rawValue: args.value("by") ?? "product") ?? .product
    let plan = CommissionPlan(rawValue: args.value("commission") ?? "none") ?? .none
    let range = PurchaseDateRange(from: try time(args, "from"), to: try time(args, "to"))
    let merging = args.flag("merge")
    if merging {
      for option in ["catalog", "by", "from", "to", "commission"] where !args.all(option).isEmpty {
        throw .usage("--\(option) cannot be used with --merge: the parts were computed with their own options.", command: name)
      }
    }
    var firstError: ExitStatus?
    var errors: [RevenueInputError] = []
    var ledger = RevenueLedger()
    var merged = RevenueReport(hasProceeds: false)
    /// A part read back, or a receipt decoded and checked; decoded on all cores, added in input order.
    enum Read {
      case part(RevenueReport)
      case receipt(ReceiptDocument)
    }
    DocumentPipeline.run(
      paths: args.positionals, forceNDJSON: args.flag("ndjson"), notice: context.warn,
      transform: { (document) throws(ReceiptToolError) -> Read in
        try lifting { () throws(ReceiptError) -> Read in
          if merging { return .part(try RevenueReportReader.read(document.bytes, source: document.label)) }
          let receipt = try ReceiptDecoder.decode(document.bytes, source: document.label)
          try receipt.requireValidStatus(source: document.label)
          return .receipt(receipt)
        }
      }
    ) { document, result in
      var label = document?.label ?? "<input>"
      do throws(ReceiptToolError) {
        switch result {
        case .success(.part(let part)): try lifting { () throws(ReceiptError) in try merged.merge(part) }
        case .success(.receipt(let receipt)): ledger.add(receipt)
        case .failure(let error):
          if case .input(let e) = error, e.kind == .noInput, let source = e.source { label = source }
          throw error
        }
      } catch {
        var error = document?.locatedInFile(error) ?? error
        if case .input(let e) = error { error = .input(e.inSource(label)) }
        context.report(error)
        if firstError == nil { firstError = error.exitStatus }
        errors.append(RevenueInputError(input: label, message: error.message))
      }
    }
    var report: RevenueReport
    if merging {
      report = merged
      report.errors += errors
    } else {
      ledger.errors = errors
      report = try lifting { () throws(ReceiptError) in
        try ledger.report(catalog: catalog, grouping: grouping, range: range, commission: plan)
      }
    }
    if report.counts.undatedExcluded > 0 {
      context.warn("\(report.counts.undatedExcluded) transaction(s) have no purchase date and were left out by --from/--to")
    }
    if !args.flag("quiet") {
      switch args.value("format") ?? "text" {
      case "json": context.stdout.write(RevenueJSONRenderer.render(report).rendered() + "\n")
      case "csv": context.stdout.write(RevenueCSVRenderer.render(report, grouping: grouping))
      default:
        context.stdout.write(
          RevenueTextRenderer.render(report, grouping: grouping, color: context.environment.useColor, width: context.environment.columns))
      }
    }
    // Parts read back with --merge may carry errors of their own runs.
    if firstError == nil, merging, !report.errors.isEmpty { firstError = .dataError }
    return firstError ?? .ok
  }

  static func time(_ args: ParsedArguments, _ option: String) throws(ReceiptToolError) -> Timestamp? {
    guard let text = args.value(option) else { return nil }
    do {
      switch try AsOfChoice.parse(text) {
      case .fixed(let t): return t
      case .now: return Timestamp.now()
      case .automatic, .request: break
      }
    } catch {}
    throw .usage(
      "The value '\(text)' is invalid for '--\(option) <time>'. Please provide an ISO 8601 date or date-time (2024-06-15, 2024-06-15T12:00:00Z), epoch milliseconds or 'now'.",
      command: name)
  }
}
