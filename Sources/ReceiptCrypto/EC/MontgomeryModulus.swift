/// An odd modulus for Montgomery arithmetic on a fixed number of 64-bit limbs, least significant limb first.
///
/// `Limbs` is a tuple of `limbCount` UInt64, so elements live on the stack and the hot path never allocates.
/// Every modulus here has its top bit set (m > R/2 with R = 2^(64·limbCount)), which the reductions rely on.
protocol MontgomeryModulus {
  associatedtype Limbs: Sendable
  static var limbCount: Int { get }
  static var zeroLimbs: Limbs { get }
  static var modulus: Limbs { get }
  /// −m⁻¹ mod 2⁶⁴, for the reduction step (tested against the modulus).
  static var negativeInverse: UInt64 { get }
  /// R mod m: one in Montgomery form.
  static var montgomeryOne: Limbs { get }
  /// R² mod m: multiplying by it converts into Montgomery form.
  static var rSquared: Limbs { get }
}

extension MontgomeryModulus {
  static var byteCount: Int { limbCount * 8 }

  /// R mod m = 2^(64·limbCount) − m, because m > R/2.
  static func computeMontgomeryOne() -> Limbs {
    var one = zeroLimbs
    withMutableLimbs(&one, count: limbCount) { r in
      withLimbs(modulus, count: limbCount) { m in
        var borrow: UInt64 = 0
        for i in 0..<limbCount {
          let (d1, o1) = UInt64(0).subtractingReportingOverflow(m[i])
          let (d2, o2) = d1.subtractingReportingOverflow(borrow)
          r[i] = d2
          borrow = (o1 || o2) ? 1 : 0
        }
      }
    }
    return one
  }

  /// R² mod m, by doubling R mod m another 64·limbCount times.
  static func computeRSquared() -> Limbs {
    var value = computeMontgomeryOne()
    withMutableLimbs(&value, count: limbCount) { v in
      withLimbs(modulus, count: limbCount) { m in
        for _ in 0..<(64 * limbCount) { LimbArithmetic.addModulo(v, v, v, m, limbCount) }
      }
    }
    return value
  }
}

typealias Limbs4 = (UInt64, UInt64, UInt64, UInt64)
typealias Limbs6 = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

/// The P-256 field prime p = 2²⁵⁶ − 2²²⁴ + 2¹⁹² + 2⁹⁶ − 1.
enum P256FieldModulus: MontgomeryModulus {
  static var limbCount: Int { 4 }
  static var zeroLimbs: Limbs4 { (0, 0, 0, 0) }
  static var modulus: Limbs4 {
    (0xffff_ffff_ffff_ffff, 0x0000_0000_ffff_ffff, 0x0000_0000_0000_0000, 0xffff_ffff_0000_0001)
  }
  static var negativeInverse: UInt64 { 0x0000_0000_0000_0001 }
  static let montgomeryOne: Limbs4 = computeMontgomeryOne()
  static let rSquared: Limbs4 = computeRSquared()
}

/// The P-256 group order n.
enum P256OrderModulus: MontgomeryModulus {
  static var limbCount: Int { 4 }
  static var zeroLimbs: Limbs4 { (0, 0, 0, 0) }
  static var modulus: Limbs4 {
    (0xf3b9_cac2_fc63_2551, 0xbce6_faad_a717_9e84, 0xffff_ffff_ffff_ffff, 0xffff_ffff_0000_0000)
  }
  static var negativeInverse: UInt64 { 0xccd1_c8aa_ee00_bc4f }
  static let montgomeryOne: Limbs4 = computeMontgomeryOne()
  static let rSquared: Limbs4 = computeRSquared()
}

/// The P-384 field prime p = 2³⁸⁴ − 2¹²⁸ − 2⁹⁶ + 2³² − 1.
enum P384FieldModulus: MontgomeryModulus {
  static var limbCount: Int { 6 }
  static var zeroLimbs: Limbs6 { (0, 0, 0, 0, 0, 0) }
  static var modulus: Limbs6 {
    (
      0x0000_0000_ffff_ffff, 0xffff_ffff_0000_0000, 0xffff_ffff_ffff_fffe, 0xffff_ffff_ffff_ffff,
      0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff
    )
  }
  static var negativeInverse: UInt64 { 0x0000_0001_0000_0001 }
  static let montgomeryOne: Limbs6 = computeMontgomeryOne()
  static let rSquared: Limbs6 = computeRSquared()
}

/// The P-384 group order n.
enum P384OrderModulus: MontgomeryModulus {
  static var limbCount: Int { 6 }
  static var zeroLimbs: Limbs6 { (0, 0, 0, 0, 0, 0) }
  static var modulus: Limbs6 {
    (
      0xecec_196a_ccc5_2973, 0x581a_0db2_48b0_a77a, 0xc763_4d81_f437_2ddf, 0xffff_ffff_ffff_ffff,
      0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff
    )
  }
  static var negativeInverse: UInt64 { 0x6ed4_6089_e88f_dc45 }
  static let montgomeryOne: Limbs6 = computeMontgomeryOne()
  static let rSquared: Limbs6 = computeRSquared()
}

/// Reads a homogeneous UInt64 tuple through a pointer (tuples of one element type are laid out as arrays).
@inline(__always)
func withLimbs<L, R>(_ value: L, count: Int, _ body: (UnsafePointer<UInt64>) -> R) -> R {
  withUnsafePointer(to: value) { $0.withMemoryRebound(to: UInt64.self, capacity: count, body) }
}

@inline(__always)
func withMutableLimbs<L, R>(_ value: inout L, count: Int, _ body: (UnsafeMutablePointer<UInt64>) -> R) -> R {
  withUnsafeMutablePointer(to: &value) { $0.withMemoryRebound(to: UInt64.self, capacity: count, body) }
}
