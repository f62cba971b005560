import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// The reader's fast paths (base64 four symbols at a time, the one-pass sniff, the type switch) give the answers
/// of the plain definitions they replace.
@Suite struct AppReceiptFastPathTests {
  @Test func fieldInfoSwitchAgreesWithTheTable() {
    for inApp in [false, true] {
      for type in Int64(-3)...2000 {
        let listed = AppReceiptFieldInfo.all.first { $0.type == type && $0.isInApp == inApp }
        #expect(AppReceiptFieldInfo.info(type: type, inApp: inApp) == listed, "type \(type) inApp \(inApp)")
        #expect(
          AppReceiptFieldInfo.communityDocumented(type: type, inApp: inApp) == listed?.communityDocumented,
          "type \(type) inApp \(inApp)")
      }
    }
  }

  /// Foundation's encoder is the independent reference; line breaks and spaces land anywhere.
  @Test func base64RoundTripsFoundationEncodings() throws {
    var generator = SystemRandomNumberGenerator()
    for length in [0, 1, 2, 3, 4, 5, 47, 48, 49, 190, 1000] {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let data = Data(bytes)
      for options: Data.Base64EncodingOptions in [[], .lineLength64Characters, .lineLength76Characters] {
        let text = Array(data.base64EncodedString(options: options).utf8)
        #expect(try Base64Text.decode(text, path: []) == bytes)
        // A space every seven characters breaks the four-symbol groups.
        var spaced: [UInt8] = []
        for (i, c) in text.enumerated() {
          if i % 7 == 3 { spaced.append(0x20) }
          spaced.append(c)
        }
        #expect(try Base64Text.decode(spaced, path: []) == bytes)
        #expect(try Base64Text.decode([0xEF, 0xBB, 0xBF] + text, path: []) == bytes)
      }
    }
  }

  /// Offsets count from the start of the text, byte order mark included.
  @Test func base64ErrorsKeepTheirOffsets() {
    func failure(_ text: String) -> String? {
      do {
        _ = try Base64Text.decode(Array(text.utf8), path: ["base64"])
        return nil
      } catch {
        return error.description
      }
    }
    #expect(failure("QUJDRA=x") == "byte 7 (base64): base64 text continues after '=' padding")
    #expect(failure("QUJDRA===") == "byte 8 (base64): more than two '=' padding characters")
    #expect(failure("QUJD\nR!==") == "byte 6 (base64): '!' is not a base64 character")
    #expect(failure("QUJDR") == "byte 5 (base64): base64 text ends in the middle of a byte (truncated?)")
    #expect(failure("QUJD RA==") == nil)
    #expect(failure("\u{FEFF}QUJD\u{7F}") == "byte 7 (base64): byte 0x7F is not a base64 character")
  }

  /// The pair table rejects every byte outside the alphabet in either half of a 16-bit lookup, at every place of
  /// an eight-symbol step: each such byte fails at its own offset, as the one-symbol path reports it.
  @Test func base64PairTableRejectsEveryOtherByteAtEveryPlace() {
    let valid = Array(Data((0..<24).map { UInt8(truncatingIfNeeded: $0 &* 37) }).base64EncodedString().utf8)
    let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    for place in 0..<valid.count {
      for byte in UInt8(0)...255
      where !alphabet.contains(byte) && byte != 0x3D && byte != 0x20 && byte != 0x0A
        && byte != 0x09 && byte != 0x0D
      {
        var text = valid
        text[place] = byte
        do {
          _ = try Base64Text.decode(text, path: ["base64"])
          Issue.record("byte \(byte) at \(place) accepted")
        } catch {
          #expect(error.offset == place, "byte \(byte) at \(place)")
        }
      }
    }
  }

  /// The fixed-place reading of `YYYY-MM-DDTHH:MM:SSZ` agrees with the general parser on good dates, bad digits,
  /// days past the month's end, leap days and every other shape (which it leaves to the general parser).
  @Test func receiptDateFastPathAgreesWithTheGeneralParser() {
    var texts = [
      "2020-07-22T17:39:08Z", "2024-02-29T23:59:59Z", "2023-02-29T00:00:00Z", "1970-01-01T00:00:00Z",
      "9999-12-31T23:59:59Z", "1969-12-31T23:59:59Z", "2020-13-01T00:00:00Z", "2020-00-10T00:00:00Z",
      "2020-04-31T00:00:00Z", "2020-07-22T24:00:00Z", "2020-07-22T17:60:08Z", "2020-07-22T17:39:60Z",
      "2020-07-22T17:39:08+0100", "2020-07-22T17:39:08.5Z", "2020-07-22 17:39:08Z", "2020-07-22T17:39:08z",
      "20a0-07-22T17:39:08Z", "2020-0/-22T17:39:08Z", "2020-07-22T17:3:08ZZ", "2000-02-29T12:00:00Z",
      "2100-02-29T12:00:00Z", "2400-02-29T12:00:00Z", "2023-06-31T00:00:00Z", "2023-12-32T00:00:00Z",
    ]
    var generator = SystemRandomNumberGenerator()
    // Calendar fields around every edge: years either side of 1970 and of century leap rules, days past each
    // month's end, hours, minutes and seconds one past their range.
    func digits(_ v: Int, _ n: Int) -> String {
      let text = String(v)
      return String(repeating: "0", count: max(0, n - text.count)) + text
    }
    for _ in 0..<3000 {
      let year = [1969, 1970, 1999, 2000, 2023, 2024, 2100, 2400, 9999].randomElement(using: &generator) ?? 2000
      let fields = [
        Int.random(in: 0...13, using: &generator), Int.random(in: 0...32, using: &generator),
        Int.random(in: 0...24, using: &generator), Int.random(in: 0...60, using: &generator),
        Int.random(in: 0...60, using: &generator),
      ]
      texts.append(
        "\(digits(year, 4))-\(digits(fields[0], 2))-\(digits(fields[1], 2))T\(digits(fields[2], 2)):"
          + "\(digits(fields[3], 2)):\(digits(fields[4], 2))Z")
    }
    let alphabet = Array("0123456789-:TZ /a".utf8)
    for _ in 0..<3000 {
      var bytes = Array(texts[0].utf8)
      for _ in 0..<Int.random(in: 1...3, using: &generator) {
        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = alphabet.randomElement(using: &generator) ?? 0x30
      }
      texts.append(String(decoding: bytes, as: UTF8.self))
    }
    var read = 0
    for text in texts {
      var copy = text
      let general = copy.withUTF8 { bytes -> Timestamp? in
        guard bytes.count >= 20, bytes.count <= 40, bytes[10] == UInt8(ascii: "T") else { return nil }
        return Timestamp.parse(formatted: bytes)
      }
      let fast = copy.withUTF8 { AppReceiptDate.parse($0) }
      #expect(fast == general, "\(text)")
      if general != nil { read += 1 }
      if let quick = copy.withUTF8({ AppReceiptDate.parseUTC($0) }) { #expect(quick == general, "\(text)") }
    }
    // Both kinds were tried.
    #expect(read > 500 && read < texts.count - 500, "\(read) of \(texts.count) read")
  }

  /// Each OID listed by its content octets decodes to the dotted text listed beside it.
  @Test func knownOIDOctetsMatchTheirDottedText() throws {
    let tables = [PKCS7Envelope.algorithmNames, PKCS7Envelope.attributeNames]
    for entry in tables.joined() {
      let element: [UInt8] = [DERTag.objectIdentifier, UInt8(entry.bytes.count)] + entry.bytes
      var reader = DERReader(element)
      let oid = try #require(try reader.next())
      #expect(try reader.objectIdentifier(oid) == entry.dotted, "\(entry.name)")
      #expect(try reader.name(of: oid, in: tables.flatMap { $0 }) == entry.name)
    }
    var signed = DERReader([DERTag.objectIdentifier, 9] + PKCS7Envelope.signedDataOIDBytes)
    #expect(try signed.objectIdentifier(try #require(try signed.next())) == PKCS7Envelope.signedDataOID)
    var data = DERReader([DERTag.objectIdentifier, 9] + PKCS7Envelope.dataOIDBytes)
    #expect(try data.objectIdentifier(try #require(try data.next())) == PKCS7Envelope.dataOID)
    // A longer encoding of CN (a leading 0x80 octet in an arc) is still named by its text.
    var padded = DERReader([DERTag.objectIdentifier, 4, 0x55, 0x80, 0x04, 0x03])
    #expect(try padded.name(of: try #require(try padded.next()), in: PKCS7Envelope.attributeNames) == "CN")
  }

  /// Bytes as hex text, against the standard library's own conversion.
  @Test func carriedBytesHexAgreesWithTheStandardLibrary() {
    let bytes = (0...255).map { UInt8($0) }
    let expected = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    #expect(AppReceiptAttributeValue.hex(bytes) == expected)
    #expect(AppReceiptAttributeValue.hex([]) == "")
  }

  /// Integers as decimal text, against the standard library's own conversion.
  @Test func carriedIntegerDecimalAgreesWithTheStandardLibrary() {
    var values: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
    var power: Int64 = 1
    for _ in 0..<18 {
      power *= 10
      values += [power - 1, power, power + 1, -power, -(power - 1)]
    }
    var generator = SystemRandomNumberGenerator()
    values += (0..<1000).map { _ in Int64.random(in: Int64.min...Int64.max, using: &generator) }
    for v in values { #expect(AppReceiptAttributeValue.decimal(v) == String(v)) }
  }

  /// The one-pass sniff finds exactly what a plain substring search finds.
  @Test func sniffNamesAgreeWithSubstringSearch() {
    func has(_ window: [UInt8], _ needle: String) -> Bool {
      let n = Array(needle.utf8)
      guard window.count >= n.count else { return false }
      return (0...(window.count - n.count)).contains { Array(window[$0..<($0 + n.count)]) == n }
    }
    let pieces = [
      "\"purchase-info\"", "\"purchase-info\":", "\"purchase-info\" = ", "\"receipt-data\"", "\"transactionReceipt\"",
      "\"purchase-inf", "\"receipt-dat\"", "\"\"", "\"", "\"t", "{", " ", "x", "\"status\":0,",
    ]
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<2000 {
      let count = Int.random(in: 0...6, using: &generator)
      let text = (0..<count).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
      let window = Array(text.utf8)
      let names = AppReceiptInput.QuotedNames(window[...])
      #expect(names.purchaseInfo == has(window, "\"purchase-info\""), "\(text)")
      #expect(names.purchaseInfoColon == has(window, "\"purchase-info\":"), "\(text)")
      #expect(names.receiptData == has(window, "\"receipt-data\""), "\(text)")
      #expect(names.transactionReceipt == has(window, "\"transactionReceipt\""), "\(text)")
    }
  }

  /// A purchase carrying what the one before carried shares its fields; any difference in product type or in an
  /// undocumented type or value gets fields of its own, equal to what it alone would be given.
  @Test func sharedCarriedFieldsEqualEachPurchasesOwn() throws {
    guard let bytes = TestPaths.peerFixture("tikhop__TPInAppReceipt/receipt-sandbox-legacy") else {
      TestPaths.noteSharedMissing("TPInAppReceipt legacy receipt")
      return
    }
    var document = try AppReceiptReader.read(bytes)
    var generator = SystemRandomNumberGenerator()
    // Runs of equal purchases broken by a changed product type, value, type, encoding or count.
    for i in document.payload.inAppPurchases.indices where Int.random(in: 0..<4, using: &generator) == 0 {
      var p = document.payload.inAppPurchases[i]
      switch Int.random(in: 0..<5, using: &generator) {
      case 0: p.productType = p.productType.map { $0 + 1 } ?? 2
      case 1: if !p.otherAttributes.isEmpty { p.otherAttributes[0].value = .utf8String("x\(i)") }
      case 2: if !p.otherAttributes.isEmpty { p.otherAttributes[0].type += 1 }
      case 3: if !p.otherAttributes.isEmpty { p.otherAttributes[0].value = .ia5String("") }
      default: p.otherAttributes.removeLast(min(1, p.otherAttributes.count))
      }
      document.payload.inAppPurchases[i] = p
    }
    let history = try AppReceiptHistory.history(of: document, source: "legacy")
    let byID = Dictionary(
      document.payload.inAppPurchases.map { ($0.transactionID ?? "", $0) }, uniquingKeysWith: { a, _ in a })
    #expect(history.transactions.count == byID.count)
    for t in history.transactions {
      let purchase = try #require(byID[t.transactionID])
      #expect(t.carriedFields == AppReceiptHistory.carriedFields(of: purchase), "\(t.transactionID)")
    }
    let lean = try AppReceiptHistory.history(of: document, source: "legacy", keepsCarriedFields: false)
    #expect(lean.transactions.allSatisfy { $0.carriedFields.isEmpty })
  }

  /// A certificate name is built as bytes and decoded once: it reads as the values decoded one by one would,
  /// ill-formed UTF-8 included.
  @Test func certificateNamesReadAsEachValueAlone() throws {
    func tlv(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] { [tag, UInt8(body.count)] + body }
    let values: [[UInt8]] = [
      Array("Apple Inc.".utf8), [0xE2, 0x82], [0x80, 0x41], [0xF0, 0x9F, 0x98], Array("\u{E9}t\u{E9}".utf8), [], [0xFF],
    ]
    for a in values {
      for b in values {
        let cn = tlv(DERTag.set, tlv(DERTag.sequence, tlv(DERTag.objectIdentifier, [0x55, 0x04, 0x03]) + tlv(0x0C, a)))
        let o = tlv(DERTag.set, tlv(DERTag.sequence, tlv(DERTag.objectIdentifier, [0x55, 0x04, 0x0A]) + tlv(0x13, b)))
        var reader = DERReader(tlv(DERTag.sequence, cn + o))
        let name = try #require(try reader.next())
        let text = try PKCS7Envelope.distinguishedName(name, in: reader)
        #expect(text == "CN=" + String(decoding: a, as: UTF8.self) + ", O=" + String(decoding: b, as: UTF8.self))
      }
    }
  }

  /// DER length octets for `n` in the short form, or in the long form with `extra` leading zero octets.
  static func length(_ n: Int, longForm octets: Int) -> [UInt8] {
    guard octets > 0 else { return [UInt8(n)] }
    return [0x80 | UInt8(octets)] + (0..<octets).reversed().map { UInt8((n >> (8 * $0)) & 0xFF) }
  }

  /// Attributes in every length form (short, one to three long-form octets) and integers of one to nine
  /// octets read the same, whether the well-formed path or the general read takes them.
  @Test func attributeLengthFormsReadTheSame() throws {
    let value: [UInt8] = [0x0C, 0x05] + Array("com.x".utf8)
    for typeBytes: [UInt8] in [[0x02], [0x00, 0x02], [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02]] {
      for valueForm in 0...3 {
        for sequenceForm in 0...3 {
          let octets = [0x04] + Self.length(value.count, longForm: valueForm) + value
          let body = [0x02, UInt8(typeBytes.count)] + typeBytes + [0x02, 0x01, 0x01] + octets
          let sequence = [0x30] + Self.length(body.count, longForm: sequenceForm) + body
          let set = [0x31] + Self.length(sequence.count, longForm: 0) + sequence
          let payload = try AppReceiptPayloadDecoder.decodePayload(set, offsetMap: .identity)
          #expect(payload.bundleID == "com.x", "type \(typeBytes) forms \(valueForm) \(sequenceForm)")
          #expect(payload.otherAttributes.isEmpty)
        }
      }
    }
  }

  /// A caller that never shows undocumented attributes gets the same receipt without them: the same
  /// transactions, warnings, moment and signature facts, and the same failures.
  @Test func skippingCarriedFieldsChangesNothingElse() throws {
    let names = ["receipt-sandbox-legacy", "receipt-xcode", "receipt-production", "receipt-sandbox-g5"]
    let fixtures = names.compactMap { name in
      TestPaths.peerFixture("tikhop__TPInAppReceipt/" + name).map { (name, $0) }
    }
    guard fixtures.count == names.count else {
      TestPaths.noteSharedMissing("TPInAppReceipt receipts")
      return
    }
    for (name, bytes) in fixtures {
      let full = try AppReceiptFormat().decode(bytes, source: name, options: DecodeOptions())
      let lean = try AppReceiptFormat().decode(
        bytes, source: name, options: DecodeOptions(keepsFieldsOnlyDecodeShows: false))
      #expect(!full.transactions.isEmpty, "\(name)")
      #expect(lean.provenance.carriedFields.isEmpty, "\(name)")
      #expect(lean.transactions.allSatisfy { $0.carriedFields.isEmpty }, "\(name)")
      let stripped = full.transactions.map { t -> PurchaseTransaction in
        var t = t
        t.carriedFields = []
        return t
      }
      #expect(lean.transactions == stripped, "\(name)")
      #expect(lean.warnings == full.warnings, "\(name)")
      #expect(lean.moment == full.moment, "\(name)")
      #expect(lean.environment == full.environment, "\(name)")
      #expect(lean.provenance.signature == full.provenance.signature, "\(name)")
      #expect(lean.provenance.receipt == full.provenance.receipt, "\(name)")
      // A cut receipt fails the same way either way.
      for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 40)) {
        let prefix = Array(bytes[..<cut])
        func failure(_ options: DecodeOptions) -> String? {
          do {
            _ = try AppReceiptFormat().decode(prefix, source: name, options: options)
            return nil
          } catch {
            return error.description
          }
        }
        #expect(failure(DecodeOptions()) == failure(DecodeOptions(keepsFieldsOnlyDecodeShows: false)), "\(name) \(cut)")
      }
    }
  }
}
