extension RSAPublicKey {
  /// RSASSA-PKCS1-v1_5 verification (RFC 8017 §8.2.2) of a precomputed digest: len(signature) == k, s < n,
  /// m = s^e mod n, then the whole of m compared with the encoding rebuilt from the digest,
  /// `00 01 FF…FF 00 ‖ DigestInfo ‖ digest`. The padding is never parsed, so no lenient parser can be fooled
  /// (Bleichenbacher 2006); DigestInfo always carries the NULL parameters, as Apple's signatures do.
  public func isValidPKCS1v15Signature(_ signature: [UInt8], digest: [UInt8], algorithm: DigestAlgorithm) -> Bool {
    guard digest.count == algorithm.digestByteCount,
      let expected = PKCS1v15.encodedMessage(digest: digest, algorithm: algorithm, byteCount: modulusByteCount),
      let recovered = publicOperation(signature)
    else { return false }
    return recovered == expected
  }
}

enum PKCS1v15 {
  /// EMSA-PKCS1-v1_5 (RFC 8017 §9.2), or nil when k leaves fewer than 8 bytes of FF padding.
  static func encodedMessage(digest: [UInt8], algorithm: DigestAlgorithm, byteCount: Int) -> [UInt8]? {
    let digestInfo = digestInfoPrefix(algorithm) + digest
    let paddingCount = byteCount - 3 - digestInfo.count
    guard paddingCount >= 8 else { return nil }
    return [0x00, 0x01] + [UInt8](repeating: 0xff, count: paddingCount) + [0x00] + digestInfo
  }

  /// DER of `DigestInfo ::= SEQUENCE { AlgorithmIdentifier { OID, NULL }, OCTET STRING (digest length) }`
  /// up to the digest (RFC 8017 §9.2 note 1).
  static func digestInfoPrefix(_ algorithm: DigestAlgorithm) -> [UInt8] {
    switch algorithm {
    case .sha1: [0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14]
    case .sha256: sha2Prefix(outer: 0x31, oidLast: 0x01, digestLength: 0x20)
    case .sha384: sha2Prefix(outer: 0x41, oidLast: 0x02, digestLength: 0x30)
    case .sha512: sha2Prefix(outer: 0x51, oidLast: 0x03, digestLength: 0x40)
    }
  }

  /// The SHA-2 prefixes differ only in the outer length, the OID's last arc (2.16.840.1.101.3.4.2.x) and the
  /// digest length.
  private static func sha2Prefix(outer: UInt8, oidLast: UInt8, digestLength: UInt8) -> [UInt8] {
    [0x30, outer, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, oidLast, 0x05, 0x00]
      + [0x04, digestLength]
  }
}
