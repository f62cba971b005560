/// Verifies Apple's signatures offline against pinned roots. Owns a chain cache, so a batch validates each
/// distinct chain once and then pays one signature check per document; the one owner of a batch calls it
/// (no locks: `mutating`). Never throws: every outcome is a verdict.
public struct AppleSignatureVerifier: Sendable {
  public let trust: TrustAnchors
  public private(set) var cache = ChainCache()
  /// The hash of the header the tokens before shared, resumed for each token that starts with it.
  private(set) var signingDigest = SigningInputDigest()

  /// What this verifier shares with the others of its run (nil: nothing): asked where its own cache misses.
  public var shared: (any SharedChainResults)?

  public init(trust: TrustAnchors = .apple, shared: (any SharedChainResults)? = nil) {
    self.trust = trust
    self.shared = shared
  }

  public var cacheHits: Int { cache.hits }
  public var cacheMisses: Int { cache.misses }
  /// How many signing inputs were hashed on from a remembered header.
  public var resumedDigests: Int { signingDigest.resumed }

  /// Verifies a StoreKit 2 / App Store Server JWS (RFC 7515 compact form), as Apple's ChainVerifier does, offline.
  /// - Parameters:
  ///   - signingInput: `header.payload` exactly as received (ASCII base64url).
  ///   - signature: the decoded signature segment (ES256: 64 bytes r‖s).
  ///   - algorithm: the protected header's `alg` (nil: absent).
  ///   - x5c: the header's `x5c` entries, standard base64 DER (nil: absent).
  ///   - critical: the header's `crit` entries (nil: absent). This verifier understands no extension, so any
  ///     `crit` is rejected, as RFC 7515 4.1.11 requires (an empty list is not allowed either).
  ///   - moment: when the certificates must be valid.
  /// - Returns: `.verified` (three certificates ending at a trust anchor), `.testSigned` (one self-signed
  ///   certificate whose key verifies), or the first failure.
  public mutating func verifyJWS(
    signingInput: [UInt8], signature: [UInt8], algorithm: String?, x5c: [String]?, critical: [String]? = nil,
    at moment: VerificationMoment
  ) -> SignatureVerdict {
    signingInput.withUnsafeBytes { input in
      verifyJWS(
        signingInput: input, signature: signature, algorithm: algorithm, x5c: x5c, critical: critical, at: moment)
    }
  }

  /// `verifyJWS` over the signing input where it lies (a token in its document).
  public mutating func verifyJWS(
    signingInput: UnsafeRawBufferPointer, signature: [UInt8], algorithm: String?, x5c: [String]?,
    critical: [String]? = nil, at moment: VerificationMoment
  ) -> SignatureVerdict {
    func failed(_ failure: SignatureFailure, _ chain: [CertificateSummary] = []) -> SignatureVerdict {
      SignatureVerdict(outcome: .failed(failure), moment: moment, chain: chain)
    }
    if let critical { return failed(Self.criticalFailure(critical)) }
    guard let algorithm else { return failed(SignatureFailure(.jwsAlgorithm, "the header has no alg")) }
    guard algorithm == "ES256" else {
      return failed(
        SignatureFailure(
          .jwsAlgorithm, "alg \(Self.shown(algorithm)) is not ES256, the only algorithm Apple signs with"))
    }
    guard let x5c, !x5c.isEmpty else {
      return failed(SignatureFailure(.jwsX5C, "the header has no x5c certificate chain"))
    }
    guard x5c.count == 3 || x5c.count == 1 else {
      return failed(
        SignatureFailure(
          .jwsX5C, "x5c holds \(x5c.count) certificates; Apple's chain has exactly 3 (leaf, intermediate, root)"))
    }
    // x5c[2] is never read: the root is the pinned one, whatever the token carries.
    let chainText = Array(x5c.prefix(2))
    let digest = signingDigest.digest(signingInput)
    if x5c.count == 3, let entry = cache.lookUp(text: chainText, policy: .jws, trust: trust) {
      return verdict(entry, digest: digest, signature: signature, at: moment)
    }
    var der: [[UInt8]] = []
    for (index, text) in x5c.prefix(2).enumerated() {
      guard let bytes = Base64.decode(text) else {
        return failed(SignatureFailure(.jwsBase64, certificate: "x5c[\(index)]", "is not standard base64"))
      }
      der.append(bytes)
    }
    if x5c.count == 1 { return verifyLone(der[0], digest: digest, signature: signature, at: moment) }

    let entry = cachedChain(der, policy: .jws, positions: ["x5c[0]", "x5c[1]"])
    cache.store(entry, forText: chainText, policy: .jws, trust: trust)
    return verdict(entry, digest: digest, signature: signature, at: moment)
  }

  /// The verdict of one JWS whose chain result is `entry`: the validity dates at `moment` and the ES256
  /// signature over the signing input's `digest` are checked every time (never cached; a leaf key seen before
  /// verifies through its precomputed form, `ChainCache.verifyingKey(_:)`).
  mutating func verdict(
    _ entry: ChainCache.Entry, digest: [UInt8], signature: [UInt8], at moment: VerificationMoment
  ) -> SignatureVerdict {
    func failed(_ failure: SignatureFailure, _ chain: [CertificateSummary] = []) -> SignatureVerdict {
      SignatureVerdict(outcome: .failed(failure), moment: moment, chain: chain)
    }
    let chain: ValidatedChain
    switch entry {
    case .trusted(let trusted): chain = trusted
    case .rejected(let failure, let summaries): return failed(failure, summaries)
    }
    let summaries = chain.summaries
    if let failure = chain.failure(at: moment) { return failed(failure, summaries) }
    var key = chain.leaf.publicKey
    if case .ec(let ec) = key { key = .ec(cache.verifyingKey(ec, shared: shared)) }
    if let failure = Self.es256Failure(digest: digest, signature: signature, key: key) {
      return failed(failure, summaries)
    }
    return SignatureVerdict(
      outcome: .verified, moment: moment, chain: summaries, anchoredAtApple: chain.anchoredAtApple)
  }

