/// One SignerInfo of a SignedData (RFC 5652 §5.3), as read: who signed (issuer and serial number), with which
/// digest and signature algorithms, over which signed attributes, and the signature.
public struct PKCS7Signer: Sendable {
  /// The signer's certificate's issuer Name, as encoded (matched by bytes).
  public let issuer: [UInt8]
  /// The serial number's content octets, as encoded.
  public let serialNumber: [UInt8]
  /// The digest algorithm's OID (checked by the verifier: SHA-1 or SHA-256 for receipts).
  public let digestAlgorithm: OID
  /// The signature algorithm, if it is one this module knows; else nil with its OID text in
  /// `signatureAlgorithmText`.
  public let signatureAlgorithm: SignatureAlgorithm?
  public let signatureAlgorithmText: String
  /// The signed attributes re-tagged as the DER SET OF they are signed as (RFC 5652 §5.4), when present.
  public let signedAttributes: [UInt8]?
  /// The messageDigest attribute's value, when signed attributes are present and hold one.
  public let messageDigest: [UInt8]?
  /// The contentType attribute's value, when present.
  public let contentType: OID?
  public let signature: [UInt8]

  init(_ element: ASN1Element, in parent: ASN1Reader) throws(ASN1Error) {
    guard element.tag == ASN1Tag.sequence else {
      throw ASN1Error("expected a SignerInfo (SEQUENCE), found \(ASN1Tag.name(element.tag))", element.offset)
    }
    var fields = try parent.children(of: element)
    let version = try fields.integer(try fields.expect(ASN1Tag.integer, "the SignerInfo version"))
    guard version == 1 else {
      throw ASN1Error(
        "SignerInfo version \(version): only issuer-and-serial-number signers (version 1) are read", element.offset)
    }
    // IssuerAndSerialNumber ::= SEQUENCE { issuer Name, serialNumber INTEGER }
    var sid = try fields.children(of: try fields.expect(ASN1Tag.sequence, "the signer's issuer and serial number"))
    issuer = Array(sid.encoded(try sid.expect(ASN1Tag.sequence, "the signer's issuer name", allowIndefinite: false)))
    serialNumber = Array(sid.content(try sid.expect(ASN1Tag.integer, "the signer's serial number")))
    try sid.expectEnd("the signer's serial number")
    var digest = try fields.children(of: try fields.expect(ASN1Tag.sequence, "the signer's digest algorithm"))
    digestAlgorithm = try digest.objectIdentifier(try digest.expect(ASN1Tag.objectIdentifier, "the digest algorithm"))
    if let parameters = try digest.next() {
      guard parameters.tag == ASN1Tag.null, parameters.contentLength == 0 else {
        throw ASN1Error("digest algorithm parameters other than NULL", parameters.offset)
      }
    }
    try digest.expectEnd("the digest algorithm")
    if let attributes = try fields.optional(ASN1Tag.context0) {
      // Signed as the DER SET OF: the stored bytes with the universal SET tag. An indefinite length cannot be
      // the DER that was signed.
      guard !attributes.isIndefinite else {
        throw ASN1Error(
          "signed attributes with an indefinite length are not the DER that was signed", attributes.offset)
      }
      signedAttributes = [ASN1Tag.set] + fields.encoded(attributes).dropFirst()
      (messageDigest, contentType) = try Self.readAttributes(attributes, in: fields)
    } else {
      (signedAttributes, messageDigest, contentType) = (nil, nil, nil)
    }
    let algorithm = try fields.expect(ASN1Tag.sequence, "the signature algorithm")
    var algorithmItems = try fields.children(of: algorithm)
    signatureAlgorithmText = try algorithmItems.dottedObjectIdentifier(
      try algorithmItems.expect(ASN1Tag.objectIdentifier, "the signature algorithm"))
    signatureAlgorithm = try? SignatureAlgorithm.read(algorithm, in: fields)
    signature = Array(fields.content(try fields.expect(ASN1Tag.octetString, "the signature", allowIndefinite: false)))
    _ = try fields.optional(0xA1)  // unsigned attributes: not covered by the signature, not read
    try fields.expectEnd("the SignerInfo")
  }

  /// messageDigest and contentType from `SET OF Attribute { type OID, values SET OF ANY }`; each at most once,
  /// with exactly one value (RFC 5652 §11.1, §11.2).
  private static func readAttributes(
    _ attributes: ASN1Element, in parent: ASN1Reader
  ) throws(ASN1Error) -> ([UInt8]?, OID?) {
    var list = try parent.children(of: attributes)
    var messageDigest: [UInt8]?
    var contentType: OID?
    var count = 0
    while let attribute = try list.next() {
      count += 1
      guard count <= 32 else { throw ASN1Error("more than 32 signed attributes", attribute.offset) }
      guard attribute.tag == ASN1Tag.sequence else {
        throw ASN1Error("expected an attribute (SEQUENCE), found \(ASN1Tag.name(attribute.tag))", attribute.offset)
      }
      var items = try list.children(of: attribute)
      let type = try items.objectIdentifier(try items.expect(ASN1Tag.objectIdentifier, "the attribute type"))
      var values = try items.children(of: try items.expect(ASN1Tag.set, "the attribute values"))
      try items.expectEnd("the attribute")
      guard type == .messageDigestAttribute || type == .contentTypeAttribute else { continue }
      guard let value = try values.next() else { throw ASN1Error("attribute \(type) has no value", attribute.offset) }
      try values.expectEnd("the attribute's single value")
      if type == .messageDigestAttribute {
        guard messageDigest == nil, value.tag == ASN1Tag.octetString else {
          throw ASN1Error("messageDigest repeated or not an OCTET STRING", attribute.offset)
        }
        messageDigest = Array(values.content(value))
      } else {
        guard contentType == nil else { throw ASN1Error("contentType repeated", attribute.offset) }
        contentType = try values.objectIdentifier(value)
      }
    }
    return (messageDigest, contentType)
  }
}
