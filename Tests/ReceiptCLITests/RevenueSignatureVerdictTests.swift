import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// `revenue --format json` carries its documents' signature verdict, and `--merge` combines its parts' verdicts
/// into the one one machine gives for all their documents.
@Suite struct RevenueSignatureVerdictTests {
  static let storekit2 = TestPaths.packageRoot.appendingPathComponent("examples/storekit2")
  static let trustRoot = storekit2.appendingPathComponent("test-root.pem").path
  static func example(_ name: String) -> String { storekit2.appendingPathComponent(name).path }

  /// The `signature_check` member of a report, rendered, and its verdict.
  static func verdict(_ output: String) throws -> (rendered: String, verdict: String) {
    let root = try JSONValue.parse(Array(output.utf8))
    let check = try #require(root.member("signature_check"), "no signature_check in \(output)")
    guard case .string(let verdict)? = check.member("verdict") else {
      Issue.record("no verdict in \(check.rendered())")
      return (check.rendered(), "")
    }
    return (check.rendered(), verdict)
  }

  @Test func aMergedReportCarriesOneMachinesVerdictWithAnInvalidDocumentInOnePart() throws {
    let first = [Self.example("revenue-family-member-2.jws"), Self.example("forged-entitlements-expired.jws")]
    let second = [
      Self.example("revenue-family-purchaser.jws"), Self.example("revenue-family-member-1.jws"),
      Self.example("test-signed-entitlements-active.jws"),
    ]
    let base = ["revenue", "--format", "json", "--trust-root", Self.trustRoot]
    let one = InProcessRunner.run(base + first + second)
    let oneVerdict = try Self.verdict(one.stdout)
    #expect(oneVerdict.verdict == "invalid")
    #expect(oneVerdict.rendered.contains("forged-entitlements-expired.jws"), "\(oneVerdict.rendered)")
    var parts: [String] = []
    for (i, documents) in [first, second].enumerated() {
      let run = InProcessRunner.run(base + documents)
      parts.append(try InProcessRunner.temporaryFile(Array(run.stdout.utf8), name: "part-\(i).json"))
    }
    // Parts in either order: the verdict is the one machine's, byte for byte.
    for order in [parts, parts.reversed()] {
      let merged = InProcessRunner.run(["revenue", "--merge", "--format", "json"] + order)
      #expect(try Self.verdict(merged.stdout).rendered == oneVerdict.rendered, "\(merged.stdout)")
    }
    // Documents in another order on one machine: the same verdict too.
    let shuffled = InProcessRunner.run(base + second.reversed() + first.reversed())
    #expect(try Self.verdict(shuffled.stdout).rendered == oneVerdict.rendered)
  }

  @Test func aMergedReportOfVerifiedPartsIsVerified() throws {
    let documents = [Self.example("revenue-family-purchaser.jws"), Self.example("revenue-family-member-1.jws")]
    let base = ["revenue", "--format", "json", "--trust-root", Self.trustRoot]
    let one = try Self.verdict(InProcessRunner.run(base + documents).stdout)
    #expect(one.verdict == "verified")
    let parts = try documents.enumerated().map { (i, document) in
      try InProcessRunner.temporaryFile(
        Array(InProcessRunner.run(base + [document]).stdout.utf8), name: "verified-\(i).json")
    }
    let merged = InProcessRunner.run(["revenue", "--merge", "--format", "json"] + parts.reversed())
    #expect(try Self.verdict(merged.stdout) == one)
  }

  @Test func aReportFromLedgerLinesCarriesOneMachinesVerdict() throws {
    let documents = [
      Self.example("revenue-family-purchaser.jws"), Self.example("forged-entitlements-expired.jws"),
      Self.example("test-signed-entitlements-active.jws"), Self.example("revenue-family-member-1.jws"),
    ]
    let base = ["revenue", "--trust-root", Self.trustRoot]
    let one = try Self.verdict(InProcessRunner.run(base + ["--format", "json"] + documents).stdout)
    #expect(one.verdict == "invalid")
    let ledger = InProcessRunner.run(base + ["--format", "keyed-ledger"] + documents)
    #expect(ledger.status == .ok)
    // One verdict line per document, after its records.
    #expect(ledger.stdout.split(separator: "\n").filter { $0.contains("\"signature_check\"") }.count == 4)
    // Lines in any order, and read twice: the verdict is one machine's.
    let lines = ledger.stdout.split(separator: "\n").map(String.init)
    let shuffled = (lines.reversed() + lines).joined(separator: "\n") + "\n"
    let file = try InProcessRunner.temporaryFile(Array(shuffled.utf8), name: "ledger.tsv")
    let reduced = InProcessRunner.run(["revenue", "--from-ledger", "--format", "json", file])
    #expect(try Self.verdict(reduced.stdout) == one)
  }

