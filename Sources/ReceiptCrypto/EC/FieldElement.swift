/// A residue modulo `M.modulus`, kept in Montgomery form (value·R mod m) on fixed stack limbs.
///
/// Used for the field of a curve (mod p) and for its scalars (mod n, see ScalarField.swift). Operations are
/// variable time: verification handles only public data.
struct FieldElement<M: MontgomeryModulus>: Sendable {
  /// value·R mod m, least significant limb first.
  var limbs: M.Limbs

  @inline(__always)
  init(montgomeryLimbs: M.Limbs) { self.limbs = montgomeryLimbs }

  static var zero: Self { Self(montgomeryLimbs: M.zeroLimbs) }
  static var one: Self { Self(montgomeryLimbs: M.montgomeryOne) }

  /// The element whose value is `canonical` (limbs < m), converted into Montgomery form; nil when not below m.
  init?(canonical: M.Limbs) {
    let inRange = withLimbs(canonical, count: M.limbCount) { c in
      withLimbs(M.modulus, count: M.limbCount) { m in LimbArithmetic.isLess(c, m, M.limbCount) }
    }
    guard inRange else { return nil }
    self.init(unreducedMontgomeryProduct: canonical, M.rSquared)
  }

  /// The element whose big-endian encoding is `bytes` (exactly `M.byteCount` bytes, value < m); nil otherwise.
  init?(bigEndian bytes: ArraySlice<UInt8>) {
    guard let canonical = Self.canonicalLimbs(bigEndian: bytes) else { return nil }
    self.init(canonical: canonical)
  }

  /// a·b·R⁻¹ mod m for limbs a, b < m, whatever form they are in.
  @inline(__always)
  init(unreducedMontgomeryProduct a: M.Limbs, _ b: M.Limbs) {
    var result = M.zeroLimbs
    withMutableLimbs(&result, count: M.limbCount) { r in
      withLimbs(a, count: M.limbCount) { a in
        withLimbs(b, count: M.limbCount) { b in
          withLimbs(M.modulus, count: M.limbCount) { m in
            LimbArithmetic.montgomeryMultiply(r, a, b, m, M.negativeInverse, M.limbCount)
          }
        }
      }
    }
    self.limbs = result
  }

  /// Limbs of a big-endian byte string of exactly `M.byteCount` bytes (not reduced).
  static func canonicalLimbs(bigEndian bytes: ArraySlice<UInt8>) -> M.Limbs? {
    guard bytes.count == M.byteCount else { return nil }
    var result = M.zeroLimbs
    withMutableLimbs(&result, count: M.limbCount) { r in
      var index = bytes.startIndex
      for limb in stride(from: M.limbCount - 1, through: 0, by: -1) {
        var word: UInt64 = 0
        for _ in 0..<8 {
          word = word << 8 | UInt64(bytes[index])
          index += 1
        }
        r[limb] = word
      }
    }
    return result
  }

  /// The value (not its Montgomery form) as limbs.
  var canonicalLimbs: M.Limbs {
    var one = M.zeroLimbs
    withMutableLimbs(&one, count: M.limbCount) { $0[0] = 1 }
    return Self(unreducedMontgomeryProduct: limbs, one).limbs
  }

