import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// A signed document's verdict made in one box, its chain named once a run (`JWSChecks.documentCheck(coverage:)`,
/// `SignatureWorkspace.signers(of:)`), is the verdict made by setting each tallied value on the speaker's own
/// (`documentCheckByEdits`), whatever documents the workspace checked before.
@Suite struct DocumentCheckOneBoxTests {
  static let examples = TestPaths.packageRoot.appendingPathComponent("examples/storekit2")

  static func names() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: examples.path)
      .filter { $0.hasSuffix(".jws") || $0.hasSuffix(".json") }.sorted()
  }

  static func expectSame(_ checks: JWSChecks, _ comment: Comment) {
    for coverage in [SignatureCoverage.none, .signedTransaction] {
      var reference = checks.documentCheckByEdits
      reference.coverage = coverage
      let made = checks.documentCheck(coverage: coverage)
      #expect(made == reference, comment)
      #expect(made.summary == reference.summary, comment)
    }
  }

  @Test func everyExampleThroughOneWorkspaceGetsTheVerdictMadeByEdits() throws {
    for trust in [try SignatureVerdictTests.testTrust(), TrustAnchors.apple] {
      // One workspace through every example twice (its chain memo holds the one before), and a fresh one each.
      var workspace = SignatureWorkspace(trust: trust)
      for name in try Self.names() + Self.names().reversed() {
        let bytes = try [UInt8](Data(contentsOf: Self.examples.appendingPathComponent(name)))
        let shared = JWSChecks(workspace: workspace.movedOut(), now: SignatureVerdictTests.now)
        _ = try? SignedDataDecoder.decode(bytes, strict: false, checks: shared)
        workspace = shared.workspace
        Self.expectSame(shared, "\(name) through one workspace")
        let alone = JWSChecks(workspace: SignatureWorkspace(trust: trust), now: SignatureVerdictTests.now)
        _ = try? SignedDataDecoder.decode(bytes, strict: false, checks: alone)
        Self.expectSame(alone, "\(name) alone")
        #expect(shared.documentCheck(coverage: .none) == alone.documentCheck(coverage: .none), "\(name)")
      }
    }
  }

  @Test func nothingCheckedGetsTheVerdictMadeByEdits() {
    let checks = JWSChecks(workspace: SignatureWorkspace(trust: .apple), now: SignatureVerdictTests.now)
    Self.expectSame(checks, "no item")
  }

  /// The memo answers only for an equal chain: another chain, or an equal one in another array, is named anew.
  @Test func theSignersMemoAnswersOnlyForAnEqualChain() {
    func summary(_ name: String, _ byte: UInt8) -> ReceiptCrypto.CertificateSummary {
      ReceiptCrypto.CertificateSummary(
        position: "x5c[0]", commonName: name, organization: nil, notBefore: 0, notAfter: 1,
        sha256: [UInt8](repeating: byte, count: 32))
    }
    var workspace = SignatureWorkspace(trust: .apple)
    let a = [summary("A", 1)]
    let b = [summary("A", 2)]
    let c = [summary("C", 1)]
    for chain in [a, a, b, a, c, [], a, Array([summary("A", 1)])] {
      #expect(workspace.signers(of: chain) == chain.map(JWSChecks.signer(of:)))
    }
  }
}
