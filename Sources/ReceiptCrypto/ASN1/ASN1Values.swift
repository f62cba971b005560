/// Typed reads of primitive values, strict as DER requires (the certificate reader's needs).
extension ASN1Reader {
  /// A signed INTEGER that fits in 64 bits. DER needs minimal content; BER rules accept redundant sign octets.
  public func integer(_ element: ASN1Element) throws(ASN1Error) -> Int64 {
    guard element.tag == ASN1Tag.integer else {
      throw ASN1Error("expected an INTEGER, found \(ASN1Tag.name(element.tag))", element.offset)
    }
    let body = content(element)
    if !rules.nonMinimalLengthsAllowed { try Self.checkMinimalInteger(body, at: element.offset) }
    do {
      return try body.withUnsafeBufferPointer { (buffer) throws(ASN1Error) in try Self.integer(buffer) }
    } catch {
      throw ASN1Error(error.message, element.offset)
    }
  }

  /// The value of INTEGER content octets that fit in 64 bits; a failure's offset is meaningless (0).
  @inlinable
  public static func integer(_ body: UnsafeBufferPointer<UInt8>) throws(ASN1Error) -> Int64 {
    guard let firstByte = body.first else { throw ASN1Error("INTEGER with no content octets", 0) }
    // Up to eight octets always fit: leading sign octets would change nothing.
    if body.count <= 8 {
      var value: UInt64 = firstByte & 0x80 != 0 ? UInt64.max : 0
      for b in body { value = value << 8 | UInt64(b) }
      return Int64(bitPattern: value)
    }
    // Leading sign octets beyond the first carry no value; more than eight significant ones do not fit.
    var start = 0
    while body.count - start > 1,
      (body[start] == 0 && (body[start + 1] & 0x80) == 0) || (body[start] == 0xFF && (body[start + 1] & 0x80) != 0)
    {
      start += 1
    }
    guard body.count - start <= 8 else {
      throw ASN1Error("INTEGER of \(body.count) bytes does not fit in 64 bits", 0)
    }
    var value: UInt64 = firstByte & 0x80 != 0 ? UInt64.max : 0
    for i in start..<body.count { value = value << 8 | UInt64(body[i]) }
    return Int64(bitPattern: value)
  }

  /// Fails unless INTEGER content is non-empty and has no redundant leading octet (X.690 8.3.2).
  static func checkMinimalInteger(_ body: ArraySlice<UInt8>, at offset: Int) throws(ASN1Error) {
    guard let first = body.first else { throw ASN1Error("INTEGER with no content octets", offset) }
    if body.count > 1 {
      let second = body[body.startIndex + 1]
      if (first == 0 && second & 0x80 == 0) || (first == 0xFF && second & 0x80 != 0) {
        throw ASN1Error("INTEGER with a redundant leading octet (DER)", offset)
      }
    }
  }

  /// A non-negative INTEGER of any size as big-endian magnitude bytes (no sign octet; `[0]` for zero), minimal.
  public func unsignedInteger(_ element: ASN1Element, _ name: String) throws(ASN1Error) -> [UInt8] {
    guard element.tag == ASN1Tag.integer else {
      throw ASN1Error("expected \(name) (INTEGER), found \(ASN1Tag.name(element.tag))", element.offset)
    }
    let body = content(element)
    try Self.checkMinimalInteger(body, at: element.offset)
    guard let first = body.first, first & 0x80 == 0 else {
      throw ASN1Error("\(name) is negative", element.offset)
    }
    return first == 0 && body.count > 1 ? Array(body.dropFirst()) : Array(body)
  }

  /// BOOLEAN: one octet, 00 or FF (DER).
  public func boolean(_ element: ASN1Element) throws(ASN1Error) -> Bool {
    guard element.tag == ASN1Tag.boolean else {
      throw ASN1Error("expected a BOOLEAN, found \(ASN1Tag.name(element.tag))", element.offset)
    }
    let body = content(element)
    guard body.count == 1, let b = body.first, b == 0 || b == 0xFF else {
      throw ASN1Error("BOOLEAN must be one octet 00 or FF (DER)", element.offset)
    }
    return b == 0xFF
  }

  /// NULL: no content.
  public func null(_ element: ASN1Element) throws(ASN1Error) {
    guard element.tag == ASN1Tag.null, element.contentLength == 0 else {
      throw ASN1Error("expected an empty NULL, found \(ASN1Tag.name(element.tag))", element.offset)
    }
  }

  /// A BIT STRING's bytes with no unused bits (signatures and keys).
  public func octetAlignedBitString(_ element: ASN1Element, _ name: String) throws(ASN1Error) -> ArraySlice<UInt8> {
    guard element.tag == ASN1Tag.bitString else {
      throw ASN1Error("expected \(name) (BIT STRING), found \(ASN1Tag.name(element.tag))", element.offset)
    }
    let body = content(element)
    guard let unused = body.first, unused == 0 else {
      throw ASN1Error("\(name) must be a whole number of bytes (unused-bits octet 0)", element.offset)
    }
    return body.dropFirst()
  }

  /// A named-bit BIT STRING (keyUsage) as bit flags, bit 0 first: `flags & (1 << n)` is bit n. DER: unused bits
  /// zero, at most 7, and no trailing zero byte.
  public func namedBits(_ element: ASN1Element, _ name: String) throws(ASN1Error) -> UInt32 {
    guard element.tag == ASN1Tag.bitString else {
      throw ASN1Error("expected \(name) (BIT STRING), found \(ASN1Tag.name(element.tag))", element.offset)
    }
    let body = content(element)
    guard let unused = body.first, unused <= 7, body.count <= 5 else {
      throw ASN1Error("\(name) is not a valid named-bit BIT STRING", element.offset)
    }
    let data = body.dropFirst()
    if data.isEmpty {
      guard unused == 0 else { throw ASN1Error("\(name): unused bits in an empty BIT STRING", element.offset) }
      return 0
    }
    guard let last = data.last, last & ((1 << unused) - 1) == 0, last != 0 else {
      throw ASN1Error("\(name) is not in its DER form (unused or trailing zero bits)", element.offset)
    }
    var flags: UInt32 = 0
    for (i, byte) in data.enumerated() {
      for bit in 0..<8 where byte & (0x80 >> bit) != 0 { flags |= 1 << UInt32(i * 8 + bit) }
    }
    return flags
  }

  /// An OBJECT IDENTIFIER (content checked: minimal arcs).
  public func objectIdentifier(_ element: ASN1Element) throws(ASN1Error) -> OID {
    guard element.tag == ASN1Tag.objectIdentifier else {
      throw ASN1Error("expected an OBJECT IDENTIFIER, found \(ASN1Tag.name(element.tag))", element.offset)
    }
    guard let oid = OID(contentOctets: Array(content(element))) else {
      throw ASN1Error("malformed OBJECT IDENTIFIER", element.offset)
    }
    return oid
  }

  /// Dotted text of an OBJECT IDENTIFIER (`1.2.840.113549.1.7.2`); tolerant of non-minimal arcs, as the
  /// receipt envelope's display needs.
  public func dottedObjectIdentifier(_ element: ASN1Element) throws(ASN1Error) -> String {
    guard element.tag == ASN1Tag.objectIdentifier else {
      throw ASN1Error("expected an OBJECT IDENTIFIER, found \(ASN1Tag.name(element.tag))", element.offset)
    }
    guard let text = OID.dottedText(content(element)) else {
      throw ASN1Error("malformed OBJECT IDENTIFIER", element.offset)
    }
    return text
  }
}
