/// A short Weierstrass curve y² = x³ − 3x + b over a prime field, with a prime group order and cofactor 1.
protocol WeierstrassCurve {
  associatedtype Field: MontgomeryModulus
  associatedtype Order: MontgomeryModulus where Order.Limbs == Field.Limbs
  static var curve: ECCurve { get }
  /// b, in Montgomery form.
  static var b: FieldElement<Field> { get }
  /// The base point G.
  static var generator: AffinePoint<Self> { get }
  /// Odd multiples G, 3G, …, (2^(w−1)−1)G for the wNAF digits of u1 (w = `generatorWindow`), built once.
  static var generatorTable: [AffinePoint<Self>] { get }
  /// G's odd multiples per 64-bit part of a scalar (window `splitWindow`), for keys with a table of their own.
  static var generatorSplitTable: LimbSplitTable<Self> { get }
}

extension WeierstrassCurve {
  /// wNAF window for G: 32 precomputed points, about bits/8 additions per verification.
  static var generatorWindow: Int { 7 }
  /// wNAF window for the public key Q: 8 points computed per verification, about bits/6 additions.
  static var publicKeyWindow: Int { 5 }
  /// wNAF window of the limb-split tables, G's and a precomputed key's: 32 multiples per part, about bits/8 mixed
  /// additions per scalar.
  static var splitWindow: Int { 7 }
  static var byteCount: Int { Field.byteCount }

  /// A point from its affine coordinates given in hex (curve constants only).
  static func constantPoint(x: Field.Limbs, y: Field.Limbs) -> AffinePoint<Self> {
    guard let x = FieldElement<Field>(canonical: x), let y = FieldElement<Field>(canonical: y) else {
      preconditionFailure("curve constant not below p")
    }
    return AffinePoint(x: x, y: y)
  }

  static func constantSplitTable() -> LimbSplitTable<Self> {
    guard let table = LimbSplitTable(generator, window: splitWindow) else {
      preconditionFailure("a small multiple of G is the identity")
    }
    return table
  }

  static func constantElement(_ limbs: Field.Limbs) -> FieldElement<Field> {
    guard let element = FieldElement<Field>(canonical: limbs) else { preconditionFailure("curve constant not below p") }
    return element
  }
}

/// NIST P-256 (secp256r1), FIPS 186-4 D.1.2.3. Limbs least significant first.
enum P256: WeierstrassCurve {
  typealias Field = P256FieldModulus
  typealias Order = P256OrderModulus
  static var curve: ECCurve { .p256 }
  static let b = constantElement(
    (0x3bce_3c3e_27d2_604b, 0x651d_06b0_cc53_b0f6, 0xb3eb_bd55_7698_86bc, 0x5ac6_35d8_aa3a_93e7)
  )
  static let generator = constantPoint(
    x: (0xf4a1_3945_d898_c296, 0x7703_7d81_2deb_33a0, 0xf8bc_e6e5_63a4_40f2, 0x6b17_d1f2_e12c_4247),
    y: (0xcbb6_4068_37bf_51f5, 0x2bce_3357_6b31_5ece, 0x8ee7_eb4a_7c0f_9e16, 0x4fe3_42e2_fe1a_7f9b)
  )
  static let generatorTable = AffinePoint<P256>.oddMultiples(of: generator, window: generatorWindow)
  static let generatorSplitTable = constantSplitTable()
}

/// NIST P-384 (secp384r1), FIPS 186-4 D.1.2.4. Limbs least significant first.
enum P384: WeierstrassCurve {
  typealias Field = P384FieldModulus
  typealias Order = P384OrderModulus
  static var curve: ECCurve { .p384 }
  static let b = constantElement(
    (
      0x2a85_c8ed_d3ec_2aef, 0xc656_398d_8a2e_d19d, 0x0314_088f_5013_875a, 0x181d_9c6e_fe81_4112,
      0x988e_056b_e3f8_2d19, 0xb331_2fa7_e23e_e7e4
    )
  )
  static let generator = constantPoint(
    x: (
      0x3a54_5e38_7276_0ab7, 0x5502_f25d_bf55_296c, 0x59f7_41e0_8254_2a38, 0x6e1d_3b62_8ba7_9b98,
      0x8eb1_c71e_f320_ad74, 0xaa87_ca22_be8b_0537
    ),
    y: (
      0x7a43_1d7c_90ea_0e5f, 0x0a60_b1ce_1d7e_819d, 0xe9da_3113_b5f0_b8c0, 0xf8f4_1dbd_289a_147c,
      0x5d9e_98bf_9292_dc29, 0x3617_de4a_9626_2c6f
    )
  )
  static let generatorTable = AffinePoint<P384>.oddMultiples(of: generator, window: generatorWindow)
  static let generatorSplitTable = constantSplitTable()
}
