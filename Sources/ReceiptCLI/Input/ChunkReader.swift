import ReceiptFormats
import ReceiptModel

private func closeDescriptor(_ fd: Int32) { _ = close(fd) }

/// Reads a file or standard input and hands out lines (NDJSON) or the whole rest (one document).
///
/// A regular file is mapped (`MappedFile`): a single document is parsed in place, and NDJSON lines
/// are handed out as slices of the mapping whose pages are dropped once read past, so memory does not
/// grow with the number of lines. Pipes and terminals (and files the system will not map) are read
/// with `read(2)` in chunks; there, once the input turns out to be NDJSON, only the unconsumed tail is
/// kept. A single document over `maxDocumentSize` bytes is refused before it is read or allocated.
struct ChunkReader {
  static let chunkSize = 1 << 20
  /// The default single-document limit (`--max-document-size`).
  static let defaultMaxDocumentSize = 1 << 30
  private let fd: Int32
  private let path: InputPath
  private let maxDocumentSize: Int
  /// The input read so far, when it is not mapped. Bytes `0..<filled` are input; the rest is room.
  private var buffer: [UInt8] = []
  /// The whole file, when it is mapped; then `filled` is its size and there is nothing more to read.
  private var mapping: MappedFile?
  private var filled = 0
  /// Start of the unconsumed part.
  private var start = 0
  private var eof = false
  /// A pipe or terminal: results should be shown as each line arrives, not once a window fills.
  let isLive: Bool
  /// The file's size when it is a regular file (for progress).
  let regularFileSize: Int?

  init(path: String, maxDocumentSize: Int = defaultMaxDocumentSize) throws(ReceiptToolError) {
    try self.init(path: InputPath(path), maxDocumentSize: maxDocumentSize)
  }

  /// Opens `path` by its bytes, as given on the command line.
  init(path: InputPath, maxDocumentSize: Int = defaultMaxDocumentSize) throws(ReceiptToolError) {
    self.path = path
    self.maxDocumentSize = maxDocumentSize
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
    guard fstat(fd, &st) == 0 else {
      isLive = false
      regularFileSize = nil
      return
    }
    let type = st.st_mode & S_IFMT
    if type == S_IFDIR {
      isLive = false
      regularFileSize = nil
      close()
      throw .noInput(source: path.display, reason: "is a directory")
    }
    isLive = type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK
    regularFileSize = type == S_IFREG ? Int(exactly: st.st_size) : nil
    if let size = regularFileSize, size > 0, let mapped = MappedFile(fd: fd, count: size, path: path.display) {
      mapping = mapped
      filled = size
      eof = true
    }
  }

  func close() {
    if fd > 0 { closeDescriptor(fd) }
  }

