import ReceiptCrypto
import ReceiptModel

/// The parts of a PKCS#7 (RFC 2315) SignedData that receipt-tool reads: the signed content and, for display,
/// the certificates. Nothing is verified.
struct PKCS7Envelope {
  static let signedDataOID = "1.2.840.113549.1.7.2"
  static let dataOID = "1.2.840.113549.1.7.1"

  /// The buffer holding the eContent octets (the receipt payload DER): the input itself when they are one
  /// OCTET STRING, else the pieces of a BER constructed one joined.
  var content: [UInt8]
  /// Where the octets lie in `content`.
  var contentRange: Range<Int>
  /// Maps offsets in `content` back to the input.
  var contentOffsets: DEROffsetMap
  var signature = AppReceiptSignature()

  /// ContentInfo { contentType signedData, [0] EXPLICIT SignedData { version, digestAlgorithms,
  /// encapContentInfo { data, [0] EXPLICIT OCTET STRING }, [0] certificates?, [1] crls?, signerInfos } }.
  /// Xcode writes the outer layers with BER indefinite lengths and the OCTET STRING constructed; both are read.
  static func read(_ bytes: [UInt8]) throws(AppReceiptError) -> PKCS7Envelope {
    var top = DERReader(bytes)
    guard !bytes.isEmpty else { throw top.error("empty input: no receipt", at: 0) }
    let contentInfo = try top.expect(DERTag.sequence, "the PKCS#7 ContentInfo", allowIndefinite: true)
    try top.expectEnd("the PKCS#7 ContentInfo")
    var info = try top.children(of: contentInfo, step: "ContentInfo")
    try info.expectObjectIdentifier(Self.signedDataName, "content type")
    let explicit = try info.expect(DERTag.context0, "[0] SignedData", allowIndefinite: true)
    try info.expectEnd("the SignedData")
    var wrapper = try info.children(of: explicit)
    let signedElement = try wrapper.expect(DERTag.sequence, "the SignedData", allowIndefinite: true)
    try wrapper.expectEnd("the SignedData")
    var signed = try wrapper.children(of: signedElement, step: "SignedData")

    _ = try signed.integer(try signed.expect(DERTag.integer, "the SignedData version"))
    var signature = AppReceiptSignature()
    let digests = try signed.expect(DERTag.set, "the digest algorithms", allowIndefinite: true)
    var digestReader = try signed.children(of: digests, step: "digestAlgorithms")
    while let algorithm = try digestReader.next(allowIndefinite: true) {
      var parts = try digestReader.children(of: algorithm, step: "algorithm")
      let oid = try parts.expect(DERTag.objectIdentifier, "the digest algorithm")
      signature.digestAlgorithms.append(try parts.name(of: oid, in: Self.algorithmNames))
    }

    let encap = try signed.expect(DERTag.sequence, "the encapsulated content info", allowIndefinite: true)
    var encapReader = try signed.children(of: encap, step: "encapContentInfo")
    try encapReader.expectObjectIdentifier(Self.dataName, "encapsulated content type")
    guard let eExplicit = try encapReader.next(allowIndefinite: true) else {
      throw encapReader.error("no receipt content: the signature is detached", at: encap.offset)
    }
    guard eExplicit.tag == DERTag.context0 else {
      throw encapReader.error("expected [0] content, found \(DERTag.name(eExplicit.tag))", at: eExplicit.offset)
    }
    try encapReader.expectEnd("the content")
    var contentWrapper = try encapReader.children(of: eExplicit)
    let (content, range, offsets) = try Self.octets(&contentWrapper)
    try contentWrapper.expectEnd("the content OCTET STRING")

    // Certificates and signer infos are read for display only; their absence is reported, not guessed.
    while let element = try signed.next(allowIndefinite: true) {
      switch element.tag {
      case DERTag.context0:
        var certs = try signed.children(of: element, step: "certificates")
        while let cert = try certs.next(allowIndefinite: true) {
          signature.certificates.append(Self.summarise(cert, in: certs))
        }
      case DERTag.context1: continue
      case DERTag.set:
        var signers = try signed.children(of: element, step: "signerInfos")
        while try signers.next(allowIndefinite: true) != nil { signature.signerCount += 1 }
      default:
        throw signed.error("unexpected \(DERTag.name(element.tag)) in the SignedData", at: element.offset)
      }
    }
    return PKCS7Envelope(content: content, contentRange: range, contentOffsets: offsets, signature: signature)
  }

