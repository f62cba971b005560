/// A certificate and where it came from (`x5c[0]`, `certificates[1]`, `root`).
public struct PositionedCertificate: Sendable, Hashable {
  public var position: String
  public var certificate: Certificate

  public init(_ position: String, _ certificate: Certificate) {
    self.position = position
    self.certificate = certificate
  }

  /// `x5c[0] (CN=...)`-style context for a detail line.
  var named: String { "(\(certificate.subject))" }
}

/// A chain whose time-independent checks passed: leaf, intermediate, then the trust anchor that verified.
/// The validity windows are still to be checked against each document's moment (`failure(at:)`).
public struct ValidatedChain: Sendable, Hashable {
  /// Leaf first, the anchor last. Renaming positions (an envelope that lists the same certificates in another
  /// order) renames the summaries without hashing again.
  public var certificates: [PositionedCertificate] {
    didSet {
      if oldValue.map(\.certificate) == certificates.map(\.certificate) {
        for i in summaries.indices { summaries[i].position = certificates[i].position }
      } else {
        summaries = Self.summaries(certificates)
      }
    }
  }
  /// The anchor is one of Apple's compiled-in roots (not a --trust-root).
  public let anchoredAtApple: Bool
  /// Made once per chain (each holds a SHA-256), not per document.
  public private(set) var summaries: [CertificateSummary]

  static func summaries(_ certificates: [PositionedCertificate]) -> [CertificateSummary] {
    certificates.map { CertificateSummary(position: $0.position, certificate: $0.certificate) }
  }

  public init(certificates: [PositionedCertificate], anchoredAtApple: Bool) {
    self.certificates = certificates
    self.anchoredAtApple = anchoredAtApple
    summaries = Self.summaries(certificates)
  }

  public var leaf: Certificate { certificates[0].certificate }

  /// The first certificate not valid at `moment` (both bounds inclusive), leaf first; nil when all are.
  public func failure(at moment: VerificationMoment) -> SignatureFailure? {
    AppleChain.validityFailure(certificates, at: moment)
  }
}

/// Apple's chain policy, as its reference verifiers apply it: leaf <- intermediate <- a pinned root, found by the
/// intermediate's issuer name bytes and verified by signature; the intermediate a CA with marker 6.2.1, the leaf
/// with 6.11.1; basicConstraints, keyUsage and path length checked; any other critical extension refused.
public enum AppleChain {
  /// What differs between the JWS path and the PKCS#7 path.
  public struct Policy: Sendable, Hashable {
    /// Certificate signatures the chain may use (SHA-1 RSA only for receipts signed before 2023).
    public var allowedSignatureAlgorithms: Set<SignatureAlgorithm>
    /// The key the leaf must have: `.p256` for ES256; nil for any RSA key (receipts).
    public var leafCurve: ECCurve?

    public init(allowedSignatureAlgorithms: Set<SignatureAlgorithm>, leafCurve: ECCurve?) {
      self.allowedSignatureAlgorithms = allowedSignatureAlgorithms
      self.leafCurve = leafCurve
    }

    /// StoreKit 2 / App Store Server JWS: ECDSA certificates, a P-256 leaf.
    public static let jws = Policy(allowedSignatureAlgorithms: [.ecdsaWithSHA256, .ecdsaWithSHA384], leafCurve: .p256)
    /// App receipts (PKCS#7): RSA certificates, SHA-1 allowed for the older chains.
    public static let receipt = Policy(
      allowedSignatureAlgorithms: [
        .sha1WithRSAEncryption, .sha256WithRSAEncryption, .sha384WithRSAEncryption, .sha512WithRSAEncryption,
      ], leafCurve: nil)
  }

