import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// A worker's workspace keeps the JWS header it read last from one document to the next (`CompactJWS.HeaderMemo`),
/// and its chain cache the chain found last: a batch of tokens, one a document, decodes through one workspace
/// exactly as each token does through a fresh one, also where a token's header differs from the held one by a
/// byte, is cut short, runs longer, or holds the same chain under another `alg`.
@Suite struct HeaderMemoTests {
  typealias Verdicts = SignatureVerdictTests

  /// The examples' signed lines (one header), a test-signed one and a forged one (others), and tokens made from
  /// them whose header segment is close to the held one.
  static func tokens() throws -> [String] {
    func lines(_ name: String) throws -> [String] {
      try String(contentsOf: Verdicts.examples.appendingPathComponent(name), encoding: .utf8)
        .split(separator: "\n").map(String.init)
    }
    let genuine = try lines("entitlements-active.jws") + lines("family-revoked-but-purchased.jws")
    let others = try lines("test-signed-entitlements-active.jws").prefix(1) + lines("forged-entitlements-expired.jws")
    let parts = try #require(genuine.first).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    let (header, payload, signature) = (parts[0], parts[1], parts[2])
    let headerJSON = String(decoding: try Base64.decode(Array(header.utf8), rules: .url), as: UTF8.self)
    let otherAlg = String(Base64.encode(Array(headerJSON.replacingOccurrences(of: "ES256", with: "ES384").utf8)))
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
    #expect(otherAlg.count == header.count && otherAlg != header)
    let lastByte = header.last == "A" ? "Q" : "A"
    let near = [
      // The same length, another byte at the end: a header that reads, or none.
      String(header.dropLast()) + lastByte + "." + payload + "." + signature,
      // Cut short where a base64 quantum ends, and with bytes after it.
      String(header.dropLast(4)) + "." + payload + "." + signature,
      header + "AAAA." + payload + "." + signature,
      // The same chain under another algorithm.
      otherAlg + "." + payload + "." + signature,
      // The held header with another token's signature, and with none.
      header + "." + payload + "." + (genuine.last?.split(separator: ".").last.map(String.init) ?? ""),
      header + "." + payload + ".",
      header + "." + payload,
    ]
    var tokens: [String] = []
    for token in near { tokens += [genuine[1], token] }
    return genuine + others + tokens + genuine.reversed()
  }

  /// A document's history, every field written out (a history is not Equatable), and its verdict; or its error.
  static func outcome(_ token: String, _ lender: OneVerifierLending) -> (String, SignatureCheck.Verdict?) {
    do {
      let history = try Verdicts.history(Array(token.utf8), lender: lender)
      return (String(reflecting: history), history.provenance.signatureCheck.verdict)
    } catch {
      return ("error: \(error)", nil)
    }
  }

  @Test func aBatchThroughOneWorkspaceAnswersAsEachTokenAlone() throws {
    let trust = try Verdicts.testTrust()
    let shared = OneVerifierLending(trust)
    let tokens = try Self.tokens()
    var verified = 0
    for (i, token) in tokens.enumerated() {
      let (inBatch, verdict) = Self.outcome(token, shared)
      #expect(inBatch == Self.outcome(token, OneVerifierLending(trust)).0, "token \(i + 1)")
      if verdict == .verified { verified += 1 }
    }
    #expect(verified >= 12, "the genuine lines verify")
    #expect(shared.workspace.headerMemos.map(\.reuses).reduce(0, +) >= 12, "the header was read again each line")
  }

  @Test func eachLineOfABatchReadsTheHeaderOnce() throws {
    let lender = OneVerifierLending(try Verdicts.testTrust())
    let lines = try String(
      contentsOf: Verdicts.examples.appendingPathComponent("entitlements-active.jws"), encoding: .utf8
    ).split(separator: "\n")
    for line in lines { _ = try Verdicts.history(Array(line.utf8), lender: lender) }
    #expect(lender.workspace.headerMemos.count == 1)
    #expect(lender.workspace.headerMemos.first?.reuses == lines.count - 1)
    #expect(lender.verifier.cacheMisses == 1)
    #expect(lender.verifier.cacheHits == lines.count - 1)
  }
}
