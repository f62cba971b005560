/// Why a public key was refused, before any signature is checked.
public enum CryptoKeyError: Error, Sendable, Hashable, CustomStringConvertible {
  /// An EC public key that is not `04 || X || Y` (compressed points and the identity encoding are refused).
  case unsupportedPointEncoding(firstByte: UInt8?)
  /// An EC public key whose length does not fit the curve.
  case wrongPointLength(curve: ECCurve, expected: Int, actual: Int)
  /// A coordinate not below the field prime p.
  case coordinateOutOfRange(curve: ECCurve)
  /// A point that does not satisfy y² = x³ − 3x + b.
  case pointNotOnCurve(curve: ECCurve)
  /// The RSA modulus has this many bits; 2048 to 4096 are accepted.
  case rsaModulusSize(bits: Int)
  /// An even RSA modulus is not a product of two odd primes.
  case rsaModulusEven
  /// The RSA public exponent is even, below 3 or above 2^31-1 (its value when it fits 64 bits).
  case rsaExponent(UInt64?)

  public var description: String {
    switch self {
    case .unsupportedPointEncoding(let firstByte?):
      return
        "EC public key: point encoding 0x\(String(firstByte, radix: 16)) is not supported (only uncompressed 04||X||Y)"
    case .unsupportedPointEncoding(nil):
      return "EC public key: empty point encoding"
    case .wrongPointLength(let curve, let expected, let actual):
      return "EC public key: \(curve.name) point is \(actual) bytes, expected \(expected)"
    case .coordinateOutOfRange(let curve):
      return "EC public key: a \(curve.name) coordinate is not below the field prime"
    case .pointNotOnCurve(let curve):
      return "EC public key: the point is not on \(curve.name)"
    case .rsaModulusSize(let bits):
      return "RSA public key: modulus of \(bits) bits; 2048 to 4096 bits are accepted"
    case .rsaModulusEven:
      return "RSA public key: the modulus is even"
    case .rsaExponent(let value?):
      return "RSA public key: exponent \(value) is not odd and between 3 and 2^31-1"
    case .rsaExponent(nil):
      return "RSA public key: exponent longer than 64 bits; at most 2^31-1 is accepted"
    }
  }
}
