import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// What a per-document command produced for one input document.
///
/// `text` and `json` are rendered on demand: the runner asks only for the format being written,
/// on the worker thread that processed the document.
package struct DocumentOutput: @unchecked Sendable {
  private let renderText: () -> TerminalText
  /// The text handed out in pieces as it is written; nil: only whole.
  let writeText: ((InOrderParts, ([UInt8]) -> Void) -> Void)?
  private let json: JSONSource
  package var text: TerminalText { renderText() }
  /// Failed `--require` / `--expect` checks, one sentence each.
  package var failedChecks: [String]
  /// Warnings about this document, printed on stderr in input order (`process` runs on
  /// several threads at once, so it must not write to the context itself).
  package var warnings: [String]

  package init(
    text: @autoclosure @escaping () -> TerminalText, json: @autoclosure @escaping () -> JSONValue,
    failedChecks: [String] = [], warnings: [String] = []
  ) {
    self.renderText = text
    self.writeText = nil
    self.json = .tree(json)
    self.failedChecks = failedChecks
    self.warnings = warnings
  }

  /// An output whose JSON is written as it goes (`decode` of a large document): `writeJSON` writes the value
  /// `JSONValue.rendered` would write, into a writer that drains to the output as it fills.
  /// `writeText`, when given, hands the text to its argument in pieces (the same bytes as `text`'s), for a
  /// large document.
  package init(
    text: @autoclosure @escaping () -> TerminalText, writeText: ((InOrderParts, ([UInt8]) -> Void) -> Void)? = nil,
    writeJSON: @escaping (inout JSONStreamWriter, InOrderParts) -> Void, failedChecks: [String] = [],
    warnings: [String] = []
  ) {
    self.renderText = text
    self.writeText = writeText
    self.json = .written(writeJSON)
    self.failedChecks = failedChecks
    self.warnings = warnings
  }

  private enum JSONSource {
    case tree(() -> JSONValue)
    case written((inout JSONStreamWriter, InOrderParts) -> Void)
  }

  /// The JSON ready to be written: a tree is built here (on the worker thread that calls this), a written
  /// output is left to `PendingJSON.write`.
  func pendingJSON() -> PendingJSON {
    switch json {
    case .tree(let render):
      let tree = render()
      return PendingJSON { w, _ in w.value(tree) }
    case .written(let write):
      return PendingJSON(write: write)
    }
  }
}

/// A document's JSON waiting to be written in input order.
struct PendingJSON {
  /// Writes the value at the writer's place, its transactions in `InOrderParts`.
  let write: (inout JSONStreamWriter, InOrderParts) -> Void
  /// The value's bytes as an element of the top-level array (pretty, indent 1), written on the worker thread
  /// for a small document so that a batch is rendered on every core; nil: written when its turn comes.
  var element: [UInt8]? = nil

  /// The bytes of the value alone at `indent`, collected (for small outputs and tests).
  func bytes(pretty: Bool, indent: Int = 0) -> [UInt8] {
    var w = JSONStreamWriter(pretty: pretty, indent: indent)
    write(&w, .here)
    return w.bytes
  }

  /// Writes the value at `indent` to `sink`, in pieces as the writer fills.
  func write(to sink: OutputSink, pretty: Bool = true, indent: Int = 0) {
    var w = JSONStreamWriter(pretty: pretty, indent: indent) { sink.write(buffer: $0) }
    write(&w, .cores)
    w.flush()
  }
}

/// The last document's output of a per-document run, kept instead of destroyed: the process exits right after
/// writing it, and destroying it (the answer and every transaction of the history it holds: 33 M instructions
/// for 20,000 transactions) would be the last thing the process does. Keeping a document's output destroys the
/// one kept before (on the thread that keeps), so at most one is held however many documents a run has.
final class KeptUntilExit: @unchecked Sendable {
  /// The one holder `DocumentRunner.run` keeps outputs in.
  static let lastOutput = KeptUntilExit()
  private let lock = SharedLock()
  private var held: Any?

  /// Keeps `value`, destroying what was kept before.
  func keep(_ value: Any) {
    var value: Any? = value
    lock.locked { swap(&held, &value) }
    // `value` is now the one kept before: destroyed here, outside the lock.
  }

  /// Whether something is kept.
  var isHolding: Bool { lock.locked { held != nil } }
}