  /// The chain result for leaf and intermediate bytes under `policy`, from the cache or validated now (and stored).
  public mutating func cachedChain(
    _ der: [[UInt8]], policy: AppleChain.Policy, positions: [String]
  ) -> ChainCache.Entry {
    if let entry = cache.lookUp(der, policy: policy, trust: trust) { return entry }
    let trust = trust
    let validate = { Self.validate(der, policy: policy, positions: positions, anchors: trust) }
    let entry = shared?.chainResult(for: der, policy: policy, trust: trust, validate: validate) ?? validate()
    cache.store(entry, for: der, policy: policy, trust: trust)
    return entry
  }

  static func validate(
    _ der: [[UInt8]], policy: AppleChain.Policy, positions: [String], anchors: TrustAnchors
  ) -> ChainCache.Entry {
    var parsed: [PositionedCertificate] = []
    for (bytes, position) in zip(der, positions) {
      do {
        parsed.append(PositionedCertificate(position, try Certificate(derEncoded: bytes)))
      } catch {
        return .rejected(
          error.at(position), parsed.map { CertificateSummary(position: $0.position, certificate: $0.certificate) })
      }
    }
    let summaries = parsed.map { CertificateSummary(position: $0.position, certificate: $0.certificate) }
    guard parsed.count == 2 else {
      return .rejected(SignatureFailure(.jwsX5C, "expected a leaf and an intermediate"), summaries)
    }
    switch AppleChain.validate(leaf: parsed[0], intermediate: parsed[1], anchors: anchors, policy: policy) {
    case .success(let chain): return .trusted(chain)
    case .failure(let failure): return .rejected(failure, summaries)
    }
  }

  /// One certificate: a trust anchor itself (e.g. an Xcode certificate given with --trust-root), or a
  /// self-signed test certificate whose key verifies the signature (`.testSigned`).
  mutating func verifyLone(
    _ der: [UInt8], digest: [UInt8], signature: [UInt8], at moment: VerificationMoment
  ) -> SignatureVerdict {
    let certificate: Certificate
    do {
      certificate = try Certificate(derEncoded: der)
    } catch {
      return SignatureVerdict(outcome: .failed(error.at("x5c[0]")), moment: moment)
    }
    let positioned = PositionedCertificate("x5c[0]", certificate)
    let summaries = [CertificateSummary(position: "x5c[0]", certificate: certificate)]
    func failed(_ failure: SignatureFailure) -> SignatureVerdict {
      SignatureVerdict(outcome: .failed(failure), moment: moment, chain: summaries)
    }
    guard certificate.isSelfIssued else {
      return failed(
        SignatureFailure(
          .jwsX5C, certificate: "x5c[0]",
          "x5c holds 1 certificate that is not self-signed \(positioned.named); Apple's chain has exactly 3"))
    }
    guard certificate.publicKeyDescription == "P-256 EC" else {
      return failed(
        SignatureFailure(
          .unsupportedKey, certificate: "x5c[0]",
          "\(positioned.named) has a \(certificate.publicKeyDescription) key; ES256 needs P-256"))
    }
    if let failure = Self.es256Failure(digest: digest, signature: signature, key: certificate.publicKey) {
      return failed(failure)
    }
    // Given as a trust root: then it is an anchor, checked at the moment like any chain.
    if let anchor = trust.anchors.first(where: { $0.certificate == certificate }) {
      if let failure = AppleChain.validityFailure([positioned], at: moment) { return failed(failure) }
      return SignatureVerdict(outcome: .verified, moment: moment, chain: summaries, anchoredAtApple: anchor.isApple)
    }
    return SignatureVerdict(outcome: .testSigned, moment: moment, chain: summaries)
  }

  /// ES256 over the signing input whose SHA-256 is `digest`: nil when `key` verifies the 64-byte r‖s signature.
  static func es256Failure(digest: [UInt8], signature: [UInt8], key: SubjectPublicKey) -> SignatureFailure? {
    guard signature.count == 64 else {
      return SignatureFailure(.signatureEncoding, "ES256 signature is \(signature.count) bytes; expected 64 (r and s)")
    }
    guard case .ec(let ec) = key else {
      return SignatureFailure(.unsupportedKey, certificate: "x5c[0]", "ES256 needs an EC key")
    }
    guard ec.isValidSignature(rawRS: signature, digest: digest) else {
      return SignatureFailure(
        .signatureMismatch,
        "the ES256 signature does not verify with x5c[0]'s key over the header and payload as received")
    }
    return nil
  }

  /// Why a header with `crit` is rejected: the extensions it names, which this verifier does not understand.
  static func criticalFailure(_ critical: [String]) -> SignatureFailure {
    guard !critical.isEmpty else {
      return SignatureFailure(.jwsCritical, "the header's crit is an empty list, which RFC 7515 4.1.11 forbids")
    }
    let named = critical.prefix(3).map(shown).joined(separator: ", ") + (critical.count > 3 ? ", ..." : "")
    return SignatureFailure(
      .jwsCritical,
      "the header's crit names \(named), which this verifier does not understand; RFC 7515 4.1.11 requires rejecting the JWS"
    )
  }

  /// A header value for a message: printable ASCII only, at most 24 characters, quoted.
  static func shown(_ value: String) -> String {
    let printable = value.unicodeScalars.prefix(24).map {
      $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?"
    }
    return "\"\(String(printable))\(value.unicodeScalars.count > 24 ? "..." : "")\""
  }
}
