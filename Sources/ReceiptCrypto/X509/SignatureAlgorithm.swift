/// The signature algorithms a certificate or signer may name, with the AlgorithmIdentifier rules
/// (RFC 3279, RFC 5758, RFC 8017): ECDSA identifiers have no parameters; RSA ones carry NULL (absent is accepted,
/// as Go and swift-certificates accept it).
public enum SignatureAlgorithm: Sendable, Hashable, CustomStringConvertible {
  case ecdsaWithSHA256, ecdsaWithSHA384
  case sha1WithRSAEncryption, sha256WithRSAEncryption, sha384WithRSAEncryption, sha512WithRSAEncryption
  /// PKCS#7 signers name the key type only; the digest comes from the signer's digestAlgorithm.
  case rsaEncryption

  /// The digest the algorithm signs (nil: named elsewhere).
  public var digest: DigestAlgorithm? {
    switch self {
    case .ecdsaWithSHA256, .sha256WithRSAEncryption: return .sha256
    case .ecdsaWithSHA384, .sha384WithRSAEncryption: return .sha384
    case .sha1WithRSAEncryption: return .sha1
    case .sha512WithRSAEncryption: return .sha512
    case .rsaEncryption: return nil
    }
  }

  public var isECDSA: Bool { self == .ecdsaWithSHA256 || self == .ecdsaWithSHA384 }

  public var description: String {
    switch self {
    case .ecdsaWithSHA256: return "ecdsa-with-SHA256"
    case .ecdsaWithSHA384: return "ecdsa-with-SHA384"
    case .sha1WithRSAEncryption: return "sha1WithRSAEncryption"
    case .sha256WithRSAEncryption: return "sha256WithRSAEncryption"
    case .sha384WithRSAEncryption: return "sha384WithRSAEncryption"
    case .sha512WithRSAEncryption: return "sha512WithRSAEncryption"
    case .rsaEncryption: return "rsaEncryption"
    }
  }

  static let byOID: [OID: SignatureAlgorithm] = [
    .ecdsaWithSHA256: .ecdsaWithSHA256, .ecdsaWithSHA384: .ecdsaWithSHA384,
    .sha1WithRSAEncryption: .sha1WithRSAEncryption, .sha256WithRSAEncryption: .sha256WithRSAEncryption,
    .sha384WithRSAEncryption: .sha384WithRSAEncryption, .sha512WithRSAEncryption: .sha512WithRSAEncryption,
    .rsaEncryption: .rsaEncryption,
  ]

  /// Reads AlgorithmIdentifier ::= SEQUENCE { algorithm OID, parameters ANY OPTIONAL }.
  /// - Throws: `cert.unsupportedAlgorithm` for an OID not listed or parameters that break its rule,
  ///   `der.malformed` for bad structure.
  public static func read(_ element: ASN1Element, in parent: ASN1Reader) throws(SignatureFailure) -> SignatureAlgorithm
  {
    let (oid, parameters) = try derRead { () throws(ASN1Error) in
      guard element.tag == ASN1Tag.sequence else {
        throw ASN1Error(
          "expected an AlgorithmIdentifier (SEQUENCE), found \(ASN1Tag.name(element.tag))", element.offset)
      }
      var items = try parent.children(of: element)
      let oid = try items.objectIdentifier(try items.expect(ASN1Tag.objectIdentifier, "the algorithm"))
      let parameters = try items.next()
      try items.expectEnd("the algorithm parameters")
      return (oid, parameters)
    }
    guard let algorithm = byOID[oid] else {
      throw SignatureFailure(.unsupportedAlgorithm, "signature algorithm \(oid) is not one Apple uses")
    }
    if let parameters {
      guard !algorithm.isECDSA else {
        throw SignatureFailure(.unsupportedAlgorithm, "\(algorithm) must have no parameters (RFC 5758)")
      }
      guard parameters.tag == ASN1Tag.null, parameters.contentLength == 0 else {
        throw SignatureFailure(.unsupportedAlgorithm, "\(algorithm) parameters must be NULL (RFC 8017)")
      }
    }
    return algorithm
  }
}

/// Runs a DER read, turning its error into `der.malformed` (with the byte offset).
func derRead<T>(_ body: () throws(ASN1Error) -> T) throws(SignatureFailure) -> T {
  do {
    return try body()
  } catch {
    throw SignatureFailure(.derMalformed, error.description)
  }
}
