import ReceiptCrypto
import ReceiptModel

/// Reads the receipt payload (a SET of type/version/value attributes) out of PKCS#7 DER bytes.
public enum AppReceiptPayloadDecoder {
  /// Decodes DER (or Apple's BER envelope) bytes of a PKCS#7 SignedData app receipt.
  public static func decode(der bytes: [UInt8]) throws(AppReceiptError) -> AppReceiptPayload {
    try decode(der: bytes, keepsOtherAttributes: true)
  }

  /// Decodes DER (or Apple's BER envelope) bytes of a PKCS#7 SignedData app receipt.
  /// - Parameters:
  ///   - bytes: the receipt.
  ///   - keepsOtherAttributes: fill `otherAttributes` (false leaves them empty for callers that never show
  ///     them; every check still runs, so the same input fails the same way).
  /// - Returns: the payload.
  /// - Throws: `AppReceiptError` with the byte offset and ASN.1 path where it could not be read.
  public static func decode(
    der bytes: [UInt8], keepsOtherAttributes: Bool
  ) throws(AppReceiptError) -> AppReceiptPayload {
    let envelope = try PKCS7Envelope.read(bytes)
    var payload = try decodePayload(
      envelope.content, range: envelope.contentRange, offsetMap: envelope.contentOffsets,
      keepsOtherAttributes: keepsOtherAttributes)
    payload.signature = envelope.signature
    return payload
  }

  /// Decodes the payload SET itself (the eContent octets: `range` of `bytes`, all of them by default).
  package static func decodePayload(
    _ bytes: [UInt8], range: Range<Int>? = nil, offsetMap: DEROffsetMap, keepsOtherAttributes: Bool = true
  ) throws(AppReceiptError) -> AppReceiptPayload {
    var outer = DERReader(bytes, range: range ?? 0..<bytes.count, path: ["content"], offsetMap: offsetMap)
    let set = try outer.expect(DERTag.set, "the receipt attribute SET")
    try outer.expectEnd("the receipt attribute SET")
    // A SET is constructed and sits one level down: `children(of:)` could not fail here.
    return try bytes.withUnsafeBufferPointer { (buffer) throws(AppReceiptError) in
      try decodeAttributes(
        FieldReader(
          bytes: buffer, offsetMap: offsetMap, purchase: nil, range: set.contentStart..<set.contentEnd,
          keepsCarried: keepsOtherAttributes))
    }
  }

  static func decodeAttributes(_ reader: FieldReader) throws(AppReceiptError) -> AppReceiptPayload {
    var fields = reader
    var payload = AppReceiptPayload()
    // Product ids and original transaction ids repeat from purchase to purchase: made once each.
    var interner = StringInterner()
    // Documented receipt types lie in 0...21: one bit each.
    var seen: UInt64 = 0
    while let attribute = try fields.nextAttribute() {
      let type = attribute.type
      if type == 17 {
        payload.inAppPurchases.append(
          try decodeInApp(attribute, index: payload.inAppPurchases.count, in: fields, interner: &interner))
        continue
      }
      let community = AppReceiptFieldInfo.communityDocumented(type: type, inApp: false)
      if community != nil {
        let bit: UInt64 = (0...63).contains(type) ? 1 << UInt64(type) : 0
        guard seen & bit == 0 else {
          throw fields.valueError("attribute \(type) appears twice", attribute)
        }
        seen |= bit
      }
      let isCommunity = community ?? false
      switch type {
      case 0: payload.receiptType = try fields.text(attribute, community: isCommunity)
      case 1: payload.appItemID = try fields.integer(attribute, community: isCommunity)
      case 2:
        payload.bundleID = try fields.text(attribute, community: isCommunity)
        payload.bundleIDValue = Array(fields.value(attribute))
      case 3: payload.appVersion = try fields.text(attribute, community: isCommunity)
      case 4: payload.opaqueValue = Array(fields.value(attribute))
      case 5: payload.sha1Hash = Array(fields.value(attribute))
      case 8: payload.transactionDate = try fields.date(attribute, community: isCommunity)
      case 10: payload.ageRating = try fields.text(attribute, community: isCommunity)
      case 12: payload.creationDate = try fields.date(attribute, community: isCommunity)
      case 18: payload.originalPurchaseDate = try fields.date(attribute, community: isCommunity)
      case 19: payload.originalAppVersion = try fields.text(attribute, community: isCommunity)
      case 21: payload.expirationDate = try fields.date(attribute, community: isCommunity)
      default: fields.carry(attribute)
      }
    }
    payload.otherAttributes = fields.carried
    return payload
  }

