/// The extensions a chain decision reads. Extensions this type does not handle are kept by OID with their
/// criticality: a critical one fails every chain (RFC 5280 4.2).
public struct CertificateExtensions: Sendable, Hashable {
  /// At most this many extensions (as swift-certificates allows).
  public static let maximumCount = 32

  /// basicConstraints: whether the subject is a CA, and its path length limit; nil when absent.
  public var basicConstraints: BasicConstraints?
  /// keyUsage bits (bit 0 digitalSignature ... bit 5 keyCertSign, bit 6 cRLSign); nil when absent.
  public var keyUsage: KeyUsage?
  /// Every extension OID present, in order.
  public var identifiers: [OID] = []
  /// Critical extensions this type does not check.
  public var unhandledCritical: [OID] = []

  public struct BasicConstraints: Sendable, Hashable {
    public var isCA: Bool
    public var pathLengthConstraint: Int64?
  }

  public struct KeyUsage: Sendable, Hashable {
    public var bits: UInt32
    public var digitalSignature: Bool { bits & 1 != 0 }
    public var keyCertSign: Bool { bits & (1 << 5) != 0 }
  }

  /// No extensions (a v1 or v2 certificate).
  public init() {}

  public func contains(_ oid: OID) -> Bool { identifiers.contains(oid) }

  /// Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension { extnID, critical BOOLEAN DEFAULT FALSE, extnValue }.
  init(_ element: ASN1Element, in parent: ASN1Reader) throws(SignatureFailure) {
    let found = try derRead { () throws(ASN1Error) -> [(OID, Bool, ASN1Element, ASN1Reader)] in
      var list = try parent.children(of: element)
      guard !list.isAtEnd else { throw ASN1Error("empty extensions list", element.offset) }
      var found: [(OID, Bool, ASN1Element, ASN1Reader)] = []
      while let item = try list.next() {
        guard item.tag == ASN1Tag.sequence else {
          throw ASN1Error("expected an extension (SEQUENCE), found \(ASN1Tag.name(item.tag))", item.offset)
        }
        var parts = try list.children(of: item)
        let oid = try parts.objectIdentifier(try parts.expect(ASN1Tag.objectIdentifier, "the extension id"))
        var critical = false
        if let flag = try parts.optional(ASN1Tag.boolean) {
          critical = try parts.boolean(flag)
          // DER never encodes a DEFAULT value.
          guard critical else {
            throw ASN1Error("extension \(oid) encodes critical FALSE, its default (DER)", flag.offset)
          }
        }
        let value = try parts.expect(ASN1Tag.octetString, "the extension value")
        try parts.expectEnd("the extension value")
        found.append((oid, critical, value, parts))
        guard found.count <= Self.maximumCount else {
          throw ASN1Error("more than \(Self.maximumCount) extensions", item.offset)
        }
      }
      return found
    }
    for (oid, critical, value, reader) in found {
      guard !identifiers.contains(oid) else {
        throw SignatureFailure(.duplicateExtension, "extension \(oid) appears twice")
      }
      identifiers.append(oid)
      switch oid {
      case .basicConstraints:
        basicConstraints = try derRead { () throws(ASN1Error) in try Self.basicConstraints(value, reader) }
      case .keyUsage: keyUsage = try derRead { () throws(ASN1Error) in try Self.keyUsage(value, reader) }
      default: if critical { unhandledCritical.append(oid) }
      }
    }
  }

  /// BasicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLenConstraint INTEGER (0..MAX) OPTIONAL }.
  static func basicConstraints(_ value: ASN1Element, _ reader: ASN1Reader) throws(ASN1Error) -> BasicConstraints {
    var inner = try reader.contents(of: value)
    let sequence = try inner.expect(ASN1Tag.sequence, "basicConstraints")
    try inner.expectEnd("basicConstraints")
    var items = try inner.children(of: sequence)
    var result = BasicConstraints(isCA: false, pathLengthConstraint: nil)
    if let flag = try items.optional(ASN1Tag.boolean) {
      result.isCA = try items.boolean(flag)
      guard result.isCA else { throw ASN1Error("basicConstraints encodes cA FALSE, its default (DER)", flag.offset) }
    }
    if let length = try items.optional(ASN1Tag.integer) {
      let value = try items.integer(length)
      guard value >= 0 else { throw ASN1Error("negative pathLenConstraint", length.offset) }
      result.pathLengthConstraint = value
    }
    try items.expectEnd("basicConstraints")
    return result
  }

  /// KeyUsage ::= BIT STRING.
  static func keyUsage(_ value: ASN1Element, _ reader: ASN1Reader) throws(ASN1Error) -> KeyUsage {
    var inner = try reader.contents(of: value)
    let bits = try inner.expect(ASN1Tag.bitString, "keyUsage")
    try inner.expectEnd("keyUsage")
    return KeyUsage(bits: try inner.namedBits(bits, "keyUsage"))
  }
}
