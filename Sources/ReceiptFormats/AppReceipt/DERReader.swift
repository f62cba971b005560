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

/// ReceiptCrypto's `ASN1Reader`, read for receipts: its element loop (headers, lengths, nesting, the end of an
/// indefinite length) walks the elements, and this adds the ASN.1 path and source offset that receipt errors
/// report. Indefinite lengths (BER) are accepted only when the caller asks, which the PKCS#7 envelope does:
/// Xcode-signed receipts wrap the content that way.
package struct DERReader: Sendable {
  /// ReceiptCrypto's bound: deeper than any receipt.
  package static let maximumDepth = ASN1Reader.maximumDepth

  /// The elements, read under BER rules; `next` asks for indefinite lengths only where the caller allows them.
  private var reader: ASN1Reader
  /// The last step of this reader's ASN.1 path, linked to its parent's: joined only for an error.
  private let steps: DERPathStep?
  package let offsetMap: DEROffsetMap

  /// A reader over a whole buffer.
  package init(_ bytes: [UInt8], path: [String] = [], offsetMap: DEROffsetMap = .identity) {
    self.init(bytes, range: 0..<bytes.count, path: path, offsetMap: offsetMap)
  }

  /// A reader over `range` of a buffer (which must lie inside it).
  package init(_ bytes: [UInt8], range: Range<Int>, path: [String] = [], offsetMap: DEROffsetMap = .identity) {
    var steps: DERPathStep?
    for step in path { steps = DERPathStep(step, after: steps) }
    self.init(reader: ASN1Reader(bytes, range: range, rules: .berEnvelope), steps: steps, offsetMap: offsetMap)
  }

  private init(reader: ASN1Reader, steps: DERPathStep?, offsetMap: DEROffsetMap) {
    self.reader = reader
    self.steps = steps
    self.offsetMap = offsetMap
  }

  package var bytes: [UInt8] { reader.bytes }
  package var position: Int { reader.position }
  /// One past the last byte this reader may read.
  package var limit: Int { reader.limit }
  /// How many elements enclose this reader's range.
  package var depth: Int { reader.depth }
  package var isAtEnd: Bool { reader.isAtEnd }
  /// The tag of the next element without reading it.
  package var peekTag: UInt8? { reader.peekTag }

  /// The ASN.1 path of the elements this reader returns, for errors.
  package var path: [String] { steps?.path ?? [] }

  /// An error at a buffer offset, reported at its source offset with this reader's path (plus `step`).
  package func error(
    _ message: String, at offset: Int, step: String? = nil, kind: AppReceiptError.Kind = .malformed
  ) -> AppReceiptError {
    AppReceiptError(
      kind, offset: offsetMap.sourceOffset(offset), path: step.map { path + [$0] } ?? path, message: message)
  }

  /// ReceiptCrypto's failure, placed in the receipt.
  func error(_ failure: ASN1Error) -> AppReceiptError { error(failure.message, at: failure.offset) }

  /// The next element, or nil at the end of the range.
  package mutating func next(allowIndefinite: Bool = false) throws(AppReceiptError) -> DERElement? {
    do {
      return try reader.next(allowIndefinite: allowIndefinite)
    } catch {
      throw self.error(error)
    }
  }

  /// The next element, which must have `tag`; `name` describes it in errors.
  package mutating func expect(
    _ tag: UInt8, _ name: String, allowIndefinite: Bool = false
  ) throws(AppReceiptError) -> DERElement {
    do {
      return try reader.expect(tag, name, allowIndefinite: allowIndefinite)
    } catch {
      throw self.error(error)
    }
  }

  /// Fails unless every byte of the range was read.
  package func expectEnd(_ what: String) throws(AppReceiptError) {
    do {
      try reader.expectEnd(what)
    } catch {
      throw self.error(error)
    }
  }

  /// A reader over a constructed element's content, one level deeper, with `step` (if any) added to the path.
  package func children(of element: DERElement, step: String? = nil) throws(AppReceiptError) -> DERReader {
    do {
      return below(try reader.children(of: element), step: step)
    } catch {
      throw self.error(error)
    }
  }

  /// A reader over any element's content bytes (e.g. DER held inside an OCTET STRING), one level deeper.
  package func contents(of element: DERElement, step: String? = nil) throws(AppReceiptError) -> DERReader {
    do {
      return below(try reader.contents(of: element), step: step)
    } catch {
      throw self.error(error)
    }
  }

  /// `child` with this reader's path (one node per added step, sharing the parent's: no path array is copied
  /// per element) and offset map.
  private func below(_ child: ASN1Reader, step: String?) -> DERReader {
    DERReader(reader: child, steps: step.map { DERPathStep($0, after: steps) } ?? steps, offsetMap: offsetMap)
  }

  // MARK: Primitive values

  /// The content bytes of an element.
  package func content(_ element: DERElement) -> ArraySlice<UInt8> { reader.content(element) }

  /// Whether an element's content octets are `expected`.
  func contentEquals(_ element: DERElement, _ expected: [UInt8]) -> Bool { reader.contentEquals(element, expected) }

  /// A signed INTEGER that fits in 64 bits (ReceiptCrypto's read, BER: redundant sign octets allowed).
  package func integer(_ element: DERElement, step: String? = nil) throws(AppReceiptError) -> Int64 {
    do {
      return try reader.integer(element)
    } catch {
      throw self.error(error.message, at: error.offset, step: step)
    }
  }

  /// Dotted text of an OBJECT IDENTIFIER (`1.2.840.113549.1.7.2`), non-minimal arcs tolerated.
  package func objectIdentifier(_ element: DERElement) throws(AppReceiptError) -> String {
    do {
      return try reader.dottedObjectIdentifier(element)
    } catch {
      throw self.error(error)
    }
  }
}
