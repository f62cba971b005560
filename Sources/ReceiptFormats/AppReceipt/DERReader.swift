import ReceiptModel

/// One ASN.1 element (tag, length, value) located in a byte buffer. Offsets index the reader's buffer.
package struct DERElement: Sendable, Equatable {
  /// The identifier octet (class, constructed bit, tag number); only the low-tag-number form is accepted.
  package var tag: UInt8
  /// Offset of the identifier octet.
  package var offset: Int
  /// First content byte.
  package var contentStart: Int
  /// One past the last content byte (before the end-of-contents octets of an indefinite length).
  package var contentEnd: Int
  /// One past the whole element, end-of-contents octets included.
  package var end: Int
  /// BER indefinite length (`0x80`), closed by `00 00`.
  package var isIndefinite: Bool

  package var isConstructed: Bool { tag & 0x20 != 0 }
  package var contentLength: Int { contentEnd - contentStart }
}

/// Well-known identifier octets.
package enum DERTag {
  package static let integer: UInt8 = 0x02
  package static let bitString: UInt8 = 0x03
  package static let octetString: UInt8 = 0x04
  package static let constructedOctetString: UInt8 = 0x24
  package static let null: UInt8 = 0x05
  package static let objectIdentifier: UInt8 = 0x06
  package static let utf8String: UInt8 = 0x0C
  package static let printableString: UInt8 = 0x13
  package static let teletexString: UInt8 = 0x14
  package static let ia5String: UInt8 = 0x16
  package static let utcTime: UInt8 = 0x17
  package static let generalizedTime: UInt8 = 0x18
  package static let bmpString: UInt8 = 0x1E
  package static let sequence: UInt8 = 0x30
  package static let set: UInt8 = 0x31
  /// `[0]` constructed, context specific (EXPLICIT wrappers and PKCS#7 `certificates`).
  package static let context0: UInt8 = 0xA0
  package static let context1: UInt8 = 0xA1

  /// `SEQUENCE`, `INTEGER`, `[0]`...: for error messages.
  package static func name(_ tag: UInt8) -> String {
    switch tag {
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

  static func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 0x0F)]])
  }
}

/// Why an element could not be read, before the reader that asked places it (path and source offset).
struct DERFailure: Error {
  var message: String
  /// Offset in the buffer being read.
  var offset: Int

  init(_ message: String, _ offset: Int) {
    self.message = message
    self.offset = offset
  }
}

/// Maps offsets in a buffer assembled from pieces (a BER constructed OCTET STRING) back to input offsets.
package struct DEROffsetMap: Sendable, Equatable {
  /// Pieces in buffer order: where each starts in the buffer and in the source.
  var segments: [(bufferStart: Int, sourceStart: Int)] = []

  package static func == (a: DEROffsetMap, b: DEROffsetMap) -> Bool {
    a.segments.elementsEqual(b.segments) { $0.bufferStart == $1.bufferStart && $0.sourceStart == $1.sourceStart }
  }

  package static let identity = DEROffsetMap()

  /// The source offset of a buffer offset (the identity when there are no segments).
  package func sourceOffset(_ offset: Int) -> Int {
    if segments.count == 1, segments[0].bufferStart <= offset {
      return segments[0].sourceStart + (offset - segments[0].bufferStart)
    }
    guard let segment = segments.last(where: { $0.bufferStart <= offset }) else { return offset }
    return segment.sourceStart + (offset - segment.bufferStart)
  }
}

/// One step of an ASN.1 path and the steps before it, shared by every reader below it.
final class DERPathStep: Sendable {
  let step: String
  let previous: DERPathStep?

  init(_ step: String, after previous: DERPathStep?) {
    self.step = step
    self.previous = previous
  }

  /// The steps from the outside in.
  var path: [String] {
    var steps: [String] = []
    var node: DERPathStep? = self
    while let n = node {
      steps.append(n.step)
      node = n.previous
    }
    return steps.reversed()
  }
}

