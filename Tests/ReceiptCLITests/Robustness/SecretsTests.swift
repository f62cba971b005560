import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The tool has no way to reach the network or write files: its libraries call none of the APIs that would.
@Suite struct NoNetworkTests {
  @Test func theLibrariesUseNoNetworkOrFileWritingAPI() throws {
    let sources = TestPaths.packageRoot.appendingPathComponent("Sources")
    let files = try ["ReceiptModel", "ReceiptRules", "ReceiptFormats", "ReceiptCLI"].flatMap { target in
      try #require(FileManager.default.enumerator(atPath: sources.appendingPathComponent(target).path))
        .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.map { target + "/" + $0 }
    }
    #expect(files.count > 10)
    let dir = sources
    let forbidden = [
      "socket(", "connect(", "URLSession", "getaddrinfo", "import Foundation", "O_CREAT", "fopen(", "mkstemp",
    ]
    for file in files {
      let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
      for word in forbidden { #expect(!text.contains(word), "\(file) uses \(word)") }
    }
  }
}

/// `latest_receipt`, `receipt-data` and a notification's `password` never appear without `--show-secrets`.
@Suite struct SecretsTests {
  static let fixture = TestPaths.packageRoot.appendingPathComponent(
    "Tests/EndToEndTests/Fixtures/secrets-notification-v1.json"
  ).path
  static let secrets = [
    "SHARED-SECRET-7f9a2c41d0", "RECEIPT-DATA-SECRET-b2e81f", "TOPLEVEL-LATEST-RECEIPT-SECRET-c3d9a0",
    "UNIFIED-LATEST-RECEIPT-SECRET-5e6f71",
  ]

  /// Prefixes long enough to be the secret, short enough to catch a clipped excerpt.
  static func leaks(_ text: String, _ secrets: [String]) -> [String] {
    secrets.filter { text.contains($0.prefix(12)) }
  }

  @Test(arguments: ["text", "json", "ndjson"])
  func hiddenInEveryFormat(format: String) throws {
    let result = InProcessRunner.run(["decode", Self.fixture, "--format", format])
    #expect(result.status == .ok, "\(result.stderr)")
    #expect(Self.leaks(result.stdout + result.stderr, Self.secrets).isEmpty)
    // The tool still says a credential was there.
    #expect(result.stdout.contains("36") || result.stdout.contains("latest_receipt_length"))
  }

  @Test(arguments: ["text", "json", "ndjson"])
  func shownWithShowSecrets(format: String) throws {
    let result = InProcessRunner.run(["decode", Self.fixture, "--format", format, "--show-secrets"])
    #expect(result.status == .ok)
    #expect(result.stdout.contains("UNIFIED-LATEST-RECEIPT-SECRET-5e6f71"))
    #expect(result.stdout.contains("SHARED-SECRET-7f9a2c41d0"))
    // receipt-data belongs to a request, not a receipt: the tool never reads it.
    #expect(!result.stdout.contains("RECEIPT-DATA-SECRET"))
  }

  /// A real notification body (levibostian/dollabill-apple) whose shared secret is "foo".
  @Test(arguments: ["text", "json", "ndjson"])
  func hiddenInARealNotification(format: String) throws {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("the real-notification secrets test")
      return
    }
    let path = shared.appendingPathComponent("peer-fixtures/levibostian__dollabill-apple/server_notification.json").path
    let source = try String(contentsOfFile: path, encoding: .utf8)
    let latestReceipt = try #require(source.firstMatch(of: /"latest_receipt": "([^"]+)"/)?.1)
    let hidden = InProcessRunner.run(["decode", path, "--format", format])
    #expect(hidden.status == .ok, "\(hidden.stderr)")
    #expect(!hidden.stdout.contains(latestReceipt.prefix(16)))
    // "foo" may occur elsewhere, so look for it as the password value.
    #expect(!hidden.stdout.contains(#""password""#))
    let passwordLines = hidden.stdout.split(separator: "\n").filter { $0.hasPrefix("Password") }
    #expect(passwordLines.allSatisfy { $0.hasSuffix("(present, not shown)") && !$0.contains("foo") })
    let shown = InProcessRunner.run(["decode", path, "--format", format, "--show-secrets"])
    #expect(shown.stdout.contains(String(latestReceipt)))
    let shownPassword =
      shown.stdout.contains(#""password":"foo""#) || shown.stdout.contains(#""password": "foo""#)
      || shown.stdout.split(separator: "\n").contains { $0.hasPrefix("Password") && $0.hasSuffix("foo") }
    #expect(shownPassword)
  }

  /// Errors about a document that holds secrets never quote them.
  @Test func errorsNeverQuoteSecrets() throws {
    let bodies = [
      // A verifyReceipt request body instead of a response.
      #"{"receipt-data":"RECEIPT-DATA-SECRET-b2e81f","password":"SHARED-SECRET-7f9a2c41d0"}"#,
      #"{"status":0,"latest_receipt":"TOPLEVEL-LATEST-RECEIPT-SECRET-c3d9a0","latest_receipt":"TOPLEVEL-LATEST-RECEIPT-SECRET-c3d9a0"}"#,
      #"{"status":0,"password":"SHARED-SECRET-7f9a2c41d0","latest_receipt_info":[{"transaction_id":"1"}]}"#,
      #"{"status":0,"password":"SHARED-SECRET-7f9a2c41d0" "latest_receipt":"x"}"#,
      #"{"notification_type":"X","unified_receipt":{"latest_receipt":"UNIFIED-LATEST-RECEIPT-SECRET-5e6f71","status":"bad"}}"#,
    ]
    for body in bodies {
      let path = try InProcessRunner.temporaryFile(Array(body.utf8))
      for format in ["text", "json", "ndjson"] {
        let result = InProcessRunner.run(["decode", path, "--format", format])
        #expect(result.status == .dataError, "\(body)")
        #expect(Self.leaks(result.stdout + result.stderr, Self.secrets).isEmpty, "\(body): \(result.stderr)")
      }
    }
  }
}
