import ReceiptFormats
import Testing

@testable import ReceiptCLI

/// `KeptUntilExit` (FAST-PATHS.md: the last document's output kept until the process exits): what it keeps
/// stays alive, and keeping the next one destroys it, so a run never holds more than one output.
@Suite struct KeptUntilExitTests {
  private final class Output {}

  @Test func keepingAnOutputDestroysTheOneKeptBefore() {
    let holder = KeptUntilExit()
    #expect(!holder.isHolding)
    weak var first: Output?
    weak var second: Output?
    do {
      let output = Output()
      first = output
      holder.keep(output)
    }
    #expect(first != nil, "the last output is kept")
    do {
      let output = Output()
      second = output
      holder.keep(output)
    }
    #expect(first == nil, "the output kept before is destroyed")
    #expect(second != nil && holder.isHolding)
  }

  /// A small document's output is freed once rendered (on its worker thread), with what its renderers hold; a
  /// large one's and a `--format json` one's are held (the former kept until exit if last); every format keeps
  /// the failed checks and warnings.
  @Test func onlyALargeOrJSONOutputIsHeldOnceRendered() {
    weak var held: Output?
    // The renderers hold `answer`, as a command's hold the answer and the history.
    func text(_ answer: Output) -> TerminalText { "text\n" }
    func json(_ answer: Output) -> JSONValue { .object([("a", .int(1))]) }
    func output() -> DocumentOutput {
      let answer = Output()
      held = answer
      return DocumentOutput(
        text: text(answer), json: json(answer), failedChecks: ["check"], warnings: ["warning"])
    }
    let cases: [(DocumentFormat?, Bool, Bool)] = [
      (.ndjson, false, false), (.text, false, false), (nil, false, false), (.json, false, true), (.ndjson, true, true),
      (.text, true, true),
    ]
    for (format, large, holds) in cases {
      let rendered = DocumentRunner.rendered(output(), format, large: large)
      #expect((rendered.output != nil) == holds, "\(String(describing: format)) large \(large)")
      #expect((held != nil) == holds, "\(String(describing: format)) large \(large)")
      #expect(rendered.failedChecks == ["check"] && rendered.warnings == ["warning"])
    }
    #expect(String(decoding: DocumentRunner.rendered(output(), .ndjson).bytes, as: UTF8.self) == "{\"a\":1}\n")
  }
}
