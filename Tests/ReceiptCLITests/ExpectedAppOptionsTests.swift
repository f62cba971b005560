import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// `--bundle-id`, `--app-apple-id` and `--environment`: parsed into the expected app the decoders check, over the
/// catalog's `app`; bad values and conflicting options are usage errors.
@Suite struct ExpectedAppOptionsTests {
  static let root = TestPaths.packageRoot.path
  static let notification = root + "/examples/storekit2/wrong-bundle-id-notification.jws"
  static let testRoot = root + "/examples/storekit2/test-root.pem"
  static let catalog = root + "/examples/catalog-expected-app.json"

  @Test func badValuesAndConflictsAreUsageErrors() {
    for arguments in [
      ["decode", "--app-apple-id", "12x"], ["decode", "--app-apple-id", "0"], ["decode", "--environment", "prod"],
      ["decode", "--bundle-id", ""], ["decode", "--skip-signature-check", "--bundle-id", "com.example"],
      ["entitlements", "--skip-signature-check", "--environment", "Sandbox"],
      ["revenue", "--merge", "--bundle-id", "com.example"],
      ["revenue", "--from-ledger", "--app-apple-id", "12"],
    ] {
      let result = InProcessRunner.run(arguments + [Self.notification])
      #expect(result.status == .usage, "\(arguments): \(result.stderr)")
    }
  }

  @Test func optionsOverrideTheCatalog() {
    // The catalog expects com.acme.notes: the notification of com.example.wrong fails, naming the catalog.
    let byCatalog = InProcessRunner.run(
      ["decode", "--require-signature", "--trust-root", Self.testRoot, "--catalog", Self.catalog, Self.notification])
    #expect(byCatalog.status == .checkFailed)
    #expect(byCatalog.stderr.contains("(app.bundle_id in \(Self.catalog))"), "\(byCatalog.stderr)")
    // --bundle-id names its own app over the catalog's; the catalog's environment (Production) still holds.
    let byOption = InProcessRunner.run(
      [
        "decode", "--require-signature", "--trust-root", Self.testRoot, "--catalog", Self.catalog, "--bundle-id",
        "com.example.wrong", Self.notification,
      ])
    #expect(byOption.status == .checkFailed)
    #expect(
      byOption.stderr.contains(#"data.environment "Sandbox" is not the expected "Production""#), "\(byOption.stderr)")
    let both = InProcessRunner.run(
      [
        "decode", "--require-signature", "--trust-root", Self.testRoot, "--catalog", Self.catalog, "--bundle-id",
        "com.example.wrong", "--environment", "Sandbox", Self.notification,
      ])
    #expect(both.status == .ok, "\(both.stderr)")
  }

  @Test func theOptionsAreParsedWithTheirOrigins() throws {
    let arguments = try ArgumentParsing.parse(
      ["--bundle-id", "com.example", "--app-apple-id", "1234", "--environment", "Sandbox"],
      options: CommonOptions.reading(oneCustomer: false), command: "decode")
    let options = try SignatureOptions(arguments, command: "decode")
    #expect(options.expectedApp.bundleID == .init("com.example", origin: "--bundle-id"))
    #expect(options.expectedApp.appAppleID == .init(1234, origin: "--app-apple-id"))
    #expect(options.expectedApp.environment == .init("Sandbox", origin: "--environment"))
    #expect(options.expectedApp.origins == ["--bundle-id", "--app-apple-id", "--environment"])
  }
}
