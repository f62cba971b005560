import ReceiptFormats
import ReceiptModel

/// One JSON document to process, and where it came from.
package struct InputDocument: Sendable {
  /// The file name, or `<stdin>`.
  package var source: String
  /// 1-based line for documents read from NDJSON; nil for a whole file.
  package var line: Int?
  /// The document's bytes, in memory or in a mapped file.
  package var content: InputBytes
  /// A copy of the bytes (for small documents; decoding reads `content` in place).
  package var bytes: [UInt8] { content.array }
  /// Already read: several documents merged into one customer's history (`--one-customer`).
  package var decoded: PurchaseHistory? { decodedBox?.history }
  /// Boxed: a document is passed along the pipeline by value several times, and a history inline made each copy
  /// move its hundreds of bytes (about 1,100 instructions of copies a small document).
  private let decodedBox: DecodedHistory?

  private final class DecodedHistory: Sendable {
    let history: PurchaseHistory
    init(_ history: PurchaseHistory) { self.history = history }
  }

  package init(source: String, line: Int? = nil, bytes: [UInt8], decoded: PurchaseHistory? = nil) {
    self.init(source: source, line: line, content: InputBytes(bytes), decoded: decoded)
  }

  package init(source: String, line: Int? = nil, content: InputBytes, decoded: PurchaseHistory? = nil) {
    self.source = source
    self.line = line
    self.content = content
    decodedBox = decoded.map(DecodedHistory.init)
  }

  /// How messages name this document: `file.json`, or `batch.ndjson:12` for an NDJSON line.
  /// Made for every NDJSON line that is decoded, so its bytes are written into one buffer: interpolated, or
  /// appended with `reserveCapacity`, it cost 1,500 to 1,800 instructions a line. `InputDocumentTests` holds it to
  /// `"\(source):\(line)"`.
  package var label: String {
    guard let line else { return source }
    var name = source
    return name.withUTF8 { name in
      String(unsafeUninitializedCapacity: name.count + 21) { out in
        guard let base = out.baseAddress else { return 0 }
        if let start = name.baseAddress { base.update(from: start, count: name.count) }
        var end = name.count
        base[end] = UInt8(ascii: ":")
        end += 1
        if line < 0 {
          base[end] = UInt8(ascii: "-")
          end += 1
        }
        // The digits of the magnitude, last first, then turned round: Int.min has no positive Int.
        var rest = line.magnitude
        let first = end
        repeat {
          base[end] = UInt8(ascii: "0") + UInt8(rest % 10)
          end += 1
          rest /= 10
        } while rest > 0
        var digits = UnsafeMutableBufferPointer(rebasing: out[first..<end])
        digits.reverse()
        return end
      }
    }
  }

  /// `error`, raised while reading this document under `label`, with its position given as a place in
  /// the file, as editors and compilers expect: the JSON reader counts lines from the document's own
  /// start, so for an NDJSON line `batch.ndjson:2` + `1:5` becomes `batch.ndjson:2:5` rather than
  /// `batch.ndjson:2:1:5`. Errors without a position keep the label (`batch.ndjson:2: message`), and a
  /// whole-file document is unchanged.
  package func locatedInFile(_ error: ReceiptToolError) -> ReceiptToolError {
    guard let line else { return error }
    // The document starts at column 1 of file line `line`, so its line n is file line `line + n - 1`.
    func fileLine(_ n: Int) -> Int? {
      let (sum, overflow) = line.addingReportingOverflow(n - 1)
      return n >= 1 && !overflow ? sum : nil
    }
    guard case .input(var located) = error, located.source == label,
      case .lineColumn(let l, let column) = located.position, let l = fileLine(l)
    else { return error }
    located.source = source
    located.position = .lineColumn(line: l, column: column)
    return .input(located)
  }

  /// `{"file": ..., "line": ...}` for JSON output.
  package var inputJSON: JSONValue { JSONTreeWriter.tree { writeInput(to: &$0) } }

  /// Writes `inputJSON` at the writer's place.
  package func writeInput<W: JSONOutput>(to w: inout W) {
    w.object { w in
      w.member("file", source)
      w.member("line", int: line)
    }
  }
}