/// `--format json` written as documents complete: one result alone is one object, more are an array,
/// streamed element by element so memory does not grow with the batch. The text is that of rendering
/// the whole array at once.
struct JSONArrayStream {
  let sink: OutputSink
  /// Several inputs were named: an array even for one result, or none.
  let alwaysArray: Bool
  /// The first result, held until a second one shows that an array is being written.
  private var first: PendingJSON?
  private var started = false

  init(sink: OutputSink, alwaysArray: Bool) {
    self.sink = sink
    self.alwaysArray = alwaysArray
  }

  mutating func append(_ value: JSONValue) { append(PendingJSON { w, _ in w.value(value) }) }

  mutating func append(_ value: PendingJSON) {
    if !started, !alwaysArray, first == nil {
      first = value
      return
    }
    if !started {
      sink.write("[")
      started = true
      if let held = first {
        writeElement(held, leadingComma: false)
        first = nil
        writeElement(value, leadingComma: true)
        return
      }
      writeElement(value, leadingComma: false)
      return
    }
    writeElement(value, leadingComma: true)
  }

  private func writeElement(_ value: PendingJSON, leadingComma: Bool) {
    sink.write((leadingComma ? "," : "") + "\n  ")
    if let element = value.element {
      sink.write(bytes: element)
    } else {
      value.write(to: sink, indent: 1)
    }
  }

  /// Closes the array, or writes the one result alone.
  mutating func finish() {
    if started {
      sink.write("\n]\n")
    } else if let only = first {
      only.write(to: sink)
      sink.write("\n")
    } else if alwaysArray {
      sink.write("[]\n")
    }
  }
}

/// Output formats of the per-document commands.
package enum DocumentFormat: String, Sendable {
  case text, json, ndjson
  package static let names = ["text", "json", "ndjson"]
}

/// Runs a command over every input document: the one loop every command's input goes through.
///
/// Documents are read and processed on all cores (`DocumentPipeline`) and handed back in input order.
/// A failed document never stops the others: its error is reported on standard error, with its place
/// in the file, and the run goes on.
///
/// - `run`, for per-document commands (decode, entitlements, intro-eligibility), writes one result per
///   document: text, each preceded by `==> name <==` when there are several; json, one object, or an
///   array when there are several documents; ndjson, one line per document, with an error line in
///   place of a document that cannot be read. The exit status is that of the first failure, else 1 when
///   a check failed, else 0.
/// - `aggregate`, for commands that answer once over everything read (revenue), hands each document's
///   value to `consume` and returns what failed.
enum DocumentRunner {
  /// One input document's outcome, in input order.
  enum Event<T> {
    case processed(InputDocument, T)
    /// `input` is nil for a file that could not be read at all; `label` names it either way.
    case failed(ReceiptToolError, input: InputDocument?, label: String)
  }

  /// Calls `body` with every document's outcome, in input order. `transform` runs on worker threads.
  static func forEach<T>(
    _ inputs: InputOptions, context: CommandContext,
    transform: (InputDocument) throws(ReceiptError) -> T, _ body: (Event<T>) -> Void
  ) {
    let lifted = { (document: InputDocument) throws(ReceiptToolError) -> T in
      try lifting { () throws(ReceiptError) in try transform(document) }
    }
    inputs.hintWhenReadingTerminal(context)
    let progress = ProgressMeter(
      sink: context.stderr, paths: inputs.paths,
      enabled: !inputs.quiet && ProgressMeter.wanted(context.environment))
    defer { progress.erase() }
    let notice = { (message: String) in
      progress.erase()
      context.warn(message)
    }
    let flushOutput = { context.stdout.flush() }
    DocumentPipeline.run(
      paths: inputs.paths, forceNDJSON: inputs.forceNDJSON, maxDocumentSize: inputs.maxDocumentSize,
      notice: notice, idle: flushOutput, transform: lifted
    ) { document, result in
      progress.erase()
      defer { progress.documentDone(bytes: document?.content.count ?? 0) }
      // The document and its result taken apart one by one: a switch over the pair copied both.
      guard let document else {
        guard case .failure(let error) = result else { return }
        var label = "<input>"
        if case .input(let e) = error, let source = e.source { label = source }
        return body(.failed(error, input: nil, label: label))
      }
      switch result {
      case .success(let value):
        body(.processed(document, value))
      case .failure(let error):
        body(.failed(document.locatedInFile(error), input: document, label: document.label))
      }
    }
  }

