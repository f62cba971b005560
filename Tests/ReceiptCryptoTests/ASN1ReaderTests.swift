import Foundation
import ReceiptCrypto
import Testing

/// One test per rule of the strict reader, and the hostile shapes: depth bombs, huge lengths, BER in DER.
@Suite struct ASN1ReaderTests {
  static func first(_ bytes: [UInt8], _ rules: ASN1Rules = .der) throws(ASN1Error) -> ASN1Element? {
    var reader = ASN1Reader(bytes, rules: rules)
    return try reader.next()
  }

  @Test func derRefusesIndefiniteLengthsWhichBERAccepts() throws {
    let indefinite: [UInt8] = [0x30, 0x80, 0x02, 0x01, 0x05, 0x00, 0x00]
    #expect(throws: ASN1Error.self) { try Self.first(indefinite) }
    let element = try #require(try Self.first(indefinite, .berEnvelope))
    #expect(element.contentStart == 2 && element.contentEnd == 5 && element.end == 7 && element.isIndefinite)
    #expect(throws: ASN1Error.self) { try Self.first(indefinite, .berDefiniteLengths) }
    // Primitive elements never take an indefinite length.
    #expect(throws: ASN1Error.self) { try Self.first([0x04, 0x80, 0x00, 0x00], .berEnvelope) }
  }

  @Test func derRefusesNonMinimalLengths() throws {
    for bytes: [UInt8] in [
      [0x04, 0x81, 0x01, 0xAA],  // long form for a length under 128
      [0x04, 0x82, 0x00, 0x01, 0xAA],  // leading zero octet
    ] {
      #expect(throws: ASN1Error.self) { try Self.first(bytes) }
      #expect(try Self.first(bytes, .berDefiniteLengths)?.contentLength == 1)
    }
    let long = [0x04, 0x81, 0x80] + [UInt8](repeating: 7, count: 128)
    #expect(try Self.first(long)?.contentLength == 128)
  }

  @Test func hugeAndTruncatedLengthsFailWithoutReading() {
    for bytes: [UInt8] in [
      [0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF], [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x00], [0x30, 0x85, 1, 1, 1, 1, 1],
      [0x30, 0x82, 0x01], [0x30], [0x3F, 0x01, 0x00], [0x30, 0x02, 0x05],
    ] {
      for rules in [ASN1Rules.der, .berEnvelope] {
        #expect(throws: ASN1Error.self, "\(bytes)") { try Self.first(bytes, rules) }
        #expect(throws: ASN1Error.self, "\(bytes)") { try ASN1Reader.nodes(bytes, rules: rules) }
      }
    }
  }

