import Foundation
import ReceiptTestSupport
import Testing

/// examples/spark/revenue_job.py in local[2] mode, against one machine's report. Runs when the python named by
/// RECEIPT_TOOL_SPARK_PYTHON (which .ci/run exports) imports pyspark; otherwise skips with a note.
@Suite struct SparkJobTests {
  static var python: String? {
    let env = ProcessInfo.processInfo.environment
    let home = env["HOME"] ?? ""
    let candidates = [env["RECEIPT_TOOL_SPARK_PYTHON"] ?? "", home + "/.cache/receipt-tool-venv/bin/python"]
    return candidates.first { !$0.isEmpty && FileManager.default.isExecutableFile(atPath: $0) }
  }

  static func run(_ executable: String, _ arguments: [String], in dir: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: dir)
    var env = ProcessInfo.processInfo.environment
    env["PYSPARK_SUBMIT_ARGS"] = "--master local[2] pyspark-shell"
    process.environment = env
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  @Test func jobEqualsOneMachine() throws {
    let binary = try #require(BatchBinaryTests.binary, "receipt-tool binary not built")
    guard let python = Self.python, try Self.run(python, ["-c", "import pyspark"], in: "/") == 0 else {
      print("note: SparkJobTests skipped: no python with pyspark (set RECEIPT_TOOL_SPARK_PYTHON; .ci/run makes one)")
      return
    }
    // Each customer's short receipt in the first half and long one in the second: textFile's two byte-range
    // splits put the copies of a transaction in different partitions.
    let short = (0..<8).map { SyntheticReceipts.verifyReceipt(index: $0, transactions: 5) }
    let long = (0..<8).map { SyntheticReceipts.verifyReceipt(index: $0, transactions: 12) }
    let dir = Scratch.directory.appendingPathComponent("spark-\(getpid())").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try ((short + long).joined(separator: "\n") + "\n").write(
      toFile: dir + "/export.ndjson", atomically: true, encoding: .utf8)
    let root = TestPaths.packageRoot.path
    // The synthetic receipts' products, priced, so that every currency has money whose backing is compared.
    let catalog = dir + "/catalog.json"
    try #"""
    {"products": [
      {"product_id": "com.example.coins.100", "type": "consumable", "price": "0.99", "currency": "USD"},
      {"product_id": "com.example.pro.monthly", "type": "auto_renewable", "subscription_group": "1",
       "price": "9.99", "currency": "USD"},
      {"product_id": "com.example.pro.yearly", "type": "auto_renewable", "subscription_group": "1",
       "price": "99.99", "currency": "USD"},
      {"product_id": "com.example.unlock", "type": "non_consumable", "price": "4.99", "currency": "EUR"}
    ]}
    """#.write(toFile: catalog, atomically: true, encoding: .utf8)
    let options = ["--by", "month", "--commission", "standard"]
    let job = root + "/examples/spark/revenue_job.py"
    #expect(
      try Self.run(
        python, [job, binary, catalog, "export.ndjson", "spark.json", "--partitions", "3"] + options, in: dir)
        == 0)
    let one = Process()
    one.executableURL = URL(fileURLWithPath: binary)
    one.arguments = ["revenue", "--catalog", catalog, "--ndjson", "--format", "json"] + options + ["export.ndjson"]
    one.currentDirectoryURL = URL(fileURLWithPath: dir)
    let out = Pipe()
    one.standardOutput = out
    try one.run()
    let single = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    one.waitUntilExit()
    let spark = try String(contentsOfFile: dir + "/spark.json", encoding: .utf8)
    #expect(single.contains("\"duplicates_merged\": 80"))
    #expect(single.contains(#""currency": "EUR""#) && single.contains(#""currency": "USD""#))
    // verifyReceipt JSON carries no signature: none of its money is backed, and the job says so as one machine.
    #expect(single.contains(#""reason": "unsigned""#))
    #expect(!single.contains(#""reason": "not_recorded""#))
    // Byte for byte, identity included: the shards' digests sum to the one machine's.
    #expect(spark == single)
  }
}