  /// Runs a per-document command and writes one result per document, in input order.
  /// - Parameters:
  ///   - inputs: the files.
  ///   - format: the output format.
  ///   - context: streams and environment.
  ///   - check: the checks asked for (`--require pro`), if any: they fail when there is no document.
  ///   - signatures: what `--one-customer` decodes with (otherwise `process` decodes).
  ///   - process: one document's output, on a worker thread.
  /// - Returns: the first failure's exit status, else 1 when a check failed, else 0.
  static func run(
    _ inputs: InputOptions, format: DocumentFormat, context: CommandContext, check: String? = nil,
    signatures: SignatureChecking? = nil, process: (InputDocument) throws(ReceiptError) -> DocumentOutput
  ) -> ExitStatus {
    if inputs.oneCustomer {
      return runAsOneCustomer(inputs, format: format, context: context, signatures: signatures, process: process)
    }
    let quiet = inputs.quiet
    var firstError: ExitStatus?
    var checkFailed = false
    var jsonArray = JSONArrayStream(sink: context.stdout, alwaysArray: inputs.paths.count > 1)
    var count = 0
    let several = inputs.paths.count > 1

    let render = { (document: InputDocument) throws(ReceiptError) in
      try rendered(process(document), quiet ? nil : format, large: document.content.count >= largeDocumentBytes)
    }
    forEach(inputs, context: context, transform: render) { event in
      count += 1
      switch event {
      case .failed(let error, let document, let label):
        context.report(error)
        if firstError == nil { firstError = error.exitStatus }
        if format == .ndjson, !quiet {
          let input = document?.inputJSON ?? .object([("file", .string(label)), ("line", .null)])
          let line = JSONValue.object([
            OutputSchemaVersion.member,
            ("input", input),
            ("error", .object([("exit_code", .int(error.exitStatus.rawValue)), ("message", .string(error.message))])),
          ])
          context.stdout.write(line.rendered(pretty: false) + "\n")
        }
      case .processed(let document, let result):
        // Kept, not destroyed, once written: the last one lives until the process exits. One that holds no output
        // (a small document's text or NDJSON line) is freed here: keeping it cost a box, a lock and a copy.
        defer { if result.output != nil { KeptUntilExit.lastOutput.keep(result) } }
        for warning in result.warnings { context.warn("\(document.label): \(warning)") }
        for check in result.failedChecks {
          context.stderr.write(
            "receipt-tool: check failed: \(TerminalSafeText("\(document.label): \(check.replacingNewlines)"))\n")
          checkFailed = true
        }
        guard !quiet else { return }
        switch format {
        case .text:
          if several || document.line != nil {
            context.stdout.write((count > 1 ? "\n" : "") + "==> \(TerminalSafeText(document.label)) <==\n")
          }
          if let writeText = result.writeText {
            writeText(.cores) { context.stdout.write(bytes: $0) }
          } else {
            context.stdout.write(bytes: result.bytes)
          }
        case .json:
          if let value = result.json { jsonArray.append(value) }
        case .ndjson:
          context.stdout.write(bytes: result.bytes)
        }
      }
    }
    if format == .json, !quiet { jsonArray.finish() }
    if let check, count == 0 {
      // An empty input passes no check: CI must not go green on a file that came out empty.
      context.stderr.write("receipt-tool: check failed: \(check): the input holds no document to check\n")
      checkFailed = true
    }
    context.stderr.flush()
    if let firstError { return firstError }
    return checkFailed ? .checkFailed : .ok
  }

  /// `--one-customer`: reads every input, merges them into one history and answers once. A document that
  /// cannot be read is reported and left out; the answer rests on the rest.
  static func runAsOneCustomer(
    _ inputs: InputOptions, format: DocumentFormat, context: CommandContext, signatures: SignatureChecking?,
    process: (InputDocument) throws(ReceiptError) -> DocumentOutput
  ) -> ExitStatus {
    var merger = CustomerHistoryMerger()
    var firstError: ExitStatus?
    let decode = { (document: InputDocument) throws(ReceiptError) -> PurchaseHistory in
      try context.decode(document, signatures: signatures)
    }
    forEach(inputs, context: context, transform: decode) { event in
      switch event {
      case .processed(let document, let history): merger.add(history, source: document.label)
      case .failed(let error, _, _):
        context.report(error)
        if firstError == nil { firstError = error.exitStatus }
      }
    }
    guard let history = merger.history() else { return firstError ?? .dataError }
    let whole = InputDocument(source: "one customer (\(merger.documents) documents)", bytes: [], decoded: history)
    let result: Rendered
    do throws(ReceiptToolError) {
      result = try lifting { () throws(ReceiptError) in try rendered(process(whole), inputs.quiet ? nil : format) }
    } catch {
      context.report(error)
      return firstError ?? error.exitStatus
    }
    for warning in result.warnings { context.warn("\(whole.label): \(warning)") }
    for check in result.failedChecks {
      context.stderr.write("receipt-tool: check failed: \(whole.label): \(check.replacingNewlines)\n")
    }
    if !inputs.quiet {
      if format == .json {
        result.json?.write(to: context.stdout)
        context.stdout.write("\n")
      } else {
        context.stdout.write(bytes: result.bytes)
      }
    }
    context.stderr.flush()
    return firstError ?? (result.failedChecks.isEmpty ? .ok : .checkFailed)
  }

