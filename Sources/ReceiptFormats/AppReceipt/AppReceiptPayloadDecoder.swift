import ReceiptModel

/// Reads the receipt payload (a SET of type/version/value attributes) out of PKCS#7 DER bytes.
public enum AppReceiptPayloadDecoder {
  /// Decodes DER (or Apple's BER envelope) bytes of a PKCS#7 SignedData app receipt.
  public static func decode(der bytes: [UInt8]) throws(AppReceiptError) -> AppReceiptPayload {
    let envelope = try PKCS7Envelope.read(bytes)
    var payload = try decodePayload(envelope.content, offsetMap: envelope.contentOffsets)
    payload.signature = envelope.signature
    return payload
  }

  /// Decodes the payload SET itself (the eContent octets).
  static func decodePayload(_ bytes: [UInt8], offsetMap: DEROffsetMap) throws(AppReceiptError) -> AppReceiptPayload {
    var outer = DERReader(bytes, path: ["content"], offsetMap: offsetMap)
    let set = try outer.expect(DERTag.set, "the receipt attribute SET")
    try outer.expectEnd("the receipt attribute SET")
    var fields = FieldReader(reader: try outer.children(of: set, steps: ["SET"]), prefix: "attribute")
    var payload = AppReceiptPayload()
    var seen = Set<Int64>()
    try fields.forEachAttribute { (fields, attribute) throws(AppReceiptError) in
      let type = attribute.type
      if type == 17 {
        payload.inAppPurchases.append(try decodeInApp(attribute, index: payload.inAppPurchases.count, in: fields))
        return
      }
      let documented = AppReceiptFieldInfo.info(type: type, inApp: false)
      if documented != nil {
        guard seen.insert(type).inserted else {
          throw fields.valueError("attribute \(type) appears twice", attribute)
        }
      }
      let community = documented?.communityDocumented ?? false
      switch type {
      case 0: payload.receiptType = try fields.text(attribute, community: community)
      case 1: payload.appItemID = try fields.integer(attribute, community: community)
      case 2: payload.bundleID = try fields.text(attribute, community: community)
      case 3: payload.appVersion = try fields.text(attribute, community: community)
      case 4: payload.opaqueValue = Array(attribute.value)
      case 5: payload.sha1Hash = Array(attribute.value)
      case 8: payload.transactionDate = try fields.date(attribute, community: community)
      case 10: payload.ageRating = try fields.text(attribute, community: community)
      case 12: payload.creationDate = try fields.date(attribute, community: community)
      case 18: payload.originalPurchaseDate = try fields.date(attribute, community: community)
      case 19: payload.originalAppVersion = try fields.text(attribute, community: community)
      case 21: payload.expirationDate = try fields.date(attribute, community: community)
      default: fields.carry(attribute)
      }
    }
    payload.otherAttributes = fields.carried
    return payload
  }

  /// One type-17 attribute: its value holds a SET of in-app attributes.
  static func decodeInApp(
    _ attribute: FieldReader.Attribute, index: Int, in parent: FieldReader
  ) throws(AppReceiptError) -> AppReceiptInAppPurchase {
    var holder = try parent.reader.contents(of: attribute.valueElement, steps: ["attribute 17", "in-app \(index)"])
    let set = try holder.expect(DERTag.set, "the in-app attribute SET")
    try holder.expectEnd("the in-app attribute SET")
    var fields = FieldReader(reader: try holder.children(of: set, steps: []), prefix: "type")
    var purchase = AppReceiptInAppPurchase(index: index)
    // Documented in-app types lie in 1701...1764: one bit each, so no set is built per purchase.
    var seen: UInt64 = 0
    try fields.forEachAttribute { (fields, attribute) throws(AppReceiptError) in
      let type = attribute.type
      let documented = AppReceiptFieldInfo.info(type: type, inApp: true)
      if documented != nil {
        let bit: UInt64 = (1701...1764).contains(type) ? 1 << UInt64(type - 1701) : 0
        guard seen & bit == 0 else {
          throw fields.valueError("attribute \(type) appears twice in one purchase", attribute)
        }
        seen |= bit
      }
      let community = documented?.communityDocumented ?? false
      switch type {
      case 1701:
        purchase.quantity = try fields.integer(attribute, community: community)
        if let q = purchase.quantity, q < 0 { throw fields.valueError("quantity \(q) is negative", attribute) }
      case 1702: purchase.productID = try fields.text(attribute, community: community)
      case 1703: purchase.transactionID = try fields.text(attribute, community: community)
      case 1704: purchase.purchaseDate = try fields.date(attribute, community: community)
      case 1705: purchase.originalTransactionID = try fields.text(attribute, community: community)
      case 1706: purchase.originalPurchaseDate = try fields.date(attribute, community: community)
      case 1707: purchase.productType = try fields.integer(attribute, community: community)
      case 1708: purchase.expiresDate = try fields.date(attribute, community: community)
      case 1711: purchase.webOrderLineItemID = try fields.integer(attribute, community: community)
      case 1712: purchase.cancellationDate = try fields.date(attribute, community: community)
      case 1713: purchase.isTrialPeriod = try fields.flag(attribute, community: community)
      case 1719: purchase.isInIntroOfferPeriod = try fields.flag(attribute, community: community)
      case 1721: purchase.promotionalOfferID = try fields.text(attribute, community: community)
      default: fields.carry(attribute)
      }
    }
    purchase.otherAttributes = fields.carried
    return purchase
  }
}

