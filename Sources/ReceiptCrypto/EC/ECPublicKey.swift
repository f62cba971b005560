/// An ECDSA public key on P-256 or P-384, checked on construction: uncompressed encoding, coordinates below p,
/// on the curve (so never the identity). Verification only; variable time, as the data is public.
public struct ECPublicKey: Sendable, Hashable {
  public let curve: ECCurve
  /// `04 || X || Y`, as given.
  public let x963Representation: [UInt8]
  private var point: Point

  private enum Point: Sendable {
    case p256(AffinePoint<P256>)
    case p384(AffinePoint<P384>)
    /// The same point with its limb-split table (`precomputed()`); the table's first entry is the point.
    case p256Table(LimbSplitTable<P256>)
    case p384Table(LimbSplitTable<P384>)
  }

  public init(curve: ECCurve, x963Representation bytes: [UInt8]) throws(CryptoKeyError) {
    switch curve {
    case .p256: point = .p256(try AffinePoint<P256>(x963: bytes))
    case .p384: point = .p384(try AffinePoint<P384>(x963: bytes))
    }
    self.curve = curve
    x963Representation = bytes
  }

  /// This key with its point's multiples precomputed (`LimbSplitTable`, window 7: 8 KiB on P-256, 18 KiB on
  /// P-384), for a key that verifies again and again (`ChainCache.verifyingKey(_:)` keeps a few). A P-256
  /// verification then takes one run of 65 doublings shared with G's static split table, and computes no multiples
  /// of its own: 925,000 to 374,000 instructions; building the table costs 1.19 M, once (callgrind, release).
  /// Same answers as the key itself (KeyTableTests, ECDSAWycheproofTests), and equal to it (`==`, hash).
  public func precomputed() -> ECPublicKey {
    var copy = self
    switch point {
    case .p256(let q): if let table = LimbSplitTable(q, window: P256.splitWindow) { copy.point = .p256Table(table) }
    case .p384(let q): if let table = LimbSplitTable(q, window: P384.splitWindow) { copy.point = .p384Table(table) }
    case .p256Table, .p384Table: break
    }
    return copy
  }

  /// The bytes of the table `precomputed()` made; 0 for a key without one.
  public var precomputedTableByteCount: Int {
    switch point {
    case .p256, .p384: return 0
    case .p256Table(let table): return table.byteCount
    case .p384Table(let table): return table.byteCount
    }
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
    case .p256Table(let table):
      return ECDSAVerifier<P256>.isValid(r: r, s: s, digest: digest, publicKeyTable: table)
    case .p384Table(let table):
      return ECDSAVerifier<P384>.isValid(r: r, s: s, digest: digest, publicKeyTable: table)
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
