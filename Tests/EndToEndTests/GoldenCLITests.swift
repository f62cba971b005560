import Foundation
import ReceiptTestSupport
import Testing

/// End-to-end tests in the style of xcbeautify's CLI tests: each directory under Tests/CLITests
/// holds `cmd` (the arguments after `receipt-tool`, run from the repository root), and the expected
/// `stdout`, `stderr` and `status`; optionally `env` (KEY=VALUE lines) and `terminal` (run with standard
/// output on a pseudo-terminal). `RECORD_GOLDENS=1 swift test --filter GoldenCLITests` rewrites them.
@Suite struct GoldenCLITests {
  static let casesDirectory = TestPaths.packageRoot.appendingPathComponent("Tests/CLITests")

  static var caseNames: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: casesDirectory.path)) ?? []
    return names.filter {
      FileManager.default.fileExists(
        atPath: casesDirectory.appendingPathComponent($0).appendingPathComponent("cmd").path)
    }.sorted()
  }

  /// Splits `cmd` into arguments: whitespace-separated, with '...' or "..." quoting.
  static func arguments(_ line: String) -> [String] {
    var args: [String] = []
    var current = ""
    var quote: Character?
    var inWord = false
    for c in line.trimmingCharacters(in: .whitespacesAndNewlines) {
      if let q = quote {
        if c == q { quote = nil } else { current.append(c) }
      } else if c == "'" || c == "\"" {
        quote = c
        inWord = true
      } else if c == " " || c == "\t" {
        if inWord { args.append(current) }
        current = ""
        inWord = false
      } else {
        current.append(c)
        inWord = true
      }
    }
    if inWord { args.append(current) }
    return args
  }

  @Test(arguments: GoldenCLITests.caseNames)
  func golden(_ name: String) throws {
    let dir = Self.casesDirectory.appendingPathComponent(name)
    let cmd = try String(contentsOf: dir.appendingPathComponent("cmd"), encoding: .utf8)
    var stdin: Data?
    let stdinFile = dir.appendingPathComponent("stdin")
    if FileManager.default.fileExists(atPath: stdinFile.path) { stdin = try Data(contentsOf: stdinFile) }
    // `env`: KEY=VALUE lines added to the environment (COLUMNS, NO_COLOR=, TERM); `terminal`: standard
    // output is a terminal, as for colour.
    var environment: [String: String] = [:]
    if let env = try? String(contentsOf: dir.appendingPathComponent("env"), encoding: .utf8) {
      for line in env.split(separator: "\n") {
        guard let eq = line.firstIndex(of: "=") else { continue }
        environment[String(line[..<eq])] = String(line[line.index(after: eq)...])
      }
    }
    let onTerminal = FileManager.default.fileExists(atPath: dir.appendingPathComponent("terminal").path)
    if onTerminal, BinaryRunner.python == nil {
      print("note: python3 is absent; skipping the terminal golden case \(name)")
      return
    }
    let result = try BinaryRunner.run(
      Self.arguments(cmd), stdin: stdin, environment: environment, onTerminal: onTerminal)
    #expect(!result.signalled, "receipt-tool crashed on \(name)")
    let actual = ["stdout": result.stdout, "stderr": result.stderr, "status": "\(result.status)\n"]
    if ProcessInfo.processInfo.environment["RECORD_GOLDENS"] != nil {
      for (file, text) in actual {
        try text.write(to: dir.appendingPathComponent(file), atomically: true, encoding: .utf8)
      }
      print("recorded \(name)")
      return
    }
    for file in ["stdout", "stderr", "status"] {
      let expectedURL = dir.appendingPathComponent(file)
      let expected = try #require(
        try? String(contentsOf: expectedURL, encoding: .utf8), "missing \(name)/\(file); run with RECORD_GOLDENS=1")
      #expect(actual[file] == expected, "\(name)/\(file) differs from the golden file")
    }
  }

  @Test func everyCaseHasAllThreeGoldens() {
    for name in Self.caseNames {
      for file in ["stdout", "stderr", "status"] {
        #expect(
          FileManager.default.fileExists(
            atPath: Self.casesDirectory.appendingPathComponent(name).appendingPathComponent(file).path),
          "\(name)/\(file)")
      }
    }
  }
}
