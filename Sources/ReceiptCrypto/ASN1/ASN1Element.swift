/// One ASN.1 element (tag, length, value) located in a byte buffer. Offsets index the reader's buffer.
public struct ASN1Element: Sendable, Equatable {
  /// The identifier octet (class, constructed bit, tag number); only the low-tag-number form is accepted.
  public var tag: UInt8
  /// Offset of the identifier octet.
  public var offset: Int
  /// First content byte.
  public var contentStart: Int
  /// One past the last content byte (before the end-of-contents octets of an indefinite length).
  public var contentEnd: Int
  /// One past the whole element, end-of-contents octets included.
  public var end: Int
  /// BER indefinite length (`0x80`), closed by `00 00`.
  public var isIndefinite: Bool

  @inlinable
  public init(tag: UInt8, offset: Int, contentStart: Int, contentEnd: Int, end: Int, isIndefinite: Bool) {
    self.tag = tag
    self.offset = offset
    self.contentStart = contentStart
    self.contentEnd = contentEnd
    self.end = end
    self.isIndefinite = isIndefinite
  }

  @inlinable public var isConstructed: Bool { tag & 0x20 != 0 }
  @inlinable public var contentLength: Int { contentEnd - contentStart }
  /// The whole element's bytes, identifier to end.
  @inlinable public var encodedRange: Range<Int> { offset..<end }
  @inlinable public var contentRange: Range<Int> { contentStart..<contentEnd }
}

/// Well-known identifier octets. Inlinable constants, not stored `let`s: the receipt decoder's hot loop in another
/// module compares against them, and a stored global there would cost an initializer check per use.
public enum ASN1Tag {
  @inlinable public static var boolean: UInt8 { 0x01 }
  @inlinable public static var integer: UInt8 { 0x02 }
  @inlinable public static var bitString: UInt8 { 0x03 }
  @inlinable public static var octetString: UInt8 { 0x04 }
  @inlinable public static var constructedOctetString: UInt8 { 0x24 }
  @inlinable public static var null: UInt8 { 0x05 }
  @inlinable public static var objectIdentifier: UInt8 { 0x06 }
  @inlinable public static var utf8String: UInt8 { 0x0C }
  @inlinable public static var printableString: UInt8 { 0x13 }
  @inlinable public static var teletexString: UInt8 { 0x14 }
  @inlinable public static var ia5String: UInt8 { 0x16 }
  @inlinable public static var utcTime: UInt8 { 0x17 }
  @inlinable public static var generalizedTime: UInt8 { 0x18 }
  @inlinable public static var universalString: UInt8 { 0x1C }
  @inlinable public static var bmpString: UInt8 { 0x1E }
  @inlinable public static var sequence: UInt8 { 0x30 }
  @inlinable public static var set: UInt8 { 0x31 }
  /// `[0]` constructed, context specific (EXPLICIT wrappers and PKCS#7 `certificates`).
  @inlinable public static var context0: UInt8 { 0xA0 }
  @inlinable public static var context1: UInt8 { 0xA1 }
  @inlinable public static var context3: UInt8 { 0xA3 }

  /// `SEQUENCE`, `INTEGER`, `[0]`...: for error messages.
  public static func name(_ tag: UInt8) -> String {
    switch tag {
    case boolean: return "BOOLEAN"
    case integer: return "INTEGER"
    case bitString: return "BIT STRING"
    case octetString, constructedOctetString: return "OCTET STRING"
    case null: return "NULL"
    case objectIdentifier: return "OBJECT IDENTIFIER"
    case utf8String: return "UTF8String"
    case printableString: return "PrintableString"
    case ia5String: return "IA5String"
    case utcTime: return "UTCTime"
    case generalizedTime: return "GeneralizedTime"
    case sequence: return "SEQUENCE"
    case set: return "SET"
    case 0x00: return "end-of-contents"
    default:
      let classes = ["universal", "application", "context", "private"]
      return "tag 0x\(hex(tag)) (\(classes[Int(tag >> 6)]) \(tag & 0x1F)\(tag & 0x20 != 0 ? ", constructed" : ""))"
    }
  }

  /// Two upper-case hex digits.
  public static func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 0x0F)]])
  }
}

/// Which encodings a read accepts. Certificates are read with `.der`; only a PKCS#7 envelope (Xcode writes it in
/// BER) is read with `.berEnvelope`, and the receipt payload inside it with `.berDefiniteLengths`.
public struct ASN1Rules: Sendable, Hashable {
  /// BER indefinite lengths (`0x80` ... `00 00`) on constructed elements.
  public var indefiniteLengthsAllowed: Bool
  /// Long-form lengths with leading zero octets, or for values under 128.
  public var nonMinimalLengthsAllowed: Bool

  @inlinable
  public init(indefiniteLengthsAllowed: Bool, nonMinimalLengthsAllowed: Bool) {
    self.indefiniteLengthsAllowed = indefiniteLengthsAllowed
    self.nonMinimalLengthsAllowed = nonMinimalLengthsAllowed
  }

  /// Distinguished encoding: definite, minimal lengths.
  @inlinable public static var der: ASN1Rules {
    ASN1Rules(indefiniteLengthsAllowed: false, nonMinimalLengthsAllowed: false)
  }
  /// What Apple's and Xcode's PKCS#7 envelopes use.
  @inlinable public static var berEnvelope: ASN1Rules {
    ASN1Rules(indefiniteLengthsAllowed: true, nonMinimalLengthsAllowed: true)
  }
  /// BER with definite lengths only (the receipt payload inside an envelope).
  @inlinable public static var berDefiniteLengths: ASN1Rules {
    ASN1Rules(indefiniteLengthsAllowed: false, nonMinimalLengthsAllowed: true)
  }
}

/// Why bytes could not be read: what, and the offset in the buffer being read.
public struct ASN1Error: Error, Sendable, Hashable, CustomStringConvertible {
  public var message: String
  public var offset: Int

  @inlinable
  public init(_ message: String, _ offset: Int) {
    self.message = message
    self.offset = offset
  }

  /// `byte 12: ...`, one line.
  public var description: String { "byte \(offset): \(message)" }

  /// `truncated: SEQUENCE declares 5140 bytes but only 536 remain`, joined in one allocation: every receipt cut short
  /// fails here (a `latest_receipt` in most small bodies), and an interpolation grew its string at each piece.
  @usableFromInline
  static func declaresMore(_ tag: UInt8, length: Int, remaining: Int, at offset: Int) -> ASN1Error {
    let name = ASN1Tag.name(tag)
    let message = JoinedText.make(capacity: name.utf8.count + 44 + 2 * JoinedText.decimalCapacity) { text in
      text.append("truncated: ")
      text.append(name)
      text.append(" declares ")
      text.append(decimal: length)
      text.append(" bytes but only ")
      text.append(decimal: remaining)
      text.append(" remain")
    }
    return ASN1Error(message, offset)
  }
}
