import Foundation
import ReceiptTestSupport
import Testing

/// Batch input through the built binary: one output line per NDJSON line, and bounded memory.
@Suite struct BatchBinaryTests {
  static var packageRoot: URL {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while dir.path != "/", !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
      dir.deleteLastPathComponent()
    }
    return dir
  }

  /// The release build: a debug build needs minutes for 100 MB.
  static var releaseBinary: String? {
    let path = packageRoot.appendingPathComponent(".build/release/receipt-tool").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
  }

  static var binary: String? {
    let dir = packageRoot
    let candidates = [
      URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent().appendingPathComponent(
        "receipt-tool"
      ).path,
      dir.appendingPathComponent(".build/debug/receipt-tool").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  @Test func broken_lines_in_the_middle_give_one_output_line_each_and_exit_65() throws {
    let binary = try #require(Self.binary, "receipt-tool binary not built")
    let good = SyntheticReceipts.verifyReceipt(index: 1, transactions: 3)
    let input = [good, "{\"status\": 0, \"receipt\": ", good, "not json", "[1,2]", good].joined(separator: "\n") + "\n"
    let path = try InProcessRunner.temporaryFile(Array(input.utf8), name: "broken.ndjson")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["decode", "--format", "ndjson", path]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = Pipe()
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 65)
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    #expect(lines.count == 6)
    for (i, line) in lines.enumerated() {
      #expect(
        line.hasPrefix("{\"schema_version\":1,\"input\":{\"file\":\"\(path)\",\"line\":\(i + 1)}"),
        "line \(i + 1): \(line.prefix(80))")
    }
    #expect([1, 3, 4].allSatisfy { lines[$0].contains("\"error\":{\"exit_code\":65") })
    #expect([0, 2, 5].allSatisfy { !lines[$0].contains("\"error\"") })
  }

  /// 100+ MB of NDJSON through a pipe: every line comes out, and peak RSS stays under the
  /// 64 MiB target, which holding the input would exceed. Lines carry a 200 KB latest_receipt
  /// (decode prints only its length) so that a debug build gets through in seconds.
  @Test func batch_larger_than_memory_target_streams_in_bounded_memory() throws {
    guard let binary = Self.releaseBinary else {
      print(
        "note: SKIPPED batch_larger_than_memory_target_streams_in_bounded_memory: run `swift build -c release` first")
      return
    }
    let timeTool = "/usr/bin/time"
    let measureRSS = FileManager.default.isExecutableFile(atPath: timeTool)
    if !measureRSS { print("note: \(timeTool) missing; peak RSS is not checked, only line counts") }
    let line = Data(
      (SyntheticReceipts.verifyReceipt(index: 7, transactions: 2, latestReceiptBytes: 200_000) + "\n").utf8)
    let repeats = 105_000_000 / line.count + 1
    let rssFile = Scratch.directory.appendingPathComponent("batch-rss-\(getpid())").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    let measured = measureRSS ? "\(timeTool) -f %M -o '\(rssFile)' '\(binary)'" : "'\(binary)'"
    process.arguments = ["-c", "\(measured) decode --format ndjson | wc -l"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    let writer = Thread {
      for _ in 0..<repeats { input.fileHandleForWriting.write(line) }
      try? input.fileHandleForWriting.close()
    }
    writer.start()
    let counted = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(Int(counted.trimmingCharacters(in: .whitespacesAndNewlines)) == repeats)
    #expect(repeats * line.count > 100_000_000)
    if measureRSS {
      let text = try String(contentsOfFile: rssFile, encoding: .utf8)
      let kib = try #require(
        Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last ?? ""))
      print("batch of \(repeats * line.count / 1_000_000) MB: peak RSS \(kib / 1024) MiB")
      #expect(kib <= 64 * 1024, "peak RSS \(kib) KiB exceeds 64 MiB")
    }
  }
}