/// A document's bytes: an array read from a pipe, or a range of a mapped file read in place.
package struct InputBytes: Sendable {
  private enum Storage {
    case array([UInt8])
    case mapped(MappedFile, Range<Int>)
  }
  private let storage: Storage

  package init(_ bytes: [UInt8]) { storage = .array(bytes) }

  init(mapping: MappedFile, range: Range<Int>) { storage = .mapped(mapping, range) }

  package var count: Int {
    switch storage {
    case .array(let a): a.count
    case .mapped(_, let range): range.count
    }
  }

  /// A copy of the bytes.
  package var array: [UInt8] {
    switch storage {
    case .array(let a): a
    case .mapped(let m, let range): Array(m.buffer(range))
    }
  }

  /// Gives back the resident pages of a large mapped document once it has been decoded, so that what is built
  /// from it does not sit on top of the whole file in memory. Nothing is lost: touched again, the pages are
  /// read again from the file. Small documents keep theirs (a system call each would cost more than it saves).
  /// The release runs on another thread (zapping a 90 MB range takes milliseconds this thread need not wait for).
  func releaseResidentPages() {
    guard case .mapped(let m, let range) = storage, range.count >= 1 << 20 else { return }
    Cores.detach { m.release(range) }
  }

  /// For a large mapped document: gives back the resident pages below a buffer offset the decoder has read
  /// past (read again from the file if touched). Nil for bytes in memory, where dropping pages would lose them.
  var readPrefixReleaser: (@Sendable (Int) -> Void)? {
    guard case .mapped(let m, let range) = storage, range.count >= 1 << 20 else { return nil }
    return { offset in m.release(range.lowerBound..<(range.lowerBound + min(max(0, offset), range.count))) }
  }

  /// Calls `body` with the bytes in place; the pointer is valid only during the call.
  package func withBuffer<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
    switch storage {
    case .mapped(let m, let range):
      return try withExtendedLifetime(m) { () throws(E) -> R in try body(m.buffer(range)) }
    case .array(let a):
      let result = a.withUnsafeBufferPointer { buffer -> Result<R, E> in
        do throws(E) { return .success(try body(buffer)) } catch { return .failure(error) }
      }
      return try result.get()
    }
  }
}

/// Reads the documents named on a command line, in order, streaming.
///
/// An input is NDJSON when `--ndjson` is given, when its name ends in `.ndjson` or `.jsonl`, or
/// when its first non-blank line is a complete JSON object or array on its own and another
/// non-blank line follows. NDJSON is read in chunks, one document per line, so memory does not
/// grow with the number of lines. Anything else is one document, read whole.
///
/// Blank (whitespace-only) NDJSON lines carry no document and are skipped; the documents keep
/// their physical line numbers and `notice` is told how many lines were skipped, so every
/// input line is accounted for.
package enum InputDocuments {
  /// Calls `body` for each document of `paths` (standard input when empty), in input order.
  /// A file that cannot be read is passed to `body` as a failure and the rest go on.
  /// A document over `maxDocumentSize` is an error, raised before it is read or allocated. `waiting` is
  /// called before a read from a pipe or terminal that may block, so that what was read can be shown first.
  package static func forEach(
    paths: [String], forceNDJSON: Bool, maxDocumentSize: Int = ChunkReader.defaultMaxDocumentSize,
    notice: (String) -> Void = { _ in }, waiting: () -> Void = {},
    _ body: (InputDocument?, ReceiptToolError?) -> Void
  ) {
    forEach(
      paths: paths.map { InputPath($0) }, forceNDJSON: forceNDJSON, maxDocumentSize: maxDocumentSize, notice: notice,
      waiting: waiting, body)
  }

  /// `forEach` over paths kept as the bytes given on the command line.
  package static func forEach(
    paths: [InputPath], forceNDJSON: Bool, maxDocumentSize: Int = ChunkReader.defaultMaxDocumentSize,
    notice: (String) -> Void = { _ in }, waiting: () -> Void = {},
    _ body: (InputDocument?, ReceiptToolError?) -> Void
  ) {
    let inputs = paths.isEmpty ? [InputPath.standardInput] : paths
    for path in inputs {
      let name = path.display
      do throws(ReceiptToolError) {
        var reader = try ChunkReader(path: path, maxDocumentSize: maxDocumentSize)
        defer { reader.close() }
        let ndjsonByName = path.hasSuffix(".ndjson") || path.hasSuffix(".jsonl")
        var isNDJSON = forceNDJSON || ndjsonByName
        if !isNDJSON { isNDJSON = try reader.looksLikeNDJSON() }
        if isNDJSON {
          var blank = 0
          try reader.forEachLine(waiting: waiting) { number, bytes in
            if bytes.withBuffer({ $0.allSatisfy(isJSONWhitespace) }) {
              blank += 1
            } else {
              body(InputDocument(source: name, line: number, content: bytes), nil)
            }
          }
          if blank > 0 {
            notice("\(name): \(blank) blank line\(blank == 1 ? "" : "s") skipped (they hold no document)")
          }
        } else {
          body(InputDocument(source: name, content: try reader.readRest()), nil)
        }
      } catch {
        body(nil, error)
      }
    }
  }

  @inline(__always) static func isJSONWhitespace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
  }
}