/// A bounded reader of the elements between two offsets of a buffer.
///
/// Every length is checked against the bytes that remain before anything is read; lengths take at most four
/// octets; nesting is limited to `maximumDepth`. Indefinite lengths (BER) are accepted only when the caller asks,
/// which the PKCS#7 envelope does: Xcode-signed receipts wrap the content that way. Their end is found by an
/// iterative scan, so hostile nesting cannot exhaust the stack.
package struct DERReader: Sendable {
  /// Deeper than any receipt (the payload sits about eight levels down; a certificate about ten).
  package static let maximumDepth = 24

  package let bytes: [UInt8]
  package private(set) var position: Int
  /// One past the last byte this reader may read.
  package let limit: Int
  /// The last step of this reader's ASN.1 path, linked to its parent's: joined only for an error.
  private let steps: DERPathStep?
  /// How many elements enclose this reader's range.
  package let depth: Int
  package let offsetMap: DEROffsetMap

  /// A reader over a whole buffer.
  package init(_ bytes: [UInt8], path: [String] = [], offsetMap: DEROffsetMap = .identity) {
    self.init(bytes, range: 0..<bytes.count, path: path, offsetMap: offsetMap)
  }

  /// A reader over `range` of a buffer (which must lie inside it).
  package init(_ bytes: [UInt8], range: Range<Int>, path: [String] = [], offsetMap: DEROffsetMap = .identity) {
    var steps: DERPathStep?
    for step in path { steps = DERPathStep(step, after: steps) }
    self.init(bytes: bytes, range: range, steps: steps, depth: 0, offsetMap: offsetMap)
  }

  private init(bytes: [UInt8], range: Range<Int>, steps: DERPathStep?, depth: Int, offsetMap: DEROffsetMap) {
    self.bytes = bytes
    self.position = range.lowerBound
    self.limit = range.upperBound
    self.steps = steps
    self.depth = depth
    self.offsetMap = offsetMap
  }

  /// The ASN.1 path of the elements this reader returns, for errors.
  package var path: [String] { steps?.path ?? [] }

  package var isAtEnd: Bool { position >= limit }

  /// An error at a buffer offset, reported at its source offset with this reader's path (plus `step`).
  package func error(
    _ message: String, at offset: Int, step: String? = nil, kind: AppReceiptError.Kind = .malformed
  ) -> AppReceiptError {
    AppReceiptError(
      kind, offset: offsetMap.sourceOffset(offset), path: step.map { path + [$0] } ?? path, message: message)
  }

  /// The next element, or nil at the end of the range.
  package mutating func next(allowIndefinite: Bool = false) throws(AppReceiptError) -> DERElement? {
    guard position < limit else { return nil }
    let element = try Self.header(bytes, at: position, limit: limit, allowIndefinite: allowIndefinite) { m, o in
      error(m, at: o)
    }
    if element.isIndefinite {
      let found = try findEnd(of: element)
      position = found.end
      return found
    }
    position = element.end
    return element
  }

  /// The next element, which must have `tag`; `name` describes it in errors.
  package mutating func expect(
    _ tag: UInt8, _ name: String, allowIndefinite: Bool = false
  ) throws(AppReceiptError) -> DERElement {
    let at = position
    guard let element = try next(allowIndefinite: allowIndefinite) else {
      throw error("expected \(name) (\(DERTag.name(tag))), found the end of the enclosing element", at: at)
    }
    guard element.tag == tag else {
      throw error("expected \(name) (\(DERTag.name(tag))), found \(DERTag.name(element.tag))", at: at)
    }
    return element
  }

  /// Fails unless every byte of the range was read.
  package func expectEnd(_ what: String) throws(AppReceiptError) {
    guard position >= limit else {
      throw error("\(limit - position) unexpected bytes after \(what)", at: position)
    }
  }

  /// A reader over a constructed element's content, one level deeper, with `step` (if any) added to the path.
  package func children(of element: DERElement, step: String? = nil) throws(AppReceiptError) -> DERReader {
    guard element.isConstructed else {
      throw error("expected a constructed element, found primitive \(DERTag.name(element.tag))", at: element.offset)
    }
    return try contents(of: element, step: step)
  }

  /// A reader over any element's content bytes (e.g. DER held inside an OCTET STRING), one level deeper.
  package func contents(of element: DERElement, step: String? = nil) throws(AppReceiptError) -> DERReader {
    guard depth < Self.maximumDepth else {
      throw error("nesting deeper than \(Self.maximumDepth) levels", at: element.offset)
    }
    return DERReader(
      bytes: bytes, range: element.contentStart..<element.contentEnd,
      // One node per added step, sharing the parent's: no path array is copied per element.
      steps: step.map { DERPathStep($0, after: steps) } ?? steps, depth: depth + 1,
      offsetMap: offsetMap)
  }

  /// Reads one identifier and length at `start`; the content must fit before `limit`.
  static func header(
    _ bytes: [UInt8], at start: Int, limit: Int, allowIndefinite: Bool,
    fail: (String, Int) -> AppReceiptError
  ) throws(AppReceiptError) -> DERElement {
    do {
      return try bytes.withUnsafeBufferPointer { (buffer) throws(DERFailure) in
        try header(buffer, at: start, limit: limit, allowIndefinite: allowIndefinite)
      }
    } catch {
      throw fail(error.message, error.offset)
    }
  }

  /// `header` over bytes in place; a failure carries only its message and offset, so a caller that reads many
  /// elements builds the ASN.1 path for the one that fails, not for each.
  static func header(
    _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, limit: Int, allowIndefinite: Bool
  ) throws(DERFailure) -> DERElement {
    guard start >= 0, start < limit, limit <= bytes.count else {
      throw DERFailure("truncated: expected an element", start)
    }
    let tag = bytes[start]
    guard tag & 0x1F != 0x1F else {
      throw DERFailure("tag 0x\(DERTag.hex(tag)) uses the multi-byte tag form, which receipts never use", start)
    }
    guard start + 1 < limit else { throw DERFailure("truncated: \(DERTag.name(tag)) has no length octet", start) }
    let first = bytes[start + 1]
    var contentStart = start + 2
    let length: Int
    if first < 0x80 {
      length = Int(first)
    } else if first == 0x80 {
      guard tag & 0x20 != 0 else {
        throw DERFailure("primitive \(DERTag.name(tag)) with an indefinite length", start)
      }
      guard allowIndefinite else {
        throw DERFailure(
          "\(DERTag.name(tag)) with an indefinite length where only definite lengths are expected", start)
      }
      return DERElement(
        tag: tag, offset: start, contentStart: contentStart, contentEnd: limit, end: limit, isIndefinite: true)
    } else {
      let count = Int(first & 0x7F)
      guard count <= 4 else { throw DERFailure("length of \(count) octets is larger than any receipt", start) }
      guard count <= limit - contentStart else {
        throw DERFailure("truncated: the length octets run past the end", start)
      }
      var value = 0
      for i in 0..<count { value = value << 8 | Int(bytes[contentStart + i]) }
      contentStart += count
      length = value
    }
    guard length <= limit - contentStart else {
      throw DERFailure(
        "truncated: \(DERTag.name(tag)) declares \(length) bytes but only \(limit - contentStart) remain", start)
    }
    return DERElement(
      tag: tag, offset: start, contentStart: contentStart, contentEnd: contentStart + length,
      end: contentStart + length, isIndefinite: false)
  }

  /// Finds the end-of-contents octets that close an indefinite-length element, walking nested elements without
  /// recursion. Nested elements may themselves be indefinite, up to the nesting limit.
  func findEnd(of element: DERElement) throws(AppReceiptError) -> DERElement {
    var open = 1
    var p = element.contentStart
    while true {
      guard p + 1 < limit else {
        throw error(
          "truncated: \(DERTag.name(element.tag)) of indefinite length has no end-of-contents", at: element.offset)
      }
      if bytes[p] == 0 {
        guard bytes[p + 1] == 0 else { throw error("end-of-contents with a non-zero length", at: p) }
        open -= 1
        p += 2
        if open == 0 {
          var found = element
          found.contentEnd = p - 2
          found.end = p
          return found
        }
        continue
      }
      let inner = try Self.header(bytes, at: p, limit: limit, allowIndefinite: true) { m, o in error(m, at: o) }
      if inner.isIndefinite {
        open += 1
        guard depth + open <= Self.maximumDepth else {
          throw error("nesting deeper than \(Self.maximumDepth) levels", at: p)
        }
        p = inner.contentStart
      } else {
        p = inner.end
      }
    }
  }

  // MARK: Primitive values

  /// The content bytes of an element.
  package func content(_ element: DERElement) -> ArraySlice<UInt8> {
    bytes[element.contentStart..<element.contentEnd]
  }

  /// A signed INTEGER that fits in 64 bits.
  package func integer(_ element: DERElement, step: String? = nil) throws(AppReceiptError) -> Int64 {
    guard element.tag == DERTag.integer else {
      throw error("expected an INTEGER, found \(DERTag.name(element.tag))", at: element.offset, step: step)
    }
    guard element.contentStart >= 0, element.contentStart <= element.contentEnd, element.contentEnd <= bytes.count
    else { throw error("INTEGER content outside the buffer", at: element.offset, step: step) }
    do {
      return try bytes.withUnsafeBufferPointer { (buffer) throws(DERFailure) in
        try Self.integer(UnsafeBufferPointer(rebasing: buffer[element.contentStart..<element.contentEnd]))
      }
    } catch {
      throw self.error(error.message, at: element.offset, step: step)
    }
  }

  /// The value of INTEGER content octets that fit in 64 bits; a failure's offset is meaningless (0).
  static func integer(_ body: UnsafeBufferPointer<UInt8>) throws(DERFailure) -> Int64 {
    guard let firstByte = body.first else { throw DERFailure("INTEGER with no content octets", 0) }
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
      throw DERFailure("INTEGER of \(body.count) bytes does not fit in 64 bits", 0)
    }
    var value: UInt64 = firstByte & 0x80 != 0 ? UInt64.max : 0
    for i in start..<body.count { value = value << 8 | UInt64(body[i]) }
    return Int64(bitPattern: value)
  }

  /// Dotted text of an OBJECT IDENTIFIER (`1.2.840.113549.1.7.2`).
  package func objectIdentifier(_ element: DERElement) throws(AppReceiptError) -> String {
    guard element.tag == DERTag.objectIdentifier else {
      throw error("expected an OBJECT IDENTIFIER, found \(DERTag.name(element.tag))", at: element.offset)
    }
    let body = content(element)
    guard !body.isEmpty, body.count <= 64, let last = body.last, last & 0x80 == 0 else {
      throw error("malformed OBJECT IDENTIFIER", at: element.offset)
    }
    var arcs: [UInt64] = []
    var value: UInt64 = 0
    for b in body {
      guard value >> 56 == 0 else { throw error("OBJECT IDENTIFIER arc too large", at: element.offset) }
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
