import Foundation

/// Paths the tests need, found from this file's location so they work from any working directory.
package enum TestPaths {
  /// The package root: the nearest directory above this file holding Package.swift.
  package static let packageRoot: URL = {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while dir.path != "/" {
      if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
      dir = dir.deletingLastPathComponent()
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
  }()

  /// man/receipt-tool.1, which the docs tests hold to the help text and the notification table.
  package static let manPage = packageRoot.appendingPathComponent("man/receipt-tool.1")

  /// `../shared` beside the project: reference material that a user's own clone does not have.
  /// `RECEIPT_TOOL_HIDE_SHARED=1` hides it, so CI also runs the suite as a user's clone would.
  package static var shared: URL? {
    if ProcessInfo.processInfo.environment["RECEIPT_TOOL_HIDE_SHARED"] == "1" { return nil }
    let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
    return FileManager.default.fileExists(atPath: url.path) ? url : nil
  }

  /// The built `receipt-tool` binary (swift test builds it because the test target depends on it).
  package static var binary: URL {
    let bundle = Bundle(for: BundleMarker.self).bundleURL
    let candidates = [
      bundle.deletingLastPathComponent().appendingPathComponent("receipt-tool"),
      bundle.appendingPathComponent("receipt-tool"),
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
  }

  /// Prints why a test that needs ../shared did nothing, so a skip is never silent.
  package static func noteSharedMissing(_ what: String) {
    print("note: ../shared is absent (as in a user's own clone); skipping \(what)")
  }

  /// The bytes of `../shared/peer-fixtures/<name>`, or nil where ../shared or the file is absent.
  package static func peerFixture(_ name: String) -> [UInt8]? {
    guard let shared else { return nil }
    let url = shared.appendingPathComponent("peer-fixtures").appendingPathComponent(name)
    return (try? Data(contentsOf: url)).map { Array($0) }
  }

  /// DECODED_RECEIPTS.json from the peer fixtures (values derived independently with pyasn1), by file; empty
  /// where ../shared is absent.
  package static var decodedAppReceipts: [String: [String: Any]] {
    guard let bytes = peerFixture("DECODED_RECEIPTS.json"),
      let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any],
      let receipts = object["receipts"] as? [String: [String: Any]]
    else { return [:] }
    return receipts
  }

  /// Every file under examples/ and, when ../shared is there, under its peer fixtures (else a note names `what`
  /// as skipped).
  package static func exampleAndPeerFixtureFiles(for what: String) -> [URL] {
    var roots = [packageRoot.appendingPathComponent("examples")]
    if let shared {
      roots.append(shared.appendingPathComponent("peer-fixtures"))
    } else {
      noteSharedMissing("the peer fixtures in \(what)")
    }
    var files: [URL] = []
    for root in roots {
      let all = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
      while let url = all?.nextObject() as? URL { files.append(url) }
    }
    return files
  }

  /// The documents the reference tests of fast readers run on: the examples, the peer fixtures (skipped with a
  /// note without ../shared), the fuzz seeds and regressions, and, with `goldenInputs`, the end-to-end goldens'
  /// files.
  package static func corpusFiles(for what: String, goldenInputs: Bool = true) -> [URL] {
    var urls = exampleAndPeerFixtureFiles(for: what)
    urls += regularFiles(under: packageRoot.appendingPathComponent("Tests/Fuzz"))
    if goldenInputs { urls += regularFiles(under: packageRoot.appendingPathComponent("Tests/CLITests")) }
    return urls
  }

  /// The regular files under `directory`, in path order.
  package static func regularFiles(under directory: URL) -> [URL] {
    let all = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    return (all?.compactMap { $0 as? URL } ?? []).filter {
      (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }
    .sorted { $0.path < $1.path }
  }
}

/// The path of a file in the repository, from its path relative to the root.
package func repoFile(_ relative: String) -> String { TestPaths.packageRoot.appendingPathComponent(relative).path }

package final class BundleMarker {}

/// Runs the built binary and captures everything it says.
package struct ProcessResult {
  package var stdout: String
  package var stderr: String
  package var status: Int32
  /// True when the process died of a signal (a crash), not an exit.
  package var signalled: Bool
}

package enum BinaryRunner {
  /// python3, which `onTerminal` runs need; nil where it is absent.
  package static var python: String? {
    ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"].first(
      where: FileManager.default.isExecutableFile)
  }

  /// Runs argv[1...] with standard output on a pseudo-terminal in raw mode (so newlines stay "\n"),
  /// then copies what it wrote to this script's standard output and passes its exit status on.
  package static let onTerminalScript = """
    import os, subprocess, sys, tty
    master, slave = os.openpty()
    tty.setraw(slave)
    child = subprocess.Popen(sys.argv[1:], stdout=slave)
    os.close(slave)
    out = b''
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    sys.stdout.buffer.write(out)
    sys.exit(child.wait())
    """

  /// Runs the binary. `onTerminal` puts its standard output on a pseudo-terminal (through python3, which
  /// the caller checks for with `python`), as a user's terminal would.
  package static func run(
    _ arguments: [String], stdin: Data? = nil, environment extra: [String: String] = [:],
    currentDirectory: URL = TestPaths.packageRoot, onTerminal: Bool = false
  ) throws -> ProcessResult {
    let process = Process()
    if onTerminal, let python {
      process.executableURL = URL(fileURLWithPath: python)
      process.arguments = ["-c", onTerminalScript, TestPaths.binary.path] + arguments
    } else {
      process.executableURL = TestPaths.binary
      process.arguments = arguments
    }
    process.currentDirectoryURL = currentDirectory
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "80"
    env["SWIFT_BACKTRACE"] = "enable=no"
    env.removeValue(forKey: "RECEIPT_TOOL_CATALOG")
    for (k, v) in extra { env[k] = v }
    process.environment = env
    let out = Pipe()
    // stderr goes to a file so a chatty child cannot block on a full pipe while stdout is read.
    let errURL = Scratch.directory.appendingPathComponent(
      "receipt-tool-stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)  // FileHandle below fails if it could not
    let errHandle = try FileHandle(forWritingTo: errURL)
    defer { try? FileManager.default.removeItem(at: errURL) }
    let input = Pipe()
    process.standardOutput = out
    process.standardError = errHandle
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try? input.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try? errHandle.close()
    let errData = (try? Data(contentsOf: errURL)) ?? Data()
    return ProcessResult(
      stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
      status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal)
  }
}
