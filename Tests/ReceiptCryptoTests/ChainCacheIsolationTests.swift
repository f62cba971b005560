import ReceiptCrypto
import ReceiptTestSupport
import Testing

/// A chain's cached verdict holds only under the policy and trust roots it was checked by: a hostile document
/// carrying the other kind's chain fails with its own reason, and the genuine documents after it, checked by the
/// same verifier, verify as they do alone.
@Suite struct ChainCacheIsolationTests {
  struct Documents {
    var trust: TrustAnchors
    var jws: JWSTestToken
    var receipt: [UInt8]
    var receiptCarryingJWSChain: [UInt8]
    var jwsCarryingReceiptChain: JWSTestToken
  }

  static func documents() throws -> Documents {
    let jwsText = try #require(HostileDocuments.genuineJWS)
    let jws = try #require(JWSTestToken(jwsText))
    let payload = try #require(jwsText.split(separator: ".").dropFirst().first.flatMap { JWSTestToken.base64URL($0) })
    let hostileJWS = HostileDocuments.jws(
      carrying: try #require(HostileDocuments.receiptChain), payload: String(decoding: payload, as: UTF8.self))
    return Documents(
      trust: try #require(HostileDocuments.trust), jws: jws, receipt: try #require(HostileDocuments.genuineReceipt),
      receiptCarryingJWSChain: HostileDocuments.receipt(
        carrying: try #require(HostileDocuments.jwsChain), content: try #require(HostileDocuments.receiptPayload)),
      jwsCarryingReceiptChain: try #require(JWSTestToken(hostileJWS)))
  }

  static let receiptMoment = VerificationMoment(millisecondsSince1970: 1_718_409_600_000, source: .receiptCreationDate)

  @Test func aReceiptCarryingTheJWSChainDoesNotFailTheJWSAfterIt() throws {
    let d = try Self.documents()
    var verifier = AppleSignatureVerifier(trust: d.trust)
    let hostile = verifier.verifyPKCS7(d.receiptCarryingJWSChain, at: Self.receiptMoment)
    #expect(hostile.failure?.code == .unsupportedAlgorithm, "\(hostile.outcome)")
    #expect(hostile.failure?.detail.contains("this chain does not allow") == true)
    var alone = AppleSignatureVerifier(trust: d.trust)
    #expect(d.jws.verify(with: &alone).outcome == .verified)
    let after = d.jws.verify(with: &verifier)
    #expect(after.outcome == .verified, "\(after.failure?.description ?? "")")
    // Again, now that both verdicts are cached: each still answers for its own policy.
    #expect(verifier.verifyPKCS7(d.receiptCarryingJWSChain, at: Self.receiptMoment).failure == hostile.failure)
    #expect(d.jws.verify(with: &verifier).outcome == .verified)
  }

  @Test func aJWSCarryingTheReceiptChainDoesNotFailTheReceiptAfterIt() throws {
    let d = try Self.documents()
    var verifier = AppleSignatureVerifier(trust: d.trust)
    let hostile = d.jwsCarryingReceiptChain.verify(with: &verifier)
    #expect(hostile.failure?.code == .unsupportedAlgorithm, "\(hostile.outcome)")
    var alone = AppleSignatureVerifier(trust: d.trust)
    #expect(alone.verifyPKCS7(d.receipt, at: Self.receiptMoment).outcome == .verified)
    let after = verifier.verifyPKCS7(d.receipt, at: Self.receiptMoment)
    #expect(after.outcome == .verified, "\(after.failure?.description ?? "")")
    #expect(d.jwsCarryingReceiptChain.verify(with: &verifier).failure == hostile.failure)
    #expect(verifier.verifyPKCS7(d.receipt, at: Self.receiptMoment).outcome == .verified)
  }

  /// A cache's results hold for the anchors they were checked against: under other anchors they are not served.
  @Test func resultsAreKeptPerTrustRoots() throws {
    let d = try Self.documents()
    var cache = ChainCache()
    let chain = try #require(HostileDocuments.jwsChain)
    let rejected = ChainCache.Entry.rejected(SignatureFailure(.untrustedRoot, "test"), [])
    cache.store(rejected, for: chain, policy: .jws, trust: .apple)
    #expect(cache.lookUp(chain, policy: .jws, trust: .apple) == rejected)
    #expect(cache.lookUp(chain, policy: .receipt, trust: .apple) == nil)
    #expect(cache.lookUp(chain, policy: .jws, trust: d.trust) == nil)
    cache.store(rejected, forText: ["a", "b"], policy: .jws, trust: d.trust)
    #expect(cache.lookUp(text: ["a", "b"], policy: .jws, trust: d.trust) == rejected)
    #expect(cache.lookUp(text: ["a", "b"], policy: .receipt, trust: d.trust) == nil)
    #expect(cache.lookUp(text: ["a", "b"], policy: .jws, trust: .apple) == nil)
  }

  /// The text found last answers the next lookup of the same text at once; any other text, policy or trust roots
  /// go to the stored results, as if nothing had been found before.
  @Test func theTextFoundLastAnswersOnlyForItself() throws {
    let d = try Self.documents()
    var cache = ChainCache()
    let (a, b) = (
      ChainCache.Entry.rejected(SignatureFailure(.untrustedRoot, "a"), []),
      ChainCache.Entry.rejected(SignatureFailure(.badSignature, "b"), [])
    )
    cache.store(a, forText: ["a", "b"], policy: .jws, trust: .apple)
    cache.store(b, forText: ["a", "c"], policy: .jws, trust: .apple)
    cache.store(b, forText: ["a", "b"], policy: .receipt, trust: .apple)
    let lookups: [([String], AppleChain.Policy, TrustAnchors, ChainCache.Entry?)] = [
      (["a", "b"], .jws, .apple, a), (["a", "b"], .jws, .apple, a), (["a", "c"], .jws, .apple, b),
      (["a", "b"], .jws, .apple, a), (["a", "b"], .receipt, .apple, b), (["a", "b"], .jws, .apple, a),
      (["a", "b", "c"], .jws, .apple, nil), (["a"], .jws, .apple, nil), (["a", "b"], .jws, .apple, a),
      // Other roots forget every result, the last one found too.
      (["a", "b"], .jws, d.trust, nil), (["a", "b"], .jws, .apple, nil),
    ]
    var hits = 0
    for (i, (text, policy, trust, expected)) in lookups.enumerated() {
      #expect(cache.lookUp(text: text, policy: policy, trust: trust) == expected, "lookup \(i + 1)")
      if expected != nil { hits += 1 }
    }
    #expect(cache.hits == hits)
  }
}

/// The batch isolation fuzz property (`BatchIsolationFuzzing`) holds on inputs that put every hostile kind before
/// the genuine documents, on one verifier and on two, and on random bytes.
@Suite struct BatchIsolationFuzzingTests {
  @Test func theGenuineDocumentsVerifyAlone() {
    #expect(BatchIsolationFuzzing.genuineOutcomesAlone == [.verified, .verified])
  }

  @Test func hostileDocumentsOfEveryKindBeforeTheGenuineOnesChangeNothing() {
    for worker: UInt8 in [0x00, 0x80] {
      // Kinds 0 to 5 (bit 6 clear: hostile), then both genuine documents (bit 6 set), on one verifier.
      let layout: [UInt8] = (0..<6).map { worker | $0 } + [worker | 0x40, worker | 0x41]
      for tail in [[], Array("not a certificate".utf8), [UInt8](repeating: 0x30, count: 90)] {
        let problems = BatchIsolationFuzzing.fuzz(layout + [UInt8](repeating: 0x40, count: 16 - layout.count) + tail)
        #expect(problems.isEmpty, "\(problems)")
      }
    }
  }

  @Test func propertiesHoldOnRandomBytes() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<30 {
      let bytes = (0..<Int.random(in: 0...120, using: &generator)).map { _ in
        UInt8.random(in: 0...255, using: &generator)
      }
      let problems = BatchIsolationFuzzing.fuzz(bytes)
      #expect(problems.isEmpty, "\(bytes): \(problems)")
    }
  }
}
