import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptCrypto

// A precomputed key (`ECPublicKey.precomputed()`, limb-split tables of G and Q) is held to the plain path it
// replaces: `linearCombination(_:base:_:)` and `plainMultiple`, on seeded random scalars and keys, on edge scalars,
// and through the chain cache. The Wycheproof run (ECDSAWycheproofTests) and the OpenSSL fixtures
// (ECPublicKeyTests) verify every vector with the precomputed key too.
@Suite("EC key tables")
struct KeyTableTests {
  @Test func tablesHoldTheOddMultiplesOfEachPart() {
    checkTable(P256.generatorSplitTable, of: P256.generator)
    checkTable(P384.generatorSplitTable, of: P384.generator)
    var random = SplitMix64(state: 71)
    let q = randomPoint(P256.self, &random)
    guard let table = LimbSplitTable(q, window: P256.splitWindow) else {
      Issue.record("a random key's table")
      return
    }
    checkTable(table, of: q)
    #expect(table.byteCount == 4 * 32 * 64, "P-256, window 7: 8 KiB")
  }

  /// Entry j·count + i is [(2i+1)·2^(64j)]P, on the curve.
  private func checkTable<C: WeierstrassCurve>(_ table: LimbSplitTable<C>, of point: AffinePoint<C>) {
    #expect(table.points.count == C.Order.limbCount * table.multiplesPerPart)
    #expect(table.points.allSatisfy { $0.isOnCurve })
    for part in 0..<C.Order.limbCount {
      for i in [0, 1, table.multiplesPerPart - 1] {
        var scalar = [UInt64](repeating: 0, count: C.Order.limbCount)
        scalar[part] = UInt64(2 * i + 1)
        let expected = ScalarMultiplication<C>.plainMultiple(C.Order.tuple(scalar), JacobianPoint(point))
        #expect(
          JacobianPoint(table.points[part * table.multiplesPerPart + i]) == expected, "part \(part), \(2 * i + 1)")
      }
    }
  }

  /// Thousands of seeded random (u1, u2, Q): the split combination equals Straus's.
  @Test func randomCombinationsAgreeWithTheReference() {
    checkRandom(P256.self, seed: 42, keys: 20, perKey: 100)
    checkRandom(P384.self, seed: 43, keys: 4, perKey: 50)
  }

  private func checkRandom<C: WeierstrassCurve>(_: C.Type, seed: UInt64, keys: Int, perKey: Int) {
    var random = SplitMix64(state: seed)
    let n = C.Order.modulusArray
    var compared = 0
    for _ in 0..<keys {
      let q = randomPoint(C.self, &random)
      guard let table = LimbSplitTable(q, window: C.splitWindow) else {
        Issue.record("a random key's table")
        continue
      }
      for _ in 0..<perKey {
        // Full-size scalars mostly; every fourth with random limbs cleared, so parts of zero come up often.
        var u1 = random.below(n)
        var u2 = random.below(n)
        if random.next() % 4 == 0 {
          for limb in 0..<C.Order.limbCount where random.next() % 2 == 0 { u1[limb] = 0 }
          for limb in 0..<C.Order.limbCount where random.next() % 2 == 0 { u2[limb] = 0 }
        }
        let split = ScalarMultiplication<C>.linearCombination(
          C.Order.tuple(u1), C.generatorSplitTable, base: C.Order.tuple(u2), table)
        let straus = ScalarMultiplication<C>.linearCombination(C.Order.tuple(u1), base: C.Order.tuple(u2), q)
        #expect(split == straus, "u1 \(u1), u2 \(u2), Q \(q.x963Representation)")
        compared += 1
      }
    }
    #expect(compared == keys * perKey)
  }

  /// Edge scalars for both u1 and u2 (every pair), with Q = G, Q = −G and a random Q: the split combination equals
  /// Straus's and, for Q = G and Q = −G, the plain multiple of u1 ± u2.
  @Test func edgeScalarsAgreeWithTheReference() {
    checkEdges(P256.self, seed: 44)
    checkEdges(P384.self, seed: 45)
  }

  private func checkEdges<C: WeierstrassCurve>(_: C.Type, seed: UInt64) {
    let n = C.Order.modulusArray
    let limbs = C.Order.limbCount
    func power(_ bit: Int) -> [UInt64] {
      var value = [UInt64](repeating: 0, count: limbs)
      value[bit / 64] = 1 << UInt64(bit % 64)
      return value
    }
    func part(_ index: Int, _ word: UInt64) -> [UInt64] {
      var value = [UInt64](repeating: 0, count: limbs)
      value[index] = word
      return value
    }
    var edges: [[UInt64]] = [
      [0], [1], [2], [3], SchoolbookInteger.subtract(n, [1]), SchoolbookInteger.subtract(n, [2]),
    ]
    for bit in stride(from: 64, to: limbs * 64, by: 64) {
      edges += [power(bit), power(bit - 1), SchoolbookInteger.subtract(power(bit), [1])]
    }
    edges.append(power(limbs * 64 - 1))  // the top bit: its wNAF carries into the extra digit
    for index in 0..<(limbs - 1) { edges.append(part(index, .max)) }  // one all-ones part, the others zero
    edges.append(part(limbs - 1, n[limbs - 1]))  // the top part as n's, the others zero
    // All-ones parts below, zero above, and the reverse under n: a part zero while another is not.
    edges.append([UInt64](repeating: .max, count: limbs - 1) + [0])
    edges.append([0] + Array(n.dropFirst()))
    edges = edges.map { Array(($0 + [UInt64](repeating: 0, count: limbs)).prefix(limbs)) }
    #expect(edges.allSatisfy { SchoolbookInteger.isLess($0, n) }, "every edge scalar is below n")

    var random = SplitMix64(state: seed)
    let keys = [C.generator, C.generator.negated, randomPoint(C.self, &random)]
    let g = JacobianPoint(C.generator)
    for (which, q) in keys.enumerated() {
      guard let table = LimbSplitTable(q, window: C.splitWindow) else {
        Issue.record("key \(which)'s table")
        continue
      }
      for u1 in edges {
        for u2 in edges {
          let split = ScalarMultiplication<C>.linearCombination(
            C.Order.tuple(u1), C.generatorSplitTable, base: C.Order.tuple(u2), table)
          let straus = ScalarMultiplication<C>.linearCombination(C.Order.tuple(u1), base: C.Order.tuple(u2), q)
          #expect(split == straus, "key \(which), u1 \(u1), u2 \(u2)")
        }
        // Q = ±G: [u1]G + [u2](±G) is [u1 ± u2]G, by plain double-and-add (u2 = u1 meets doubling and the identity).
        guard which < 2 else { continue }
        let u2 = u1
        let split = ScalarMultiplication<C>.linearCombination(
          C.Order.tuple(u1), C.generatorSplitTable, base: C.Order.tuple(u2), table)
        let sum =
          which == 0
          ? SchoolbookInteger.remainder(SchoolbookInteger.add(u1, u2), n)
          : [UInt64](repeating: 0, count: limbs)
        #expect(split == ScalarMultiplication<C>.plainMultiple(C.Order.tuple(sum), g), "Q = ±G, u1 = u2 = \(u1)")
      }
    }
  }

  /// [k]G for a seeded k in [1, n−1], in affine form.
  private func randomPoint<C: WeierstrassCurve>(_: C.Type, _ random: inout SplitMix64) -> AffinePoint<C> {
    var k = random.below(C.Order.modulusArray)
    if SchoolbookInteger.isZero(k) { k = [1] }
    return ScalarMultiplication<C>.plainMultiple(C.Order.tuple(k), JacobianPoint(C.generator)).affine ?? C.generator
  }

  @Test func aPrecomputedKeyIsTheKey() throws {
    var random = SplitMix64(state: 46)
    let bytes = randomPoint(P256.self, &random).x963Representation
    let key = try ECPublicKey(curve: .p256, x963Representation: bytes)
    let precomputed = key.precomputed()
    #expect(precomputed == key && precomputed.hashValue == key.hashValue)
    #expect(precomputed.x963Representation == bytes && precomputed.curve == .p256)
    #expect(key.precomputedTableByteCount == 0)
    #expect(precomputed.precomputedTableByteCount == 8_192)
    #expect(precomputed.precomputed().precomputedTableByteCount == 8_192, "precomputing again keeps the table")
  }

  /// The cache precomputes a P-256 key the second time it is asked for, keeps at most `precomputedKeyCapacity`,
  /// and never precomputes a key seen once or a P-384 key.
  @Test func theCachePrecomputesKeysSeenTwiceAndBoundsThem() throws {
    var random = SplitMix64(state: 47)
    let keys = try (0..<6).map { _ in
      try ECPublicKey(curve: .p256, x963Representation: randomPoint(P256.self, &random).x963Representation)
    }
    var cache = ChainCache()
    for key in keys { #expect(cache.verifyingKey(key).precomputedTableByteCount == 0, "seen once") }
    #expect(cache.precomputedKeyCount == 0)
    for (index, key) in keys.enumerated() {
      let second = cache.verifyingKey(key)
      #expect(second == key)
      #expect((second.precomputedTableByteCount > 0) == (index < ChainCache.precomputedKeyCapacity), "key \(index)")
    }
    #expect(cache.precomputedKeyCount == ChainCache.precomputedKeyCapacity)
    #expect(cache.verifyingKey(keys[0]).precomputedTableByteCount > 0, "kept")
    #expect(cache.verifyingKey(keys[5]).precomputedTableByteCount == 0, "full: verified as it comes")

    let p384 = try ECPublicKey(
      curve: .p384, x963Representation: randomPoint(P384.self, &random).x963Representation)
    for _ in 0..<3 { #expect(cache.verifyingKey(p384).precomputedTableByteCount == 0, "P-384 is not precomputed") }

    // One-off keys: however many, none is precomputed, and a key seen once before them is forgotten (bounded).
    var oneOffs = ChainCache()
    _ = oneOffs.verifyingKey(keys[0])
    for _ in 0..<40 {
      let key = try ECPublicKey(curve: .p256, x963Representation: randomPoint(P256.self, &random).x963Representation)
      #expect(oneOffs.verifyingKey(key).precomputedTableByteCount == 0)
    }
    #expect(oneOffs.precomputedKeyCount == 0)
    #expect(oneOffs.verifyingKey(keys[0]).precomputedTableByteCount == 0, "forgotten after 16 others")
  }

  /// The same chain verified three times gives the same verdict each time (the second and third through the
  /// precomputed leaf key), and a forged signature under the cached key fails as it does alone.
  @Test func aCachedChainVerifiesAlikeEachTimeAndAForgeryStillFails() throws {
    let text = try #require(HostileDocuments.genuineJWS)
    let token = try #require(JWSTestToken(text))
    let trust = try #require(HostileDocuments.trust)
    var forged = token
    forged.signature[40] ^= 0x01
    var alone = AppleSignatureVerifier(trust: trust)
    let forgedAlone = forged.verify(with: &alone)
    #expect(forgedAlone.failure?.code == .signatureMismatch, "\(forgedAlone.outcome)")

    var verifier = AppleSignatureVerifier(trust: trust)
    let first = token.verify(with: &verifier)
    #expect(first.outcome == .verified, "\(first.failure?.description ?? "")")
    for round in 2...3 {
      #expect(token.verify(with: &verifier) == first, "verification \(round)")
    }
    #expect(verifier.cache.precomputedKeyCount == 1, "the leaf key is precomputed")
    #expect(forged.verify(with: &verifier) == forgedAlone, "a forgery under the cached key")
    // A signature of another message, valid in form: r and s swapped.
    var swapped = token
    swapped.signature = Array(token.signature[32...] + token.signature[..<32])
    var swappedAlone = AppleSignatureVerifier(trust: trust)
    #expect(swapped.verify(with: &verifier) == swapped.verify(with: &swappedAlone))
    #expect(swapped.verify(with: &verifier).failure?.code == .signatureMismatch)
    #expect(token.verify(with: &verifier) == first, "and the genuine one after them")
  }
}