  /// The content octets of the two OIDs every receipt has.
  static let signedDataOIDBytes: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
  static let dataOIDBytes: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
  static let signedDataName = OIDName(signedDataOIDBytes, signedDataOID, "PKCS#7 signedData")
  static let dataName = OIDName(dataOIDBytes, dataOID, "data")

  /// Names of the digest algorithms.
  static let algorithmNames: [OIDName] = [
    OIDName([0x2B, 0x0E, 0x03, 0x02, 0x1A], "1.3.14.3.2.26", "sha1"),
    OIDName([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01], "2.16.840.1.101.3.4.2.1", "sha256"),
    OIDName([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02], "2.16.840.1.101.3.4.2.2", "sha384"),
    OIDName([0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03], "2.16.840.1.101.3.4.2.3", "sha512"),
  ]

  /// An OCTET STRING, primitive or (BER) constructed from primitive pieces: the buffer holding it, its range
  /// there, and the map from buffer offsets back to input offsets.
  static func octets(_ reader: inout DERReader) throws(AppReceiptError) -> ([UInt8], Range<Int>, DEROffsetMap) {
    let at = reader.position
    guard let element = try reader.next(allowIndefinite: true) else {
      throw reader.error("expected the content OCTET STRING, found the end of the [0] wrapper", at: at)
    }
    if element.tag == DERTag.octetString {
      // One piece: read where it lies, not copied, so buffer offsets are the reader's own.
      return (reader.bytes, element.contentStart..<element.contentEnd, reader.offsetMap)
    }
    guard element.tag == DERTag.constructedOctetString else {
      throw reader.error("expected the content OCTET STRING, found \(DERTag.name(element.tag))", at: element.offset)
    }
    var pieces = try reader.children(of: element, step: "OCTET STRING")
    var joined: [UInt8] = []
    var map = DEROffsetMap()
    while let piece = try pieces.next() {
      guard piece.tag == DERTag.octetString else {
        throw pieces.error("expected a primitive OCTET STRING piece, found \(DERTag.name(piece.tag))", at: piece.offset)
      }
      map.segments.append((joined.count, reader.offsetMap.sourceOffset(piece.contentStart)))
      joined += pieces.content(piece)
    }
    return (joined, 0..<joined.count, map)
  }

  /// Certificate { tbsCertificate { [0] version?, serial, signature, issuer, validity, subject, ... }, ... }.
  static func summarise(_ cert: DERElement, in parent: DERReader) -> AppReceiptCertificate {
    var summary = AppReceiptCertificate()
    do throws(AppReceiptError) {
      var outer = try parent.children(of: cert, step: "certificate")
      let tbs = try outer.expect(DERTag.sequence, "the TBSCertificate")
      var fields = try outer.children(of: tbs, step: "tbsCertificate")
      var first = try fields.next()
      if first?.tag == DERTag.context0 { first = try fields.next() }
      guard first?.tag == DERTag.integer else { throw fields.error("expected the serial number", at: tbs.offset) }
      _ = try fields.expect(DERTag.sequence, "the signature algorithm")
      summary.issuer = try distinguishedName(try fields.expect(DERTag.sequence, "the issuer"), in: fields)
      let validity = try fields.expect(DERTag.sequence, "the validity")
      var times = try fields.children(of: validity, step: "validity")
      summary.notBefore = try time(try times.expect(times.peekTag ?? DERTag.utcTime, "notBefore"), in: times)
      summary.notAfter = try time(try times.expect(times.peekTag ?? DERTag.utcTime, "notAfter"), in: times)
      summary.subject = try distinguishedName(try fields.expect(DERTag.sequence, "the subject"), in: fields)
    } catch {
      summary.problem = error.description
    }
    return summary
  }

  /// Short names of the attribute types of a distinguished name.
  static let attributeNames: [OIDName] = [
    OIDName([0x55, 0x04, 0x03], "2.5.4.3", "CN"), OIDName([0x55, 0x04, 0x06], "2.5.4.6", "C"),
    OIDName([0x55, 0x04, 0x07], "2.5.4.7", "L"), OIDName([0x55, 0x04, 0x08], "2.5.4.8", "ST"),
    OIDName([0x55, 0x04, 0x0A], "2.5.4.10", "O"), OIDName([0x55, 0x04, 0x0B], "2.5.4.11", "OU"),
    OIDName([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x01], "1.2.840.113549.1.9.1", "emailAddress"),
  ]