  /// Runs an aggregating command: `transform` on worker threads, then `consume` on this thread in input
  /// order. A document that fails either step is reported and listed, and the others go on.
  /// - Returns: the first failure's exit status, if any, and every failure by input.
  static func aggregate<T>(
    _ inputs: InputOptions, context: CommandContext,
    transform: (InputDocument) throws(ReceiptError) -> T,
    consume: (T) throws(ReceiptError) -> Void
  ) -> (firstError: ExitStatus?, errors: [RevenueInputError]) {
    var firstError: ExitStatus?
    var errors: [RevenueInputError] = []
    func fail(_ error: ReceiptToolError, label: String) {
      var error = error
      if case .input(let e) = error { error = .input(e.inSource(label)) }
      context.report(error)
      if firstError == nil { firstError = error.exitStatus }
      errors.append(RevenueInputError(input: label, message: error.message))
    }
    forEach(inputs, context: context, transform: transform) { event in
      switch event {
      case .failed(let error, _, let label):
        fail(error, label: label)
      case .processed(let document, let value):
        do throws(ReceiptError) {
          try consume(value)
        } catch {
          fail(document.locatedInFile(.input(error)), label: document.label)
        }
      }
    }
    return (firstError, errors)
  }

  /// A document's output, rendered on the worker thread in the format being written.
  struct Rendered {
    /// The output's failed checks and warnings.
    var failedChecks: [String]
    var warnings: [String]
    /// The text or the NDJSON line, as written.
    var bytes: [UInt8]
    var json: PendingJSON?
    /// The text, written in pieces when its turn comes (a large document); nil: `text` holds it.
    var writeText: ((InOrderParts, ([UInt8]) -> Void) -> Void)? = nil
    /// The output itself, for a large document or `--format json` (kept until the process exits if it is the
    /// last one). Any other is freed on its worker thread once rendered, with the answer and history its
    /// renderers hold, rather than on the thread that writes every document in turn.
    var output: DocumentOutput?

    init(
      _ output: DocumentOutput, keeping: Bool, bytes: [UInt8], json: PendingJSON?,
      writeText: ((InOrderParts, ([UInt8]) -> Void) -> Void)? = nil
    ) {
      failedChecks = output.failedChecks
      warnings = output.warnings
      self.bytes = bytes
      self.json = json
      self.writeText = writeText
      self.output = keeping ? output : nil
    }
  }

  /// From this size on, a document's output is written as it goes when its turn comes, rather than whole on its
  /// worker thread: it is never held whole. Smaller ones are rendered on the workers, every core at once.
  static let largeDocumentBytes = 1 << 20

  static func rendered(_ output: DocumentOutput, _ format: DocumentFormat?, large: Bool = false) -> Rendered {
    switch format {
    case .text:
      if large, let writeText = output.writeText {
        return Rendered(output, keeping: true, bytes: [], json: nil, writeText: writeText)
      }
      return Rendered(output, keeping: large, bytes: Array(output.text.rendered.utf8), json: nil)
    case .ndjson:
      // Bytes from the writer to the output, with no String between (one copy and a UTF-8 check less a line).
      var line = output.pendingJSON().bytes(pretty: false)
      line.append(0x0A)
      return Rendered(output, keeping: large, bytes: line, json: nil)
    case .json:
      // The value is kept whole with its writer: a lone document is written again at indent 0.
      var json = output.pendingJSON()
      if !large { json.element = json.bytes(pretty: true, indent: 1) }
      return Rendered(output, keeping: true, bytes: [], json: json)
    case nil: return Rendered(output, keeping: large, bytes: [], json: nil)
    }
  }
}
