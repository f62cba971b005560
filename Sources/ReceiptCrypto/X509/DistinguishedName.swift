/// A certificate's issuer or subject: the encoded bytes (chains match names by these bytes) and, for people,
/// the common name and organization.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
  /// The whole Name element, identifier to end.
  public let encoded: [UInt8]
  public let commonName: String?
  public let organization: String?

  /// Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue).
  init(_ element: ASN1Element, in parent: ASN1Reader) throws(ASN1Error) {
    encoded = Array(parent.encoded(element))
    var commonName: String?
    var organization: String?
    var rdns = try parent.children(of: element)
    while let rdn = try rdns.next() {
      guard rdn.tag == ASN1Tag.set else {
        throw ASN1Error("expected a relative distinguished name (SET), found \(ASN1Tag.name(rdn.tag))", rdn.offset)
      }
      var set = try rdns.children(of: rdn)
      guard !set.isAtEnd else { throw ASN1Error("empty relative distinguished name", rdn.offset) }
      while let pair = try set.next() {
        guard pair.tag == ASN1Tag.sequence else {
          throw ASN1Error("expected an attribute (SEQUENCE), found \(ASN1Tag.name(pair.tag))", pair.offset)
        }
        var items = try set.children(of: pair)
        let type = try items.objectIdentifier(try items.expect(ASN1Tag.objectIdentifier, "the attribute type"))
        guard let value = try items.next() else { throw ASN1Error("attribute without a value", pair.offset) }
        try items.expectEnd("the attribute value")
        if type == .commonName, commonName == nil { commonName = Self.text(value, in: items) }
        if type == .organizationName, organization == nil { organization = Self.text(value, in: items) }
      }
    }
    self.commonName = commonName
    self.organization = organization
  }

  /// The text of a directory string (UTF8String, PrintableString, IA5String, TeletexString as Latin-1,
  /// BMPString); nil for anything else.
  static func text(_ value: ASN1Element, in reader: ASN1Reader) -> String? {
    let body = reader.content(value)
    switch value.tag {
    case ASN1Tag.utf8String, ASN1Tag.printableString, ASN1Tag.ia5String:
      return String(decoding: body, as: UTF8.self)
    case ASN1Tag.teletexString:
      return String(String.UnicodeScalarView(body.map { Unicode.Scalar($0) }))
    case ASN1Tag.bmpString:
      guard body.count % 2 == 0 else { return nil }
      let units = stride(from: body.startIndex, to: body.endIndex, by: 2).map {
        UInt16(body[$0]) << 8 | UInt16(body[$0 + 1])
      }
      return String(decoding: units, as: UTF16.self)
    default: return nil
    }
  }

  /// `CN=..., O=...` (what is known), for messages.
  public var description: String {
    let parts = [commonName.map { "CN=\($0)" }, organization.map { "O=\($0)" }].compactMap { $0 }
    return parts.isEmpty ? "(no CN or O)" : parts.joined(separator: ", ")
  }
}