/// Walks a SET of `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }` and reads typed values.
///
/// A value that does not have its documented shape fails the receipt; one whose meaning only the community
/// documents is carried through as an undocumented attribute instead, since the guess may be what is wrong.
struct FieldReader {
  struct Attribute {
    var type: Int64
    var version: Int64
    var sequenceOffset: Int
    var valueElement: DERElement
    var value: ArraySlice<UInt8>
  }

  var reader: DERReader
  /// `attribute` for the receipt's own attributes, `type` inside an in-app purchase.
  let prefix: String
  var carried: [AppReceiptAttribute] = []

  init(reader: DERReader, prefix: String) {
    self.reader = reader
    self.prefix = prefix
  }

  /// Calls `body` with each attribute in order; errors in the SEQUENCE itself name the attribute's type.
  mutating func forEachAttribute(
    _ body: (inout FieldReader, Attribute) throws(AppReceiptError) -> Void
  ) throws(AppReceiptError) {
    var index = 0
    while true {
      let at = reader.position
      guard let sequence = try reader.next() else { break }
      var type: Int64?
      // The inner reader shares this reader's path; a failure gets the attribute step added here, so the
      // common case builds no path strings.
      do throws(AppReceiptError) {
        guard sequence.tag == DERTag.sequence else {
          throw reader.error("expected an attribute SEQUENCE, found \(DERTag.name(sequence.tag))", at: at)
        }
        var inner = try reader.children(of: sequence, steps: [])
        type = try inner.integer(try inner.expect(DERTag.integer, "the attribute type"))
        let version = try inner.integer(try inner.expect(DERTag.integer, "the attribute version"))
        let valueElement = try inner.expect(DERTag.octetString, "the attribute value")
        try inner.expectEnd("the attribute value")
        index += 1
        let attribute = Attribute(
          type: type ?? 0, version: version, sequenceOffset: sequence.offset, valueElement: valueElement,
          value: reader.content(valueElement))
        try body(&self, attribute)
      } catch  where error.path.count == reader.path.count {
        var located = error
        located.path.append(type.map { "\(prefix) \($0)" } ?? "\(prefix) #\(index)")
        throw located
      }
    }
  }

  /// Errors name the attribute (`... > attribute 17 > in-app 3 > type 1704`) at its value's offset.
  func valueError(_ message: String, _ attribute: Attribute) -> AppReceiptError {
    reader.error(message, at: attribute.valueElement.offset, step: "\(prefix) \(attribute.type)", kind: .badValue)
  }

  mutating func carry(_ attribute: Attribute) {
    carried.append(
      AppReceiptAttribute(
        type: attribute.type, version: attribute.version, value: recognise(attribute),
        offset: reader.offsetMap.sourceOffset(attribute.sequenceOffset)))
  }

  /// The single DER string or integer an attribute value holds, else its bytes.
  func recognise(_ attribute: Attribute) -> AppReceiptAttributeValue {
    if let inner = single(attribute) {
      switch inner.tag {
      case DERTag.utf8String:
        if let s = Self.utf8(reader.content(inner)) { return .utf8String(s) }
      case DERTag.ia5String:
        let body = reader.content(inner)
        if body.allSatisfy({ $0 < 0x80 }), let s = Self.utf8(body) { return .ia5String(s) }
      case DERTag.integer:
        if let v = try? reader.integer(inner) { return .integer(v) }
      default: break
      }
    }
    return .bytes(Array(attribute.value))
  }