  @Test func depthBombsStopAtTheBound() throws {
    // 10,000 nested definite SEQUENCEs (lengths written minimally from the inside out).
    var definite: [UInt8] = []
    for _ in 0..<10_000 {
      let n = definite.count
      let length: [UInt8] =
        n < 0x80
        ? [UInt8(n)]
        : n < 0x100
          ? [0x81, UInt8(n)]
          : n < 0x10000
            ? [0x82, UInt8(n >> 8), UInt8(n & 0xFF)] : [0x83, UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
      definite = [0x30] + length + definite
    }
    #expect(throws: ASN1Error.self) { try ASN1Reader.nodes(definite, rules: .der) }
    #expect(throws: SignatureFailure.self) { try Certificate(derEncoded: definite) }
    // 100,000 nested indefinite ones, then their end-of-contents octets.
    let indefinite =
      [UInt8](repeating: 0x30, count: 200_000).enumerated().map { $0.offset % 2 == 0 ? 0x30 : 0x80 }
      + [UInt8](repeating: 0, count: 200_000)
    #expect(throws: ASN1Error.self) { try ASN1Reader.nodes(indefinite, rules: .berEnvelope) }
    // Exactly at the bound it reads.
    var atBound: [UInt8] = [0x05, 0x00]
    for _ in 0..<ASN1Reader.maximumDepth { atBound = [0x30, UInt8(atBound.count)] + atBound }
    #expect(try ASN1Reader.nodes(atBound, rules: .der).count == ASN1Reader.maximumDepth + 1)
    #expect(throws: ASN1Error.self) { try ASN1Reader.nodes([0x30, UInt8(atBound.count)] + atBound, rules: .der) }
  }

  @Test func nodesTileTheInputAndRefuseTrailingBytes() throws {
    let cert = AppleRoots.appleRootCAG3
    let nodes = try ASN1Reader.nodes(cert, rules: .der)
    #expect(nodes.first?.element.end == cert.count)
    // Each constructed node's children start at its content and follow one another to its end.
    for (i, node) in nodes.enumerated() where node.element.isConstructed {
      let children = nodes[(i + 1)...].prefix { $0.depth > node.depth }.filter { $0.depth == node.depth + 1 }
      var p = node.element.contentStart
      for child in children {
        #expect(child.element.offset == p)
        p = child.element.end
      }
      #expect(p == node.element.contentEnd)
    }
    #expect(throws: ASN1Error.self) { try ASN1Reader.nodes(cert + [0x00], rules: .der) }
    #expect(throws: ASN1Error.self) { try ASN1Reader.nodes([], rules: .der) }
    #expect(throws: ASN1Error.self) { try ASN1Reader.nodes([0x00, 0x00], rules: .der) }
  }

  @Test func primitivesAreStrict() throws {
    func read<T>(_ bytes: [UInt8], _ body: (ASN1Reader, ASN1Element) throws -> T) throws -> T {
      var reader = ASN1Reader(bytes, rules: .der)
      guard let element = try reader.next() else { throw ASN1Error("empty", 0) }
      return try body(reader, element)
    }
    #expect(try read([0x01, 0x01, 0xFF]) { try $0.boolean($1) } == true)
    #expect(throws: ASN1Error.self) { try read([0x01, 0x01, 0x01]) { try $0.boolean($1) } }
    #expect(try read([0x02, 0x02, 0x00, 0x80]) { try $0.integer($1) } == 128)
    #expect(try read([0x02, 0x01, 0xFF]) { try $0.integer($1) } == -1)
    #expect(throws: ASN1Error.self) { try read([0x02, 0x02, 0x00, 0x7F]) { try $0.integer($1) } }
    #expect(throws: ASN1Error.self) { try read([0x02, 0x02, 0xFF, 0x80]) { try $0.integer($1) } }
    #expect(throws: ASN1Error.self) { try read([0x02, 0x00]) { try $0.integer($1) } }
    #expect(try read([0x02, 0x02, 0x00, 0x80]) { try $0.unsignedInteger($1, "n") } == [0x80])
    #expect(throws: ASN1Error.self) { try read([0x02, 0x01, 0x80]) { try $0.unsignedInteger($1, "n") } }
    #expect(throws: ASN1Error.self) { try read([0x05, 0x01, 0x00]) { try $0.null($1) } }
    #expect(throws: ASN1Error.self) { try read([0x03, 0x02, 0x01, 0xFF]) { try $0.octetAlignedBitString($1, "s") } }
    // keyUsage: digitalSignature (bit 0) alone is 03 02 07 80; a set unused bit or a trailing zero byte is not DER.
    #expect(try read([0x03, 0x02, 0x07, 0x80]) { try $0.namedBits($1, "ku") } == 1)
    #expect(try read([0x03, 0x02, 0x01, 0x06]) { try $0.namedBits($1, "ku") } == (1 << 5 | 1 << 6))
    #expect(throws: ASN1Error.self) { try read([0x03, 0x02, 0x07, 0x81]) { try $0.namedBits($1, "ku") } }
    #expect(throws: ASN1Error.self) { try read([0x03, 0x03, 0x07, 0x80, 0x00]) { try $0.namedBits($1, "ku") } }
  }

  @Test func objectIdentifiersAreMinimalAndNamedConstantsMatchTheirText() throws {
    let known: [(OID, String)] = [
      (.ecPublicKey, "1.2.840.10045.2.1"), (.prime256v1, "1.2.840.10045.3.1.7"), (.secp384r1, "1.3.132.0.34"),
      (.ecdsaWithSHA256, "1.2.840.10045.4.3.2"), (.ecdsaWithSHA384, "1.2.840.10045.4.3.3"),
      (.rsaEncryption, "1.2.840.113549.1.1.1"), (.sha1WithRSAEncryption, "1.2.840.113549.1.1.5"),
      (.sha256WithRSAEncryption, "1.2.840.113549.1.1.11"), (.sha384WithRSAEncryption, "1.2.840.113549.1.1.12"),
      (.sha512WithRSAEncryption, "1.2.840.113549.1.1.13"), (.sha1, "1.3.14.3.2.26"),
      (.sha256, "2.16.840.1.101.3.4.2.1"),
      (.sha384, "2.16.840.1.101.3.4.2.2"), (.sha512, "2.16.840.1.101.3.4.2.3"), (.commonName, "2.5.4.3"),
      (.organizationName, "2.5.4.10"), (.basicConstraints, "2.5.29.19"), (.keyUsage, "2.5.29.15"),
      (.appleIntermediateMarker, "1.2.840.113635.100.6.2.1"), (.appleLeafMarker, "1.2.840.113635.100.6.11.1"),
    ]
    for (oid, text) in known {
      #expect(oid.description == text)
      #expect(OID(text) == oid, "\(text)")
    }
    #expect(OID(contentOctets: [0x55, 0x80, 0x04, 0x03]) == nil)  // a padded arc
    #expect(OID(contentOctets: []) == nil)
    #expect(OID(contentOctets: [0x55, 0x84]) == nil)  // cut off
    #expect(OID("1") == nil && OID("3.1") == nil && OID("1.40") == nil && OID("1..2") == nil)
    // Arcs too large for the reader: refused, never an overflow.
    #expect(OID("2.18446744073709551615") == nil && OID("1.2.18446744073709551615") == nil)
  }

  @Test func certificateTimesAreStrict() throws {
    func time(_ tag: UInt8, _ text: String) throws(ASN1Error) -> Int64 { try CertificateTimeProbe.read(tag, text) }
    #expect(try time(0x17, "230924025033Z") == 1_695_523_833_000)
    #expect(try time(0x18, "20230924025033Z") == 1_695_523_833_000)
    #expect(
      try time(0x17, "491231235959Z")
        == CertificateTime.milliseconds(year: 2049, month: 12, day: 31, hour: 23, minute: 59, second: 59))
    #expect(
      try time(0x17, "500101000000Z")
        == CertificateTime.milliseconds(year: 1950, month: 1, day: 1, hour: 0, minute: 0, second: 0))
    for (tag, text) in [
      (UInt8(0x18), "20230924025033.5Z"), (0x17, "2309240250Z"), (0x17, "230924025033+0100"), (0x17, "230230025033Z"),
      (0x18, "20230924245033Z"), (0x17, "23092402503Z1"), (0x04, "230924025033Z"), (0x18, "2023092402503Z"),
    ] {
      #expect(throws: ASN1Error.self, "\(text)") { try time(tag, text) }
    }
    #expect(CertificateTime.text(1_695_523_833_000) == "2023-09-24T02:50:33Z")
    #expect(CertificateTime.text(1_662_122_492_884) == "2022-09-02T12:41:32.884Z")
    #expect(CertificateTime.text(-1) == "1969-12-31T23:59:59.999Z")
  }

  @Test func base64IsStrict() {
    #expect(Base64.decode("TWFu") == Array("Man".utf8))
    #expect(Base64.decode("TWE=") == Array("Ma".utf8))
    #expect(Base64.decode("TQ==") == Array("M".utf8))
    #expect(Base64.decode("") == [])
    for bad in ["TWE", "TW=u", "TR==", "TWF=", "T===", "====", "TW-_", "TWFu\n", "TQ==TQ=="] {
      #expect(Base64.decode(bad) == nil, "\(bad)")
    }
    // Against Foundation on random bytes.
    var generator = SystemRandomNumberGenerator()
    for count in 0..<64 {
      let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      #expect(Base64.decode(Data(bytes).base64EncodedString()) == bytes)
    }
  }

  @Test func berEnvelopeReadsXcodeReceiptsThatDERRefuses() throws {
    guard let text = CryptoTestData.signatures("receipts/receipt-xcode", "the Xcode receipt") else { return }
    let trimmed = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    let der = try #require(Data(base64Encoded: trimmed).map { Array($0) })
    #expect(throws: ASN1Error.self) { try ASN1Reader.nodes(der, rules: .der) }
    let nodes = try ASN1Reader.nodes(der, rules: .berEnvelope)
    #expect(nodes.contains { $0.element.isIndefinite })
    #expect(nodes.first?.element.end == der.count)
  }
}

/// Reads one time element through a validity SEQUENCE of a synthetic certificate fragment.
enum CertificateTimeProbe {
  static func read(_ tag: UInt8, _ text: String) throws(ASN1Error) -> Int64 {
    let body = Array(text.utf8)
    var reader = ASN1Reader([tag, UInt8(body.count)] + body, rules: .der)
    guard let element = try reader.next() else { throw ASN1Error("empty", 0) }
    return try CertificateTime.milliseconds(element, in: reader, "time")
  }
}
