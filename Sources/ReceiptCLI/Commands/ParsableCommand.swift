import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// A subcommand, shaped like swift-argument-parser's `ParsableCommand`: its options are parsed once into
/// typed values by `init`, checked together by `validate()`, and only then does `run` see them.
protocol ParsableCommand {
  /// The name, help text and options that help, completions and parsing share.
  static var configuration: CommandConfiguration { get }
  /// Reads every option into a typed value; a value that cannot be read is a usage error.
  init(_ arguments: ParsedArguments) throws(ReceiptToolError)
  /// Checks options against each other (conflicts, ranges), before any input is read.
  func validate() throws(ReceiptToolError)
  func run(_ context: CommandContext) throws(ReceiptToolError) -> ExitStatus
}

extension ParsableCommand {
  func validate() throws(ReceiptToolError) {}

  /// The command as the dispatcher, help and completions see it.
  static var spec: CommandSpec {
    let configuration = Self.configuration
    return CommandSpec(
      name: configuration.name, abstract: configuration.abstract, discussion: configuration.discussion,
      options: configuration.options
    ) { (arguments, context) throws(ReceiptToolError) in
      // Like --help: the schema needs no input, so the other options are not read.
      if arguments.flag(OutputSchemas.option.name), let schema = OutputSchemas.schema(for: configuration.name) {
        context.stdout.write(schema.rendered() + "\n")
        return .ok
      }
      let command = try Self(arguments)
      try command.validate()
      return try command.run(context)
    }
  }

  /// A usage error that points at this command's help.
  static func usage(_ message: String) -> ReceiptToolError { .usage(message, command: configuration.name) }
}

/// A command's name, help and options.
struct CommandConfiguration {
  var name: String
  /// One line for the OVERVIEW and the SUBCOMMANDS list.
  var abstract: String
  /// Extra paragraphs (separated by blank lines) printed after OVERVIEW.
  var discussion: String
  var options: [OptionSpec]
}

/// The inputs every document command reads: files (standard input when none), NDJSON, quiet.
struct InputOptions {
  /// The files as given on the command line, bytes and all.
  var paths: [InputPath]
  var forceNDJSON: Bool
  var quiet: Bool
  /// `--one-customer`: every input is part of one history, answered once.
  var oneCustomer = false
  /// `--max-document-size`: a larger single document is refused before it is read.
  var maxDocumentSize = ChunkReader.defaultMaxDocumentSize
  /// `--trust-root`, `--require-signature`, `--skip-signature-check`.
  var signatures = SignatureOptions()

  init(paths: [String], forceNDJSON: Bool, quiet: Bool) {
    self.paths = paths.map { InputPath($0) }
    self.forceNDJSON = forceNDJSON
    self.quiet = quiet
  }

  init(_ arguments: ParsedArguments, command: String) throws(ReceiptToolError) {
    paths = arguments.positionalPaths
    forceNDJSON = arguments.flag("ndjson")
    quiet = arguments.flag("quiet")
    oneCustomer = arguments.flag("one-customer")
    signatures = try SignatureOptions(arguments, command: command)
    if let text = arguments.value("max-document-size") {
      guard let size = ByteCount.parse(text) else {
        throw .usage(
          "The value '\(text)' is invalid for '--max-document-size <size>'. Please provide a size in bytes, "
            + "optionally with K, M or G (binary units), such as 2G.",
          command: command)
      }
      maxDocumentSize = size
    }
  }

  /// Tells a person at a terminal that the tool waits for standard input, as it otherwise looks hung.
  func hintWhenReadingTerminal(_ context: CommandContext) {
    guard context.environment.stdinIsTerminal, paths.isEmpty || paths.contains(where: \.isStandardInput) else {
      return
    }
    context.stderr.write(
      "receipt-tool: reading standard input; pass a file or pipe one in (end with Ctrl-D, Ctrl-C to stop)\n")
    context.stderr.flush()
  }

  /// Standard input can be read once: `-` named twice would find it empty the second time.
  func validate(command: String) throws(ReceiptToolError) {
    if paths.filter(\.isStandardInput).count > 1 {
      throw .usage("'-' (standard input) is given more than once; it can be read only once.", command: command)
    }
  }
}