  /// Calls `body` with the input read so far (`0..<filled`).
  @inline(__always)
  private func withView<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let mapping { return body(mapping.buffer(0..<filled)) }
    return buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[..<filled])) }
  }

  /// Reads up to one chunk after `filled`; false at end of input. Consumed bytes are dropped first
  /// when they are half the buffer, which moves the unconsumed ones to the front.
  private mutating func fill() throws(ReceiptToolError) -> Bool {
    guard !eof, mapping == nil else { return false }
    if buffer.count - filled < Self.chunkSize { try makeRoom() }
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
  /// Refuses to grow past what one document may hold, before allocating.
  private mutating func makeRoom() throws(ReceiptToolError) {
    if start > 0, start >= filled / 2 {
      buffer.withUnsafeMutableBytes { b in
        guard let base = b.baseAddress else { return }
        memmove(base, base + start, filled - start)
      }
      filled -= start
      start = 0
    }
    guard buffer.count - filled < Self.chunkSize else { return }
    guard filled - start <= maxDocumentSize else { throw tooLarge(atLeast: filled - start) }
    // Doubling keeps a long line linear, up to the document limit and a chunk of room. The new room
    // is left uninitialised, as only `0..<filled` is ever read.
    let limit = maxDocumentSize.addingReportingOverflow(2 * Self.chunkSize)
    let size = min(max(filled + Self.chunkSize, buffer.count * 2), limit.overflow ? Int.max : limit.partialValue)
    let old = buffer
    let kept = filled
    buffer = [UInt8](unsafeUninitializedCapacity: size) { room, count in
      old.withUnsafeBufferPointer { o in
        if let to = room.baseAddress, let from = o.baseAddress, kept > 0 { memcpy(to, from, kept) }
      }
      count = size
    }
  }

  /// The one-line error for a document over the limit.
  private func tooLarge(atLeast size: Int) -> ReceiptToolError {
    .documentTooLarge(source: path.display, size: size, limit: maxDocumentSize, exact: eof)
  }

  /// Index of the next newline at or after `from`, reading more input as needed; nil at end of input.
  private mutating func newline(from: Int) throws(ReceiptToolError) -> Int? {
    if let mapping, filled - from > Self.longLineSearchFloor {
      return newline(in: from..<filled, of: mapping)
    }
    var i = from
    while true {
      let found = withView { b -> Int? in
        guard i < b.count, let base = b.baseAddress else { return nil }
        guard let p = memchr(base + i, 0x0A, b.count - i) else { return nil }
        return base.distance(to: p.assumingMemoryBound(to: UInt8.self))
      }
      if let found { return found }
      let consumed = start
      i = filled
      guard try fill() else { return nil }
      i -= consumed - start  // fill() may have moved the unconsumed bytes to the front
    }
  }

  /// Past this many bytes of a mapped file, a line that does not end in its first `NewlineSearch.bufferSize`
  /// is looked for in parts on every core (`NewlineSearch`), not in the mapping on this thread.
  static let longLineSearchFloor = 8 << 20

  /// The first newline in `range` of the mapped file: in its first buffer's worth in place (where an NDJSON
  /// line ends), then in the rest read in parts, and in the mapping for any part the system would not read.
  private func newline(in range: Range<Int>, of mapping: MappedFile) -> Int? {
    func inPlace(_ r: Range<Int>) -> Int? {
      let b = mapping.buffer(r)
      guard let base = b.baseAddress, let p = memchr(base, 0x0A, b.count) else { return nil }
      return r.lowerBound + base.distance(to: p.assumingMemoryBound(to: UInt8.self))
    }
    let head = range.lowerBound..<min(range.upperBound, range.lowerBound + NewlineSearch.bufferSize)
    if let found = inPlace(head) { return found }
    return NewlineSearch.first(in: head.upperBound..<range.upperBound, of: fd, fallback: inPlace)
  }

  /// The first byte after `start` that is not JSON whitespace, reading more input as needed.
  private mutating func firstSignificantByte() throws(ReceiptToolError) -> UInt8? {
    var i = start
    while true {
      if i >= filled {
        let consumed = start
        guard try fill() else { return nil }
        i -= consumed - start
        continue
      }
      let b = withView { $0[i] }
      // A UTF-8 byte order mark at the very start is not content (RFC 8259 §8.1): look past it.
      if i == start, b == 0xEF, i + 2 < filled, withView({ $0[i + 1] == 0xBB && $0[i + 2] == 0xBF }) {
        i += 3
        continue
      }
      if !InputDocuments.isJSONWhitespace(b) { return b }
      i += 1
    }
  }

  /// Whether the first non-blank line is a whole object or array and a non-blank line follows.
  /// Reads ahead without consuming anything. Input that does not start with `{` or `[` is answered
  /// from its first byte, so a huge file of something else is not scanned for a newline.
  mutating func looksLikeNDJSON() throws(ReceiptToolError) -> Bool {
    let answer = try firstLineDecidesNDJSON()
    // Pages a large one-line document had scanned in place for a line break (its first MiB, or all of a file
    // under `longLineSearchFloor`) go back now, not after the decoder has built its transactions on top of them.
    if !answer, let mapping, mapping.count >= 1 << 20 { mapping.release(below: filled) }
    return answer
  }

  private mutating func firstLineDecidesNDJSON() throws(ReceiptToolError) -> Bool {
    guard let first = try firstSignificantByte(), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") else {
      return false
    }
    var lineStart = start
    var firstLine: Range<Int>?
    while firstLine == nil {
      // No newline after the first non-blank line: a single document.
      guard let nl = try newline(from: lineStart) else { return false }
      let blank = withView { b in
        UnsafeBufferPointer(rebasing: b[lineStart..<nl]).allSatisfy(InputDocuments.isJSONWhitespace)
      }
      if !blank { firstLine = lineStart..<nl }
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
        firstLine = firstLine.map { ($0.lowerBound - moved)..<($0.upperBound - moved) }
        continue
      }
      followed = !InputDocuments.isJSONWhitespace(withView { $0[i] })
      i += 1
    }
    guard followed, let firstLine else { return false }
    return withView { view in
      // A UTF-8 byte order mark before the first line is not part of its JSON (RFC 8259 §8.1).
      var first = firstLine
      if first.count >= 3, view[first.lowerBound..<(first.lowerBound + 3)].elementsEqual([0xEF, 0xBB, 0xBF]) {
        first = (first.lowerBound + 3)..<first.upperBound
      }
      return Self.isBalancedValue(UnsafeBufferPointer(rebasing: view[first]))
    }
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

  /// Calls `body` with each line (without its newline) and its 1-based number. `waiting` is called
  /// before a read that may block (live input only), so what was read can be shown first.
  mutating func forEachLine(
    waiting: () -> Void = {}, _ body: (Int, InputBytes) throws(ReceiptToolError) -> Void
  ) throws(ReceiptToolError) {
    var number = 0
    var released = 0
    while true {
      if isLive, !eof, !hasLine(), !readyToRead() { waiting() }
      let nl = try newline(from: start)
      let stop = nl ?? filled
      if nl == nil, start >= stop { return }
      number += 1
      guard stop - start <= maxDocumentSize else {
        throw .documentTooLarge(
          source: "\(path.display):\(number)", size: stop - start, limit: maxDocumentSize, exact: true)
      }
      if let mapping {
        try body(number, InputBytes(mapping: mapping, range: start..<stop))
        // Pages well behind the reader are no longer needed (documents of the current window are
        // read again from the file if touched).
        if start - released >= 16 << 20 {
          released = start - 4 * DocumentPipeline.windowBytes
          mapping.release(below: released)
        }
      } else {
        try body(number, InputBytes(Array(buffer[start..<stop])))
      }
      start = nl.map { $0 + 1 } ?? stop
    }
  }

  /// Whether a whole line is already buffered after `start`.
  private func hasLine() -> Bool {
    withView { b in
      guard start < b.count, let base = b.baseAddress else { return false }
      return memchr(base + start, 0x0A, b.count - start) != nil
    }
  }

  /// Whether a read would return at once (data or end of input waiting).
  private func readyToRead() -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, 0) > 0
  }

  /// Everything not yet consumed, read to the end: the mapping itself for a mapped file.
  /// Over `maxDocumentSize` bytes, an error before anything more is read.
  mutating func readRest() throws(ReceiptToolError) -> InputBytes {
    if let mapping {
      guard filled - start <= maxDocumentSize else { throw tooLarge(atLeast: filled - start) }
      return InputBytes(mapping: mapping, range: start..<filled)
    }
    while try fill() {}
    guard filled - start <= maxDocumentSize else { throw tooLarge(atLeast: filled - start) }
    var rest: [UInt8] = []
    swap(&rest, &buffer)  // uniquely referenced, so trimming does not copy
    if start == 0 {
      rest.removeSubrange(filled...)
    } else {
      rest = Array(rest[start..<filled])
    }
    filled = 0
    start = 0
    return InputBytes(rest)
  }
}
