import Foundation
import ReceiptTestSupport
import Testing

/// Cases about the process itself, run through the built binary.
@Suite struct ProcessRobustnessTests {
  @Test func aMissingFileExits66() throws {
    let result = try BinaryRunner.run(["decode", "no/such/file.json"])
    #expect(result.status == 66)
    #expect(result.stderr == "receipt-tool: error: no/such/file.json: no such file\n")
    #expect(result.stdout.isEmpty)
  }

  @Test func aDirectoryExits66() throws {
    let result = try BinaryRunner.run(["decode", "Tests"])
    #expect(result.status == 66)
    #expect(result.stderr == "receipt-tool: error: Tests: is a directory\n")
  }

  @Test func anUnreadableFileExits66() throws {
    guard geteuid() != 0 else {
      // root reads a mode-000 file anyway; a path through a regular file cannot be opened by anyone.
      let result = try BinaryRunner.run(["decode", "Package.swift/x.json"])
      #expect(result.status == 66)
      #expect(result.stderr == "receipt-tool: error: Package.swift/x.json: Not a directory\n")
      print("note: running as root; tested an unopenable path instead of a mode-000 file")
      return
    }
    let path = try InProcessRunner.temporaryFile(Array(#"{"status":0}"#.utf8))
    chmod(path, 0)
    let result = try BinaryRunner.run(["decode", path])
    #expect(result.status == 66)
    #expect(result.stderr == "receipt-tool: error: \(path): permission denied\n")
  }

  /// A file that opens but fails to read (EIO) is an I/O error, 74.
  @Test func aReadFailureExits74() throws {
    guard FileManager.default.fileExists(atPath: "/proc/self/mem") else { return }
    let result = try BinaryRunner.run(["decode", "/proc/self/mem"])
    #expect(result.status == 74)
    #expect(result.stderr.hasPrefix("receipt-tool: error: /proc/self/mem: read failed: "))
  }

  /// One bad file among good ones: the others are still processed, the status is the first failure's.
  @Test func oneBadFileDoesNotStopTheOthers() throws {
    let good = try InProcessRunner.temporaryFile(Array(#"{"status":0,"receipt":{"bundle_id":"b"}}"#.utf8))
    let result = try BinaryRunner.run(["decode", "missing.json", good, "--format", "ndjson"])
    #expect(result.status == 66)
    #expect(result.stdout.split(separator: "\n").count == 2)
  }

  /// `receipt-tool decode big.json | head -1`: the reader goes away, the tool stops quietly, no crash report.
  @Test func standardOutputClosedEarlyEndsQuietly() throws {
    let rows = (0..<20_000).map { #"{"transaction_id":"\#($0)","product_id":"p","purchase_date_ms":"1600000000000"}"# }
    let path = try InProcessRunner.temporaryFile(
      Array(#"{"status":0,"latest_receipt_info":[\#(rows.joined(separator: ","))]}"#.utf8))
    for format in ["text", "json"] {
      let script =
        "'\(TestPaths.binary.path)' decode '\(path)' --format \(format) | head -1; echo \"status ${PIPESTATUS[0]}\""
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/bash")
      process.arguments = ["-c", script]
      var env = ProcessInfo.processInfo.environment
      env["SWIFT_BACKTRACE"] = "enable=yes"  // a crash would print a report; there must be none
      process.environment = env
      let out = Pipe()
      let err = Pipe()
      process.standardOutput = out
      process.standardError = err
      try process.run()
      let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      let lines = stdout.split(separator: "\n")
      #expect(lines.count == 2, "\(format): \(stdout)")
      #expect(lines.last == "status 0", "\(format)")
      #expect(stderr.isEmpty, "\(format): \(stderr)")
    }
  }
}
