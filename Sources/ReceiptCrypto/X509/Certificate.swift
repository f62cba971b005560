/// An X.509 v1-v3 certificate read from strict DER (RFC 5280), keeping the raw slices its signature covers.
/// Two certificates are equal when their bytes are.
public struct Certificate: Sendable, Hashable {
  /// The whole certificate.
  public let der: [UInt8]
  /// Where TBSCertificate (what the issuer signed) and the outer AlgorithmIdentifier lie in `der`.
  public let tbsRange: Range<Int>
  public let signatureAlgorithmRange: Range<Int>
  /// 1, 2 or 3.
  public let version: Int
  /// The serial number's content octets (as encoded: sign octet included).
  public let serialNumber: [UInt8]
  /// The issuer's signature algorithm; the outer and inner identifiers are byte-identical (RFC 5280 4.1.1.2).
  public let signatureAlgorithm: SignatureAlgorithm
  /// The signature BIT STRING's bytes.
  public let signature: [UInt8]
  public let issuer: DistinguishedName
  public let subject: DistinguishedName
  /// Validity bounds, milliseconds since 1970; both inclusive.
  public let notBefore: Int64
  public let notAfter: Int64
  public let publicKey: SubjectPublicKey
  /// `P-256 EC`, `RSA-2048`: for messages.
  public let publicKeyDescription: String
  public let extensions: CertificateExtensions

  /// The bytes the issuer signed.
  public var tbsCertificateBytes: ArraySlice<UInt8> { der[tbsRange] }
  public var signatureAlgorithmBytes: ArraySlice<UInt8> { der[signatureAlgorithmRange] }
  /// SHA-256 of the whole certificate.
  public var sha256Fingerprint: [UInt8] { DigestAlgorithm.sha256.digest(der) }
  /// Issuer and subject names are byte-identical.
  public var isSelfIssued: Bool { issuer.encoded == subject.encoded }

