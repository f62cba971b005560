import ReceiptFormats
import ReceiptModel

/// A subcommand: its help text, its options and what it does.
package struct CommandSpec: Sendable {
  package var name: String
  /// One line for the OVERVIEW and the SUBCOMMANDS list.
  package var abstract: String
  /// Extra paragraphs (separated by blank lines) printed after OVERVIEW.
  package var discussion: String
  package var options: [OptionSpec]
  /// `(label, help)` rows for the ARGUMENTS section.
  package var arguments: [(String, String)]
  package var run: @Sendable (ParsedArguments, CommandContext) throws(ReceiptToolError) -> ExitStatus

  package static let fileArguments = [
    (
      "<file> ...",
      "Receipt files: verifyReceipt responses, notification v1 bodies, receipts, StoreKit 2 signed data (JWS, one or one per line; decoded payloads; App Store Server API responses; Notifications V2 bodies), on-device app receipts (base64 or DER PKCS#7, or a JSON body holding one), or NDJSON of them. '-' or none reads standard input."
    )
  ]

  package init(
    name: String, abstract: String, discussion: String = "", options: [OptionSpec],
    arguments: [(String, String)] = CommandSpec.fileArguments,
    run: @escaping @Sendable (ParsedArguments, CommandContext) throws(ReceiptToolError) -> ExitStatus
  ) {
    self.name = name
    self.abstract = abstract
    self.discussion = discussion
    self.options = options
    self.arguments = arguments
    self.run = run
  }
}

/// Streams, environment and input formats a command runs with.
package final class CommandContext: @unchecked Sendable {
  package let environment: ProcessEnvironment
  package let stdout: OutputSink
  package let stderr: OutputSink
  /// The formats documents are read in; tests add their own.
  package let formats: FormatRegistry

  package init(
    environment: ProcessEnvironment, stdout: OutputSink, stderr: OutputSink, formats: FormatRegistry = .standard
  ) {
    self.environment = environment
    self.stdout = stdout
    self.stderr = stderr
    self.formats = formats
  }

  /// Decodes one input document with the format that recognises it.
  /// - Parameters:
  ///   - input: the document.
  ///   - keepSecrets: keep credentials for `--show-secrets`.
  ///   - keepsFieldsOnlyDecodeShows: build the undocumented fields only `decode` prints; a command that never reads
  ///     them passes false (warnings are kept either way).
  ///   - signatures: what signatures are checked with (nil: not checked), and the device a receipt's hash is
  ///     checked against (`--device-id`).
  /// - Returns: the purchase history.
  /// - Throws: `ReceiptError` when the document cannot be read.
  func decode(
    _ input: InputDocument, keepSecrets: Bool = false, keepsFieldsOnlyDecodeShows: Bool = true,
    signatures: SignatureChecking?
  ) throws(ReceiptError) -> PurchaseHistory {
    if let decoded = input.decoded { return decoded }
    defer { input.content.releaseResidentPages() }
    var options = DecodeOptions(
      keepSecrets: keepSecrets, keepsFieldsOnlyDecodeShows: keepsFieldsOnlyDecodeShows, signatures: signatures)
    options.pieceHelpers = Cores.pieceHelpers(reading: input.content)
    options.deviceID = signatures?.deviceID
    return try input.content.withBuffer { (buffer) throws(ReceiptError) in
      try formats.decode(contentsOf: buffer, source: input.label, options: options)
    }
  }

  /// Writes `receipt-tool: error: <message>` on one line.
  package func report(_ error: ReceiptToolError) {
    stderr.write("receipt-tool: error: \(TerminalSafeText(error.message))\n")
    stderr.flush()
  }

  /// Writes `receipt-tool: warning: <message>` on one line.
  package func warn(_ message: String) {
    stderr.write("receipt-tool: warning: \(TerminalSafeText(message.replacingNewlines))\n")
    stderr.flush()
  }
}

extension String {
  var replacingNewlines: String { String(map { $0 == "\n" || $0 == "\r" ? " " : $0 }) }
}

/// Options several commands share, spelled once.
package enum CommonOptions {
  package static func format(_ formats: [String]) -> OptionSpec {
    OptionSpec(
      "format", value: "format",
      help: "Output format: \(formats.joined(separator: ", ")). (default: \(formats.first ?? "text"))",
      allowed: formats)
  }

  package static let catalog = OptionSpec(
    "catalog", value: "file",
    help:
      "Product catalog: receipt-tool catalog JSON or an Xcode .storekit file. Repeatable; later files override earlier ones per product. (default: $RECEIPT_TOOL_CATALOG)",
    repeatable: true)

  package static let currency = OptionSpec(
    "currency", value: "code",
    help:
      "ISO 4217 currency of a .storekit file's prices (and of JSON catalog entries that name none). (default: from the .storekit storefront)"
  )

  package static let asOf = OptionSpec(
    "as-of", value: "time",
    help:
      "Evaluate at this time: ISO 8601 date or date-time, epoch milliseconds, 'now', or 'request' (the receipt's request_date). (default: the receipt's request_date, else now)"
  )

  package static let ndjson = OptionSpec(
    "ndjson", help: "Read every input as NDJSON (one JSON document per line). Detected automatically otherwise.")

  package static let oneCustomer = OptionSpec(
    "one-customer",
    help:
      "Read every input as pieces of one customer's history: transactions merge by id (the later-signed copy wins, differences are warned about), renewal info by original transaction id, and one answer is given."
  )

  package static let maxDocumentSize = OptionSpec(
    "max-document-size", value: "size",
    help:
      "Refuse a single document larger than this before reading it: bytes, or with K, M or G (binary units). NDJSON lines are documents too. (default: 1G)"
  )

  package static let quiet = OptionSpec(
    "quiet", short: "q", help: "Print nothing on standard output; only the exit status tells the result.")

  /// How the inputs are read and their signatures checked, the options every command ends with, in the order help
  /// lists them; `flags` (a command's own output switches) go just before the signature options.
  package static func reading(oneCustomer: Bool, flags: [OptionSpec] = []) -> [OptionSpec] {
    [ndjson] + (oneCustomer ? [Self.oneCustomer] : []) + flags
      + [
        SignatureOptions.trustRoot, SignatureOptions.requireSignature, SignatureOptions.deviceID,
        SignatureOptions.bundleID, SignatureOptions.appAppleID, SignatureOptions.environment,
        SignatureOptions.skipSignatureCheck, quiet,
        maxDocumentSize,
      ]
  }

  package static let showSecrets = OptionSpec(
    "show-secrets",
    help: "Print the base64 latest_receipt in full. It is a customer credential; by default only its length is shown.")
}
