import Foundation
import ReceiptTestSupport
import Testing

/// The tests keep the layers the targets keep (Sources/README.md, *Tests*): a unit test opens only its own
/// module with `@testable`, rule tests read no bytes, and the end-to-end tests run the binary, not the library.
@Suite struct TestLayoutTests {
  static let tests = TestPaths.packageRoot.appendingPathComponent("Tests")

  /// Every Swift file under `Tests/<target>`, as (path relative to Tests, text).
  static func files(in target: String) throws -> [(String, String)] {
    let dir = tests.appendingPathComponent(target)
    let names = try #require(FileManager.default.enumerator(atPath: dir.path)).compactMap { $0 as? String }
    return try names.filter { $0.hasSuffix(".swift") }.sorted().map { name in
      (target + "/" + name, try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8))
    }
  }

  static func imports(_ text: String, testable: Bool) -> [String] {
    text.split(separator: "\n").compactMap { line in
      let prefix = testable ? "@testable import " : "import "
      return line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : nil
    }
  }

  @Test func aUnitTestOpensOnlyItsOwnModule() throws {
    var seen = 0
    for module in ["ReceiptModel", "ReceiptRules", "ReceiptFormats", "ReceiptCLI", "ReceiptCrypto"] {
      for (path, text) in try Self.files(in: module + "Tests") {
        seen += 1
        for opened in Self.imports(text, testable: true) {
          #expect(opened == module, "\(path) opens \(opened) with @testable")
        }
      }
    }
    #expect(seen > 50)
  }

  @Test func ruleTestsBuildTheirHistoriesAndReadNoBytes() throws {
    let allowed: Set = ["Foundation", "Testing", "ReceiptModel", "ReceiptRules", "ReceiptModelTestSupport"]
    let files = try Self.files(in: "ReceiptRulesTests")
    #expect(!files.isEmpty)
    for (path, text) in files {
      for module in Self.imports(text, testable: false) + Self.imports(text, testable: true) {
        #expect(allowed.contains(module), "\(path) imports \(module)")
      }
    }
  }

  @Test func endToEndTestsRunTheBinaryNotTheCommandInProcess() throws {
    let files = try Self.files(in: "EndToEndTests")
    #expect(!files.isEmpty)
    for (path, text) in files {
      #expect(!text.contains("InProcessRunner.run("), "\(path) runs a command in process")
      #expect(!text.contains("DocumentRunner."), "\(path) runs the input pipeline in process")
    }
  }
}
