import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool decode`: read receipts and show what they say.
public enum DecodeCommand {
  public static let name = "decode"
  public static let abstract = "Read receipts and show their metadata, status, transactions and pending renewals."
  public static let discussion =
    "Transactions from receipt.in_app and latest_receipt_info are merged by transaction_id; 'from' says which arrays each came from. The base64 latest_receipt is a customer credential: only its length is shown unless --show-secrets is given."

  public static let spec = CommandSpec(name: name, abstract: abstract, discussion: discussion, options: options, run: run)

  static let options: [OptionSpec] = [
    CommonOptions.format(DocumentFormat.names),
    CommonOptions.catalog,
    CommonOptions.currency,
    CommonOptions.ndjson,
    CommonOptions.showSecrets,
    CommonOptions.quiet,
  ]

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    let format = DocumentFormat(rawValue: args.value("format") ?? "text") ?? .text
    let catalog = try CatalogLoading.load(args, context)
    let showSecrets = args.flag("show-secrets")
    return DocumentRunner.run(
      paths: args.positionals, format: format, quiet: args.flag("quiet"), forceNDJSON: args.flag("ndjson"),
      context: context
    ) { (input) throws(ReceiptError) in
      let document = try ReceiptDecoder.decode(input.bytes, source: input.label, options: DecodeOptions(keepSecrets: showSecrets, threads: DocumentPipeline.workers))
      return DocumentOutput(
        text: DecodeTextRenderer.render(document, catalog: catalog, color: context.environment.useColor, width: context.environment.columns),
        json: DecodeJSONRenderer.render(document, input: input, catalog: catalog))
    }
  }
}
