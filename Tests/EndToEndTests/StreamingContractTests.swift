import Foundation
import ReceiptTestSupport
import Testing

/// The Hadoop-streaming contract without Hadoop: `map | sort | reduce | merge`, with the export cut in two so that
/// every customer's two stored receipts (which repeat transactions) land in different halves.
@Suite struct StreamingContractTests {
  @Test func mapSortReduceMergeEqualsOneMachine() throws {
    let binary = try #require(BatchBinaryTests.binary, "receipt-tool binary not built")
    let short = (0..<8).map { SyntheticReceipts.verifyReceipt(index: $0, transactions: 5) }
    let long = (0..<8).map { SyntheticReceipts.verifyReceipt(index: $0, transactions: 12) }
    let dir = Scratch.directory.appendingPathComponent("streaming-\(getpid())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try ((short + long).joined(separator: "\n") + "\n").write(
      toFile: dir + "/export.ndjson", atomically: true, encoding: .utf8)
    let catalog = TestPaths.packageRoot.appendingPathComponent("examples/revenue-catalog.json").path
    let options = "--by month --commission standard"
    let script = """
      set -e
      cd '\(dir)'
      '\(binary)' revenue --catalog '\(catalog)' --ndjson \(options) --format json export.ndjson > one.json
      head -n 8 export.ndjson > a.ndjson; tail -n 8 export.ndjson > b.ndjson
      for p in a b; do '\(binary)' revenue --catalog '\(catalog)' --ndjson --format keyed-ledger $p.ndjson; done \
        | LC_ALL=C sort > ledger.tsv
      # As a shuffle does: every line of one key to the same reduce (by the key's last digit).
      awk -F '\t' '{ print > ("part." substr($1, length($1)) % 3) }' ledger.tsv
      for p in part.*; do '\(binary)' revenue --from-ledger \(options) --format json $p; done > parts.ndjson
      '\(binary)' revenue --merge --ndjson --format json parts.ndjson > merged.json
      """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script]
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    func output(_ name: String) throws -> String { try String(contentsOfFile: dir + "/" + name, encoding: .utf8) }
    let one = try output("one.json")
    // 8 customers × 5 transactions in both receipts, plus the in_app rows repeating latest_receipt_info (2 + 3 each).
    #expect(one.contains("\"duplicates_merged\": 80"))
    // Byte for byte, identity included: the shards' digests sum to the one machine's.
    #expect(try output("merged.json") == one)
  }
}
