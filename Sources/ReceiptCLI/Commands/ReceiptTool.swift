import ReceiptFormats
import ReceiptModel

/// The `receipt-tool` command: dispatches to a subcommand and turns every outcome into an exit status.
package enum ReceiptTool {
  package static let version = "1.0.0"
  package static let abstract =
    "Inspect Apple in-app purchases: entitlements, revenue, intro-offer eligibility and timelines."
  /// Paragraphs, separated by a blank line: every input kind, then what Family Sharing changes.
  package static let discussion = """
    Reads, recognising each from its content: verifyReceipt responses; App Store Server Notification V1 and \
    V2 bodies; StoreKit 2 signed transactions and renewal info (JWS); App Store Server API responses \
    (transaction history, subscription statuses, refund history, transaction info); and on-device PKCS#7 app \
    receipts, as DER or base64. Files, standard input, or NDJSON with one document per line.

    Family Sharing aware: access survives losing a shared copy when the customer also bought the product, \
    revenue counts only the purchaser's transactions, and intro-offer eligibility counts family-shared history.
    """

  /// Subcommands in the order help lists them.
  package static var commands: [CommandSpec] {
    [
      DecodeCommand.spec, EntitlementsCommand.spec, RevenueCommand.spec, IntroEligibilityCommand.spec,
      TimelineCommand.spec,
    ]
  }

  /// Runs with the real process environment and streams.
  package static func main(arguments: [String]) -> ExitStatus {
    main(argumentBytes: arguments.map { Array($0.utf8) })
  }

  /// Runs with the real process environment and streams, on the arguments as the process received them
  /// (`CommandLine.unsafeArgv`): file names stay bytes from here to `open`.
  package static func main(argumentBytes: [[UInt8]]) -> ExitStatus {
    ignoreSigpipe()
    let context = CommandContext(
      environment: .current(), stdout: OutputSink(fd: 1), stderr: OutputSink(fd: 2, bufferSize: 0))
    return run(argumentBytes: argumentBytes, context: context)
  }

  /// Runs a command line given as bytes: an argument that is not UTF-8 is parsed by its escaped text
  /// (`a\xFF.json`) and, when it names a file, opened by its bytes.
  package static func run(argumentBytes: [[UInt8]], context: CommandContext) -> ExitStatus {
    var raw: [Int: [UInt8]] = [:]
    let arguments = argumentBytes.enumerated().map { (index, bytes) -> String in
      if let text = String(validating: bytes, as: UTF8.self) { return text }
      raw[index] = bytes
      return InputPath.escapingInvalidUTF8(bytes)
    }
    return run(arguments: arguments, raw: raw, context: context)
  }

  /// Runs a command line; never throws and never traps on input.
  /// - Parameters:
  ///   - arguments: the arguments after the program name.
  ///   - raw: the bytes of arguments that are not UTF-8, by index (see `ArgumentParsing.parse`).
  ///   - context: streams and environment.
  /// - Returns: the exit status.
  package static func run(arguments: [String], raw: [Int: [UInt8]] = [:], context: CommandContext) -> ExitStatus {
    let status = dispatch(arguments, raw, context)
    context.stdout.flush()
    if let failure = context.stdout.failure {
      context.report(.io("standard output: \(failure)"))
      return .ioError
    }
    return status
  }

  static func dispatch(_ arguments: [String], _ raw: [Int: [UInt8]], _ context: CommandContext) -> ExitStatus {
    let columns = context.environment.columns
    guard let first = arguments.first else {
      context.stdout.write(HelpGenerator.rootHelp(commands: commands, columns: columns))
      return .ok
    }
    switch first {
    case "-h", "--help":
      context.stdout.write(HelpGenerator.rootHelp(commands: commands, columns: columns))
      return .ok
    case "--version":
      context.stdout.write(version + "\n")
      return .ok
    case "help":
      guard arguments.count > 1 else {
        context.stdout.write(HelpGenerator.rootHelp(commands: commands, columns: columns))
        return .ok
      }
      guard let command = commands.first(where: { $0.name == arguments[1] }) else {
        return usageError(
          .usage("Unknown subcommand '\(arguments[1])'.\(suggest(arguments[1]))", command: nil), context)
      }
      context.stdout.write(HelpGenerator.commandHelp(command, columns: columns))
      return .ok
    case "--generate-completion-script":
      guard arguments.count > 1 else {
        return usageError(.usage("Missing value for '--generate-completion-script <shell>'.", command: nil), context)
      }
      let shell = arguments[1].hasPrefix("--") ? nil : arguments[1]
      guard let script = shell.flatMap({ CompletionScripts.script(for: $0, commands: commands) }) else {
        return usageError(
          .usage(
            "The value '\(arguments[1])' is invalid for '--generate-completion-script <shell>'. Please provide one of 'bash', 'zsh' or 'fish'.",
            command: nil),
          context)
      }
      context.stdout.write(script)
      return .ok
    default:
      break
    }
    guard let command = commands.first(where: { $0.name == first }) else {
      let what = first.hasPrefix("-") ? "Unknown option '\(first)'." : "Unknown subcommand '\(first)'.\(suggest(first))"
      return usageError(.usage(what, command: nil), context)
    }
    let rest = Array(arguments.dropFirst())
    // Indices shift by the subcommand's name.
    let restRaw = Dictionary(
      raw.compactMap { $0.key > 0 ? ($0.key - 1, $0.value) : nil }, uniquingKeysWith: { a, _ in a })
    let optionPart = rest.prefix(while: { $0 != "--" })
    if optionPart.contains("-h") || optionPart.contains("--help") {
      context.stdout.write(HelpGenerator.commandHelp(command, columns: columns))
      return .ok
    }
    if optionPart.contains("--version") {
      context.stdout.write(version + "\n")
      return .ok
    }
    do {
      let parsed = try ArgumentParsing.parse(rest, raw: restRaw, options: command.options, command: command.name)
      return try command.run(parsed, context)
    } catch {
      if case .usage = error { return usageError(error, context) }
      context.report(error)
      return error.exitStatus
    }
  }

  static func suggest(_ word: String) -> String {
    ArgumentParsing.closest(to: word, among: commands.map(\.name)).map { " Did you mean '\($0)'?" } ?? ""
  }

  /// A usage error has the shape of every other error: one `receipt-tool: error:` line, which ends by
  /// pointing at the help of the subcommand it is about (or the top-level help); exit 64.
  static func usageError(_ error: ReceiptToolError, _ context: CommandContext) -> ExitStatus {
    guard case .usage(let message, let commandName) = error else { return error.exitStatus }
    let help = commandName.flatMap { name in commands.first { $0.name == name } }.map {
      "receipt-tool \($0.name) --help"
    }
    let body = message.hasSuffix(".") ? String(message.dropLast()) : message
    context.report(.usage("\(body) (see '\(help ?? "receipt-tool --help")').", command: commandName))
    return .usage
  }
}
