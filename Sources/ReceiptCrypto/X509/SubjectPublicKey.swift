/// The key a certificate certifies: EC on P-256 or P-384 (the point checked on its curve), or RSA.
public enum SubjectPublicKey: Sendable, Hashable {
  case ec(ECPublicKey)
  case rsa(RSAPublicKey)

  /// SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }.
  /// - Throws: `cert.unsupportedKey` for another key type or curve, or a key its type refuses;
  ///   `der.malformed` for bad structure.
  static func read(_ element: ASN1Element, in parent: ASN1Reader) throws(SignatureFailure) -> SubjectPublicKey {
    let (oid, parameter, keyBits, rsaParts) = try derRead {
      () throws(ASN1Error) -> (OID, OID?, [UInt8], (n: [UInt8], e: [UInt8])?) in
      var spki = try parent.children(of: element)
      let algorithm = try spki.expect(ASN1Tag.sequence, "the public key algorithm")
      var items = try spki.children(of: algorithm)
      let oid = try items.objectIdentifier(try items.expect(ASN1Tag.objectIdentifier, "the key algorithm"))
      var parameter: OID?
      if oid == .ecPublicKey {
        parameter = try items.objectIdentifier(try items.expect(ASN1Tag.objectIdentifier, "the named curve"))
      } else if oid == .rsaEncryption {
        try items.null(try items.expect(ASN1Tag.null, "the rsaEncryption NULL parameters"))
      }
      try items.expectEnd("the key algorithm")
      let bits = Array(
        try spki.octetAlignedBitString(try spki.expect(ASN1Tag.bitString, "the public key"), "the public key"))
      try spki.expectEnd("the public key")
      var rsa: (n: [UInt8], e: [UInt8])?
      if oid == .rsaEncryption {
        var outer = ASN1Reader(bits, rules: .der, depth: parent.depth + 2)
        let sequence = try outer.expect(ASN1Tag.sequence, "the RSAPublicKey")
        try outer.expectEnd("the RSAPublicKey")
        var numbers = try outer.children(of: sequence)
        let n = try numbers.unsignedInteger(try numbers.expect(ASN1Tag.integer, "the modulus"), "the modulus")
        let e = try numbers.unsignedInteger(
          try numbers.expect(ASN1Tag.integer, "the public exponent"), "the public exponent")
        try numbers.expectEnd("the public exponent")
        rsa = (n, e)
      }
      return (oid, parameter, bits, rsa)
    }
    if oid == .ecPublicKey {
      let curve: ECCurve
      switch parameter {
      case .prime256v1?: curve = .p256
      case .secp384r1?: curve = .p384
      default:
        throw SignatureFailure(
          .unsupportedKey, "EC key on curve \(parameter.map(\.description) ?? "?"), not P-256 or P-384")
      }
      do {
        return .ec(try ECPublicKey(curve: curve, x963Representation: keyBits))
      } catch {
        throw SignatureFailure(.unsupportedKey, "\(curve.name) key refused: \(error)")
      }
    }
    if let rsaParts {
      do {
        return .rsa(try RSAPublicKey(modulus: rsaParts.n, publicExponent: rsaParts.e))
      } catch {
        throw SignatureFailure(.unsupportedKey, "RSA key refused: \(error)")
      }
    }
    throw SignatureFailure(.unsupportedKey, "public key algorithm \(oid) is neither EC nor RSA")
  }

  /// Whether this key signed `message` (the bytes, hashed here with the algorithm's digest) with `signature`
  /// (DER ECDSA-Sig-Value, or a PKCS#1 v1.5 block). The key type must match the algorithm.
  public func isValidSignature(
    _ signature: [UInt8], over message: ArraySlice<UInt8>, algorithm: SignatureAlgorithm,
    digest: DigestAlgorithm? = nil
  ) -> Bool {
    guard let hash = digest ?? algorithm.digest else { return false }
    let digestBytes = message.withUnsafeBytes { hash.digest($0) }
    switch self {
    case .ec(let key):
      guard algorithm.isECDSA else { return false }
      return key.isValidSignature(derEncoded: signature, digest: digestBytes)
    case .rsa(let key):
      guard !algorithm.isECDSA else { return false }
      return key.isValidPKCS1v15Signature(signature, digest: digestBytes, algorithm: hash)
    }
  }
}
