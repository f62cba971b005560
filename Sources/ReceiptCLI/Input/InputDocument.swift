import ReceiptFormats
import ReceiptModel
import ReceiptRules

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// One JSON document to process, and where it came from.
package struct InputDocument: Sendable {
  /// The file name, or `<stdin>`.
  package var source: String
  /// 1-based line for documents read from NDJSON; nil for a whole file.
  package var line: Int?
  package var bytes: [UInt8]

  package init(source: String, line: Int? = nil, bytes: [UInt8]) {
    self.source = source
    self.line = line
    self.bytes = bytes
  }

  /// How messages name this document: `file.json`, or `batch.ndjson:12` for an NDJSON line.
  package var label: String { line.map { "\(source):\($0)" } ?? source }

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
  package var inputJSON: JSONValue {
    .object([("file", .string(source)), ("line", .int(line))])
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
  package static func forEach(
    paths: [String], forceNDJSON: Bool,
    notice: (String) -> Void = { _ in },
    _ body: (InputDocument?, ReceiptToolError?) -> Void
  ) {
    forEach(paths: paths.map { InputPath($0) }, forceNDJSON: forceNDJSON, notice: notice, body)
  }

  /// `forEach` over paths kept as the bytes given on the command line.
  package static func forEach(
    paths: [InputPath], forceNDJSON: Bool,
    notice: (String) -> Void = { _ in },
    _ body: (InputDocument?, ReceiptToolError?) -> Void
  ) {
    let inputs = paths.isEmpty ? [InputPath.standardInput] : paths
    for path in inputs {
      let name = path.display
      do throws(ReceiptToolError) {
        var reader = try ChunkReader(path: path)
        defer { reader.close() }
        let ndjsonByName = path.hasSuffix(".ndjson") || path.hasSuffix(".jsonl")
        var isNDJSON = forceNDJSON || ndjsonByName
        if !isNDJSON { isNDJSON = try reader.looksLikeNDJSON() }
        if isNDJSON {
          var blank = 0
          try reader.forEachLine { number, bytes in
            if bytes.allSatisfy(isJSONWhitespace) {
              blank += 1
            } else {
              body(InputDocument(source: name, line: number, bytes: bytes), nil)
            }
          }
          if blank > 0 {
            notice("\(name): \(blank) blank line\(blank == 1 ? "" : "s") skipped (they hold no document)")
          }
        } else {
          body(InputDocument(source: name, bytes: try reader.readRest()), nil)
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
