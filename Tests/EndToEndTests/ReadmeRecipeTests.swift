import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The README's first screen, tour, CI recipe, jq recipes and command sections, and the Spark page's map and
/// reduce, show real output: each `$ ` command in their console blocks is run with bash from the repository
/// root (receipt-tool on PATH, as the tour sets it up) and must print what the page shows. `$ echo $?` shows
/// the previous command's exit status.
@Suite struct ReadmeRecipeTests {
  struct Step: Sendable, CustomStringConvertible {
    var command: String
    var expected: String
    var description: String { command }
  }

  /// Each tested section and the page that holds it, relative to the repository root.
  static let pages = [
    "first-screen": "README.md", "tour": "README.md", "ci": "README.md", "jq": "README.md",
    "commands": "README.md", "spark": "examples/spark/README.md",
  ]

  static func section(_ name: String) -> String {
    let page = pages[name] ?? "README.md"
    let readme =
      (try? String(contentsOf: TestPaths.packageRoot.appendingPathComponent(page), encoding: .utf8)) ?? ""
    guard let start = readme.range(of: "<!-- section: \(name) -->"),
      let end = readme.range(of: "<!-- end: \(name) -->", range: start.upperBound..<readme.endIndex)
    else { return "" }
    return String(readme[start.upperBound..<end.lowerBound])
  }

  /// Each console block's commands and the output under each.
  static func steps(in text: String) -> [[Step]] {
    var blocks: [[Step]] = []
    var current: [Step]?
    for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
      if line == "```console" {
        current = []
      } else if line.hasPrefix("```"), let block = current {
        blocks.append(block)
        current = nil
      } else if current != nil {
        if line.hasPrefix("$ ") {
          current?.append(Step(command: String(line.dropFirst(2)), expected: ""))
        } else if var last = current?.popLast() {
          last.expected += line + "\n"
          current?.append(last)
        }
      }
    }
    return blocks
  }

  static func run(_ command: String, catalog: String?) throws -> (String, Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = TestPaths.packageRoot
    var env = ProcessInfo.processInfo.environment
    env["PATH"] = TestPaths.binary.deletingLastPathComponent().path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env["NO_COLOR"] = "1"
    env["COLUMNS"] = "80"
    env["RECEIPT_TOOL_CATALOG"] = catalog
    process.environment = env
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // The outputs are small; read stderr after stdout as the README shows it.
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (String(decoding: o + e, as: UTF8.self), process.terminationStatus)
  }

  @Test(arguments: ["first-screen", "tour", "ci", "jq", "commands", "spark"])
  func recipeOutputIsReal(_ name: String) throws {
    let text = Self.section(name)
    try #require(!text.isEmpty, "\(Self.pages[name] ?? "README.md") has no section \(name)")
    guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { return }
    let usesJQ = text.contains("| jq ")
    if usesJQ,
      !["/usr/bin/jq", "/usr/local/bin/jq", "/opt/homebrew/bin/jq"].contains(
        where: FileManager.default.isExecutableFile)
    {
      print("note: jq is not installed; skipping the README \(name) recipes")
      return
    }
    // The tour names its catalog once, with export, as a reader would.
    let catalog =
      name != "tour"
      ? nil
      : text.range(of: "export RECEIPT_TOOL_CATALOG=").map {
        String(text[$0.upperBound...].prefix { !$0.isWhitespace })
      }
    let blocks = Self.steps(in: text)
    #expect(!blocks.isEmpty)
    for block in blocks {
      var lastStatus: Int32 = 0
      for step in block {
        if step.command == "echo $?" {
          #expect(step.expected == "\(lastStatus)\n", "README \(name): exit status after the previous command")
          continue
        }
        let (output, status) = try Self.run(step.command, catalog: catalog)
        lastStatus = status
        #expect(output == step.expected, "README \(name): `\(step.command)` prints something else:\n\(output)")
      }
    }
  }

  /// The README's first screen (its first 40 lines) names every input kind and every command, and shows an
  /// answer (a console block the recipe test runs).
  @Test func firstScreenNamesEveryInputKindAndCommand() throws {
    let readme = try String(
      contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    let screen = readme.split(separator: "\n", omittingEmptySubsequences: false).prefix(40).joined(separator: "\n")
    for kind in ManPageTests.inputKinds {
      #expect(kind.allSatisfy(screen.contains), "README's first screen does not name \(kind)")
    }
    for command in ReceiptTool.commands {
      #expect(screen.contains("`\(command.name)`"), "README's first screen does not name \(command.name)")
    }
    let answer = Self.section("first-screen")
    #expect(screen.contains(answer) && !Self.steps(in: answer).joined().isEmpty)
  }
}
