// PLACEHOLDER until branch x509 lands: the public API of /work/crypto-contract.md, with no cryptography.
// jws-integration deletes this file when it merges x509; nothing here verifies anything.

public struct VerificationMoment: Sendable, Hashable {
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
}

public struct TrustAnchors: Sendable {
  public static let apple = TrustAnchors()
  public func adding(rootDER: [UInt8]) throws(SignatureFailure) -> TrustAnchors {
    guard rootDER.first == 0x30 else {
      throw SignatureFailure(code: .derMalformed, certificate: nil, detail: "not a DER certificate")
    }
    return self
  }
}

public struct AppleSignatureVerifier {
  public init(trust: TrustAnchors = .apple) {}
  public mutating func verifyJWS(
    signingInput: [UInt8], signature: [UInt8], algorithm: String?, x5c: [String]?, at: VerificationMoment
  ) -> SignatureVerdict {
    SignatureVerdict(
      outcome: .failed(SignatureFailure(code: .jwsX5C, certificate: nil, detail: "placeholder")), moment: at,
      chain: [], anchoredAtApple: false, revocationChecked: false)
  }
}

public struct SignatureVerdict: Sendable, Hashable {
  public enum Outcome: Sendable, Hashable {
    case verified, testSigned
    case failed(SignatureFailure)
  }
  public var outcome: Outcome
  public var moment: VerificationMoment
  public var chain: [CertificateSummary]
  public var anchoredAtApple: Bool
  public var revocationChecked: Bool
}

public struct CertificateSummary: Sendable, Hashable {
  public var position: String
  public var commonName: String?
  public var organization: String?
  public var notBefore: Int64
  public var notAfter: Int64
  public var sha256: [UInt8]
}

public struct SignatureFailure: Error, Sendable, Hashable, CustomStringConvertible {
  public enum Code: String, Sendable, Hashable {
    case jwsAlg = "jws.alg"
    case jwsX5C = "jws.x5c"
    case chainUntrustedRoot = "chain.untrustedRoot"
    case
      chainExpired = "chain.expired"
    case signatureMismatch = "signature.mismatch"
    case derMalformed = "der.malformed"
  }
  public var code: Code
  public var certificate: String?
  public var detail: String
  public init(code: Code, certificate: String?, detail: String) {
    self.code = code
    self.certificate = certificate
    self.detail = detail
  }
  public var description: String { "\(code.rawValue)\(certificate.map { " \($0)" } ?? ""): \(detail)" }
}
