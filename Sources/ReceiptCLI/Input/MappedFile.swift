import ReceiptModel

/// A regular file mapped read-only, so a document is parsed in place: no copy into a fresh buffer,
/// no zeroed pages. Unmapped when the last document that uses it is gone.
///
/// A file truncated by another process while mapped would raise SIGBUS on the next access; the
/// handler installed here turns that into one error line and exit 74 instead of a crash.
package final class MappedFile: @unchecked Sendable {
  let base: UnsafeMutableRawPointer
  let count: Int

  /// Maps `count` bytes of `fd`; nil when the system refuses (the caller then reads instead).
  init?(fd: Int32, count: Int, path: String) {
    guard count > 0, let p = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else { return nil }
    base = p
    self.count = count
    _ = madvise(p, count, MADV_SEQUENTIAL)
    MappedFile.installBusHandler(naming: path)
  }

  deinit { _ = munmap(base, count) }

  /// The mapped bytes `range` (within `0..<count`).
  func buffer(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self) + range.lowerBound, count: range.count)
  }

  /// Drops the pages wholly below `offset` from this process's memory; they are read again from the
  /// file if touched later. Keeps the resident size of a long NDJSON file bounded.
  func release(below offset: Int) {
    let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
    let end = min(offset, count) / page * page
    guard end > 0 else { return }
    _ = madvise(base, end, MADV_DONTNEED)
  }

  /// Drops the pages wholly inside `range` from this process's memory (read again from the file if touched).
  func release(_ range: Range<Int>) {
    let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
    let start = (min(range.lowerBound, count) + page - 1) / page * page
    let end = min(range.upperBound, count) / page * page
    guard end > start else { return }
    _ = madvise(base + start, end - start, MADV_DONTNEED)
  }

  /// The message the SIGBUS handler writes: one buffer for the life of the process, rewritten under a
  /// lock when another file is mapped. It is never freed, because the handler may read it at any moment
  /// and files are mapped from several threads at once (in-process test runs).
  private static let busMessageCapacity = 1024
  nonisolated(unsafe) private static let busMessage = UnsafeMutablePointer<CChar>.allocate(capacity: busMessageCapacity)
  nonisolated(unsafe) private static var busMessageLength = 0
  private static let busMessageLock = SharedLock()

  private static func installBusHandler(naming path: String) {
    let bytes = Array("receipt-tool: error: \(path): the file changed (shrank) while it was read\n".utf8CString)
    let length = min(bytes.count - 1, busMessageCapacity)
    busMessageLock.locked {
      busMessageLength = 0
      busMessage.update(from: bytes, count: length)
      busMessageLength = length
      signal(SIGBUS) { _ in
        _ = write(2, MappedFile.busMessage, MappedFile.busMessageLength)
        _exit(74)
      }
    }
  }
}
