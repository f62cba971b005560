/// An RSA public key fit for verifying Apple's receipt and certificate signatures: n odd, 2048 to 4096 bits,
/// e odd in 3...2^31-1 (the checks of Go's crypto/rsa `checkPublicKey`, with a 2048-bit floor).
public struct RSAPublicKey: Sendable, Hashable {
  /// The modulus, big-endian, without leading zero bytes.
  public let modulus: [UInt8]
  public let publicExponent: UInt32
  let montgomery: BigMontgomeryModulus

  public static let modulusBitRange = 2048...4096

  /// `modulus` and `publicExponent` are big-endian unsigned bytes; leading zero bytes (as in a DER INTEGER)
  /// are allowed.
  public init(modulus: [UInt8], publicExponent: [UInt8]) throws(CryptoKeyError) {
    let n = BigUInt(bigEndianBytes: modulus)
    guard Self.modulusBitRange.contains(n.bitWidth) else { throw .rsaModulusSize(bits: n.bitWidth) }
    guard n.isOdd, let montgomery = BigMontgomeryModulus(n) else { throw .rsaModulusEven }
    let e = BigUInt(bigEndianBytes: publicExponent)
    guard e.limbs.count <= 1 else { throw .rsaExponent(nil) }
    let value = e.limbs.first ?? 0
    guard value & 1 == 1, value >= 3, value <= UInt64(Int32.max) else { throw .rsaExponent(value) }
    self.modulus = n.bigEndianBytes
    self.publicExponent = UInt32(truncatingIfNeeded: value)
    self.montgomery = montgomery
  }

  public var modulusBitCount: Int { montgomery.modulus.bitWidth }

  /// k: the modulus' length in bytes, which is also every signature's length.
  public var modulusByteCount: Int { modulus.count }

  public static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool {
    lhs.modulus == rhs.modulus && lhs.publicExponent == rhs.publicExponent
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(modulus)
    hasher.combine(publicExponent)
  }

  /// s^e mod n as exactly k big-endian bytes, or nil when the signature is not k bytes or s ≥ n.
  func publicOperation(_ signature: [UInt8]) -> [UInt8]? {
    guard signature.count == modulusByteCount else { return nil }
    let s = BigUInt(bigEndianBytes: signature)
    guard let m = montgomery.power(s, BigUInt(UInt64(publicExponent))) else { return nil }
    return m.bigEndianBytes(count: modulusByteCount)
  }
}
