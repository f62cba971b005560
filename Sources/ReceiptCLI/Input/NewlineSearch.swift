import ReceiptModel

/// Finds the first newline of a long stretch of a file by reading it in parts on every core.
///
/// Deciding whether a file is NDJSON looks for the end of its first line, and a one-line document of 90 MB has
/// none before its end. Searched in the mapping, every page of the file is faulted in on one thread (and given
/// back again before the decoder reads it); read with `pread(2)` in parts, the search costs a copy through a
/// small buffer on each core instead.
enum NewlineSearch {
  /// Bytes read at a time by each part.
  static let bufferSize = 1 << 20

  /// What one part's search found.
  enum PartResult: Equatable {
    case found(Int)
    case none
    /// The system would not read the part (an error, or the file shrank): the caller searches it another way.
    case unread
  }

  /// The offset of the first newline in `range` of the file open as `fd`, searching `parts` pieces of it on
  /// every core (`Cores.map`); a part that cannot be read is searched by `fallback` (the mapping), on this thread.
  static func first(
    in range: Range<Int>, of fd: Int32, parts: Int = Cores.available,
    fallback: (Range<Int>) -> Int?
  ) -> Int? {
    let pieces = split(range, into: max(1, parts))
    let results = Cores.map(pieces) { search($0, of: fd) }
    for (piece, result) in zip(pieces, results) {
      switch result {
      case .found(let offset): return offset
      case .none: continue
      case .unread: if let offset = fallback(piece) { return offset }
      }
    }
    return nil
  }

  /// `range` cut into `count` consecutive pieces of nearly equal length (none empty).
  static func split(_ range: Range<Int>, into count: Int) -> [Range<Int>] {
    let n = min(count, max(1, range.count))
    let step = range.count / n
    return (0..<n).map { k in
      let lower = range.lowerBound + k * step
      return lower..<(k == n - 1 ? range.upperBound : lower + step)
    }
  }

  /// The first newline in `range` of `fd`, read a buffer at a time.
  static func search(_ range: Range<Int>, of fd: Int32) -> PartResult {
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 64)
    defer { buffer.deallocate() }
    var offset = range.lowerBound
    while offset < range.upperBound {
      let n = pread(fd, buffer, min(bufferSize, range.upperBound - offset), off_t(offset))
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return .unread }
      if let p = memchr(buffer, 0x0A, n) { return .found(offset + buffer.distance(to: p)) }
      offset += n
    }
    return .none
  }
}