  /// The value as `M.byteCount` big-endian bytes.
  var bigEndianBytes: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(M.byteCount)
    withLimbs(canonicalLimbs, count: M.limbCount) { c in
      for limb in stride(from: M.limbCount - 1, through: 0, by: -1) {
        for shift in stride(from: 56, through: 0, by: -8) {
          bytes.append(UInt8(truncatingIfNeeded: c[limb] >> UInt64(shift)))
        }
      }
    }
    return bytes
  }

  var isZero: Bool { withLimbs(limbs, count: M.limbCount) { LimbArithmetic.isZero($0, M.limbCount) } }

  @inline(__always)
  static func * (a: Self, b: Self) -> Self { Self(unreducedMontgomeryProduct: a.limbs, b.limbs) }

  @inline(__always)
  func squared() -> Self { Self(unreducedMontgomeryProduct: limbs, limbs) }

  @inline(__always)
  static func + (a: Self, b: Self) -> Self {
    var result = M.zeroLimbs
    withMutableLimbs(&result, count: M.limbCount) { r in
      withLimbs(a.limbs, count: M.limbCount) { a in
        withLimbs(b.limbs, count: M.limbCount) { b in
          withLimbs(M.modulus, count: M.limbCount) { m in LimbArithmetic.addModulo(r, a, b, m, M.limbCount) }
        }
      }
    }
    return Self(montgomeryLimbs: result)
  }

  @inline(__always)
  static func - (a: Self, b: Self) -> Self {
    var result = M.zeroLimbs
    withMutableLimbs(&result, count: M.limbCount) { r in
      withLimbs(a.limbs, count: M.limbCount) { a in
        withLimbs(b.limbs, count: M.limbCount) { b in
          withLimbs(M.modulus, count: M.limbCount) { m in LimbArithmetic.subtractModulo(r, a, b, m, M.limbCount) }
        }
      }
    }
    return Self(montgomeryLimbs: result)
  }

  @inline(__always)
  func negated() -> Self { Self.zero - self }

  @inline(__always)
  func doubled() -> Self { self + self }

  /// self⁻¹ by binary extended Euclid (`LimbArithmetic.almostInverse`; on P-256 21,000 instructions to Fermat's
  /// 95,000); zero maps to zero. Its running time depends on the value far more than Fermat's, so only for public
  /// values: ECDSA verification inverts the signature's s. `inverted()` stays the reference (ECFieldTests).
  func invertedByEuclid() -> Self {
    guard !isZero else { return .zero }
    var u = M.modulus
    var v = limbs
    var r = M.zeroLimbs
    var s = M.zeroLimbs
    withMutableLimbs(&s, count: M.limbCount) { $0[0] = 1 }
    withMutableLimbs(&u, count: M.limbCount) { u in
      withMutableLimbs(&v, count: M.limbCount) { v in
        withMutableLimbs(&r, count: M.limbCount) { r in
          withMutableLimbs(&s, count: M.limbCount) { s in
            withLimbs(M.modulus, count: M.limbCount) { m in
              let k = LimbArithmetic.almostInverse(u: u, v: v, r: r, s: s, M.limbCount)
              LimbArithmetic.divideByPowerOfTwo(s, k, m, M.negativeInverse, M.limbCount)
            }
          }
        }
      }
    }
    // s = (aR)⁻¹ = a⁻¹R⁻¹ for self = aR; each Montgomery product with R² multiplies by R: a⁻¹, then a⁻¹R.
    return Self(unreducedMontgomeryProduct: Self(unreducedMontgomeryProduct: s, M.rSquared).limbs, M.rSquared)
  }

  /// self^(m−2) = self⁻¹ for a prime modulus (Fermat), with a fixed 4-bit window; zero maps to zero.
  func inverted() -> Self {
    var exponent = M.modulus
    withMutableLimbs(&exponent, count: M.limbCount) { $0[0] &-= 2 }  // m is odd and m[0] > 2 for our moduli
    var powers = (
      Self.one, self, Self.zero, Self.zero, Self.zero, Self.zero, Self.zero, Self.zero,
      Self.zero, Self.zero, Self.zero, Self.zero, Self.zero, Self.zero, Self.zero, Self.zero
    )
    return withUnsafeMutablePointer(to: &powers) { tuple in
      tuple.withMemoryRebound(to: Self.self, capacity: 16) { table in
        for i in 2..<16 { table[i] = table[i - 1] * self }
        var result = Self.one
        withLimbs(exponent, count: M.limbCount) { e in
          for limb in stride(from: M.limbCount - 1, through: 0, by: -1) {
            for shift in stride(from: 60, through: 0, by: -4) {
              result = result.squared().squared().squared().squared()
              let nibble = Int(truncatingIfNeeded: e[limb] >> UInt64(shift)) & 0xf
              if nibble != 0 { result = result * table[nibble] }
            }
          }
        }
        return result
      }
    }
  }
}

extension FieldElement: Equatable {
  static func == (a: Self, b: Self) -> Bool {
    withLimbs(a.limbs, count: M.limbCount) { a in
      withLimbs(b.limbs, count: M.limbCount) { b in
        for i in 0..<M.limbCount where a[i] != b[i] { return false }
        return true
      }
    }
  }
}
