import Foundation
import ReceiptTestSupport
import Testing

/// intro-eligibility through the built binary: --expect's exit statuses and the receipt status.
@Suite struct IntroEligibilityCommandTests {
  @Test func expectExitCodes() throws {
    let base = [
      "intro-eligibility", "examples/family-trial.json", "--catalog", "examples/catalog.json", "--product",
      "com.acme.pro.yearly", "--quiet",
    ]
    let pass = try BinaryRunner.run(base + ["--expect", "ineligible"])
    #expect(pass.status == 0)
    #expect(pass.stdout.isEmpty)
    let fail = try BinaryRunner.run(base + ["--expect", "eligible"])
    #expect(fail.status == 1)
    #expect(
      fail.stderr.contains(
        "check failed: examples/family-trial.json: expected com.acme.pro.yearly to be eligible, but it is ineligible: family-shared transaction 11001"
      ))
    let bad = try BinaryRunner.run(base + ["--expect", "maybe"])
    #expect(bad.status == 64)
  }

  @Test func failedReceiptStatusIsADataError() throws {
    let r = try BinaryRunner.run(["intro-eligibility"], stdin: Data(#"{"status": 21003}"#.utf8))
    #expect(r.status == 65)
    #expect(r.stderr.contains("receipt status 21003: The receipt could not be authenticated."))
  }

  @Test func expiredStatus21006IsStillJudged() throws {
    let body = #"{"status": 21006, "receipt": {"bundle_id": "a", "in_app": []}}"#
    let r = try BinaryRunner.run(
      ["intro-eligibility", "--product", "p", "--as-of", "2024-01-01"], stdin: Data(body.utf8))
    #expect(r.status == 0)
    #expect(r.stdout.contains("Status  unknown"))
  }

}
