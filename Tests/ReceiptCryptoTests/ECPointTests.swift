import Testing

@testable import ReceiptCrypto

// Group-law identities (after Go's nistec tests): P+P == [2]P == [n+2]P, [n]G = identity, the base-point table
// path and the Straus/wNAF path agree with plain double-and-add, and the projective x comparison agrees with the
// affine one.
@Suite("EC points")
struct ECPointTests {
  @Test func generatorAndTableAreOnTheCurve() {
    #expect(P256.generator.isOnCurve)
    #expect(P384.generator.isOnCurve)
    #expect(P256.generatorTable.count == 32 && P256.generatorTable.allSatisfy(\.isOnCurve))
    #expect(P384.generatorTable.count == 32 && P384.generatorTable.allSatisfy(\.isOnCurve))
    // Table entry i is [2i+1]G.
    let seven = ScalarMultiplication<P256>.plainMultiple(P256.Order.tuple([7]), JacobianPoint(P256.generator))
    #expect(JacobianPoint(P256.generatorTable[3]) == seven)
  }

  @Test func groupIdentities() {
    checkIdentities(P256.self, seed: 11)
    checkIdentities(P384.self, seed: 12)
  }

  @Test func wNAFDigitsRebuildTheScalar() {
    var random = SplitMix64(state: 5)
    for window in [2, 5, 7] {
      for _ in 0..<20 {
        let k = random.below(P256.Order.modulusArray)
        var digits = [Int8](repeating: 0, count: 257)
        let length = digits.withUnsafeMutableBufferPointer {
          ScalarMultiplication<P256>.wNAF(P256.Order.tuple(k), window: window, into: $0)
        }
        // Σ dᵢ·2ⁱ, from the top, in signed arithmetic on the reference's limbs: positive and negative parts apart.
        var positive = [UInt64](repeating: 0, count: 5)
        var negative = [UInt64](repeating: 0, count: 5)
        for i in stride(from: length - 1, through: 0, by: -1) {
          positive = Array(SchoolbookInteger.add(positive, positive).prefix(5))
          negative = Array(SchoolbookInteger.add(negative, negative).prefix(5))
          let digit = Int(digits[i])
          if digit > 0 { positive = Array(SchoolbookInteger.add(positive, [UInt64(digit)]).prefix(5)) }
          if digit < 0 { negative = Array(SchoolbookInteger.add(negative, [UInt64(-digit)]).prefix(5)) }
          #expect(digit == 0 || (digit & 1 == 1 && abs(digit) < 1 << (window - 1)))
        }
        #expect(SchoolbookInteger.subtract(positive, negative) == k + [0], "wNAF(\(window)) of \(k)")
        for i in 0..<length where digits[i] != 0 {
          #expect(digits[(i + 1)..<min(length, i + window)].allSatisfy { $0 == 0 }, "non-adjacent within the window")
        }
      }
    }
  }

  private func checkIdentities<C: WeierstrassCurve>(_: C.Type, seed: UInt64) {
    typealias Point = JacobianPoint<C>
    let n = C.Order.modulusArray
    let g = Point(C.generator)
    let identity = Point.identity
    #expect(ScalarMultiplication<C>.plainMultiple(C.Order.modulus, g).isIdentity, "[n]G is the identity")
    #expect(ScalarMultiplication<C>.baseMultiple(C.Order.zeroLimbs).isIdentity, "[0]G is the identity")
    let nMinusOne = C.Order.tuple(SchoolbookInteger.subtract(n, [1]))
    #expect(ScalarMultiplication<C>.baseMultiple(nMinusOne) == g.negated, "[n−1]G == −G")
    #expect(g.adding(g.negated).isIdentity, "G + (−G)")
    #expect(g.adding(C.generator.negated).isIdentity, "G + (−G), mixed")
    #expect(identity.adding(g) == g && g.adding(identity) == g && identity.adding(C.generator) == g)
    #expect(identity.doubled().isIdentity)

    var random = SplitMix64(state: seed)
    for _ in 0..<4 {
      let k = random.below(n)
      let p = ScalarMultiplication<C>.plainMultiple(C.Order.tuple(k), g)
      let base = ScalarMultiplication<C>.baseMultiple(C.Order.tuple(k))
      #expect(p == base, "[k]G by the table path == plain double-and-add")
      guard let affine = p.affine else {
        Issue.record("[k]G is not the identity for 0 < k < n")
        continue
      }
      #expect(affine.isOnCurve)
      let twice = p.doubled()
      #expect(p.adding(p) == twice, "P+P == [2]P (doubling inside addition)")
      #expect(p.adding(affine) == twice, "P+P == [2]P, mixed")
      let nPlusTwo = C.Order.tuple(Array(SchoolbookInteger.add(n, [2]).prefix(C.Order.limbCount)))
      #expect(ScalarMultiplication<C>.plainMultiple(nPlusTwo, p) == twice, "[n+2]P == [2]P")
      // [u1]G + [u2]P by Straus == the two plain multiples added.
      let u1 = random.below(n)
      let u2 = random.below(n)
      let combined = ScalarMultiplication<C>.linearCombination(C.Order.tuple(u1), base: C.Order.tuple(u2), affine)
      let plain = ScalarMultiplication<C>.plainMultiple(C.Order.tuple(u1), g)
        .adding(ScalarMultiplication<C>.plainMultiple(C.Order.tuple(u2), p))
      #expect(combined == plain, "[u1]G + [u2]P")
      // With Q = G and u2 = n − u1 the combination is the identity (addition meets P + (−P)).
      let rest = C.Order.tuple(SchoolbookInteger.subtract(n, u1))
      #expect(ScalarMultiplication<C>.linearCombination(C.Order.tuple(u1), base: rest, C.generator).isIdentity)
      // And equal halves double: [u1]G + [u1]G through the Q table.
      #expect(
        ScalarMultiplication<C>.linearCombination(C.Order.tuple(u1), base: C.Order.tuple(u1), C.generator)
          == ScalarMultiplication<C>.baseMultiple(C.Order.tuple(u1)).doubled())
      // Projective x comparison == affine x comparison, for the true x and for a wrong one.
      let x = reducedModN(affine.x.canonicalLimbs, C.self)
      #expect(p.hasAffineX(congruentTo: x))
      let wrong = C.Order.tuple(SchoolbookInteger.remainder(SchoolbookInteger.add(C.Order.array(x), [1]), n))
      #expect(!p.hasAffineX(congruentTo: wrong))
    }
  }

  private func reducedModN<C: WeierstrassCurve>(_ x: C.Field.Limbs, _: C.Type) -> C.Order.Limbs {
    C.Order.tuple(SchoolbookInteger.remainder(C.Field.array(x), C.Order.modulusArray))
  }
}
