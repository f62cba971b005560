import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool decode`: read receipts and show what they say.
struct DecodeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    name: "decode",
    abstract: "Read receipts and show their metadata, status, transactions and pending renewals.",
    discussion:
      "Transactions from receipt.in_app and latest_receipt_info are merged by transaction_id; 'from' says which arrays each came from. The base64 latest_receipt is a customer credential: only its length is shown unless --show-secrets is given.",
    options: [
      CommonOptions.format(DocumentFormat.names),
      OutputSchemas.option,
      CommonOptions.catalog,
      CommonOptions.currency,
    ] + CommonOptions.reading(oneCustomer: true, flags: [CommonOptions.showSecrets]))

  var options: DocumentCommandOptions
  var showSecrets: Bool

  init(_ arguments: ParsedArguments) throws(ReceiptToolError) {
    options = try DocumentCommandOptions(arguments, command: Self.configuration.name)
    showSecrets = arguments.flag("show-secrets")
  }

  func validate() throws(ReceiptToolError) { try options.inputs.validate(command: Self.configuration.name) }

  func run(_ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    try options.run(context) { (input, catalog, style, signatures) throws(ReceiptError) in
      let history = try context.decode(input, keepSecrets: showSecrets, signatures: signatures)
      let review = options.inputs.signatures.review(history.provenance.signatureCheck)
      return DocumentOutput(
        text: DecodeTextRenderer.render(history, catalog: catalog, color: style.color, width: style.width),
        writeText: { parts, drain in
          DecodeTextRenderer.write(
            history, catalog: catalog, color: style.color, width: style.width, parts: parts, drain: drain)
        },
        writeJSON: { w, parts in
          DecodeJSONRenderer.write(history, input: input, catalog: catalog, parts: parts, to: &w)
        },
        failedChecks: review.failedChecks,
        warnings: review.warnings + catalogDisagreements(of: history, catalog: catalog)
          + ReadingWarnings.shown(in: history))
    }
  }
}
