/// The moment certificates are checked at: the payload's own date offline (Apple's signing certificates expire
/// while what they signed stays genuine), or now where there is none. The verdict says which.
public struct VerificationMoment: Sendable, Hashable, CustomStringConvertible {
  public var millisecondsSince1970: Int64
  public var source: Source

  public enum Source: String, Sendable {
    case signedDate
    case receiptCreationDate = "receipt creation date"
    case now
  }

  public init(millisecondsSince1970: Int64, source: Source) {
    self.millisecondsSince1970 = millisecondsSince1970
    self.source = source
  }

  /// `2022-09-02T12:41:32.884Z (signedDate)`.
  public var description: String { "\(CertificateTime.text(millisecondsSince1970)) (\(source.rawValue))" }
}

/// One certificate of a verified (or examined) chain, for people.
public struct CertificateSummary: Sendable, Hashable {
  /// `x5c[0]`, `x5c[1]`, `root` (the trust anchor that verified, whatever x5c[2] held).
  public var position: String
  public var commonName: String?
  public var organization: String?
  public var notBefore: Int64
  public var notAfter: Int64
  public var sha256: [UInt8]

  public init(
    position: String, commonName: String?, organization: String?, notBefore: Int64, notAfter: Int64, sha256: [UInt8]
  ) {
    self.position = position
    self.commonName = commonName
    self.organization = organization
    self.notBefore = notBefore
    self.notAfter = notAfter
    self.sha256 = sha256
  }

  public init(position: String, certificate: Certificate) {
    self.position = position
    commonName = certificate.subject.commonName
    organization = certificate.subject.organization
    notBefore = certificate.notBefore
    notAfter = certificate.notAfter
    sha256 = certificate.sha256Fingerprint
  }
}

/// What signature verification concluded about one signed document.
public struct SignatureVerdict: Sendable, Hashable {
  public enum Outcome: Sendable, Hashable {
    /// The chain ends at a trust anchor and the signature verifies.
    case verified
    /// A lone self-signed certificate (Xcode / local StoreKit testing) whose key verifies the signature:
    /// integrity, no provenance.
    case testSigned
    case failed(SignatureFailure)
  }

  public var outcome: Outcome
  public var moment: VerificationMoment
  /// The chain as examined, leaf first (empty when the certificates could not be read).
  public var chain: [CertificateSummary]
  /// True when the anchor that verified is one of Apple's compiled-in roots; false for a --trust-root.
  public var anchoredAtApple: Bool
  /// Always false: verification is offline.
  public var revocationChecked: Bool

  public init(
    outcome: Outcome, moment: VerificationMoment, chain: [CertificateSummary] = [], anchoredAtApple: Bool = false,
    revocationChecked: Bool = false
  ) {
    self.outcome = outcome
    self.moment = moment
    self.chain = chain
    self.anchoredAtApple = anchoredAtApple
    self.revocationChecked = revocationChecked
  }

  /// The failure, if the outcome is one.
  public var failure: SignatureFailure? {
    if case .failed(let failure) = outcome { return failure }
    return nil
  }

  public var isVerified: Bool { outcome == .verified }
}
