/// A point other than the identity, in affine coordinates (Montgomery form). Public keys and the G table.
struct AffinePoint<C: WeierstrassCurve>: Sendable {
  var x: FieldElement<C.Field>
  var y: FieldElement<C.Field>

  /// Decodes `04 || X || Y` (SEC 1 2.3.4): coordinates below p and on the curve. The identity has no such
  /// encoding, and compressed points are not accepted.
  init(x963 bytes: [UInt8]) throws(CryptoKeyError) {
    let size = C.byteCount
    guard let first = bytes.first else { throw .unsupportedPointEncoding(firstByte: nil) }
    guard first == 0x04 else { throw .unsupportedPointEncoding(firstByte: first) }
    guard bytes.count == 1 + 2 * size else {
      throw .wrongPointLength(curve: C.curve, expected: 1 + 2 * size, actual: bytes.count)
    }
    guard let x = FieldElement<C.Field>(bigEndian: bytes[1..<(1 + size)]),
      let y = FieldElement<C.Field>(bigEndian: bytes[(1 + size)...])
    else { throw .coordinateOutOfRange(curve: C.curve) }
    let point = AffinePoint(x: x, y: y)
    guard point.isOnCurve else { throw .pointNotOnCurve(curve: C.curve) }
    self = point
  }

  init(x: FieldElement<C.Field>, y: FieldElement<C.Field>) {
    self.x = x
    self.y = y
  }

  /// y² == x³ − 3x + b.
  var isOnCurve: Bool {
    let threeX = x.doubled() + x
    return y.squared() == x.squared() * x - threeX + C.b
  }

  var negated: AffinePoint { AffinePoint(x: x, y: y.negated()) }

  /// `04 || X || Y`.
  var x963Representation: [UInt8] { [0x04] + x.bigEndianBytes + y.bigEndianBytes }

  /// P, 3P, 5P, …, (2^(window−1) − 1)P in affine form (one inversion each; done once per curve for G).
  static func oddMultiples(of point: AffinePoint, window: Int) -> [AffinePoint] {
    let count = 1 << (window - 2)
    let twice = JacobianPoint(point).doubled()
    var jacobian = [JacobianPoint(point)]
    for i in 1..<count { jacobian.append(jacobian[i - 1].adding(twice)) }
    return jacobian.map { multiple in
      guard let affine = multiple.affine else { preconditionFailure("a small multiple of a point of prime order") }
      return affine
    }
  }
}

/// A point in Jacobian coordinates (X/Z², Y/Z³), Montgomery form; Z = 0 is the identity.
struct JacobianPoint<C: WeierstrassCurve>: Sendable {
  var x: FieldElement<C.Field>
  var y: FieldElement<C.Field>
  var z: FieldElement<C.Field>

  static var identity: JacobianPoint { JacobianPoint(x: .one, y: .one, z: .zero) }

  init(x: FieldElement<C.Field>, y: FieldElement<C.Field>, z: FieldElement<C.Field>) {
    self.x = x
    self.y = y
    self.z = z
  }

  init(_ point: AffinePoint<C>) {
    self.init(x: point.x, y: point.y, z: .one)
  }

  var isIdentity: Bool { z.isZero }

  /// The affine point, or nil for the identity (one inversion).
  var affine: AffinePoint<C>? {
    if isIdentity { return nil }
    let zInverse = z.inverted()
    let zInverse2 = zInverse.squared()
    return AffinePoint(x: x * zInverse2, y: y * zInverse2 * zInverse)
  }

  var negated: JacobianPoint { JacobianPoint(x: x, y: y.negated(), z: z) }

  /// [2]P with a = −3 ("dbl-2001-b", 3M + 5S). The curves have no point of order 2, so only the identity is special.
  @inline(__always)
  func doubled() -> JacobianPoint {
    if isIdentity { return self }
    let delta = z.squared()
    let gamma = y.squared()
    let beta = x * gamma
    let t = (x - delta) * (x + delta)
    let alpha = t.doubled() + t
    let beta4 = beta.doubled().doubled()
    let x3 = alpha.squared() - beta4.doubled()
    let z3 = (y + z).squared() - gamma - delta
    let gamma8 = gamma.squared().doubled().doubled().doubled()
    let y3 = alpha * (beta4 - x3) - gamma8
    return JacobianPoint(x: x3, y: y3, z: z3)
  }

  /// P + Q ("add-2007-bl", 11M + 5S), with the identity and P == Q (doubling) and P == −Q (identity) handled.
  @inline(__always)
  func adding(_ other: JacobianPoint) -> JacobianPoint {
    if isIdentity { return other }
    if other.isIdentity { return self }
    let z1z1 = z.squared()
    let z2z2 = other.z.squared()
    let u1 = x * z2z2
    let u2 = other.x * z1z1
    let s1 = y * other.z * z2z2
    let s2 = other.y * z * z1z1
    let h = u2 - u1
    let r = (s2 - s1).doubled()
    if h.isZero { return r.isZero ? doubled() : .identity }
    let i = h.doubled().squared()
    let j = h * i
    let v = u1 * i
    let x3 = r.squared() - j - v.doubled()
    let y3 = r * (v - x3) - (s1 * j).doubled()
    let z3 = ((z + other.z).squared() - z1z1 - z2z2) * h
    return JacobianPoint(x: x3, y: y3, z: z3)
  }

  /// P + Q for an affine Q ("madd-2007-bl", 7M + 4S), with the same special cases.
  @inline(__always)
  func adding(_ other: AffinePoint<C>) -> JacobianPoint {
    if isIdentity { return JacobianPoint(other) }
    let z1z1 = z.squared()
    let u2 = other.x * z1z1
    let s2 = other.y * z * z1z1
    let h = u2 - x
    let r = (s2 - y).doubled()
    if h.isZero { return r.isZero ? doubled() : .identity }
    let hh = h.squared()
    let i = hh.doubled().doubled()
    let j = h * i
    let v = x * i
    let x3 = r.squared() - j - v.doubled()
    let y3 = r * (v - x3) - (y * j).doubled()
    let z3 = (z + h).squared() - z1z1 - hh
    return JacobianPoint(x: x3, y: y3, z: z3)
  }

  /// Whether the affine x of this point, reduced mod n, equals `r` (canonical limbs in [1, n−1]), without an
  /// inversion: X == r·Z², or X == (r+n)·Z² when r + n < p (x is below p, so x mod n is x or x − n).
  func hasAffineX(congruentTo r: C.Order.Limbs) -> Bool {
    if isIdentity { return false }
    let z2 = z.squared()
    guard let rField = FieldElement<C.Field>(canonical: r) else { return false }
    if rField * z2 == x { return true }
    var rPlusN = r
    let fitsInField = withMutableLimbs(&rPlusN, count: C.Field.limbCount) { sum in
      withLimbs(C.Order.modulus, count: C.Field.limbCount) { n in
        !LimbArithmetic.add(sum, sum, n, C.Field.limbCount)
      }
    }
    guard fitsInField, let wrapped = FieldElement<C.Field>(canonical: rPlusN) else { return false }
    return wrapped * z2 == x
  }
}

extension JacobianPoint: Equatable {
  /// Same point whatever the Z: X1·Z2² == X2·Z1² and Y1·Z2³ == Y2·Z1³.
  static func == (a: JacobianPoint, b: JacobianPoint) -> Bool {
    if a.isIdentity || b.isIdentity { return a.isIdentity == b.isIdentity }
    let az2 = a.z.squared()
    let bz2 = b.z.squared()
    return a.x * bz2 == b.x * az2 && a.y * bz2 * b.z == b.y * az2 * a.z
  }
}
