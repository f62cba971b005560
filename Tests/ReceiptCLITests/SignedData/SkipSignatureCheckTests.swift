import Foundation
import ReceiptTestSupport
import Testing

/// `--skip-signature-check` reads the same facts and gives the same answers; only the verdict says it did not look.
@Suite struct SkipSignatureCheckTests {
  static let examples = TestPaths.packageRoot.appendingPathComponent("examples")

  /// Every signed example and every verifyReceipt example that carries a `latest_receipt`.
  static var signedExamples: [String] {
    let storekit2 =
      (try? FileManager.default.contentsOfDirectory(atPath: examples.appendingPathComponent("storekit2").path)) ?? []
    return storekit2.filter { $0.hasSuffix(".jws") || $0.hasSuffix(".json") }.sorted().map {
      "examples/storekit2/\($0)"
    }
      + ["examples/backed-entitlements-active.json", "examples/contradicted-entitlements-active.json"]
  }

  /// The JSON answer without its `signature_check` objects, and without revenue's per-currency `backing`, which
  /// is how much money the verdicts back (none when not checked).
  static func withoutVerdicts(_ json: String) throws -> NSDictionary {
    func strip(_ value: Any) -> Any {
      if let object = value as? [String: Any] {
        let isCurrency = object["currency"] != nil
        return object.filter { $0.key != "signature_check" && !(isCurrency && $0.key == "backing") }.mapValues(strip)
      }
      if let array = value as? [Any] { return array.map(strip) }
      return value
    }
    let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8))
    return (strip(parsed) as? [String: Any] ?? [:]) as NSDictionary
  }

  @Test(arguments: ["entitlements", "intro-eligibility", "revenue"])
  func theAnswersAreTheCheckedRunsAnswers(command: String) throws {
    #expect(Self.signedExamples.count > 10)
    for path in Self.signedExamples {
      let file = TestPaths.packageRoot.appendingPathComponent(path).path
      let checked = InProcessRunner.run([command, "--format", "json", file])
      let skipped = InProcessRunner.run([command, "--format", "json", "--skip-signature-check", file])
      #expect(checked.status == skipped.status, "\(command) \(path)")
      guard checked.status == .ok else { continue }
      #expect(try Self.withoutVerdicts(checked.stdout) == Self.withoutVerdicts(skipped.stdout), "\(command) \(path)")
      #expect(!skipped.stderr.contains("signature invalid"), "\(command) \(path): \(skipped.stderr)")
    }
  }

  @Test func everySignedDocumentSaysItWasNotChecked() throws {
    for path in Self.signedExamples {
      let file = TestPaths.packageRoot.appendingPathComponent(path).path
      let skipped = InProcessRunner.run(["entitlements", "--format", "json", "--skip-signature-check", file])
      #expect(skipped.stdout.contains(#""verdict": "not-checked""#), "\(path): \(skipped.stdout.prefix(400))")
    }
  }

  @Test(arguments: [["--require-signature"], ["--trust-root", "examples/storekit2/test-root.pem"]])
  func askingForACheckAndForNoneIsAUsageError(other: [String]) {
    let result = InProcessRunner.run(
      ["entitlements", "--skip-signature-check"] + other + ["examples/entitlements-active.json"])
    #expect(result.status == .usage)
    #expect(result.stderr.contains("'--skip-signature-check' cannot be used with '\(other[0])'"))
  }
}
