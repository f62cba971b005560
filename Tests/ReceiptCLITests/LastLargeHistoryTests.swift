import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Only the process's own context keeps the last large history from being freed, only for large documents, and
/// the one kept goes when the next large document starts. One test, since the slot is the process's.
@Suite struct LastLargeHistoryTests {
  @Test func onlyTheProcessContextKeepsOnlyALargeHistory() throws {
    let large = Array(SyntheticReceipts.verifyReceipt(index: 2, transactions: 6_000).utf8)
    let small = Array(SyntheticReceipts.verifyReceipt(index: 3, transactions: 5).utf8)
    #expect(large.count >= LastLargeHistory.minimumBytes)
    func context(keeping: Bool) -> CommandContext {
      let context = CommandContext(
        environment: ProcessEnvironment(variables: [:], stdoutIsTerminal: false), stdout: OutputSink(fd: 1),
        stderr: OutputSink(fd: 2))
      context.keepsLastLargeHistory = keeping
      return context
    }
    LastLargeHistory.process.release()
    // A test's context keeps nothing.
    _ = try context(keeping: false).decode(InputDocument(source: "large.json", bytes: large), signatures: nil)
    #expect(LastLargeHistory.process.heldTransactions == nil)
    // The process's keeps a large document's history, and not a small one's.
    let keeping = context(keeping: true)
    let history = try keeping.decode(InputDocument(source: "large.json", bytes: large), signatures: nil)
    #expect(LastLargeHistory.process.heldTransactions == history.transactions.count)
    _ = try keeping.decode(InputDocument(source: "small.json", bytes: small), signatures: nil)
    #expect(LastLargeHistory.process.heldTransactions == history.transactions.count)
    LastLargeHistory.process.release()
    #expect(LastLargeHistory.process.heldTransactions == nil)
  }
}
