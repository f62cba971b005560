import Testing

@testable import ReceiptCrypto

// The Montgomery arithmetic of both fields (mod p) and both scalar rings (mod n), held to SchoolbookInteger
// on edge values and on seeded random values.
@Suite("EC field arithmetic")
struct ECFieldTests {
  @Test func montgomeryConstantsMatchTheModulus() {
    checkConstants(P256FieldModulus.self)
    checkConstants(P256OrderModulus.self)
    checkConstants(P384FieldModulus.self)
    checkConstants(P384OrderModulus.self)
  }

  @Test func arithmeticAgreesWithSchoolbookReference() {
    checkArithmetic(P256FieldModulus.self, seed: 1)
    checkArithmetic(P256OrderModulus.self, seed: 2)
    checkArithmetic(P384FieldModulus.self, seed: 3)
    checkArithmetic(P384OrderModulus.self, seed: 4)
  }

  @Test func valuesNotBelowTheModulusAreRefused() {
    checkRangeChecks(P256FieldModulus.self)
    checkRangeChecks(P384FieldModulus.self)
    checkRangeChecks(P256OrderModulus.self)
    checkRangeChecks(P384OrderModulus.self)
  }

  @Test func digestTruncationTakesTheLeftmostBytesAndReduces() {
    // SHA-512-length digest of 0xff bytes on P-256: leftmost 32 bytes = 2^256 − 1, reduced once by n.
    let allOnes = [UInt8](repeating: 0xff, count: 64)
    let reduced = P256OrderModulus.array(FieldElement<P256OrderModulus>.canonicalLimbs(truncatingDigest: allOnes))
    let expected = SchoolbookInteger.remainder([UInt64](repeating: .max, count: 4), P256OrderModulus.modulusArray)
    #expect(reduced == expected)
    // A short digest is an integer of its own length (no right padding).
    let short = FieldElement<P384OrderModulus>.canonicalLimbs(truncatingDigest: [0x01, 0x02])
    #expect(P384OrderModulus.array(short) == [0x0102, 0, 0, 0, 0, 0])
    // Only the leftmost bytes count: changing a byte past the order's length changes nothing.
    var longer = [UInt8](repeating: 0x5a, count: 48)
    let before = FieldElement<P256OrderModulus>.canonicalLimbs(truncatingDigest: longer)
    longer[40] ^= 0xff
    #expect(
      P256OrderModulus.array(before)
        == P256OrderModulus.array(FieldElement<P256OrderModulus>.canonicalLimbs(truncatingDigest: longer)))
  }

  /// The unrolled 4-limb multiplication (P-256's fast path) against the loop it replaces, on both P-256 moduli,
  /// including operands near the modulus where the final subtraction decides.
  @Test func unrolledMultiplicationAgreesWithTheLoop() {
    checkUnrolled(P256FieldModulus.self, seed: 21)
    checkUnrolled(P256OrderModulus.self, seed: 22)
  }

  /// The binary Euclid inverse (ECDSA's s⁻¹) against Fermat's power, the reference: seeded random values and
  /// edges, both as values and as raw Montgomery limbs, where Euclid's steps differ most.
  @Test func euclidInverseAgreesWithFermat() {
    checkEuclidInverse(P256OrderModulus.self, randomCount: 2_000, seed: 31)
    checkEuclidInverse(P256FieldModulus.self, randomCount: 500, seed: 32)
    checkEuclidInverse(P384OrderModulus.self, randomCount: 500, seed: 33)
    checkEuclidInverse(P384FieldModulus.self, randomCount: 200, seed: 34)
  }

  private func checkEuclidInverse<M: MontgomeryModulus>(_: M.Type, randomCount: Int, seed: UInt64) {
    let m = M.modulusArray
    let bits = 64 * M.limbCount
    func power(_ k: Int) -> [UInt64] {
      var words = [UInt64](repeating: 0, count: M.limbCount)
      words[k / 64] = 1 << UInt64(k % 64)
      return words
    }
    let small = (1...40).map { [UInt64($0)] + [UInt64](repeating: 0, count: M.limbCount - 1) }
    let nearM = (1...40).map { SchoolbookInteger.subtract(m, [UInt64($0)]) }
    // Long runs of zero bits (2^k, 2^k + 1, m − 2^k) and of one bits (2^k − 1, all ones below m).
    let runs = (1..<bits).flatMap { k -> [[UInt64]] in
      let p = power(k)
      return [p, SchoolbookInteger.add(p, [1]), SchoolbookInteger.subtract(p, [1]), SchoolbookInteger.subtract(m, p)]
        .map { SchoolbookInteger.remainder($0, m) }
    }
    let allOnes = SchoolbookInteger.remainder([UInt64](repeating: .max, count: M.limbCount), m)
    var random = SplitMix64(state: seed)
    let values = small + nearM + runs + [allOnes] + (0..<randomCount).map { _ in random.below(m) }
    let one = M.array(FieldElement<M>.one.canonicalLimbs)
    for a in values where !SchoolbookInteger.isZero(a) {
      // As a value (limbs aR) and as raw Montgomery limbs a.
      for x in [FieldElement<M>(canonical: M.tuple(a)), FieldElement<M>(montgomeryLimbs: M.tuple(a))] {
        guard let x else {
          Issue.record("\(a) below m refused for \(M.self)")
          continue
        }
        let inverse = x.invertedByEuclid()
        #expect(inverse == x.inverted(), "Euclid's inverse of limbs \(M.array(x.limbs)) mod \(M.self)")
        #expect(M.array((x * inverse).canonicalLimbs) == one, "x·x⁻¹ == 1 for limbs \(M.array(x.limbs))")
      }
    }
    #expect(FieldElement<M>.zero.invertedByEuclid().isZero, "zero has no inverse and maps to zero")
  }

  private func checkUnrolled<M: MontgomeryModulus>(_: M.Type, seed: UInt64) {
    let m = M.modulusArray
    var random = SplitMix64(state: seed)
    let near = (1...8).map { SchoolbookInteger.subtract(m, [UInt64($0)]) }
    let values = near + (0..<200).map { _ in random.below(m) }
    for (index, a) in values.enumerated() {
      let b = values[(index * 7 + 3) % values.count]
      var unrolled = M.zeroLimbs
      var loop = M.zeroLimbs
      withMutableLimbs(&unrolled, count: 4) { LimbArithmetic.montgomeryMultiply4($0, a, b, m, M.negativeInverse) }
      withMutableLimbs(&loop, count: 4) { LimbArithmetic.montgomeryMultiplyLoop($0, a, b, m, M.negativeInverse, 4) }
      #expect(M.array(unrolled) == M.array(loop), "\(a)·\(b) mod \(M.self)")
    }
  }

  private func checkConstants<M: MontgomeryModulus>(_: M.Type) {
    let m = M.modulusArray
    #expect(m[0] &* M.negativeInverse == UInt64.max, "−m⁻¹ mod 2⁶⁴ for \(M.self)")
    let r = [UInt64](repeating: 0, count: M.limbCount) + [1]
    #expect(M.array(M.montgomeryOne) == SchoolbookInteger.remainder(r, m), "R mod m for \(M.self)")
    let rSquared = [UInt64](repeating: 0, count: 2 * M.limbCount) + [1]
    #expect(M.array(M.rSquared) == SchoolbookInteger.remainder(rSquared, m), "R² mod m for \(M.self)")
    #expect(m[M.limbCount - 1] >> 63 == 1, "top bit set, as the reductions assume, for \(M.self)")
  }

  private func checkArithmetic<M: MontgomeryModulus>(_: M.Type, seed: UInt64) {
    let m = M.modulusArray
    let one = [UInt64(1)] + [UInt64](repeating: 0, count: M.limbCount - 1)
    let mMinusOne = SchoolbookInteger.subtract(m, one)
    let edges: [[UInt64]] = [
      [UInt64](repeating: 0, count: M.limbCount), one, mMinusOne, SchoolbookInteger.subtract(mMinusOne, one),
      [UInt64](repeating: 0, count: M.limbCount - 1) + [1 << 62],
      SchoolbookInteger.remainder([UInt64](repeating: .max, count: M.limbCount), m),
    ]
    var random = SplitMix64(state: seed)
    let values = edges + (0..<24).map { _ in random.below(m) }
    for a in values {
      guard let x = FieldElement<M>(canonical: M.tuple(a)) else {
        Issue.record("\(a) below m refused for \(M.self)")
        continue
      }
      #expect(M.array(x.canonicalLimbs) == a, "Montgomery round trip")
      if !SchoolbookInteger.isZero(a) {
        #expect(M.array((x * x.inverted()).canonicalLimbs) == one, "a·a⁻¹ == 1 for \(a) mod \(M.self)")
      }
      for b in values.prefix(12) {
        guard let y = FieldElement<M>(canonical: M.tuple(b)) else { continue }
        let product = SchoolbookInteger.remainder(SchoolbookInteger.multiply(a, b), m)
        #expect(M.array((x * y).canonicalLimbs) == product, "\(a)·\(b) mod \(M.self)")
        let sum = SchoolbookInteger.remainder(SchoolbookInteger.add(a, b), m)
        #expect(M.array((x + y).canonicalLimbs) == sum, "\(a)+\(b) mod \(M.self)")
        let difference = SchoolbookInteger.remainder(
          SchoolbookInteger.subtract(SchoolbookInteger.add(a, m), b), m)
        #expect(M.array((x - y).canonicalLimbs) == difference, "\(a)−\(b) mod \(M.self)")
        #expect((x == y) == (a == b))
      }
      let square = SchoolbookInteger.remainder(SchoolbookInteger.multiply(a, a), m)
      #expect(M.array(x.squared().canonicalLimbs) == square, "\(a)² mod \(M.self) (the squaring fast path)")
    }
    #expect(FieldElement<M>.zero.inverted().isZero, "zero has no inverse and maps to zero")
  }

  private func checkRangeChecks<M: MontgomeryModulus>(_: M.Type) {
    let m = M.modulusArray
    #expect(FieldElement<M>(canonical: M.modulus) == nil, "m itself for \(M.self)")
    #expect(FieldElement<M>(canonical: M.tuple(SchoolbookInteger.add(m, [1]))) == nil, "m + 1 for \(M.self)")
    #expect(FieldElement<M>(canonical: M.tuple([UInt64](repeating: .max, count: M.limbCount))) == nil)
    let mBytes = bigEndian(m)
    #expect(FieldElement<M>(bigEndian: mBytes[...]) == nil)
    #expect(FieldElement<M>.nonzeroCanonicalLimbs(bigEndian: mBytes[...]) == nil, "n is out of range for r, s")
    #expect(FieldElement<M>.nonzeroCanonicalLimbs(bigEndian: [0][...]) == nil, "zero is out of range for r, s")
    #expect(FieldElement<M>.nonzeroCanonicalLimbs(bigEndian: ([0] + mBytes)[...]) == nil, "too long")
    let mMinusOne = bigEndian(SchoolbookInteger.subtract(m, [1]))
    #expect(FieldElement<M>.nonzeroCanonicalLimbs(bigEndian: mMinusOne[...]) != nil, "n − 1 is in range")
    #expect(FieldElement<M>.nonzeroCanonicalLimbs(bigEndian: [0, 0, 1][...]) != nil, "leading zeros allowed")
  }

  private func bigEndian(_ limbs: [UInt64]) -> [UInt8] {
    limbs.reversed().flatMap { limb in
      stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: limb >> $0) }
    }
  }
}
