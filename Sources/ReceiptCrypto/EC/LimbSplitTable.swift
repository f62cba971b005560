/// Affine odd multiples of P, 2^64·P, 2^128·P, … (one set per 64-bit limb of a scalar), for
/// `ScalarMultiplication.linearCombination(_:_:base:_:)`: a scalar k = Σ k_j·2^(64j) makes [k]P = Σ [k_j](2^(64j)P),
/// so every part shares one run of 64 doublings instead of 256 (P-256), and each addition is a mixed one.
///
/// Built once: statically for G (`WeierstrassCurve.generatorSplitTable`) and once per public key verified again and
/// again (`ECPublicKey.precomputed()`). Variable time, as is all of verification: every input is public.
struct LimbSplitTable<C: WeierstrassCurve>: Sendable {
  /// The wNAF window: 2^(window−2) odd multiples per part.
  let window: Int
  /// Part j's multiple (2i+1)·2^(64j)·P at j·multiplesPerPart + i; entry 0 is P itself.
  let points: [AffinePoint<C>]

  var multiplesPerPart: Int { 1 << (window - 2) }

  /// Bytes of the points: P-256 at window 7, 4 parts × 32 multiples × 64 bytes = 8 KiB.
  var byteCount: Int { points.count * MemoryLayout<AffinePoint<C>>.stride }

  /// The table of `point`; nil only if a multiple were the identity, which a point of prime order n never gives
  /// (every multiple is below 2^(64·(limbs−1)+window) < n).
  init?(_ point: AffinePoint<C>, window: Int) {
    let parts = C.Order.limbCount
    let perPart = 1 << (window - 2)
    var jacobian: [JacobianPoint<C>] = []
    jacobian.reserveCapacity(parts * perPart)
    var base = JacobianPoint(point)
    for part in 0..<parts {
      if part > 0 {
        for _ in 0..<64 { base = base.doubled() }
      }
      let twice = base.doubled()
      jacobian.append(base)
      for i in 1..<perPart { jacobian.append(jacobian[part * perPart + i - 1].adding(twice)) }
    }
    guard let points = Self.affine(jacobian) else { return nil }
    self.window = window
    self.points = points
  }

  /// All of `jacobian` in affine form with one inversion (Montgomery's trick: invert the product of the Z, then
  /// peel each Z⁻¹ off it); nil if any is the identity.
  static func affine(_ jacobian: [JacobianPoint<C>]) -> [AffinePoint<C>]? {
    guard !jacobian.contains(where: \.isIdentity) else { return nil }
    // prefix[i] = Z_0 · … · Z_i
    var prefix: [FieldElement<C.Field>] = []
    prefix.reserveCapacity(jacobian.count)
    var product = FieldElement<C.Field>.one
    for point in jacobian {
      product = product * point.z
      prefix.append(product)
    }
    var inverse = product.invertedByEuclid()  // (Z_0 · … · Z_last)⁻¹
    var points = jacobian.map { AffinePoint<C>(x: $0.x, y: $0.y) }
    for i in jacobian.indices.reversed() {
      let zInverse = i > 0 ? inverse * prefix[i - 1] : inverse
      inverse = inverse * jacobian[i].z
      let zInverse2 = zInverse.squared()
      points[i] = AffinePoint<C>(x: jacobian[i].x * zInverse2, y: jacobian[i].y * zInverse2 * zInverse)
    }
    return points
  }
}
