/// An OBJECT IDENTIFIER, compared by its DER content octets; `description` is the dotted text.
public struct OID: Sendable, Hashable, CustomStringConvertible {
  /// The content octets (no tag or length).
  public let contentOctets: [UInt8]

  /// Strict: non-empty, at most 64 octets, no arc with a leading 0x80 octet, the last octet ends an arc.
  public init?(contentOctets: [UInt8]) {
    guard Self.dottedText(contentOctets[...]) != nil else { return nil }
    var startsArc = true
    for b in contentOctets {
      if startsArc && b == 0x80 { return nil }
      startsArc = b & 0x80 == 0
    }
    self.contentOctets = contentOctets
  }

  /// From dotted text known at compile time (`"2.5.29.19"`); nil if it is not one.
  public init?(_ dotted: String) {
    let arcs = dotted.split(separator: ".", omittingEmptySubsequences: false).map { UInt64($0) }
    guard arcs.count >= 2, let first = arcs[0], let second = arcs[1], first <= 2, first == 2 || second < 40,
      second <= UInt64.max >> 1
    else {
      return nil
    }
    var octets: [UInt8] = []
    func append(_ value: UInt64) {
      var groups: [UInt8] = [UInt8(value & 0x7F)]
      var v = value >> 7
      while v > 0 {
        groups.append(UInt8(v & 0x7F) | 0x80)
        v >>= 7
      }
      octets += groups.reversed()
    }
    append(first * 40 + second)
    for arc in arcs.dropFirst(2) {
      guard let arc else { return nil }
      append(arc)
    }
    self.init(contentOctets: octets)
  }

  public var description: String { Self.dottedText(contentOctets[...]) ?? "?" }

  /// The dotted text of content octets, or nil when they are not an OID (empty, over 64 octets, cut off,
  /// an arc over 2^56).
  public static func dottedText(_ body: ArraySlice<UInt8>) -> String? {
    guard !body.isEmpty, body.count <= 64, let last = body.last, last & 0x80 == 0 else { return nil }
    var arcs: [UInt64] = []
    var value: UInt64 = 0
    for b in body {
      guard value >> 56 == 0 else { return nil }
      value = value << 7 | UInt64(b & 0x7F)
      if b & 0x80 == 0 {
        if arcs.isEmpty {
          let first: UInt64 = value < 40 ? 0 : (value < 80 ? 1 : 2)
          arcs += [first, value - first * 40]
        } else {
          arcs.append(value)
        }
        value = 0
      }
    }
    return arcs.map(String.init).joined(separator: ".")
  }
}

extension OID {
  /// An OID this module names at compile time; its octets are tested against the dotted text.
  init(known octets: [UInt8]) { self.contentOctets = octets }

  // Algorithms.
  public static let ecPublicKey = OID(known: [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01])
  public static let prime256v1 = OID(known: [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07])
  public static let secp384r1 = OID(known: [0x2B, 0x81, 0x04, 0x00, 0x22])
  public static let ecdsaWithSHA256 = OID(known: [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02])
  public static let ecdsaWithSHA384 = OID(known: [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x03])
  public static let rsaEncryption = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01])
  public static let sha1WithRSAEncryption = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x05])
  public static let sha256WithRSAEncryption = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0B])
  public static let sha384WithRSAEncryption = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0C])
  public static let sha512WithRSAEncryption = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0D])
  public static let sha1 = OID(known: [0x2B, 0x0E, 0x03, 0x02, 0x1A])
  public static let sha256 = OID(known: [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01])
  public static let sha384 = OID(known: [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02])
  public static let sha512 = OID(known: [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03])
  // Names.
  public static let commonName = OID(known: [0x55, 0x04, 0x03])
  public static let organizationName = OID(known: [0x55, 0x04, 0x0A])
  // Extensions.
  public static let basicConstraints = OID(known: [0x55, 0x1D, 0x13])
  public static let keyUsage = OID(known: [0x55, 0x1D, 0x0F])
  /// Apple WWDR intermediate marker, 1.2.840.113635.100.6.2.1.
  public static let appleIntermediateMarker = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x02, 0x01])
  /// Apple receipt/StoreKit signing leaf marker, 1.2.840.113635.100.6.11.1.
  public static let appleLeafMarker = OID(known: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x63, 0x64, 0x06, 0x0B, 0x01])
}
