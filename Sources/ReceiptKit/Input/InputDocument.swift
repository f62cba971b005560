#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

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
public enum InputDocuments {
  /// Calls `body` for each document of `paths` (standard input when empty), in input order.
  /// A file that cannot be read is passed to `body` as a failure and the rest go on.
  public static func forEach(
    paths: [String], forceNDJSON: Bool,
    notice: (String) -> Void = { _ in },
    _ body: (InputDocument?, ReceiptToolError?) -> Void
  ) {
    let inputs = paths.isEmpty ? ["-"] : paths
    for path in inputs {
      let name = FileInput.displayName(path)
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

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

/// Reads a file descriptor in chunks of `chunkSize` bytes and hands out lines or the whole rest.
struct ChunkReader {
  static let chunkSize = 1 << 20
  private let fd: Int32
  private let path: String
  private var buffer: [UInt8] = []
  /// Start of the unconsumed part of `buffer`.
  private var start = 0
  private var eof = false

  init(path: String) throws(ReceiptToolError) {
    self.path = path
    if path == "-" {
      fd = 0
    } else {
      fd = open(path, O_RDONLY)
      guard fd >= 0 else { throw .noInput(source: path, reason: FileInput.describeOpenError(errno)) }
    }
    var st = stat()
    if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
      close()
      throw .noInput(source: path, reason: "is a directory")
    }
  }

  func close() {
    if fd > 0 { closeDescriptor(fd) }
  }

  /// Appends up to one chunk to `buffer`; false at end of input.
  private mutating func fill() throws(ReceiptToolError) -> Bool {
    guard !eof else { return false }
    if start > 0, start >= buffer.count / 2 {
      buffer.removeSubrange(0..<start)
      start = 0
    }
    let old = buffer.count
    buffer.append(contentsOf: repeatElement(0, count: Self.chunkSize))
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + old }, Self.chunkSize) }
      if n < 0 {
        if errno == EINTR { continue }
        buffer.removeSubrange(old...)
        if errno == EISDIR { throw .noInput(source: path, reason: "is a directory") }
        throw .io("\(FileInput.displayName(path)): read failed: \(String(cString: strerror(errno)))")
      }
      buffer.removeSubrange((old + n)...)
      if n == 0 { eof = true }
      return n > 0
    }
  }

  /// Index of the next newline at or after `from`, reading more input as needed; nil at end of input.
  private mutating func newline(from: Int) throws(ReceiptToolError) -> Int? {
    var i = from
    while true {
      let found = buffer.withUnsafeBufferPointer { b -> Int? in
        guard i < b.count, let base = b.baseAddress else { return nil }
        guard let p = memchr(base + i, 0x0A, b.count - i) else { return nil }
        return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
      }
      if let found { return found }
      let consumed = start
      i = buffer.count
      guard try fill() else { return nil }
      i -= consumed - start  // fill() may have moved the unconsumed bytes to the front
    }
  }

  /// Whether the first non-blank line is a whole object or array and a non-blank line follows.
  /// Reads ahead without consuming anything.
  mutating func looksLikeNDJSON() throws(ReceiptToolError) -> Bool {
    var lineStart = start
    var first: Range<Int>?
    while first == nil {
      // No newline after the first non-blank line: a single document.
      guard let nl = try newline(from: lineStart) else { return false }
      if !buffer[lineStart..<nl].allSatisfy(InputDocuments.isJSONWhitespace) { first = lineStart..<nl }
      lineStart = nl + 1
    }
    var i = lineStart
    var followed = false
    while !followed {
      if i >= buffer.count {
        let consumed = start
        guard try fill() else { break }
        i -= consumed - start
        lineStart -= consumed - start
        first = first.map { ($0.lowerBound - (consumed - start))..<($0.upperBound - (consumed - start)) }
        continue
      }
      followed = !InputDocuments.isJSONWhitespace(buffer[i])
      i += 1
    }
    guard followed, let first else { return false }
    return buffer.withUnsafeBufferPointer { Self.isBalancedValue(UnsafeBufferPointer(rebasing: $0[first])) }
  }

  /// True when `line` is one structurally complete object or array (brackets balanced outside strings).
  static func isBalancedValue(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
    var depth = 0
    var inString = false
    var escaped = false
    var sawOpen = false
    for b in line {
      if inString {
        if escaped { escaped = false } else if b == 0x5C { escaped = true } else if b == 0x22 { inString = false }
        continue
      }
      switch b {
      case 0x22: inString = true
      case 0x7B, 0x5B:
        if depth == 0, sawOpen { return false }
        depth += 1
        sawOpen = true
      case 0x7D, 0x5D:
        depth -= 1
        if depth < 0 { return false }
      default:
        if depth == 0, !InputDocuments.isJSONWhitespace(b) { return false }
      }
    }
    return sawOpen && depth == 0 && !inString
  }

  /// Calls `body` with each line (without its newline) and its 1-based number.
  mutating func forEachLine(_ body: (Int, [UInt8]) -> Void) throws(ReceiptToolError) {
    var number = 0
    while true {
      let nl = try newline(from: start)
      let stop = nl ?? buffer.count
      if nl == nil, start >= stop { return }
      number += 1
      body(number, Array(buffer[start..<stop]))
      start = nl.map { $0 + 1 } ?? stop
    }
  }

  /// Everything not yet consumed, read to the end.
  mutating func readRest() throws(ReceiptToolError) -> [UInt8] {
    var st = stat()
    if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0 {
      buffer.reserveCapacity(Int(st.st_size) + Self.chunkSize)
    }
    while try fill() {}
    let rest = start == 0 ? buffer : Array(buffer[start...])
    buffer = []
    start = 0
    return rest
  }
}