  /// Text when the bytes are valid UTF-8 (decoding replaces bad sequences, so compare the round trip).
  static func utf8(_ bytes: ArraySlice<UInt8>) -> String? {
    let s = String(decoding: bytes, as: UTF8.self)
    return s.utf8.elementsEqual(bytes) ? s : nil
  }

  /// The one definite-length element filling the attribute's value octets, if that is what they hold.
  func single(_ attribute: Attribute) -> DERElement? {
    let v = attribute.valueElement
    guard
      let e = try? DERReader.header(
        reader.bytes, at: v.contentStart, limit: v.contentEnd, allowIndefinite: false,
        fail: { m, o in reader.error(m, at: o) }),
      e.end == v.contentEnd
    else { return nil }
    return e
  }

  /// Reads the value as one element of one of `tags`; nil (carried through) for a community field that differs.
  private mutating func element(
    _ attribute: Attribute, _ tags: [UInt8], _ expected: String, community: Bool
  ) throws(AppReceiptError) -> DERElement? {
    let inner = single(attribute)
    if let inner, tags.contains(inner.tag) { return inner }
    if community {
      carry(attribute)
      return nil
    }
    let found = inner.map { DERTag.name($0.tag) } ?? "\(attribute.value.count) bytes that are not one DER element"
    throw valueError("expected \(expected), found \(found)", attribute)
  }

  mutating func text(_ attribute: Attribute, community: Bool) throws(AppReceiptError) -> String? {
    guard
      let inner = try element(
        attribute, [DERTag.utf8String, DERTag.ia5String], "a UTF8String", community: community)
    else { return nil }
    let body = reader.content(inner)
    if inner.tag == DERTag.ia5String, !body.allSatisfy({ $0 < 0x80 }) {
      throw valueError("IA5String holds a byte above 0x7F", attribute)
    }
    guard let s = Self.utf8(body) else { throw valueError("UTF8String is not valid UTF-8", attribute) }
    return s
  }

  mutating func integer(_ attribute: Attribute, community: Bool) throws(AppReceiptError) -> Int64? {
    guard let inner = try element(attribute, [DERTag.integer], "an INTEGER", community: community) else { return nil }
    do throws(AppReceiptError) {
      return try reader.integer(inner)
    } catch {
      throw valueError(error.message, attribute)
    }
  }

  /// INTEGER 0 or 1.
  mutating func flag(_ attribute: Attribute, community: Bool) throws(AppReceiptError) -> Bool? {
    guard let v = try integer(attribute, community: community) else { return nil }
    switch v {
    case 0: return false
    case 1: return true
    default:
      if community {
        carry(attribute)
        return nil
      }
      throw valueError("flag is \(v), expected 0 or 1", attribute)
    }
  }

  /// An RFC 3339 IA5String; the empty string means absent.
  mutating func date(_ attribute: Attribute, community: Bool) throws(AppReceiptError) -> Timestamp? {
    guard
      let inner = try element(
        attribute, [DERTag.ia5String, DERTag.utf8String], "an IA5String date", community: community)
    else { return nil }
    let body = reader.content(inner)
    if body.isEmpty { return nil }
    if let t = AppReceiptDate.parse(body) { return t }
    let text = String(decoding: body.prefix(40), as: UTF8.self)
    throw valueError("\"\(text)\" is not an RFC 3339 date (like 2023-06-01T12:00:00Z)", attribute)
  }
}

/// RFC 3339 dates as receipts write them: `2020-07-22T17:39:08Z`, `2020-07-22T18:33:15+0100`, `...-07:00`.
public enum AppReceiptDate {
  /// A timestamp, or nil when the text is not a complete RFC 3339 date-time with a zone (years 1970-9999).
  public static func parse(_ bytes: ArraySlice<UInt8>) -> Timestamp? {
    // Timestamp.parse also takes Apple's "... Etc/GMT" and bare dates; a receipt date must have T and a zone.
    guard bytes.count >= 20, bytes.count <= 40, bytes[bytes.startIndex + 10] == UInt8(ascii: "T") else { return nil }
    return bytes.withUnsafeBufferPointer { Timestamp.parse(formatted: $0) }
  }
}
