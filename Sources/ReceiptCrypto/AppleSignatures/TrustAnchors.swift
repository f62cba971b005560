/// The roots a chain may end at: Apple's compiled-in roots, plus any the user adds (`--trust-root`).
/// A root is found by its subject name's bytes and must verify the certificate below it with its own key.
public struct TrustAnchors: Sendable {
  public struct Anchor: Sendable, Hashable {
    public var certificate: Certificate
    /// One of Apple's compiled-in roots.
    public var isApple: Bool
  }

  public private(set) var anchors: [Anchor]

  public init(anchors: [Anchor]) { self.anchors = anchors }

  /// Apple Root CA - G3 (JWS) and Apple Inc. Root (receipts).
  public static let apple = TrustAnchors(
    anchors: [AppleRoots.appleRootCAG3, AppleRoots.appleIncRoot].compactMap {
      (try? Certificate(derEncoded: $0)).map { Anchor(certificate: $0, isApple: true) }
    })

  /// No anchors at all (tests; a chain can then never verify).
  public static let none = TrustAnchors(anchors: [])

  /// These anchors and one more (`--trust-root`), given as DER.
  /// - Throws: the certificate's parse failure, placed at `trust root`.
  public func adding(rootDER: [UInt8]) throws(SignatureFailure) -> TrustAnchors {
    let certificate: Certificate
    do {
      certificate = try Certificate(derEncoded: rootDER)
    } catch {
      throw error.at("trust root")
    }
    var copy = self
    if !copy.anchors.contains(where: { $0.certificate == certificate }) {
      copy.anchors.append(Anchor(certificate: certificate, isApple: false))
    }
    return copy
  }

  /// Anchors whose subject name is `issuer`'s bytes.
  func candidates(issuedAs issuer: DistinguishedName) -> [Anchor] {
    anchors.filter { $0.certificate.subject.encoded == issuer.encoded }
  }

  /// The DER certificates in a file: the file itself when it is DER (starts with a SEQUENCE), else every
  /// `-----BEGIN CERTIFICATE-----` block of PEM text.
  /// - Throws: `der.malformed` when it is neither, or a PEM block's base64 is bad.
  public static func certificatesFromPEMOrDER(_ bytes: [UInt8]) throws(SignatureFailure) -> [[UInt8]] {
    if bytes.first == ASN1Tag.sequence { return [bytes] }
    let begin = Array("-----BEGIN CERTIFICATE-----".utf8)
    let end = Array("-----END CERTIFICATE-----".utf8)
    var found: [[UInt8]] = []
    var p = 0
    while let start = Self.find(begin, in: bytes, from: p) {
      let bodyStart = start + begin.count
      guard let stop = Self.find(end, in: bytes, from: bodyStart) else {
        throw SignatureFailure(.derMalformed, "PEM block at byte \(start) has no END CERTIFICATE line")
      }
      let body = bytes[bodyStart..<stop].filter { $0 != 0x0A && $0 != 0x0D && $0 != 0x20 && $0 != 0x09 }
      guard let der = Base64.decode(body) else {
        throw SignatureFailure(.derMalformed, "PEM block at byte \(start) is not valid base64")
      }
      found.append(der)
      p = stop + end.count
    }
    guard !found.isEmpty else {
      throw SignatureFailure(.derMalformed, "neither a DER certificate nor PEM with a BEGIN CERTIFICATE block")
    }
    return found
  }

  static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
    guard needle.count <= haystack.count else { return nil }
    var i = from
    while i + needle.count <= haystack.count {
      if haystack[i] == needle[0], haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
      i += 1
    }
    return nil
  }
}
