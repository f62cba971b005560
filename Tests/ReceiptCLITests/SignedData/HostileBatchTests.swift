import Foundation
import ReceiptCrypto
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// An NDJSON batch whose first lines are hostile (a verifyReceipt body whose `latest_receipt` carries the JWS
/// examples' chain; a JWS carrying the receipt's chain) and whose later lines are genuine: the genuine lines
/// verify as they do alone, with the pipeline's workers and with one verifier for the whole batch, and each
/// hostile line fails with its own reason.
@Suite struct HostileBatchTests {
  static let roots = ["examples/storekit2/test-root.pem", "examples/app-receipt/test-receipt-root.pem"].map {
    TestPaths.packageRoot.appendingPathComponent($0).path
  }

  /// The batch's lines: two hostile, then the genuine JWS lines and the genuine backed body.
  static func lines() throws -> [String] {
    let examples = TestPaths.packageRoot.appendingPathComponent("examples")
    let backed = try Data(contentsOf: examples.appendingPathComponent("backed-entitlements-active.json"))
    let object = try #require(try JSONSerialization.jsonObject(with: backed) as? [String: Any])
    func compact(_ object: [String: Any]) throws -> String {
      String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }
    var hostileBody = object
    hostileBody["latest_receipt"] = Base64.encode(
      HostileDocuments.receipt(
        carrying: try #require(HostileDocuments.jwsChain), content: try #require(HostileDocuments.receiptPayload)))
    let jwsLines = try String(
      contentsOf: examples.appendingPathComponent("storekit2/entitlements-active.jws"), encoding: .utf8
    )
    .split(separator: "\n").map(String.init)
    let payload = try #require(
      jwsLines.first?.split(separator: ".").dropFirst().first.flatMap {
        try? ReceiptCrypto.Base64.decode(Array($0.utf8), rules: .url)
      })
    let hostileJWS = HostileDocuments.jws(
      carrying: try #require(HostileDocuments.receiptChain), payload: String(decoding: payload, as: UTF8.self))
    return [try compact(hostileBody), hostileJWS] + jwsLines + [try compact(object)]
  }

  @Test func withThePipelinesWorkersTheGenuineLinesVerify() throws {
    let lines = try Self.lines()
    let path = try InProcessRunner.temporaryFile(
      Array((lines.joined(separator: "\n") + "\n").utf8), name: "mixed.ndjson")
    let result = InProcessRunner.run(
      ["decode", "--format", "json", "--require-signature"] + Self.roots.flatMap { ["--trust-root", $0] } + [path])
    #expect(result.status == .checkFailed, "\(result.stderr)")
    let documents = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result.stdout)")
    #expect(documents.count == lines.count)
    for document in documents {
      let line = try #require((document["input"] as? [String: Any])?["line"] as? Int)
      let check = try #require(document["signature_check"] as? [String: Any])
      let verdict = check["verdict"] as? String
      let failures = (check["failures"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
      if line <= 2 {
        #expect(verdict == "invalid", "line \(line)")
        #expect(failures == ["cert.unsupportedAlgorithm"], "line \(line): \(check)")
      } else {
        #expect(verdict == "verified", "line \(line): \(check["summary"] ?? "")")
      }
    }
    // Only the hostile lines are named.
    let failed = result.stderr.split(separator: "\n").filter { $0.contains("check failed") }
    #expect(failed.count == 2, "\(result.stderr)")
    #expect(failed.allSatisfy { $0.contains("mixed.ndjson:1:") || $0.contains("mixed.ndjson:2:") }, "\(failed)")
  }

  @Test func withOneVerifierTheGenuineLinesVerifyAsTheyDoAlone() throws {
    let lines = try Self.lines()
    let trust = try #require(HostileDocuments.trust)
    let now = try #require(Timestamp(milliseconds: 1_718_409_600_000))
    func verdict(_ line: String, _ lending: any SignatureVerifierLending) -> SignatureCheck? {
      let options = DecodeOptions(signatures: SignatureChecking(verifiers: lending, now: now))
      return try? FormatRegistry.standard.decode(Array(line.utf8), source: "batch", options: options).provenance
        .signatureCheck
    }
    let shared = OneVerifierLending(trust)
    for (i, line) in lines.enumerated() {
      let inBatch = try #require(verdict(line, shared), "line \(i + 1)")
      let alone = try #require(verdict(line, OneVerifierLending(trust)), "line \(i + 1)")
      #expect(inBatch == alone, "line \(i + 1): \(inBatch.summary) alone: \(alone.summary)")
      #expect(inBatch.verdict == (i < 2 ? .invalid : .verified), "line \(i + 1): \(inBatch.summary)")
    }
  }
}
