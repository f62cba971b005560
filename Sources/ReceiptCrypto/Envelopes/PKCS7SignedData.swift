/// A PKCS#7 / CMS SignedData envelope (RFC 5652 §5) as Apple's app receipts carry it, read with the BER envelope
/// rules (Xcode writes indefinite lengths and a constructed OCTET STRING). Nothing here is trusted: it only
/// locates the signed content, the certificates and the signer for `AppleSignatureVerifier.verifyPKCS7`.
public struct PKCS7SignedData: Sendable {
  /// The signed content octets exactly as stored (a constructed OCTET STRING's segments joined, as OpenSSL
  /// hashes them); for an app receipt, the payload.
  public let content: [UInt8]
  /// The digest algorithms the envelope lists, as OIDs (a signer's must be among them).
  public let digestAlgorithms: [OID]
  /// The certificates, each as its own DER bytes, in envelope order.
  public let certificates: [[UInt8]]
  public let signers: [PKCS7Signer]

  /// Largest envelope read: far above any receipt (the 187-transaction sandbox receipt is 79 KB).
  public static let maximumByteCount = 16 << 20

  /// Reads the envelope.
  /// - Throws: `der.malformed` (with the byte offset) for bytes that are not BER, `pkcs7.structure` for BER
  ///   that is not a SignedData of data.
  public init(berEncoded blob: [UInt8]) throws(SignatureFailure) {
    guard blob.count <= Self.maximumByteCount else {
      throw SignatureFailure(
        .pkcs7Structure, "\(blob.count) bytes is larger than any receipt (limit \(Self.maximumByteCount))")
    }
    let parsed = try derRead { () throws(ASN1Error) in
      guard !blob.isEmpty else { throw ASN1Error("empty input: no PKCS#7 envelope", 0) }
      var top = ASN1Reader(blob, rules: .berEnvelope)
      // ContentInfo ::= SEQUENCE { contentType OID, [0] EXPLICIT content }
      let contentInfo = try top.expect(ASN1Tag.sequence, "the ContentInfo")
      try top.expectEnd("the ContentInfo")
      var info = try top.children(of: contentInfo)
      let contentType = try info.objectIdentifier(try info.expect(ASN1Tag.objectIdentifier, "the content type"))
      guard contentType == .pkcs7SignedData else {
        throw ASN1Error("content type \(contentType) is not signedData (1.2.840.113549.1.7.2)", contentInfo.offset)
      }
      var explicit = try info.children(of: try info.expect(ASN1Tag.context0, "the signedData content"))
      try info.expectEnd("the signedData content")
      // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, [0] certificates, [1] crls,
      //   signerInfos SET }
      let signedData = try explicit.expect(ASN1Tag.sequence, "the SignedData")
      try explicit.expectEnd("the SignedData")
      var fields = try explicit.children(of: signedData)
      let version = try fields.integer(try fields.expect(ASN1Tag.integer, "the SignedData version"))
      guard (1...5).contains(version) else { throw ASN1Error("SignedData version \(version)", signedData.offset) }
      var digestSet = try fields.children(of: try fields.expect(ASN1Tag.set, "the digest algorithms"))
      var digestAlgorithms: [OID] = []
      while let algorithm = try digestSet.next() {
        guard algorithm.tag == ASN1Tag.sequence else {
          throw ASN1Error("expected an AlgorithmIdentifier, found \(ASN1Tag.name(algorithm.tag))", algorithm.offset)
        }
        var items = try digestSet.children(of: algorithm)
        digestAlgorithms.append(
          try items.objectIdentifier(try items.expect(ASN1Tag.objectIdentifier, "a digest algorithm")))
        guard digestAlgorithms.count <= 8 else { throw ASN1Error("more than 8 digest algorithms", algorithm.offset) }
      }
      let content = try Self.readEncapsulatedContent(&fields)
      var certificates: [[UInt8]] = []
      if let set = try fields.optional(ASN1Tag.context0) {
        var list = try fields.children(of: set)
        while let certificate = try list.next() {
          guard certificates.count < 8 else { throw ASN1Error("more than 8 certificates", certificate.offset) }
          certificates.append(Array(list.encoded(certificate)))
        }
      }
      _ = try fields.optional(ASN1Tag.context1)  // crls: never in receipts, not used
      let signerSet = try fields.expect(ASN1Tag.set, "the signer infos")
      try fields.expectEnd("the signer infos")
      var signerList = try fields.children(of: signerSet)
      var signers: [PKCS7Signer] = []
      while let signer = try signerList.next() {
        guard signers.count < 4 else { throw ASN1Error("more than 4 signers", signer.offset) }
        signers.append(try PKCS7Signer(signer, in: signerList))
      }
      return (content, digestAlgorithms, certificates, signers)
    }
    (content, digestAlgorithms, certificates, signers) = parsed
  }

