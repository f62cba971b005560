/// Why a signature or certificate chain is not accepted: a stable machine code, the certificate it concerns, and
/// a line a support person can read out.
///
/// Equality compares the code and the certificate only (the detail wording may change).
public struct SignatureFailure: Error, Sendable, Hashable, CustomStringConvertible {
  /// Closed set of reasons; raw values are stable and printed verbatim in JSON.
  public enum Code: String, Sendable, Hashable, CaseIterable {
    case jwsAlgorithm = "jws.alg"
    case jwsX5C = "jws.x5c"
    case jwsBase64 = "jws.base64"
    case jwsCritical = "jws.crit"
    case derMalformed = "der.malformed"
    case unsupportedKey = "cert.unsupportedKey"
    case unsupportedAlgorithm = "cert.unsupportedAlgorithm"
    case algorithmMismatch = "cert.algorithmMismatch"
    case certificateVersion = "cert.version"
    case certificateValidity = "cert.validity"
    case duplicateExtension = "cert.duplicateExtension"
    case untrustedRoot = "chain.untrustedRoot"
    case issuerMismatch = "chain.issuerMismatch"
    case badSignature = "chain.badSignature"
    case notCA = "chain.notCA"
    case pathLength = "chain.pathLength"
    case keyUsage = "chain.keyUsage"
    case criticalExtension = "chain.criticalExtension"
    case marker = "chain.marker"
    case notYetValid = "chain.notYetValid"
    case expired = "chain.expired"
    case signatureEncoding = "signature.encoding"
    case signatureMismatch = "signature.mismatch"
    case pkcs7Structure = "pkcs7.structure"
    case pkcs7SignerCount = "pkcs7.signerCount"
    case pkcs7SignerNotFound = "pkcs7.signerNotFound"
    case pkcs7Algorithm = "pkcs7.algorithm"
    case pkcs7Digest = "pkcs7.digest"
  }

  public var code: Code
  /// Which certificate: `x5c[0]`, `root`, `certificates[2]`; nil when the failure is not about one.
  public var certificate: String?
  /// What is wrong and the context, one line, never quoting signature or token bytes.
  public var detail: String

  public init(_ code: Code, certificate: String? = nil, _ detail: String) {
    self.code = code
    self.certificate = certificate
    self.detail = Self.oneLine(detail)
  }

  /// `code where: what; context`, one line.
  public var description: String {
    "\(code.rawValue)\(certificate.map { " \($0)" } ?? ""): \(detail)"
  }

  public static func == (a: SignatureFailure, b: SignatureFailure) -> Bool {
    a.code == b.code && a.certificate == b.certificate
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(certificate)
  }

  /// The same failure placed at `position` (a certificate parsed before its place was known).
  func at(_ position: String) -> SignatureFailure {
    var copy = self
    copy.certificate = position
    return copy
  }

  /// `text` with each line break made one space (ReceiptModel's `onOneLine`, which this target cannot see).
  static func oneLine(_ text: String) -> String {
    guard text.utf8.contains(where: { (0x0A...0x0D).contains($0) || $0 == 0xC2 || $0 == 0xE2 }) else { return text }
    return String(text.map { $0.isNewline ? " " : $0 })
  }
}
