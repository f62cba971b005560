import Foundation
import ReceiptTestSupport
import Testing

/// Broken documents through the built binary: exit 65 and one line on standard error, never a signal.
@Suite struct BrokenInputBinaryTests {
  /// nst/JSONTestSuite's parsing files (../shared/JSONTestSuite/test_parsing); none where ../shared is absent.
  static var jsonTestSuiteFiles: [URL] {
    guard let shared = TestPaths.shared else { return [] }
    let dir = shared.appendingPathComponent("JSONTestSuite/test_parsing")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted().map { dir.appendingPathComponent($0) }
  }

  /// Every file through the whole binary: exit 0 or 65, never a signal, within the harness's 5 seconds.
  @Test func decodeEndsEveryFileWithZeroOr65() throws {
    let files = Self.jsonTestSuiteFiles
    guard !files.isEmpty else {
      TestPaths.noteSharedMissing("the JSONTestSuite end-to-end test")
      return
    }
    for url in files {
      let clock = ContinuousClock()
      let start = clock.now
      let result = try BinaryRunner.run(["decode", url.path, "--format", "json"])
      let elapsed = clock.now - start
      #expect(!result.signalled, "\(url.lastPathComponent) crashed")
      #expect(result.status == 0 || result.status == 65, "\(url.lastPathComponent): exit \(result.status)")
      #expect(elapsed < .seconds(5), "\(url.lastPathComponent) took \(elapsed)")
      if result.status == 65 {
        #expect(result.stderr.hasPrefix("receipt-tool: error: ") && result.stderr.split(separator: "\n").count == 1)
      }
    }
  }

  @Test func brokenFixtureFailsWithAPositionedMessage() throws {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("the broken fixture")
      return
    }
    let url = shared.appendingPathComponent(
      "peer-fixtures/crashoverride777__swifty-receipt-validator/ReceiptResponseInvalidFormat.json")
    let result = try BinaryRunner.run(["decode", url.path])
    #expect(result.status == 65)
    #expect(result.stderr.hasPrefix("receipt-tool: error: \(url.path):4:1: "))
    #expect(result.stdout.isEmpty)
  }

  /// Through the binary: not-a-receipt, a cut blob and a corrupted one end with exit 65 and one line.
  @Test func brokenReceiptsEndWithExit65AndOneLineThroughTheBinary() throws {
    let text = Array(try String(contentsOfFile: "examples/app-receipt/entitlements-active.b64", encoding: .utf8).utf8)
    var samples: [(String, [UInt8])] = [("cut", Array(text.prefix(700))), ("empty", [])]
    var flipped = text
    flipped[40] = UInt8(ascii: "!")
    samples.append(("flipped", flipped))
    if let notAReceipt = TestPaths.peerFixture("IdeasOnCanvas__AppReceiptValidator/not_a_receipt") {
      samples.append(("not a receipt", notAReceipt))
    }
    if let der = TestPaths.peerFixture("Cocoanetics__Kvitto/storeKitTestReceipt") {
      samples.append(("der prefix", Array(der.prefix(900))))
    }
    for (label, bytes) in samples {
      let file = try InProcessRunner.temporaryFile(bytes, name: "receipt.b64")
      let result = try BinaryRunner.run(["decode", file])
      #expect(result.status == 65 && !result.signalled, "\(label): \(result.status)")
      #expect(result.stdout.isEmpty, "\(label)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(label): \(result.stderr)")
    }
  }

}
