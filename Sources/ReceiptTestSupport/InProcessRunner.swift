import Foundation
import ReceiptCLI
import ReceiptFormats
import ReceiptModel

/// Runs `ReceiptTool.run` in this process with standard output and error captured in temporary files.
package enum InProcessRunner {
  package struct Result {
    package var status: ReceiptCLI.ExitStatus
    package var stdout: String
    package var stderr: String
    package var seconds: Double
  }

  /// - Parameters:
  ///   - arguments: the command line after `receipt-tool`.
  ///   - environment: the process environment the command sees.
  ///   - formats: the input formats it reads (a test may register its own).
  /// - Returns: the exit status and everything written.
  package static func run(
    _ arguments: [String], environment: [String: String] = [:], formats: FormatRegistry = .standard
  ) -> Result {
    let dir = Scratch.directory
    let outPath = dir.appendingPathComponent("rt-out-\(UUID().uuidString)").path
    let errPath = dir.appendingPathComponent("rt-err-\(UUID().uuidString)").path
    let outFD = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let errFD = open(errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    defer {
      try? FileManager.default.removeItem(atPath: outPath)
      try? FileManager.default.removeItem(atPath: errPath)
    }
    let context = CommandContext(
      environment: ProcessEnvironment(variables: environment, stdoutIsTerminal: false),
      stdout: OutputSink(fd: outFD), stderr: OutputSink(fd: errFD), formats: formats)
    let clock = ContinuousClock()
    let start = clock.now
    let status = ReceiptTool.run(arguments: arguments, context: context)
    let elapsed = clock.now - start
    context.stderr.flush()
    close(outFD)
    close(errFD)
    let out = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
    let err = (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Result(
      status: status, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self),
      seconds: seconds)
  }

  /// Writes `bytes` to a fresh temporary file and returns its path.
  package static func temporaryFile(_ bytes: [UInt8], name: String = "input.json") throws -> String {
    let dir = Scratch.directory.appendingPathComponent("rt-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let url = dir.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url.path
  }
}
