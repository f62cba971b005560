/// What a per-document command produced for one input document.
public struct DocumentOutput: Sendable {
  public var text: String
  public var json: JSONValue
  /// Failed `--require` / `--expect` checks, one sentence each.
  public var failedChecks: [String]

  public init(text: String, json: JSONValue, failedChecks: [String] = []) {
    self.text = text
    self.json = json
    self.failedChecks = failedChecks
  }
}

/// Output formats of the per-document commands.
public enum DocumentFormat: String, Sendable {
  case text, json, ndjson
  public static let names = ["text", "json", "ndjson"]
}

/// Runs a per-document command (decode, entitlements, intro-eligibility) over every input document
/// and writes one result per document, in input order.
///
/// - text: each result, preceded by `==> name <==` when there are several documents;
/// - json: one object, or an array of objects when there are several documents;
/// - ndjson: one line per document; a document that cannot be read gets an error line in its place.
///
/// A failed document never stops the others. The exit status is that of the first failure,
/// else 1 when a check failed, else 0.
public enum DocumentRunner {
  public static func run(
    paths: [String], format: DocumentFormat, quiet: Bool, forceNDJSON: Bool, context: CommandContext,
    process: (InputDocument) throws(ReceiptToolError) -> DocumentOutput
  ) -> ExitStatus {
    var firstError: ExitStatus?
    var checkFailed = false
    var jsonResults: [JSONValue] = []
    var count = 0
    let several = paths.count > 1

    func failed(_ error: ReceiptToolError, input: JSONValue) {
      context.report(error)
      if firstError == nil { firstError = error.exitStatus }
      if format == .ndjson, !quiet {
        let line = JSONValue.object([
          ("input", input),
          ("error", .object([("exit_code", .int(error.exitStatus.rawValue)), ("message", .string(error.message))])),
        ])
        context.stdout.write(line.rendered(pretty: false) + "\n")
      }
    }

    InputDocuments.forEach(paths: paths, forceNDJSON: forceNDJSON) { document, readError in
      count += 1
      guard let document else {
        if let readError { failed(readError, input: .object([("file", .null), ("line", .null)])) }
        return
      }
      let output: DocumentOutput
      do throws(ReceiptToolError) {
        output = try process(document)
      } catch {
        failed(error, input: document.inputJSON)
        return
      }
      for check in output.failedChecks {
        context.stderr.write("receipt-tool: check failed: \(document.label): \(check.replacingNewlines)\n")
        checkFailed = true
      }
      guard !quiet else { return }
      switch format {
      case .text:
        if several || document.line != nil {
          context.stdout.write((count > 1 ? "\n" : "") + "==> \(document.label) <==\n")
        }
        context.stdout.write(output.text)
      case .json:
        jsonResults.append(output.json)
      case .ndjson:
        context.stdout.write(output.json.rendered(pretty: false) + "\n")
      }
    }
    if format == .json, !quiet {
      if jsonResults.count == 1, !several, let only = jsonResults.first {
        context.stdout.write(only.rendered() + "\n")
      } else if !jsonResults.isEmpty || several {
        context.stdout.write(JSONValue.array(jsonResults).rendered() + "\n")
      }
    }
    context.stderr.flush()
    if let firstError { return firstError }
    return checkFailed ? .checkFailed : .ok
  }
}
