/// One JSON document to process, and where it came from.
public struct InputDocument: Sendable {
  /// The file name, or `<stdin>`.
  public var source: String
  /// 1-based line for documents read from NDJSON; nil for a whole file.
  public var line: Int?
  public var bytes: [UInt8]

  public init(source: String, line: Int? = nil, bytes: [UInt8]) {
    self.source = source
    self.line = line
    self.bytes = bytes
  }

  /// How messages name this document: `file.json`, or `batch.ndjson:12` for an NDJSON line.
  public var label: String { line.map { "\(source):\($0)" } ?? source }

  /// `{"file": ..., "line": ...}` for JSON output.
  public var inputJSON: JSONValue {
    .object([("file", .string(source)), ("line", .int(line))])
  }
}

/// Reads the documents named on a command line, in order.
public enum InputDocuments {
  /// Calls `body` for each document of `paths` (standard input when empty), in input order.
  /// A file that cannot be read is passed to `body` as a failure and the rest go on.
  public static func forEach(
    paths: [String], forceNDJSON: Bool,
    _ body: (InputDocument?, ReceiptToolError?) -> Void
  ) {
    let inputs = paths.isEmpty ? ["-"] : paths
    for path in inputs {
      let name = FileInput.displayName(path)
      do {
        let bytes = try FileInput.readAll(path: path)
        body(InputDocument(source: name, bytes: bytes), nil)
      } catch {
        body(nil, error)
      }
    }
  }
}
