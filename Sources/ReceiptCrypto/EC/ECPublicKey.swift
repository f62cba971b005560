/// An ECDSA public key on P-256 or P-384, checked on construction: uncompressed encoding, coordinates below p,
/// on the curve (so never the identity). Verification only; variable time, as the data is public.
public struct ECPublicKey: Sendable, Hashable {
  public let curve: ECCurve
  /// `04 || X || Y`, as given.
  public let x963Representation: [UInt8]
  private let point: Point

  private enum Point: Sendable {
    case p256(AffinePoint<P256>)
    case p384(AffinePoint<P384>)
  }

  public init(curve: ECCurve, x963Representation bytes: [UInt8]) throws(CryptoKeyError) {
    switch curve {
    case .p256: point = .p256(try AffinePoint<P256>(x963: bytes))
    case .p384: point = .p384(try AffinePoint<P384>(x963: bytes))
    }
    self.curve = curve
    x963Representation = bytes
  }

  /// Verifies a DER `SEQUENCE { INTEGER r, INTEGER s }` signature (strict DER) over `digest`, a hash of any
  /// length: it is truncated to the bit length of n (SEC 1 4.1.4).
  public func isValidSignature(derEncoded signature: [UInt8], digest: [UInt8]) -> Bool {
    guard let (r, s) = ECDSASignatureForms.parseDER(signature, maximumIntegerBytes: curve.byteCount) else {
      return false
    }
    return isValid(r: r, s: s, digest: digest)
  }

  /// Verifies an r‖s signature (IEEE P1363, JWS), each exactly the order's byte length.
  public func isValidSignature(rawRS signature: [UInt8], digest: [UInt8]) -> Bool {
    guard let (r, s) = ECDSASignatureForms.parseRaw(signature, integerBytes: curve.byteCount) else { return false }
    return isValid(r: r, s: s, digest: digest)
  }

  private func isValid(r: ArraySlice<UInt8>, s: ArraySlice<UInt8>, digest: [UInt8]) -> Bool {
    switch point {
    case .p256(let q): return ECDSAVerifier<P256>.isValid(r: r, s: s, digest: digest, publicKey: q)
    case .p384(let q): return ECDSAVerifier<P384>.isValid(r: r, s: s, digest: digest, publicKey: q)
    }
  }

  public static func == (a: ECPublicKey, b: ECPublicKey) -> Bool {
    a.curve == b.curve && a.x963Representation == b.x963Representation
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(curve)
    hasher.combine(x963Representation)
  }
}