/// What every per-document command reads: its inputs, `--format` and the catalog; and the one way
/// such a command runs.
struct DocumentCommandOptions {
  var inputs: InputOptions
  var format: DocumentFormat
  var catalog: CatalogOptions

  init(_ arguments: ParsedArguments, command: String) throws(ReceiptToolError) {
    inputs = try InputOptions(arguments, command: command)
    format = DocumentFormat(arguments)
    catalog = try CatalogOptions(arguments, command: command)
  }

  /// Loads the catalog, then runs `process` over every input document (`DocumentRunner.run`).
  /// - Parameters:
  ///   - context: streams and environment.
  ///   - check: the checks asked for (`--require pro`), if any: they fail when there is no document.
  ///   - process: one document's output, on a worker thread.
  /// - Returns: the runner's exit status.
  /// - Throws: `ReceiptToolError` when a catalog cannot be read.
  func run(
    _ context: CommandContext, check: String? = nil,
    process: (InputDocument, Catalog, TextStyle, SignatureChecking?) throws(ReceiptError) -> DocumentOutput
  ) throws(ReceiptToolError) -> ExitStatus {
    let catalog = try self.catalog.load(context)
    let signatures = try inputs.signatures.checking(now: Timestamp.now(), catalog: catalog)
    let style = TextStyle(color: context.environment.useColor, width: context.environment.columns)
    let checks = [check, inputs.signatures.checkName].compactMap { $0 }
    return DocumentRunner.run(
      inputs, format: format, context: context, check: checks.isEmpty ? nil : checks.joined(separator: " "),
      signatures: signatures
    ) { (input) throws(ReceiptError) in
      let output = try process(input, catalog, style, signatures)
      return output
    }
  }
}

/// `--catalog` (else `$RECEIPT_TOOL_CATALOG`) and `--currency`.
struct CatalogOptions {
  var paths: [InputPath]
  var currency: String?

  init(_ arguments: ParsedArguments, command: String) throws(ReceiptToolError) {
    paths = arguments.allPaths("catalog")
    currency = arguments.value("currency")
    if let code = currency, CurrencyTable.minorDigits(code) == nil {
      throw .usage(
        "The value '\(code)' is invalid for '--currency <code>'. Please provide an ISO 4217 currency code such as USD or EUR.",
        command: command)
    }
  }

  /// Reads every catalog named, later files overriding earlier ones per product; warnings go to stderr.
  func load(_ context: CommandContext) throws(ReceiptToolError) -> Catalog {
    var paths = self.paths
    var fromEnvironment = false
    if paths.isEmpty, let env = context.environment.variables["RECEIPT_TOOL_CATALOG"], !env.isEmpty {
      paths = [InputPath(env)]
      fromEnvironment = true
    }
    var catalog = Catalog()
    for path in paths {
      let bytes: [UInt8]
      do throws(ReceiptToolError) {
        bytes = try FileInput.readAll(path: path)
      } catch {
        // The variable may have been set long ago, elsewhere: say where the name came from.
        guard fromEnvironment, case .input(var e) = error else { throw error }
        e.message += " (named by RECEIPT_TOOL_CATALOG; pass --catalog or unset it)"
        throw .input(e)
      }
      let source = path.display
      let currency = self.currency
      catalog.merge(
        try lifting { () throws(ReceiptError) in try CatalogLoader.load(bytes, source: source, currency: currency) })
    }
    for warning in catalog.warnings { context.warn(warning) }
    return catalog
  }
}

extension DocumentFormat {
  /// `--format`, already checked against the allowed names by the parser.
  init(_ arguments: ParsedArguments) {
    self = arguments.value("format").flatMap(DocumentFormat.init(rawValue:)) ?? .text
  }
}

extension AsOfChoice {
  /// `--as-of`.
  init(_ arguments: ParsedArguments, command: String) throws(ReceiptToolError) {
    do throws(ReceiptToolError) {
      self = try AsOfChoice.parse(arguments.value("as-of"))
    } catch {
      guard case .usage(let message, _) = error else { throw error }
      throw .usage(message, command: command)
    }
  }
}
