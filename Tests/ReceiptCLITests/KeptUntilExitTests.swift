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
}
