/// The curves ECDSA verification supports: those of Apple's JWS chains (P-256 leaves, P-384 roots and intermediates).
public enum ECCurve: Sendable, Hashable, CaseIterable {
  case p256
  case p384

  /// "P-256" or "P-384", as FIPS 186 names them.
  public var name: String {
    switch self {
    case .p256: return "P-256"
    case .p384: return "P-384"
    }
  }

  /// The byte length of a field element, of a coordinate and of the order n (the same for both curves).
  public var byteCount: Int {
    switch self {
    case .p256: return 32
    case .p384: return 48
    }
  }
}
