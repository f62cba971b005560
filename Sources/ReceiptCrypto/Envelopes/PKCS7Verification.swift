extension AppleSignatureVerifier {
  /// Verifies an app receipt's PKCS#7 SignedData offline (crypto-models.md §8, PKCS#7 path): one signer whose
  /// digest is SHA-1 or SHA-256 and listed in the envelope, an RSA signature algorithm that agrees with it, the
  /// signer's certificate found by issuer and serial number (never by position), its chain through the
  /// intermediate that issued it to a trust anchor (Apple Inc. Root; policy `.receipt`: marker OIDs, SHA-1
  /// allowed), every certificate valid at `moment`, then PKCS#1 v1.5 over the content as stored, or over the
  /// DER SET of signed attributes whose messageDigest matches it.
  ///
  /// A receipt's moment should be its creation date (attribute 12, `.receiptCreationDate`): Apple's signing
  /// certificates expire while the receipts they signed stay genuine. That date only selects the moment; the
  /// signature must still verify. A lone self-signed signer certificate (Xcode StoreKit testing) whose key
  /// verifies gives `.testSigned`, or `.verified` when it is a trust anchor (`--trust-root`).
  public mutating func verifyPKCS7(_ blob: [UInt8], at moment: VerificationMoment) -> SignatureVerdict {
    func failed(_ failure: SignatureFailure, _ chain: [CertificateSummary] = []) -> SignatureVerdict {
      SignatureVerdict(outcome: .failed(failure), moment: moment, chain: chain)
    }
    let envelope: PKCS7SignedData
    do {
      envelope = try PKCS7SignedData(berEncoded: blob)
    } catch {
      return failed(error)
    }
    guard envelope.signers.count == 1, let signer = envelope.signers.first else {
      return failed(
        SignatureFailure(.pkcs7SignerCount, "the envelope has \(envelope.signers.count) signers; a receipt has one"))
    }
    let digest: DigestAlgorithm
    switch DigestAlgorithm(oid: signer.digestAlgorithm) {
    case .sha1?: digest = .sha1
    case .sha256?: digest = .sha256
    default:
      return failed(
        SignatureFailure(
          .pkcs7Algorithm,
          "the signer's digest algorithm \(signer.digestAlgorithm) is not SHA-1 or SHA-256, the digests Apple signs receipts with"
        ))
    }
    guard envelope.digestAlgorithms.contains(signer.digestAlgorithm) else {
      return failed(
        SignatureFailure(
          .pkcs7Algorithm, "the signer's digest \(digest.name) is not among the envelope's digest algorithms"))
    }
    switch signer.signatureAlgorithm {
    case .rsaEncryption?: break
    case let algorithm? where !algorithm.isECDSA && algorithm.digest == digest: break
    default:
      return failed(
        SignatureFailure(
          .pkcs7Algorithm,
          "the signature algorithm \(signer.signatureAlgorithm?.description ?? signer.signatureAlgorithmText) is not RSA with \(digest.name), the signer's digest"
        ))
    }

    var certificates: [PositionedCertificate] = []
    for (index, der) in envelope.certificates.enumerated() {
      do {
        certificates.append(PositionedCertificate("certificates[\(index)]", try Certificate(derEncoded: der)))
      } catch {
        return failed(error.at("certificates[\(index)]"))
      }
    }
    guard
      let leafIndex = certificates.firstIndex(where: {
        $0.certificate.issuer.encoded == signer.issuer && $0.certificate.serialNumber == signer.serialNumber
      })
    else {
      return failed(
        SignatureFailure(
          .pkcs7SignerNotFound,
          "none of the envelope's \(certificates.count) certificates has the signer's issuer and serial number"))
    }
    let leaf = certificates[leafIndex]

    if leaf.certificate.isSelfIssued {
      return verifyLoneSigner(leaf, signer: signer, envelope: envelope, digest: digest, at: moment)
    }
    guard
      let intermediateIndex = certificates.indices.first(where: {
        $0 != leafIndex && certificates[$0].certificate.subject.encoded == leaf.certificate.issuer.encoded
      })
    else {
      return failed(
        SignatureFailure(
          .untrustedRoot, certificate: leaf.position,
          "no certificate in the envelope is the issuer of \(leaf.named) (\(leaf.certificate.issuer))"),
        [CertificateSummary(position: leaf.position, certificate: leaf.certificate)])
    }
    let intermediate = certificates[intermediateIndex]
    let chain: ValidatedChain
    switch cachedChain(
      [leaf.certificate.der, intermediate.certificate.der], policy: .receipt,
      positions: [leaf.position, intermediate.position])
    {
    case .trusted(let trusted): chain = trusted
    case .rejected(let failure, let summaries): return failed(failure, summaries)
    }
    if let failure = chain.failure(at: moment) { return failed(failure, chain.summaries) }
    if let failure = Self.signatureFailure(signer, envelope: envelope, digest: digest, key: leaf) {
      return failed(failure, chain.summaries)
    }
    return SignatureVerdict(
      outcome: .verified, moment: moment, chain: chain.summaries, anchoredAtApple: chain.anchoredAtApple)
  }

  /// A self-signed signer certificate: a trust anchor itself (`--trust-root`, checked at the moment), or
  /// test-signed (Xcode StoreKit testing) when its key verifies the signature.
  private func verifyLoneSigner(
    _ leaf: PositionedCertificate, signer: PKCS7Signer, envelope: PKCS7SignedData, digest: DigestAlgorithm,
    at moment: VerificationMoment
  ) -> SignatureVerdict {
    let summaries = [CertificateSummary(position: leaf.position, certificate: leaf.certificate)]
    if let failure = Self.signatureFailure(signer, envelope: envelope, digest: digest, key: leaf) {
      return SignatureVerdict(outcome: .failed(failure), moment: moment, chain: summaries)
    }
    if let anchor = trust.anchors.first(where: { $0.certificate == leaf.certificate }) {
      if let failure = AppleChain.validityFailure([leaf], at: moment) {
        return SignatureVerdict(outcome: .failed(failure), moment: moment, chain: summaries)
      }
      return SignatureVerdict(outcome: .verified, moment: moment, chain: summaries, anchoredAtApple: anchor.isApple)
    }
    return SignatureVerdict(outcome: .testSigned, moment: moment, chain: summaries)
  }

  /// PKCS#1 v1.5 with the signer certificate's RSA key over the content's digest, or over the signed attributes
  /// after their messageDigest is checked against the content; nil when it verifies.
  static func signatureFailure(
    _ signer: PKCS7Signer, envelope: PKCS7SignedData, digest: DigestAlgorithm, key certificate: PositionedCertificate
  ) -> SignatureFailure? {
    guard case .rsa(let key) = certificate.certificate.publicKey else {
      return SignatureFailure(
        .unsupportedKey, certificate: certificate.position,
        "\(certificate.named) has a \(certificate.certificate.publicKeyDescription) key; receipts are signed with RSA")
    }
    let contentDigest = digest.digest(envelope.content)
    var signedDigest = contentDigest
    if let attributes = signer.signedAttributes {
      guard let messageDigest = signer.messageDigest else {
        return SignatureFailure(.pkcs7Digest, "the signed attributes carry no messageDigest")
      }
      guard messageDigest == contentDigest else {
        return SignatureFailure(
          .pkcs7Digest, "the signed messageDigest is not the \(digest.name) of the content as stored")
      }
      guard signer.contentType == .pkcs7Data else {
        return SignatureFailure(
          .pkcs7Structure, "the signed attributes carry no contentType of data (RFC 5652 11.1 requires it)")
      }
      signedDigest = digest.digest(attributes)
    }
    guard key.isValidPKCS1v15Signature(signer.signature, digest: signedDigest, algorithm: digest) else {
      return SignatureFailure(
        .signatureMismatch,
        "the \(digest.name) RSA signature does not verify with \(certificate.position)'s key over the "
          + (signer.signedAttributes == nil ? "content as stored" : "signed attributes"))
    }
    return nil
  }
}
