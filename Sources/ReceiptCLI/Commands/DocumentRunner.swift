import ReceiptFormats
import ReceiptModel
import ReceiptRules

import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a per-document command produced for one input document.
///
/// `text` and `json` are rendered on demand: the runner asks only for the format being written,
/// on the worker thread that processed the document.
public struct DocumentOutput: @unchecked Sendable {
  private let renderText: () -> String
  private let renderJSON: () -> JSONValue
  public var text: String { renderText() }
  public var json: JSONValue { renderJSON() }
  /// Failed `--require` / `--expect` checks, one sentence each.
  public var failedChecks: [String]
  /// Warnings about this document, printed on stderr in input order (`process` runs on
  /// several threads at once, so it must not write to the context itself).
  public var warnings: [String]

  public init(
    text: @autoclosure @escaping () -> String, json: @autoclosure @escaping () -> JSONValue,
    failedChecks: [String] = [], warnings: [String] = []
  ) {
    self.renderText = text
    self.renderJSON = json
    self.failedChecks = failedChecks
    self.warnings = warnings
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
/// else 1 when a check failed, else 0. Documents are processed on all cores (`DocumentPipeline`).
public enum DocumentRunner {
  private enum Outcome {
    /// What to write: text or an NDJSON line already rendered, or the JSON value to collect.
    case output(DocumentOutput, rendered: String, json: JSONValue?)
    case failure(ReceiptToolError)
  }

  private static func one(
    _ document: InputDocument, _ format: DocumentFormat?,
    _ process: (InputDocument) throws(ReceiptError) -> DocumentOutput
  ) -> Outcome {
    let output: DocumentOutput
    do throws(ReceiptError) {
      output = try process(document)
    } catch {
      return .failure(document.locatedInFile(.input(error)))
    }
    switch format {
    case .text: return .output(output, rendered: output.text, json: nil)
    case .ndjson: return .output(output, rendered: output.json.rendered(pretty: false) + "\n", json: nil)
    case .json: return .output(output, rendered: "", json: output.json)
    case nil: return .output(output, rendered: "", json: nil)
    }
  }

  public static func run(
    paths: [String], format: DocumentFormat, quiet: Bool, forceNDJSON: Bool, context: CommandContext,
    process: (InputDocument) throws(ReceiptError) -> DocumentOutput
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

    func emit(_ document: InputDocument, _ outcome: Outcome) {
      count += 1
      let output: DocumentOutput
      let rendered: String
      let value: JSONValue?
      switch outcome {
      case .failure(let error):
        failed(error, input: document.inputJSON)
        return
      case .output(let o, let text, let json):
        output = o
        rendered = text
        value = json
      }
      for warning in output.warnings { context.warn("\(document.label): \(warning)") }
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
        context.stdout.write(rendered)
      case .json:
        if let value { jsonResults.append(value) }
      case .ndjson:
        context.stdout.write(rendered)
      }
    }

    DocumentPipeline.run(
      paths: paths, forceNDJSON: forceNDJSON, notice: context.warn,
      transform: { (document) throws(ReceiptToolError) in one(document, quiet ? nil : format, process) }
    ) { document, result in
      switch (document, result) {
      case (let document?, .success(let outcome)): emit(document, outcome)
      case (let document?, .failure(let error)): emit(document, .failure(error))
      case (nil, .failure(let error)):
        count += 1
        failed(error, input: .object([("file", .null), ("line", .null)]))
      case (nil, .success): break
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