  /// `CN=..., OU=..., O=..., C=...` in certificate order.
  static func distinguishedName(_ name: DERElement, in parent: DERReader) throws(AppReceiptError) -> String {
    var rdns = try parent.children(of: name, step: "Name")
    // Bytes first, one String at the end. Each value stands between ASCII ("=" before, ", " or the end after), so
    // decoding the whole repairs bad UTF-8 exactly as decoding each value would.
    var text: [UInt8] = []
    while let rdn = try rdns.next() {
      var set = try rdns.children(of: rdn, step: "RDN")
      while let pair = try set.next() {
        var items = try set.children(of: pair, step: "attribute")
        let oid = try items.expect(DERTag.objectIdentifier, "the attribute type")
        let type = try items.name(of: oid, in: attributeNames)
        guard let value = try items.next() else { throw items.error("no attribute value", at: pair.offset) }
        if !text.isEmpty { text += [UInt8(ascii: ","), UInt8(ascii: " ")] }
        text += type.utf8
        text.append(UInt8(ascii: "="))
        text += items.content(value)
      }
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// UTCTime `YYMMDDHHMMSSZ` (years 1950-2049) or GeneralizedTime `YYYYMMDDHHMMSSZ`.
  static func time(_ element: DERElement, in reader: DERReader) throws(AppReceiptError) -> Timestamp {
    let text = reader.content(element)
    // Every character but the last is a digit, then the last is Z, then the count fits the tag: in that order.
    for c in text.dropLast() where c < 0x30 || c > 0x39 {
      throw reader.error("malformed certificate time", at: element.offset)
    }
    guard text.last == UInt8(ascii: "Z") else { throw reader.error("certificate time not in UTC", at: element.offset) }
    let digits = text.count - 1
    let start = text.startIndex
    func number(_ from: Int, _ count: Int) -> Int64 {
      var value: Int64 = 0
      for i in (start + from)..<(start + from + count) { value = value * 10 + Int64(text[i] - 0x30) }
      return value
    }
    let year: Int64
    let rest: Int
    if element.tag == DERTag.utcTime, digits == 12 {
      let yy = number(0, 2)
      year = yy < 50 ? 2000 + yy : 1900 + yy
      rest = 2
    } else if element.tag == DERTag.generalizedTime, digits == 14 {
      year = number(0, 4)
      rest = 4
    } else {
      throw reader.error("malformed certificate time", at: element.offset)
    }
    guard
      let t = Timestamp(
        year: year, month: number(rest, 2), day: number(rest + 2, 2), hour: number(rest + 4, 2),
        minute: number(rest + 6, 2), second: number(rest + 8, 2))
    else { throw reader.error("certificate time out of range", at: element.offset) }
    return t
  }
}

extension DERReader {
  /// The next element, an OBJECT IDENTIFIER that must be `expected`; `what` names it in errors
  /// (`content type 1.2.3 is not data (1.2.840.113549.1.7.1)`).
  mutating func expectObjectIdentifier(_ expected: OIDName, _ what: String) throws(AppReceiptError) {
    let element = try expect(DERTag.objectIdentifier, "the \(what)")
    // Compared as bytes first: the dotted text is made only for another encoding or a message.
    guard !contentEquals(element, expected.bytes) else { return }
    let text = try objectIdentifier(element)
    guard text == expected.dotted else {
      throw error("\(what) \(text) is not \(expected.name) (\(expected.dotted))", at: element.offset)
    }
  }

  /// The name `names` gives an OBJECT IDENTIFIER, else its dotted text (`1.2.3.4`).
  func name(of oid: DERElement, in names: [OIDName]) throws(AppReceiptError) -> String {
    // Compared as bytes first: the dotted text is made only for an OID not listed or encoded another way.
    for entry in names where contentEquals(oid, entry.bytes) { return entry.name }
    let text = try objectIdentifier(oid)
    return names.first { $0.dotted == text }?.name ?? text
  }
}

/// A known OBJECT IDENTIFIER: its DER content octets, its dotted text and the name shown for it.
struct OIDName: Sendable {
  let bytes: [UInt8]
  let dotted: String
  let name: String

  init(_ bytes: [UInt8], _ dotted: String, _ name: String) {
    self.bytes = bytes
    self.dotted = dotted
    self.name = name
  }
}
