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
    }
  }
}