  /// Runs every check that does not depend on the time; the first failure wins, cheap checks first.
  public static func validate(
    leaf: PositionedCertificate, intermediate: PositionedCertificate, anchors: TrustAnchors, policy: Policy
  ) -> Result<ValidatedChain, SignatureFailure> {
    let i = intermediate.certificate
    let l = leaf.certificate
    // Shape and policy first: no signature work on a chain that fails them.
    for c in [leaf, intermediate] {
      if let failure = structuralFailure(c, policy: policy) { return .failure(failure) }
    }
    if let failure = caFailure(intermediate) { return .failure(failure) }
    guard i.extensions.contains(.appleIntermediateMarker) else {
      return .failure(
        SignatureFailure(
          .marker, certificate: intermediate.position,
          "\(intermediate.named) lacks Apple's intermediate marker \(OID.appleIntermediateMarker)"))
    }
    guard l.extensions.contains(.appleLeafMarker) else {
      return .failure(
        SignatureFailure(
          .marker, certificate: leaf.position, "\(leaf.named) lacks Apple's signing marker \(OID.appleLeafMarker)"))
    }
    if let usage = l.extensions.keyUsage, !usage.digitalSignature {
      return .failure(
        SignatureFailure(.keyUsage, certificate: leaf.position, "\(leaf.named) keyUsage lacks digitalSignature"))
    }
    switch (policy.leafCurve, l.publicKey) {
    case (nil, .rsa): break
    case (let curve?, .ec) where l.publicKeyDescription == "\(curve.name) EC": break
    default:
      return .failure(
        SignatureFailure(
          .unsupportedKey, certificate: leaf.position,
          "\(leaf.named) has a \(l.publicKeyDescription) key; expected \(policy.leafCurve.map { "\($0.name) EC" } ?? "RSA")"
        ))
    }
    guard l.issuer.encoded == i.subject.encoded else {
      return .failure(
        SignatureFailure(
          .issuerMismatch, certificate: leaf.position,
          "issuer (\(l.issuer)) is not the subject of \(intermediate.position) (\(i.subject))"))
    }
    // The anchor: named by the intermediate's issuer, and proven by its key. x5c[2] plays no part.
    let candidates = anchors.candidates(issuedAs: i.issuer)
    guard !candidates.isEmpty else {
      return .failure(
        SignatureFailure(
          .untrustedRoot, certificate: intermediate.position,
          "issued by \(i.issuer), which is not a trusted root (Apple's are compiled in; add others with --trust-root)"
        ))
    }
    let allowsSHA1 = policy.allowedSignatureAlgorithms.contains(.sha1WithRSAEncryption)
    guard let anchor = candidates.first(where: { i.isSigned(by: $0.certificate.publicKey, allowingSHA1: allowsSHA1) })
    else {
      return .failure(
        SignatureFailure(
          .untrustedRoot, certificate: intermediate.position,
          "names \(i.issuer) as issuer, but that trusted root's key did not sign it (a look-alike root)"))
    }
    let root = PositionedCertificate("root", anchor.certificate)
    if let failure = caFailure(root) { return .failure(failure) }
    if let unhandled = anchor.certificate.extensions.unhandledCritical.first {
      return .failure(
        SignatureFailure(
          .criticalExtension, certificate: root.position, "\(root.named) has critical extension \(unhandled)"))
    }
    // The intermediate is not self-issued, so it counts once against the root's path length.
    if let limit = anchor.certificate.extensions.basicConstraints?.pathLengthConstraint, limit < 1,
      !i.isSelfIssued
    {
      return .failure(
        SignatureFailure(.pathLength, certificate: root.position, "\(root.named) allows no intermediate (pathLen 0)"))
    }
    guard l.isSigned(by: i.publicKey, allowingSHA1: allowsSHA1) else {
      return .failure(
        SignatureFailure(
          .badSignature, certificate: leaf.position, "\(leaf.named) is not signed by \(intermediate.position)'s key"))
    }
    return .success(ValidatedChain(certificates: [leaf, intermediate, root], anchoredAtApple: anchor.isApple))
  }

  /// Version, signature algorithm and unknown critical extensions of a certificate from the document.
  static func structuralFailure(_ c: PositionedCertificate, policy: Policy) -> SignatureFailure? {
    let certificate = c.certificate
    guard certificate.version == 3 else {
      return SignatureFailure(
        .certificateVersion, certificate: c.position, "\(c.named) is version \(certificate.version), not 3")
    }
    guard policy.allowedSignatureAlgorithms.contains(certificate.signatureAlgorithm) else {
      return SignatureFailure(
        .unsupportedAlgorithm, certificate: c.position,
        "\(c.named) is signed with \(certificate.signatureAlgorithm), which this chain does not allow")
    }
    if let unhandled = certificate.extensions.unhandledCritical.first {
      return SignatureFailure(
        .criticalExtension, certificate: c.position, "\(c.named) has critical extension \(unhandled)")
    }
    return nil
  }

  /// A CA certificate: basicConstraints cA, and keyCertSign when keyUsage is present.
  static func caFailure(_ c: PositionedCertificate) -> SignatureFailure? {
    guard c.certificate.extensions.basicConstraints?.isCA == true else {
      return SignatureFailure(.notCA, certificate: c.position, "\(c.named) is not a CA (basicConstraints cA)")
    }
    if let usage = c.certificate.extensions.keyUsage, !usage.keyCertSign {
      return SignatureFailure(.keyUsage, certificate: c.position, "\(c.named) keyUsage lacks keyCertSign")
    }
    return nil
  }

  /// The first certificate not valid at `moment`, in order; never cached.
  public static func validityFailure(
    _ certificates: [PositionedCertificate], at moment: VerificationMoment
  ) -> SignatureFailure? {
    let t = moment.millisecondsSince1970
    for c in certificates {
      if t < c.certificate.notBefore {
        return SignatureFailure(
          .notYetValid, certificate: c.position,
          "\(c.named) valid from \(CertificateTime.text(c.certificate.notBefore)), checked at \(moment.description)")
      }
      if t > c.certificate.notAfter {
        return SignatureFailure(
          .expired, certificate: c.position,
          "\(c.named) valid until \(CertificateTime.text(c.certificate.notAfter)), checked at \(moment.description)")
      }
    }
    return nil
  }
}
