/// Why a public key was refused before any signature was checked.
public enum CryptoKeyError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The RSA modulus has this many bits; 2048 to 4096 are accepted.
  case rsaModulusSize(bits: Int)
  /// An even RSA modulus is not a product of two odd primes.
  case rsaModulusEven
  /// The RSA public exponent is even, below 3 or above 2^31-1 (its value when it fits 64 bits).
  case rsaExponent(UInt64?)

  public var description: String {
    switch self {
    case .rsaModulusSize(let bits): "RSA modulus of \(bits) bits; 2048 to 4096 bits are accepted"
    case .rsaModulusEven: "RSA modulus is even"
    case .rsaExponent(let value?): "RSA public exponent \(value) is not odd and between 3 and 2^31-1"
    case .rsaExponent(nil): "RSA public exponent is longer than 64 bits; at most 2^31-1 is accepted"
    }
  }
}
