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

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

/// Reads a file or standard input and hands out lines (NDJSON) or the whole rest (one document).
///
/// `read(2)` writes straight into `buffer`, never through a second copy. A regular file of up to
/// `wholeFileLimit` bytes gets a buffer of its size up front, so a single document is read in place
/// and handed out without copying; once the input turns out to be NDJSON, the reader keeps only
/// the unconsumed tail and streams the rest in chunks, so memory does not grow with the number of lines.
struct ChunkReader {
  static let chunkSize = 1 << 20
  /// Larger regular files are streamed in chunks from the start, never reserved whole.
  static let wholeFileLimit = 1 << 30
  private let fd: Int32
  private let path: InputPath
  /// Bytes `0..<filled` are input; the rest is room for the next read.
  private var buffer: [UInt8] = []
  private var filled = 0
  /// Start of the unconsumed part of `buffer`.
  private var start = 0
  private var eof = false
  /// `buffer` was sized to the whole file and is never compacted.
  private var sizedToFile = false

  init(path: String) throws(ReceiptToolError) { try self.init(path: InputPath(path)) }

  /// Opens `path` by its bytes, as given on the command line.
  init(path: InputPath) throws(ReceiptToolError) {
    self.path = path
    if path.isStandardInput {
      fd = 0
    } else {
      guard let opened = path.withCString({ open($0, O_RDONLY) }) else {
        throw .noInput(source: path.display, reason: "a file name cannot hold a NUL byte")
      }
      fd = opened
      guard fd >= 0 else { throw .noInput(source: path.display, reason: FileInput.describeOpenError(errno)) }
    }
    var st = stat()
    guard fstat(fd, &st) == 0 else { return }
    if (st.st_mode & S_IFMT) == S_IFDIR {
      close()
      throw .noInput(source: path.display, reason: "is a directory")
    }
    if (st.st_mode & S_IFMT) == S_IFREG, st.st_size > 0, st.st_size <= Self.wholeFileLimit {
      // The file's length plus one byte, so that reaching the end needs no second buffer.
      let size = Int(st.st_size) + 1
      buffer = [UInt8](unsafeUninitializedCapacity: size) { _, count in count = size }
      sizedToFile = true
    }
  }

  func close() {
    if fd > 0 { closeDescriptor(fd) }
  }

  /// Reads up to one chunk after `filled`; false at end of input. Without a file-sized buffer,
  /// consumed bytes are dropped first, which moves the unconsumed ones to the front.
  private mutating func fill() throws(ReceiptToolError) -> Bool {
    guard !eof else { return false }
    // A file-sized buffer keeps a spare byte at the end; filling it means the file grew while read.
    let fileSizedRoom = sizedToFile && filled < buffer.count
    if !fileSizedRoom, buffer.count - filled < Self.chunkSize { makeRoom() }
    while true {
      let room = min(buffer.count - filled, Self.chunkSize)
      let n = buffer.withUnsafeMutableBytes { b -> Int in
        guard let base = b.baseAddress else { return 0 }
        return read(fd, base + filled, room)
      }
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EISDIR { throw .noInput(source: path.display, reason: "is a directory") }
        throw .io("\(path.display): read failed: \(String(cString: strerror(errno)))")
      }
      if n == 0 { eof = true }
      filled += n
      return n > 0
    }
  }

  /// Ensures a chunk of room after `filled`, dropping consumed bytes when they are half the buffer.
  private mutating func makeRoom() {
    sizedToFile = false
    if start > 0, start >= filled / 2 {
      buffer.withUnsafeMutableBytes { b in
        guard let base = b.baseAddress else { return }
        memmove(base, base + start, filled - start)
      }
      filled -= start
      start = 0
    }
    guard buffer.count - filled < Self.chunkSize else { return }
    // Doubling keeps a long line linear; the new room is left uninitialised, as only
    // `0..<filled` is ever read, and copying by hand stays fast in unoptimised builds too.
    let size = max(filled + Self.chunkSize, buffer.count * 2)
    let old = buffer
    let kept = filled
    buffer = [UInt8](unsafeUninitializedCapacity: size) { room, count in
      old.withUnsafeBufferPointer { o in
        if let to = room.baseAddress, let from = o.baseAddress, kept > 0 { memcpy(to, from, kept) }
      }
      count = size
    }
  }

  /// NDJSON from here on: keep only the unconsumed bytes, so memory stays bounded.
  mutating func streamLines() {
    guard sizedToFile else { return }
    buffer = Array(buffer[start..<filled])
    filled = buffer.count
    start = 0
    sizedToFile = false
  }

  /// Index of the next newline at or after `from`, reading more input as needed; nil at end of input.
  private mutating func newline(from: Int) throws(ReceiptToolError) -> Int? {
    var i = from
    while true {
      let found = buffer.withUnsafeBufferPointer { b -> Int? in
        guard i < filled, let base = b.baseAddress else { return nil }
        guard let p = memchr(base + i, 0x0A, filled - i) else { return nil }
        return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
      }
      if let found { return found }
      let consumed = start
      i = filled
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
      if i >= filled {
        let consumed = start
        guard try fill() else { break }
        let moved = consumed - start
        i -= moved
        first = first.map { ($0.lowerBound - moved)..<($0.upperBound - moved) }
        continue
      }
      followed = !InputDocuments.isJSONWhitespace(buffer[i])
      i += 1
    }
    guard followed, var first else { return false }
    // A UTF-8 byte order mark before the first line is not part of its JSON (RFC 8259 §8.1).
    if first.count >= 3, buffer[first.lowerBound..<(first.lowerBound + 3)].elementsEqual([0xEF, 0xBB, 0xBF]) {
      first = (first.lowerBound + 3)..<first.upperBound
    }
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
    streamLines()
    var number = 0
    while true {
      let nl = try newline(from: start)
      let stop = nl ?? filled
      if nl == nil, start >= stop { return }
      number += 1
      body(number, Array(buffer[start..<stop]))
      start = nl.map { $0 + 1 } ?? stop
    }
  }

  /// Everything not yet consumed, read to the end; the buffer itself when nothing was consumed.
  mutating func readRest() throws(ReceiptToolError) -> [UInt8] {
    while try fill() {}
    var rest: [UInt8] = []
    swap(&rest, &buffer)  // uniquely referenced, so trimming does not copy
    if start == 0 {
      rest.removeSubrange(filled...)
    } else {
      rest = Array(rest[start..<filled])
    }
    filled = 0
    start = 0
    return rest
  }
}