  /// One type-17 attribute: its value holds a SET of in-app attributes.
  static func decodeInApp(
    _ attribute: FieldReader.Attribute, index: Int, in parent: FieldReader, interner: inout StringInterner
  ) throws(AppReceiptError) -> AppReceiptInAppPurchase {
    let holder = attribute.valueElement
    let at = holder.contentStart
    let expected = "expected the in-app attribute SET (\(DERTag.name(DERTag.set)))"
    guard at < holder.contentEnd else {
      throw parent.purchaseError("\(expected), found the end of the enclosing element", at: at, index: index)
    }
    let set: DERElement
    do {
      set = try parent.element(at: at, limit: holder.contentEnd)
    } catch {
      throw parent.purchaseError(error.message, at: error.offset, index: index)
    }
    guard set.tag == DERTag.set else {
      throw parent.purchaseError("\(expected), found \(DERTag.name(set.tag))", at: at, index: index)
    }
    guard set.end >= holder.contentEnd else {
      throw parent.purchaseError(
        "\(holder.contentEnd - set.end) unexpected bytes after the in-app attribute SET", at: set.end, index: index)
    }
    var fields = FieldReader(
      bytes: parent.bytes, offsetMap: parent.offsetMap, purchase: index, range: set.contentStart..<set.contentEnd,
      keepsCarried: parent.keepsCarried)
    var purchase = AppReceiptInAppPurchase(index: index)
    // Documented in-app types lie in 1701...1764: one bit each, so no set is built per purchase.
    var seen: UInt64 = 0
    while let attribute = try fields.nextAttribute() {
      let type = attribute.type
      let community = AppReceiptFieldInfo.communityDocumented(type: type, inApp: true)
      if community != nil {
        let bit: UInt64 = (1701...1764).contains(type) ? 1 << UInt64(type - 1701) : 0
        guard seen & bit == 0 else {
          throw fields.valueError("attribute \(type) appears twice in one purchase", attribute)
        }
        seen |= bit
      }
      let isCommunity = community ?? false
      switch type {
      case 1701:
        purchase.quantity = try fields.integer(attribute, community: isCommunity)
        if let q = purchase.quantity, q < 0 { throw fields.valueError("quantity \(q) is negative", attribute) }
      case 1702:
        if let bytes = try fields.textBytes(attribute, community: isCommunity) {
          purchase.productID = interner.string(bytes)
        }
      case 1703: purchase.transactionID = try fields.text(attribute, community: isCommunity)
      case 1704: purchase.purchaseDate = try fields.date(attribute, community: isCommunity)
      case 1705:
        if let bytes = try fields.textBytes(attribute, community: isCommunity) {
          purchase.originalTransactionID = interner.string(bytes)
        }
      case 1706: purchase.originalPurchaseDate = try fields.date(attribute, community: isCommunity)
      case 1707: purchase.productType = try fields.integer(attribute, community: isCommunity)
      case 1708: purchase.expiresDate = try fields.date(attribute, community: isCommunity)
      case 1711: purchase.webOrderLineItemID = try fields.integer(attribute, community: isCommunity)
      case 1712: purchase.cancellationDate = try fields.date(attribute, community: isCommunity)
      case 1713: purchase.isTrialPeriod = try fields.flag(attribute, community: isCommunity)
      case 1719: purchase.isInIntroOfferPeriod = try fields.flag(attribute, community: isCommunity)
      case 1721: purchase.promotionalOfferID = try fields.text(attribute, community: isCommunity)
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
/// It reads the bytes in place and keeps no path: the ASN.1 path is built only for an error, from `purchase`.
struct FieldReader {
  /// One attribute, kept small (it is passed around for every value read): the value OCTET STRING as three
  /// offsets, and the tag of the one element filling it when the well-formed read saw it.
  struct Attribute {
    var type: Int64
    var version: Int64
    var sequenceOffset: Int
    /// The value OCTET STRING: where it starts, and its content.
    var valueOffset: Int
    var valueStart: Int
    var valueEnd: Int
    /// The tag of the element that fills the value with a one-octet length, when known (`single` reads it
    /// otherwise).
    var innerTag: UInt8?

    init(type: Int64, version: Int64, sequenceOffset: Int, valueElement: DERElement, innerTag: UInt8? = nil) {
      self.type = type
      self.version = version
      self.sequenceOffset = sequenceOffset
      self.valueOffset = valueElement.offset
      self.valueStart = valueElement.contentStart
      self.valueEnd = valueElement.contentEnd
      self.innerTag = innerTag
    }

    /// The value OCTET STRING (always definite: both reads check it ends where the SEQUENCE does).
    var valueElement: DERElement {
      DERElement(
        tag: DERTag.octetString, offset: valueOffset, contentStart: valueStart, contentEnd: valueEnd, end: valueEnd,
        isIndefinite: false)
    }
  }

  /// The payload bytes; valid while the decoder runs (inside `withUnsafeBufferPointer`).
  let bytes: UnsafeBufferPointer<UInt8>
  let offsetMap: DEROffsetMap
  /// The in-app purchase whose SET this walks, or nil for the receipt's own attributes.
  let purchase: Int?
  private var position: Int
  private let limit: Int
  /// Attributes read so far (the `#n` of an attribute whose type could not be read).
  private var count = 0
  /// Whether `carry` keeps what it is given (false: a caller that never shows undocumented attributes).
  let keepsCarried: Bool
  var carried: [AppReceiptAttribute] = []

  init(
    bytes: UnsafeBufferPointer<UInt8>, offsetMap: DEROffsetMap, purchase: Int?, range: Range<Int>,
    keepsCarried: Bool = true
  ) {
    self.bytes = bytes
    self.offsetMap = offsetMap
    self.purchase = purchase
    self.position = range.lowerBound
    self.limit = range.upperBound
    self.keepsCarried = keepsCarried
  }

  /// `attribute` for the receipt's own attributes, `type` inside an in-app purchase.
  var prefix: String { purchase == nil ? "attribute" : "type" }

  /// `content > SET`, then `attribute 17 > in-app N` inside a purchase.
  var path: [String] {
    guard let purchase else { return ["content", "SET"] }
    return Self.purchasePath(purchase)
  }

  static func purchasePath(_ index: Int) -> [String] { ["content", "SET", "attribute 17", "in-app \(index)"] }

  func error(_ message: String, at offset: Int, path: [String], kind: AppReceiptError.Kind = .malformed)
    -> AppReceiptError
  {
    AppReceiptError(kind, offset: offsetMap.sourceOffset(offset), path: path, message: message)
  }

  /// An error in the holder of in-app purchase `index` (its SET), read from the receipt's own reader.
  func purchaseError(_ message: String, at offset: Int, index: Int) -> AppReceiptError {
    error(message, at: offset, path: Self.purchasePath(index))
  }

  /// A definite-length element at `start` that fits before `limit`.
  @inline(__always)
  func element(at start: Int, limit: Int) throws(DERFailure) -> DERElement {
    // The common case inline: a low tag number and a short length that fits; anything else takes the full read.
    if start >= 0, limit <= bytes.count, limit - start >= 2 {
      let tag = bytes[start]
      let length = Int(bytes[start + 1])
      if tag & 0x1F != 0x1F, length < 0x80, length <= limit - start - 2 {
        return DERElement(
          tag: tag, offset: start, contentStart: start + 2, contentEnd: start + 2 + length, end: start + 2 + length,
          isIndefinite: false)
      }
    }
    return try ASN1Reader.header(bytes, at: start, limit: limit, rules: .berDefiniteLengths)
  }

  /// The content octets of an element read from `bytes`.
  func content(_ element: DERElement) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: bytes[element.contentStart..<element.contentEnd])
  }

  func value(_ attribute: Attribute) -> UnsafeBufferPointer<UInt8> { content(attribute.valueElement) }

  /// The next attribute, or nil after the last. Errors inside its SEQUENCE name its type (`attribute 17`), or
  /// its position (`attribute #3`) when the type itself could not be read.
  @inline(__always)
  mutating func nextAttribute() throws(AppReceiptError) -> Attribute? {
    guard position < limit else { return nil }
    if let attribute = wellFormedAttribute() { return attribute }
    return try generalAttribute()
  }

  /// `nextAttribute` for any other shape, out of line so the well-formed path stays small.
  @inline(never)
  private mutating func generalAttribute() throws(AppReceiptError) -> Attribute {
    let at = position
    let sequence: DERElement
    do {
      sequence = try element(at: at, limit: limit)
    } catch {
      throw self.error(error.message, at: error.offset, path: path)
    }
    position = sequence.end
    var type: Int64?
    do throws(DERFailure) {
      guard sequence.tag == DERTag.sequence else {
        throw DERFailure("expected an attribute SEQUENCE, found \(DERTag.name(sequence.tag))", at)
      }
      var p = sequence.contentStart
      let typeElement = try expect(DERTag.integer, "the attribute type", at: &p, limit: sequence.contentEnd)
      type = try integer(typeElement)
      let versionElement = try expect(DERTag.integer, "the attribute version", at: &p, limit: sequence.contentEnd)
      let version = try integer(versionElement)
      let valueElement = try expect(DERTag.octetString, "the attribute value", at: &p, limit: sequence.contentEnd)
      guard p >= sequence.contentEnd else {
        throw DERFailure("\(sequence.contentEnd - p) unexpected bytes after the attribute value", p)
      }
      count += 1
      return Attribute(
        type: type ?? 0, version: version, sequenceOffset: sequence.offset, valueElement: valueElement)
    } catch {
      var located = path
      located.append(type.map { "\(prefix) \($0)" } ?? "\(prefix) #\(count)")
      throw self.error(error.message, at: error.offset, path: located)
    }
  }

  /// The attribute at `position` when it has the shape Apple writes: `30 L 02 n type 02 n version 04 L value`,
  /// with lengths of at most two octets, integers of one to eight octets, and the value ending the SEQUENCE.
  /// Anything else returns nil and takes the general read, which finds the same values or names the fault.
  @inline(__always)
  private mutating func wellFormedAttribute() -> Attribute? {
    let start = position
    guard start >= 0, limit <= bytes.count, bytes[start] == DERTag.sequence,
      let sequence = shortLength(after: start + 1, limit: limit)
    else { return nil }
    let end = sequence.contentStart + sequence.length
    var p = sequence.contentStart
    guard let type = shortInteger(at: &p, end: end), let version = shortInteger(at: &p, end: end),
      p < end, bytes[p] == DERTag.octetString, let value = shortLength(after: p + 1, limit: end),
      value.contentStart + value.length == end
    else { return nil }
    position = end
    count += 1
    // The value's own element, when one with a short length fills it (as every value Apple writes does).
    var innerTag: UInt8?
    let v = value.contentStart
    if end - v >= 2 {
      let tag = bytes[v]
      let length = Int(bytes[v + 1])
      if tag & 0x1F != 0x1F, length < 0x80, length == end - v - 2 { innerTag = tag }
    }
    return Attribute(
      type: type, version: version, sequenceOffset: start,
      valueElement: DERElement(
        tag: DERTag.octetString, offset: p, contentStart: value.contentStart, contentEnd: end, end: end,
        isIndefinite: false),
      innerTag: innerTag)
  }

  /// A definite length of one to three octets at `at` (`L`, `81 L`, `82 LL`) whose content fits before `limit`.
  @inline(__always)
  private func shortLength(after at: Int, limit: Int) -> (contentStart: Int, length: Int)? {
    guard at < limit else { return nil }
    let first = bytes[at]
    var contentStart = at + 1
    var length = Int(first)
    if first >= 0x80 {
      guard first == 0x81 || first == 0x82, Int(first & 0x7F) <= limit - contentStart else { return nil }
      length = Int(bytes[contentStart])
      if first == 0x82 { length = length << 8 | Int(bytes[contentStart + 1]) }
      contentStart += Int(first & 0x7F)
    }
    guard length <= limit - contentStart else { return nil }
    return (contentStart, length)
  }

  /// An INTEGER of one to eight content octets with a one-octet length at `p`, before `end`; moves `p` past it.
  @inline(__always)
  private func shortInteger(at p: inout Int, end: Int) -> Int64? {
    guard end - p >= 3, bytes[p] == DERTag.integer else { return nil }
    let n = Int(bytes[p + 1])
    guard n >= 1, n <= 8, n <= end - p - 2 else { return nil }
    let body = p + 2
    var value: UInt64 = bytes[body] & 0x80 != 0 ? UInt64.max : 0
    for i in body..<(body + n) { value = value << 8 | UInt64(bytes[i]) }
    p = body + n
    return Int64(bitPattern: value)
  }

  /// The element at `p`, which must have `tag`; `name` describes it in errors. Moves `p` past it.
  private func expect(
    _ tag: UInt8, _ name: String, at p: inout Int, limit: Int
  ) throws(DERFailure) -> DERElement {
    try ASN1Reader.expect(tag, name, in: bytes, at: &p, limit: limit, rules: .berDefiniteLengths)
  }

  /// An INTEGER element's value; failures are placed at the element.
  private func integer(_ element: DERElement) throws(DERFailure) -> Int64 {
    do {
      return try ASN1Reader.integer(content(element))
    } catch {
      throw DERFailure(error.message, element.offset)
    }
  }

  /// Errors name the attribute (`... > attribute 17 > in-app 3 > type 1704`) at its value's offset.
  func valueError(_ message: String, _ attribute: Attribute) -> AppReceiptError {
    var located = path
    located.append("\(prefix) \(attribute.type)")
    return error(message, at: attribute.valueElement.offset, path: located, kind: .badValue)
  }

  mutating func carry(_ attribute: Attribute) {
    guard keepsCarried else { return }
    // Apple's purchases carry about eight undocumented attributes: one allocation rather than four.
    if carried.isEmpty { carried.reserveCapacity(8) }
    carried.append(
      AppReceiptAttribute(
        type: attribute.type, version: attribute.version, value: recognise(attribute),
        offset: offsetMap.sourceOffset(attribute.sequenceOffset)))
  }

  /// The single DER string or integer an attribute value holds, else its bytes.
  func recognise(_ attribute: Attribute) -> AppReceiptAttributeValue {
    if let inner = single(attribute) {
      // Most undocumented values Apple writes are empty strings and small integers: those skip the general reads.
      switch inner.tag {
      case DERTag.utf8String:
        if inner.contentLength == 0 { return .utf8String("") }
        if let s = Self.utf8(content(inner)) { return .utf8String(s) }
      case DERTag.ia5String:
        if inner.contentLength == 0 { return .ia5String("") }
        let body = content(inner)
        if isASCII(body), let s = Self.utf8(body) { return .ia5String(s) }
      case DERTag.integer:
        if let v = Self.shortInteger(content(inner)) { return .integer(v) }
        if let v = try? ASN1Reader.integer(content(inner)) { return .integer(v) }
      default: break
      }
    }
    return .bytes(Array(value(attribute)))
  }

  /// INTEGER content of one to eight octets, read in place (as `ASN1Reader.integer` reads it); nil for any other
  /// length, which that general read takes.
  @inline(__always)
  static func shortInteger(_ body: UnsafeBufferPointer<UInt8>) -> Int64? {
    guard let first = body.first, body.count <= 8 else { return nil }
    var value: UInt64 = first & 0x80 != 0 ? UInt64.max : 0
    for b in body { value = value << 8 | UInt64(b) }
    return Int64(bitPattern: value)
  }

  /// Text when the bytes are valid UTF-8 (decoding replaces bad sequences, so compare the round trip).
  static func utf8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    let s = String(decoding: bytes, as: UTF8.self)
    // ASCII is always valid: only other text needs the round trip.
    return isASCII(bytes) || s.utf8.elementsEqual(bytes) ? s : nil
  }

  /// The one definite-length element filling the attribute's value octets, if that is what they hold.
  func single(_ attribute: Attribute) -> DERElement? {
    if let tag = attribute.innerTag {
      return DERElement(
        tag: tag, offset: attribute.valueStart, contentStart: attribute.valueStart + 2, contentEnd: attribute.valueEnd,
        end: attribute.valueEnd, isIndefinite: false)
    }
    let v = attribute.valueElement
    guard let e = try? element(at: v.contentStart, limit: v.contentEnd), e.end == v.contentEnd else { return nil }
    return e
  }

  /// Reads the value as one element tagged `tag` or `other`; nil (carried through) for a community field that
  /// differs.
  private mutating func element(
    _ attribute: Attribute, _ tag: UInt8, or other: UInt8, _ expected: String, community: Bool
  ) throws(AppReceiptError) -> DERElement? {
    let inner = single(attribute)
    if let inner, inner.tag == tag || inner.tag == other { return inner }
    if community {
      carry(attribute)
      return nil
    }
    let found =
      inner.map { DERTag.name($0.tag) } ?? "\(attribute.valueElement.contentLength) bytes that are not one DER element"
    throw valueError("expected \(expected), found \(found)", attribute)
  }

  mutating func text(_ attribute: Attribute, community: Bool) throws(AppReceiptError) -> String? {
    try textBytes(attribute, community: community).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The checked bytes of a UTF8String or IA5String value (nil: absent, or carried through), for a caller that
  /// makes the String itself (through an interner, for values that repeat).
  mutating func textBytes(
    _ attribute: Attribute, community: Bool
  ) throws(AppReceiptError) -> UnsafeBufferPointer<UInt8>? {
    guard
      let inner = try element(
        attribute, DERTag.utf8String, or: DERTag.ia5String, "a UTF8String", community: community)
    else { return nil }
    let body = content(inner)
    // ASCII is valid under either tag: one pass, no round trip.
    if isASCII(body) { return body }
    if inner.tag == DERTag.ia5String { throw valueError("IA5String holds a byte above 0x7F", attribute) }
    guard Self.utf8(body) != nil else { throw valueError("UTF8String is not valid UTF-8", attribute) }
    return body
  }

  mutating func integer(_ attribute: Attribute, community: Bool) throws(AppReceiptError) -> Int64? {
    guard let inner = try element(attribute, DERTag.integer, or: DERTag.integer, "an INTEGER", community: community)
    else { return nil }
    let body = content(inner)
    if let value = Self.shortInteger(body) { return value }
    do throws(DERFailure) {
      return try ASN1Reader.integer(body)
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
        attribute, DERTag.ia5String, or: DERTag.utf8String, "an IA5String date", community: community)
    else { return nil }
    let body = content(inner)
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

  /// `parse` over bytes in place.
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    guard bytes.count >= 20, bytes.count <= 40, bytes[10] == UInt8(ascii: "T") else { return nil }
    if let t = parseUTC(bytes) { return t }
    return Timestamp.parse(formatted: bytes)
  }

  /// `2020-07-22T17:39:08Z` exactly, the form of every date in Apple's receipts, read at fixed places; nil for
  /// anything else, which `Timestamp.parse` then reads (or refuses) as before.
  static func parseUTC(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    guard b.count == 20, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A, b[19] == 0x5A
    else { return nil }
    // Two digits at `i`; nil unless both are 0-9.
    func two(_ i: Int) -> Int64? {
      let high = b[i] &- 0x30
      let low = b[i + 1] &- 0x30
      guard high < 10, low < 10 else { return nil }
      return Int64(high) * 10 + Int64(low)
    }
    guard let century = two(0), let yy = two(2), let month = two(5), let day = two(8), let hour = two(11),
      let minute = two(14), let second = two(17)
    else { return nil }
    // The checks `Timestamp(year:month:day:...)` makes, in place (every date of every purchase comes here): the
    // fields' ranges, then the day within its month. Four digits keep the year below 10000.
    let year = century * 100 + yy
    guard year >= 1970, month >= 1, month <= 12, day >= 1, hour < 24, minute < 60, second < 60 else { return nil }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    let monthDays: Int64
    switch month {
    case 2: monthDays = leap ? 29 : 28
    case 4, 6, 9, 11: monthDays = 30
    default: monthDays = 31
    }
    guard day <= monthDays else { return nil }
    let days = Timestamp.days(year: year, month: month, day: day)
    return Timestamp(milliseconds: ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000)
  }
}