  /// Parses a certificate.
  /// - Throws: `der.malformed` (with the byte offset), `cert.unsupportedAlgorithm`, `cert.algorithmMismatch`,
  ///   `cert.unsupportedKey`, `cert.version`, `cert.validity`, `cert.duplicateExtension`; the failure's
  ///   certificate position is nil (the caller knows it).
  public init(derEncoded bytes: [UInt8]) throws(SignatureFailure) {
    der = bytes
    // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue BIT STRING }
    let top = try derRead { () throws(ASN1Error) in
      guard !bytes.isEmpty else { throw ASN1Error("empty input: no certificate", 0) }
      var top = ASN1Reader(bytes, rules: .der)
      let certificate = try top.expect(ASN1Tag.sequence, "the Certificate")
      try top.expectEnd("the Certificate")
      var outer = try top.children(of: certificate)
      let tbs = try outer.expect(ASN1Tag.sequence, "the TBSCertificate")
      let algorithm = try outer.expect(ASN1Tag.sequence, "the signature algorithm")
      let signature = Array(
        try outer.octetAlignedBitString(try outer.expect(ASN1Tag.bitString, "the signature"), "the signature"))
      try outer.expectEnd("the signature")
      return (outer, tbs, algorithm, signature)
    }
    let (outer, tbs, algorithmElement, signatureBytes) = top
    tbsRange = tbs.encodedRange
    signatureAlgorithmRange = algorithmElement.encodedRange
    signature = signatureBytes
    signatureAlgorithm = try SignatureAlgorithm.read(algorithmElement, in: outer)
    guard signatureAlgorithm != .rsaEncryption else {
      throw SignatureFailure(.unsupportedAlgorithm, "rsaEncryption names no digest: not a certificate signature")
    }

    // TBSCertificate ::= SEQUENCE { [0] version DEFAULT v1, serialNumber, signature, issuer, validity, subject,
    //   subjectPublicKeyInfo, [1] issuerUniqueID, [2] subjectUniqueID, [3] extensions }
    let fields = try derRead { () throws(ASN1Error) in
      var items = try outer.children(of: tbs)
      var version: Int64 = 0
      if let explicit = try items.optional(ASN1Tag.context0) {
        var inner = try items.children(of: explicit)
        let at = explicit.offset
        version = try inner.integer(try inner.expect(ASN1Tag.integer, "the version"))
        try inner.expectEnd("the version")
        // DER never encodes the DEFAULT v1.
        guard version == 1 || version == 2 else { throw ASN1Error("version \(version + 1) is not v2 or v3", at) }
      }
      let serial = try items.expect(ASN1Tag.integer, "the serial number")
      let serialBytes = Array(items.content(serial))
      try ASN1Reader.checkMinimalInteger(items.content(serial), at: serial.offset)
      guard serialBytes.count <= 20 + 1 else { throw ASN1Error("serial number longer than 20 octets", serial.offset) }
      let innerAlgorithm = try items.expect(ASN1Tag.sequence, "the TBSCertificate signature algorithm")
      let issuer = try DistinguishedName(try items.expect(ASN1Tag.sequence, "the issuer"), in: items)
      let validity = try items.expect(ASN1Tag.sequence, "the validity")
      var times = try items.children(of: validity)
      guard let notBeforeElement = try times.next(), let notAfterElement = try times.next() else {
        throw ASN1Error("validity needs notBefore and notAfter", validity.offset)
      }
      let notBefore = try CertificateTime.milliseconds(notBeforeElement, in: times, "notBefore")
      let notAfter = try CertificateTime.milliseconds(notAfterElement, in: times, "notAfter")
      try times.expectEnd("the validity")
      let subject = try DistinguishedName(try items.expect(ASN1Tag.sequence, "the subject"), in: items)
      let spki = try items.expect(ASN1Tag.sequence, "the subject public key info")
      // Unique identifiers are obsolete and never in Apple's certificates; skipped if present.
      _ = try items.optional(0x81)
      _ = try items.optional(0x82)
      let extensions = try items.optional(ASN1Tag.context3)
      try items.expectEnd("the TBSCertificate")
      var extensionList: (ASN1Element, ASN1Reader)?
      if let extensions {
        guard version == 2 else {
          throw ASN1Error("extensions in a version \(version + 1) certificate", extensions.offset)
        }
        var wrapper = try items.children(of: extensions)
        let list = try wrapper.expect(ASN1Tag.sequence, "the extensions")
        try wrapper.expectEnd("the extensions")
        extensionList = (list, wrapper)
      }
      return (
        Int(version + 1), serialBytes, innerAlgorithm, issuer, notBefore, notAfter, subject, spki, items,
        extensionList
      )
    }
    let (version, serial, innerAlgorithm, issuer, notBefore, notAfter, subject, spki, tbsReader, extensionList) =
      fields
    self.version = version
    serialNumber = serial
    self.issuer = issuer
    self.subject = subject
    self.notBefore = notBefore
    self.notAfter = notAfter
    guard bytes[innerAlgorithm.encodedRange].elementsEqual(bytes[signatureAlgorithmRange]) else {
      throw SignatureFailure(
        .algorithmMismatch, "the outer signature algorithm differs from the TBSCertificate's (RFC 5280 4.1.1.2)")
    }
    guard notBefore <= notAfter else {
      throw SignatureFailure(
        .certificateValidity,
        "notBefore \(CertificateTime.text(notBefore)) is after notAfter \(CertificateTime.text(notAfter))")
    }
    publicKey = try SubjectPublicKey.read(spki, in: tbsReader)
    publicKeyDescription = try Self.describeKey(spki, in: tbsReader)
    if let (list, reader) = extensionList {
      extensions = try CertificateExtensions(list, in: reader)
    } else {
      extensions = CertificateExtensions()
    }
  }

  /// `P-256 EC key` / `RSA key`, from the SPKI's own identifiers.
  static func describeKey(_ spki: ASN1Element, in reader: ASN1Reader) throws(SignatureFailure) -> String {
    try derRead { () throws(ASN1Error) in
      var outer = try reader.children(of: spki)
      var algorithm = try outer.children(of: try outer.expect(ASN1Tag.sequence, "the key algorithm"))
      let oid = try algorithm.objectIdentifier(try algorithm.expect(ASN1Tag.objectIdentifier, "the key algorithm"))
      if oid == .rsaEncryption { return "RSA" }
      let curve = try algorithm.objectIdentifier(try algorithm.expect(ASN1Tag.objectIdentifier, "the named curve"))
      return curve == .prime256v1 ? "P-256 EC" : curve == .secp384r1 ? "P-384 EC" : "EC"
    }
  }

  public static func == (a: Certificate, b: Certificate) -> Bool { a.der == b.der }
  public func hash(into hasher: inout Hasher) { hasher.combine(der) }

  /// Whether `issuerKey` signed this certificate. SHA-1 is accepted only when `allowingSHA1` (the PKCS#7 path).
  public func isSigned(by issuerKey: SubjectPublicKey, allowingSHA1: Bool = false) -> Bool {
    if signatureAlgorithm == .sha1WithRSAEncryption && !allowingSHA1 { return false }
    return issuerKey.isValidSignature(signature, over: tbsCertificateBytes, algorithm: signatureAlgorithm)
  }

  /// Whether the certificate is valid at `milliseconds` (both bounds inclusive).
  public func isValid(at milliseconds: Int64) -> Bool { notBefore <= milliseconds && milliseconds <= notAfter }

  /// `CN=..., O=...`.
  public var subjectDescription: String { subject.description }
}
