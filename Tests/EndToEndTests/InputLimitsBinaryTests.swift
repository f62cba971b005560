import Dispatch
import Foundation
import ReceiptTestSupport
import Testing

/// The input limits through the built binary (issue 20, items 7 to 9): checked before reading, on files,
/// standard input and NDJSON lines; and a result shows as soon as its line arrives on a live pipe.
@Suite struct InputLimitsBinaryTests {
  @Test func aDocumentOverTheLimitFailsAtOnceNamingTheLimitAndTheWayAround() throws {
    let path = try Scratch.sparseFile(size: 1_200_000_000)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let clock = ContinuousClock()
    let start = clock.now
    let r = try BinaryRunner.run(["entitlements", path])
    #expect(clock.now - start < .seconds(5))
    #expect(r.status == 65)
    #expect(!r.signalled)
    #expect(r.stdout.isEmpty)
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1)
    #expect(r.stderr.contains("1200000000 bytes"))
    #expect(r.stderr.contains("1073741824 bytes (1 GiB)"))
    #expect(r.stderr.contains("--max-document-size"))
    #expect(r.stderr.contains("NDJSON"))
  }

  @Test func aHugeFileOfNULBytesFailsAtItsFirstByteWithoutReadingTheRest() throws {
    let path = try Scratch.sparseFile(size: 1_200_000_000)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let clock = ContinuousClock()
    let start = clock.now
    let r = try BinaryRunner.run(["entitlements", "--max-document-size", "2G", path])
    #expect(clock.now - start < .seconds(5))
    #expect(r.status == 65)
    #expect(r.stderr == "receipt-tool: error: \(path):1:1: unexpected NUL byte; expected a value\n")
  }

  @Test func theLimitAppliesToStandardInputAndToNDJSONLines() throws {
    let doc = SyntheticReceipts.verifyReceipt(index: 1, transactions: 3)
    let piped = try BinaryRunner.run(["decode", "--max-document-size", "1K"], stdin: Data(doc.utf8))
    #expect(piped.status == 65)
    #expect(piped.stderr.contains("<stdin>: the document is at least"))
    #expect(piped.stderr.contains("1024 bytes (1 KiB)"))
    let lines = Data((doc + "\n" + doc + "\n").utf8)
    let batch = try BinaryRunner.run(["decode", "--ndjson", "--max-document-size", "1K"], stdin: lines)
    #expect(batch.status == 65)
    #expect(batch.stderr.contains("<stdin>:1: the document is \(doc.utf8.count) bytes"))
    // Raised, the same input is read.
    let raised = try BinaryRunner.run(["decode", "--ndjson", "--max-document-size", "64K"], stdin: lines)
    #expect(raised.status == 0)
  }

  @Test func aBadSizeIsAUsageError() throws {
    for bad in ["0", "x", "1.5", "-1", "99999999999999999999", "2X"] {
      let r = try BinaryRunner.run(["decode", "--max-document-size", bad, "examples/batch.ndjson"])
      #expect(r.status == 64, "\(bad)")
      #expect(r.stderr.contains("--max-document-size"), "\(bad)")
    }
  }

  @Test func aResultShowsAsSoonAsItsLineArrivesOnAPipe() throws {
    let process = Process()
    process.executableURL = TestPaths.binary
    process.arguments = ["entitlements", "--ndjson", "--format", "ndjson"]
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    process.environment = env
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
      try? input.fileHandleForWriting.close()
      process.waitUntilExit()
    }
    let line = SyntheticReceipts.verifyReceipt(index: 2, transactions: 2) + "\n"
    input.fileHandleForWriting.write(Data(line.utf8))
    // The input stays open: the result must come without waiting for more.
    let got = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var first = Data()
    let reader = output.fileHandleForReading
    DispatchQueue.global().async {
      while !first.contains(0x0A) {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        first.append(chunk)
      }
      got.signal()
    }
    #expect(got.wait(timeout: .now() + 20) == .success)
    #expect(String(decoding: first, as: UTF8.self).hasPrefix("{"))
  }

}
