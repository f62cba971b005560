import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The man page and `--help` must tell the same story.
@Suite struct ManPageTests {
  static let manPage = TestPaths.manPage

  @Test func everyOptionHelpShowsIsInTheManPage() throws {
    let text = try String(contentsOf: Self.manPage, encoding: .utf8)
    for command in ReceiptTool.commands {
      #expect(text.contains(".Cm \(command.name)"), "man page lacks subcommand \(command.name)")
      for option in command.options {
        #expect(text.contains("Fl -\(option.name)"), "man page lacks --\(option.name) of \(command.name)")
      }
    }
    for global in ["version", "help", "generate-completion-script"] {
      #expect(text.contains("Fl -\(global)"), "man page lacks --\(global)")
    }
  }

  /// Every status the tool can report, the environment it reads and the man page sections a reader looks for.
  @Test func everyStatusAndEnvironmentVariableIsDocumented() throws {
    let text = try String(contentsOf: Self.manPage, encoding: .utf8)
    for state in EntitlementState.allCases {
      #expect(text.contains(".It Cm \(state.rawValue)\n"), "man page lacks entitlement status \(state.rawValue)")
    }
    for status in IntroEligibilityStatus.allCases {
      #expect(
        text.contains(".It Li \(status.rawValue)\n"), "man page lacks intro-eligibility status \(status.rawValue)")
    }
    for variable in ["RECEIPT_TOOL_CATALOG", "NO_COLOR", "COLUMNS"] {
      #expect(text.contains(".It Ev \(variable)\n"), "man page ENVIRONMENT lacks \(variable)")
    }
    for section in ["ENVIRONMENT", "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
      #expect(text.contains(".Sh \(section)\n"), "man page lacks \(section)")
    }
    #expect(text.contains(".Ss Family Sharing\n"))
    for code in [0, 1, 64, 65, 66, 70, 74] {
      #expect(text.contains(".It \(code)\n"), "man page EXIT STATUS lacks \(code)")
    }
  }

  /// Every input kind the tool reads, as words each description must use; a kind is named when all appear.
  static let inputKinds = [
    ["verifyReceipt"], ["Notification", "V1", "V2"], ["StoreKit 2", "signed transactions", "renewal info", "JWS"],
    ["App Store Server API"], ["PKCS#7", "app receipt"],
  ]

  /// The root `--help` overview and the man page's DESCRIPTION name every input kind and every subcommand.
  @Test func rootHelpAndDescriptionNameEveryInputKindAndCommand() throws {
    let text = try String(contentsOf: Self.manPage, encoding: .utf8)
    let start = try #require(text.range(of: ".Sh DESCRIPTION\n"))
    let end = text.range(of: "\n.Ss ", range: start.upperBound..<text.endIndex)?.lowerBound ?? text.endIndex
    let description = String(text[start.upperBound..<end])
    let help = HelpGenerator.rootHelp(commands: ReceiptTool.commands, columns: 300)
    let overview = String(help[..<(help.range(of: "USAGE:")?.lowerBound ?? help.endIndex)])
    for kind in Self.inputKinds {
      #expect(kind.allSatisfy(overview.contains), "--help's overview does not name \(kind)")
      #expect(kind.allSatisfy(description.contains), "the man page's DESCRIPTION does not name \(kind)")
    }
    for command in ReceiptTool.commands {
      #expect(help.contains("\n  \(command.name) "), "--help does not list \(command.name)")
      #expect(description.contains(".Cm \(command.name)\n"), "the man page's DESCRIPTION does not name \(command.name)")
    }
  }

  @Test func manPageIsLintClean() throws {
    let groff = ["/usr/bin/groff", "/usr/local/bin/groff", "/opt/homebrew/bin/groff"].first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let groff else {
      print("note: groff is not installed; skipping the man page lint")
      return
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: groff)
    process.arguments = ["-mdoc", "-ww", "-z", Self.manPage.path]
    let err = Pipe()
    process.standardError = err
    try process.run()
    let output = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(output.isEmpty, "groff warnings:\n\(output)")
    #expect(process.terminationStatus == 0)
  }

  @Test func bashCompletionLoadsAndCompletesSubcommands() throws {
    guard FileManager.default.isExecutableFile(atPath: "/bin/bash") else { return }
    let script = try #require(CompletionScripts.script(for: "bash", commands: ReceiptTool.commands))
    let url = Scratch.directory.appendingPathComponent(
      "receipt-tool-completion-\(UUID().uuidString).bash")
    try script.write(to: url, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: url) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      "-c",
      "source '\(url.path)' && COMP_WORDS=(receipt-tool de) COMP_CWORD=1 && _receipt_tool && echo \"${COMPREPLY[@]}\" && COMP_WORDS=(receipt-tool decode --for) COMP_CWORD=2 && _receipt_tool && echo \"${COMPREPLY[@]}\"",
    ]
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(text == "decode\n--format\n")
  }
}