  /// encapContentInfo ::= SEQUENCE { eContentType OID (data), [0] EXPLICIT OCTET STRING }: the content octets,
  /// primitive or constructed from segments (BER).
  private static func readEncapsulatedContent(_ fields: inout ASN1Reader) throws(ASN1Error) -> [UInt8] {
    let encapsulated = try fields.expect(ASN1Tag.sequence, "the encapsulated content info")
    var items = try fields.children(of: encapsulated)
    let type = try items.objectIdentifier(try items.expect(ASN1Tag.objectIdentifier, "the content type"))
    guard type == .pkcs7Data else {
      throw ASN1Error("encapsulated content type \(type) is not data (1.2.840.113549.1.7.1)", encapsulated.offset)
    }
    guard let wrapper = try items.optional(ASN1Tag.context0) else {
      throw ASN1Error("detached content: the envelope holds no signed content", encapsulated.offset)
    }
    try items.expectEnd("the encapsulated content")
    var inner = try items.children(of: wrapper)
    let octets = try inner.next()
    try inner.expectEnd("the content OCTET STRING")
    guard let octets else { throw ASN1Error("empty content wrapper", wrapper.offset) }
    return try joinedOctets(octets, in: inner)
  }

  /// An OCTET STRING's value: the content of a primitive one, or the joined segments of a constructed one
  /// (X.690 8.7.3), walked with an explicit stack under the reader's depth limit.
  static func joinedOctets(_ element: ASN1Element, in reader: ASN1Reader) throws(ASN1Error) -> [UInt8] {
    switch element.tag {
    case ASN1Tag.octetString: return Array(reader.content(element))
    case ASN1Tag.constructedOctetString:
      var joined: [UInt8] = []
      var stack = [try reader.children(of: element)]
      while var segments = stack.popLast() {
        guard let segment = try segments.next() else { continue }
        stack.append(segments)
        switch segment.tag {
        case ASN1Tag.octetString: joined += segments.content(segment)
        case ASN1Tag.constructedOctetString: stack.append(try segments.children(of: segment))
        default:
          throw ASN1Error("a constructed OCTET STRING holds \(ASN1Tag.name(segment.tag))", segment.offset)
        }
      }
      return joined
    default:
      throw ASN1Error("expected the content (OCTET STRING), found \(ASN1Tag.name(element.tag))", element.offset)
    }
  }
}

extension OID {
  /// 1.2.840.113549.1.7.1 and .2: PKCS#7 data and signedData content types.
  public static let pkcs7Data = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01])
  public static let pkcs7SignedData = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02])
  /// 1.2.840.113549.1.9.3 and .4: the contentType and messageDigest signed attributes (RFC 5652 §11).
  public static let contentTypeAttribute = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x03])
  public static let messageDigestAttribute = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x04])
}

extension DigestAlgorithm {
  /// The digest an AlgorithmIdentifier's OID names (nil: none of the four).
  public init?(oid: OID) {
    switch oid {
    case .sha1: self = .sha1
    case .sha256: self = .sha256
    case .sha384: self = .sha384
    case .sha512: self = .sha512
    default: return nil
    }
  }
}
