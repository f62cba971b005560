import Dispatch
import Foundation
import ReceiptCrypto
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The verifiers of one pool share the chains one validated and the keys one precomputed (`PooledChainResults`):
/// every document must get the verdict it gets checked alone, by a fresh verifier, whatever other workers checked
/// before or at the same time, a different chain never answered by another's result.
@Suite struct PooledChainResultsTests {
  static let now = Timestamp(milliseconds: 1_790_000_000_000) ?? .epoch

  /// Apple's roots, both examples' test roots and the benchmark signer's.
  static func trust() throws -> TrustAnchors {
    var trust = try #require(HostileDocuments.trust)
    let pem = try [UInt8](
      Data(contentsOf: TestPaths.packageRoot.appendingPathComponent("Tests/ExampleSigning/test-root.pem")))
    for der in try TrustAnchors.certificatesFromPEMOrDER(pem) { trust = (try? trust.adding(rootDER: der)) ?? trust }
    return trust
  }

  /// Signed lines of the test chain (some spoilt), the examples' genuine token, and tokens carrying other chains:
  /// the receipt's RSA chain, the examples' chain over the test chain's payloads, a chain cut to one certificate.
  static func documents() throws -> [[UInt8]] {
    let signer = try #require(TestChainSigner())
    let genuine = try #require(HostileDocuments.genuineJWS)
    let receiptChain = try #require(HostileDocuments.receiptChain)
    let jwsChain = try #require(HostileDocuments.jwsChain)
    var documents: [String] = []
    for i in 0..<24 {
      let line = UserShapes.signedTransactionLine(index: i, customers: 5, signer: signer)
      let payload = String(line.split(separator: ".")[1])
      let payloadText = String(decoding: (try? Base64URL.decode(Array(payload.utf8))) ?? [], as: UTF8.self)
      switch i % 6 {
      case 0: documents.append(genuine)
      case 1: documents.append(HostileDocuments.jws(carrying: receiptChain, payload: payloadText))
      case 2: documents.append(HostileDocuments.jws(carrying: jwsChain, payload: payloadText))
      case 3: documents.append(String(line.dropLast(2)) + (line.hasSuffix("AA") ? "AB" : "AA"))
      case 4: documents.append(HostileDocuments.jws(carrying: Array(jwsChain.prefix(1)), payload: payloadText))
      default: documents.append(line)
      }
    }
    return documents.map { Array($0.utf8) }
  }

  static func verdict(_ bytes: [UInt8], lender: any SignatureVerifierLending) -> String {
    do {
      let history = try SignedDataFormat().decode(
        bytes, source: "test", options: DecodeOptions(signatures: SignatureChecking(verifiers: lender, now: now)))
      let check = history.provenance.signatureCheck
      return "\(check.verdict) \(check.summary) \(check.failures.map(\.code)) \(check.chain.map(\.sha256))"
    } catch {
      return "error \(error)"
    }
  }

  @Test func workersSharingAPoolAnswerAsEachDocumentAlone() throws {
    let trust = try Self.trust()
    let documents = try Self.documents()
    let alone = documents.map { Self.verdict($0, lender: OneVerifierLending(trust: trust)) }
    #expect(Set(alone).count >= 5, "the documents' verdicts differ")
    for round in 0..<3 {
      let pool = VerifierPool(trust: trust)
      let workers = 6
      let answers = SharedAnswers(count: workers * documents.count)
      DispatchQueue.concurrentPerform(iterations: workers) { worker in
        // Each worker goes through every document from its own place, so chains are first met on every worker.
        for k in documents.indices {
          let i = (k + worker * (round + 1) * 5) % documents.count
          answers.set(worker * documents.count + i, Self.verdict(documents[i], lender: pool))
        }
      }
      for worker in 0..<workers {
        for i in documents.indices {
          #expect(answers.get(worker * documents.count + i) == alone[i], "round \(round) worker \(worker) doc \(i)")
        }
      }
      // One validation a distinct chain checked under the JWS policy, one precomputation a leaf key.
      #expect(pool.shared.made.chains <= 4, "\(pool.shared.made)")
      #expect(pool.shared.made.keys <= 2, "\(pool.shared.made)")
    }
  }

  /// A verifier under other anchors than the pool's is not answered from it.
  @Test func otherAnchorsAreNotAnsweredFromThePool() throws {
    let trust = try Self.trust()
    let shared = PooledChainResults(trust: trust)
    let documents = try Self.documents()
    for bytes in documents {
      let lender = OneVerifierLending(trust: trust)
      lender.workspace.verifier.shared = shared
      _ = Self.verdict(bytes, lender: lender)
    }
    for bytes in documents {
      let lender = OneVerifierLending(trust: .apple)
      lender.workspace.verifier.shared = shared
      #expect(Self.verdict(bytes, lender: lender) == Self.verdict(bytes, lender: OneVerifierLending(trust: .apple)))
    }
  }

  /// Answers written by many threads, each to its own slot.
  final class SharedAnswers: @unchecked Sendable {
    private var slots: [String]
    private let lock = SharedLock()
    init(count: Int) { slots = Array(repeating: "", count: count) }
    func set(_ i: Int, _ value: String) { lock.locked { slots[i] = value } }
    func get(_ i: Int) -> String { lock.locked { slots[i] } }
  }
}
