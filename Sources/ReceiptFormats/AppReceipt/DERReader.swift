import ReceiptCrypto
import ReceiptModel

// The app receipt decoder reads through ReceiptCrypto's one ASN.1 reader (`ASN1Reader`): these names are that
// reader's, and `DERReader` below only adds what receipts report on failure (the ASN.1 path and source offset).
package typealias DERElement = ASN1Element
package typealias DERTag = ASN1Tag
typealias DERFailure = ASN1Error

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

/// ReceiptCrypto's `ASN1Reader` rules, read for receipts: the same header, length and nesting checks (it calls
/// them), plus the ASN.1 path and source offset that receipt errors report. Indefinite lengths (BER) are
/// accepted only when the caller asks, which the PKCS#7 envelope does: Xcode-signed receipts wrap the content
/// that way.
package struct DERReader: Sendable {
  /// ReceiptCrypto's bound: deeper than any receipt.
  package static let maximumDepth = ASN1Reader.maximumDepth

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

  /// Reads one identifier and length at `start` (ReceiptCrypto's reader, BER rules); the content must fit
  /// before `limit`.
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
  @inline(__always)
  static func header(
    _ bytes: UnsafeBufferPointer<UInt8>, at start: Int, limit: Int, allowIndefinite: Bool
  ) throws(DERFailure) -> DERElement {
    try ASN1Reader.header(
      bytes, at: start, limit: limit, rules: allowIndefinite ? .berEnvelope : .berDefiniteLengths)
  }

  /// Finds the end-of-contents octets that close an indefinite-length element (ReceiptCrypto's iterative scan).
  func findEnd(of element: DERElement) throws(AppReceiptError) -> DERElement {
    do {
      return try ASN1Reader.findEnd(of: element, in: bytes, limit: limit, depth: depth)
    } catch {
      throw self.error(error.message, at: error.offset)
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
  @inline(__always)
  static func integer(_ body: UnsafeBufferPointer<UInt8>) throws(DERFailure) -> Int64 {
    try ASN1Reader.integer(body)
  }

  /// Dotted text of an OBJECT IDENTIFIER (`1.2.840.113549.1.7.2`).
  package func objectIdentifier(_ element: DERElement) throws(AppReceiptError) -> String {
    guard element.tag == DERTag.objectIdentifier else {
      throw error("expected an OBJECT IDENTIFIER, found \(DERTag.name(element.tag))", at: element.offset)
    }
    guard let text = OID.dottedText(content(element)) else {
      throw error("malformed OBJECT IDENTIFIER", at: element.offset)
    }
    return text
  }
}