  @Test func requireSignatureStillFailsRevenueOnAnInvalidDocument() throws {
    let forged = Self.example("forged-entitlements-expired.jws")
    let good = Self.example("revenue-family-purchaser.jws")
    for format in ["json", "text"] {
      let failed = InProcessRunner.run([
        "revenue", "--format", format, "--require-signature", "--trust-root", Self.trustRoot, good, forged,
      ])
      #expect(failed.status == .checkFailed, "\(failed.stderr)")
      #expect(failed.stderr.contains("forged-entitlements-expired.jws"), "\(failed.stderr)")
      let passed = InProcessRunner.run([
        "revenue", "--format", format, "--require-signature", "--trust-root", Self.trustRoot, good,
      ])
      #expect(passed.status == .ok, "\(passed.stderr)")
    }
  }

  @Test func requireSignatureWorksWithTheLedgerAndWithMerge() throws {
    let forged = Self.example("forged-entitlements-expired.jws")
    let good = [Self.example("revenue-family-purchaser.jws"), Self.example("revenue-family-member-1.jws")]
    let base = ["revenue", "--trust-root", Self.trustRoot]
    func file(_ arguments: [String], _ name: String) throws -> String {
      try InProcessRunner.temporaryFile(Array(InProcessRunner.run(arguments).stdout.utf8), name: name)
    }
    let goodLedger = try file(base + ["--format", "ledger"] + good, "good.ndjson")
    let badLedger = try file(base + ["--format", "ledger"] + good + [forged], "bad.ndjson")
    let passed = InProcessRunner.run(["revenue", "--from-ledger", "--require-signature", goodLedger])
    #expect(passed.status == .ok, "\(passed.stderr)")
    let failed = InProcessRunner.run(["revenue", "--from-ledger", "--require-signature", "--format", "json", badLedger])
    #expect(failed.status == .checkFailed)
    // The forged document is named, and only it.
    #expect(failed.stderr.contains("forged-entitlements-expired.jws: --require-signature"), "\(failed.stderr)")
    #expect(!failed.stderr.contains("revenue-family-purchaser.jws: --require-signature"), "\(failed.stderr)")
    #expect(try Self.verdict(failed.stdout).verdict == "invalid")
    let goodPart = try file(base + ["--format", "json"] + good, "good-part.json")
    let badPart = try file(base + ["--format", "json", forged], "bad-part.json")
    #expect(InProcessRunner.run(["revenue", "--merge", "--require-signature", goodPart]).status == .ok)
    let merged = InProcessRunner.run(["revenue", "--merge", "--require-signature", goodPart, badPart])
    #expect(merged.status == .checkFailed)
    #expect(merged.stderr.contains("bad-part.json: --require-signature"), "\(merged.stderr)")
    // A ledger with no verdict line (made before verdict lines) has nothing to check.
    let old =
      (try String(contentsOfFile: goodLedger, encoding: .utf8)).split(separator: "\n")
      .filter { !$0.contains("\"signature_check\"") }.joined(separator: "\n") + "\n"
    let oldLedger = try InProcessRunner.temporaryFile(Array(old.utf8), name: "old.ndjson")
    let none = InProcessRunner.run(["revenue", "--from-ledger", "--require-signature", "--format", "json", oldLedger])
    #expect(none.status == .checkFailed)
    #expect(none.stderr.contains("no document verdict"), "\(none.stderr)")
    #expect(none.stdout.contains("\"signature_check\":null"), "\(none.stdout)")
    // --trust-root still belongs to the map step.
    #expect(
      InProcessRunner.run(["revenue", "--merge", "--trust-root", Self.trustRoot, goodPart]).status == .usage)
  }

  @Test func combiningDoesNotDependOnOrder() {
    let moment = { (s: Int64) in CheckedMoment(time: Timestamp(unchecked: s * 1000), source: "signedDate") }
    let cert = { (name: String) in
      SignerCertificate(
        position: "x5c[0]", commonName: name, organization: nil, notBefore: nil, notAfter: nil, sha256: name)
    }
    let items = [
      SignatureCheck.verifiedItem(chain: [cert("a")], moment: moment(5), anchor: .apple),
      SignatureCheck.verifiedItem(chain: [cert("b")], moment: moment(9), anchor: .trustRoot),
      SignatureCheck.failedItem(
        SignatureItemFailure(path: "z.jws", code: "signature.mismatch", certificate: nil, reason: "mismatch"),
        chain: [cert("c")], moment: moment(1)),
      SignatureCheck.failedItem(
        SignatureItemFailure(path: "b.jws", code: "chain.expired", certificate: "x5c[0]", reason: "expired"),
        chain: [cert("d")], moment: moment(2)),
      SignatureCheck(.unsigned, note: "verifyReceipt JSON carries no signature"),
    ].map(RevenueVerdict.init(document:))
    let forward = RevenueSignatureVerdict.combining(items)
    #expect(forward?.check.verdict == .invalid)
    #expect(forward?.check.failures.map(\.path) == ["b.jws", "z.jws"])
    #expect(forward?.check.chain.first?.commonName == "d")
    #expect(RevenueSignatureVerdict.combining(items.reversed()) == forward)
    // Combined in two halves, as `--merge` combines parts: the same.
    let halves = [Array(items.prefix(2)), Array(items.dropFirst(2))].compactMap(RevenueSignatureVerdict.combining)
    #expect(RevenueSignatureVerdict.combining(halves.reversed()) == forward)
    #expect(RevenueSignatureVerdict.combining([]) == nil)
  }
}
