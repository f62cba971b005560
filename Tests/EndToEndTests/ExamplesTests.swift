import Foundation
import ReceiptTestSupport
import Testing

/// examples/ is documentation: every file is described in examples/README.md and exercised by a golden CLI case.
@Suite struct ExamplesTests {
  static let examples = TestPaths.packageRoot.appendingPathComponent("examples")

  /// Every file under examples/, as a path relative to it (`storekit2/make-jws.py`).
  static var files: [String] {
    let all = FileManager.default.enumerator(atPath: examples.path)?.compactMap { $0 as? String } ?? []
    return all.filter { path in
      var isDirectory: ObjCBool = false
      guard
        FileManager.default.fileExists(atPath: examples.appendingPathComponent(path).path, isDirectory: &isDirectory)
      else { return false }
      // A folder's README.md describes its examples; it is not one.
      let parts = path.split(separator: "/")
      return !isDirectory.boolValue && parts.last != "README.md" && !parts.contains { $0.hasPrefix(".") }
    }.sorted()
  }

  /// Inputs and catalogs; the scripts that make fixtures and the pictures of output are described but not
  /// run by a golden case.
  static var inputs: [String] { files.filter { !$0.hasSuffix(".py") && !$0.hasSuffix(".png") } }

  static var readme: String {
    (try? String(contentsOf: examples.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
  }

  @Test func everyExampleIsDescribedInTheExamplesReadme() throws {
    #expect(!Self.files.isEmpty)
    let readme = Self.readme
    for file in Self.files {
      #expect(readme.contains("| `\(file)` |"), "examples/\(file) has no row in examples/README.md")
    }
  }

  @Test func everyExampleHasAGoldenCase() throws {
    let cmds = GoldenCLITests.caseNames.compactMap {
      try? String(
        contentsOf: GoldenCLITests.casesDirectory.appendingPathComponent($0).appendingPathComponent("cmd"),
        encoding: .utf8)
    }
    for file in Self.inputs {
      #expect(
        cmds.contains { GoldenCLITests.arguments($0).contains("examples/\(file)") },
        "no Tests/CLITests case runs examples/\(file)")
    }
  }

  /// The golden cases the examples README names exist, so the index does not go stale.
  @Test func goldenCasesNamedInTheExamplesReadmeExist() throws {
    let names = Set(GoldenCLITests.caseNames)
    let named = Self.readme.split(separator: "`").map(String.init).filter {
      $0.hasPrefix("entitlements-") || $0.hasPrefix("intro-eligibility-") || $0.hasPrefix("revenue-family-")
        || $0.hasPrefix("decode-") || $0.hasPrefix("timeline-")
    }.filter { !$0.hasSuffix(".json") && !$0.hasSuffix(".ndjson") }
    #expect(!named.isEmpty)
    for name in named {
      #expect(names.contains(name), "examples/README.md names golden case \(name), which does not exist")
    }
  }

  /// Every text output of every example, with and without the example catalog, fits 80 columns.
  @Test func everyExampleFitsEightyColumns() throws {
    let examples = TestPaths.packageRoot.appendingPathComponent("examples")
    let files = try FileManager.default.contentsOfDirectory(atPath: examples.path)
      .filter { $0.hasSuffix(".json") || $0.hasSuffix(".ndjson") }.sorted()
    #expect(!files.isEmpty)
    for file in files {
      for command in [["decode"], ["entitlements", "--explain"], ["intro-eligibility"], ["revenue"]] {
        for catalog in [[], ["--catalog", "examples/catalog.json"]] {
          let result = try BinaryRunner.run(command + ["examples/\(file)"] + catalog)
          #expect(!result.signalled)
          #expect(!result.stdout.contains("\u{1B}"), "colour in a pipe: \(command) \(file)")
          let long = result.stdout.split(separator: "\n").filter { $0.count > 80 }
          #expect(long.isEmpty, "\(command) \(file) \(catalog): \(long)")
        }
      }
    }
  }

}
