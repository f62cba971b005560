import Dispatch
import ReceiptModel
import ReceiptRules

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads one large transaction array on two threads, so a single big receipt uses both cores.
///
/// A helper thread first scans the array's structure (brackets and strings only, far faster than
/// parsing) to find where it ends and where its elements start, then picks an element start ahead
/// of this thread, halfway through what is left, and parses from there to the end. This thread
/// parses from the beginning; when it arrives exactly at that element start, the helper's
/// transactions are taken in its place.
///
/// Nothing is guessed: the helper's work is used only when this thread, parsing every byte before
/// it, lands on the split point as an element boundary, and the helper parsed every byte after it
/// without an error or a warning and ended exactly at the array's end. Otherwise (malformed input,
/// an odd value) this thread simply goes on parsing, so messages and paths are those of a
/// sequential read.
enum TransactionArraySplit {
  /// Smaller arrays are not worth a thread.
  static let minimumBytes = 4 << 20

  /// Whether the array at `reader`'s position is worth splitting (enough input left).
  static func applies(to reader: JSONReader) -> Bool {
    reader.end - reader.offset >= minimumBytes
  }

  /// Reads the array at `r`'s position. `element` parses one element (the reader is at its `{`) into a
  /// transaction, and runs on both threads; `add` receives every transaction in array order.
  static func read(
    _ r: inout ValueReading, warnings: inout [DataWarning],
    element: (inout ValueReading, inout [DataWarning]) throws -> PurchaseTransaction,
    add: (PurchaseTransaction) -> Void
  ) throws {
    let coordinator = SplitCoordinator()
    let start = r.reader.offset
    let template = r
    let group = DispatchGroup()
    try withoutActuallyEscaping(element) { element in
      let helper = UncheckedHelper(template: template, start: start, element: element, coordinator: coordinator)
      // Waiting on a global-queue task cannot starve: with two or more cores a batch window holds at
      // most one document over the split threshold (windows close at 1 MiB), so a pool thread is free.
      DispatchQueue.global().async(group: group) { helper.run() }
      // Whatever happens here, the helper reads the input buffer: wait for it before returning.
      defer {
        coordinator.cancel()
        group.wait()
      }
      try r.reader.beginArray()
      var index = 0
      while try r.reader.nextElement() {
        r.reader.skipWhitespace()
        if coordinator.arrived(at: r.reader.offset) {
          group.wait()
          if let (rest, end) = coordinator.result {
            for t in rest { add(t) }
            r.reader.closeArray(resumingAt: end)
            r.arraysReadOnTwoThreads += 1
            return
          }
        }
        try r.withIndex(index) { inner in
          let (kind, at) = try inner.peek()
          guard kind == .object else { throw inner.wrongType(kind, expected: "an object", at: at) }
          add(try element(&inner, &warnings))
        }
        index += 1
      }
    }
  }

  /// The helper thread's part; it only reads the input and writes to the coordinator.
  private struct UncheckedHelper: @unchecked Sendable {
    let template: ValueReading
    let start: Int
    let element: (inout ValueReading, inout [DataWarning]) throws -> PurchaseTransaction
    let coordinator: SplitCoordinator

    func run() {
      guard let (end, elementStarts) = scan(template.reader, arrayAt: start, coordinator: coordinator),
        let split = coordinator.chooseSplit(elementStarts: elementStarts, end: end)
      else { return }
      var r = template
      r.reader.resume(inArrayAt: split)
      var rows: [PurchaseTransaction] = []
      rows.reserveCapacity(elementStarts.count)
      var warnings: [DataWarning] = []
      do {
        repeat {
          if coordinator.isCancelled { return }
          let (kind, _) = try r.peek()
          guard kind == .object else { return }
          rows.append(try element(&r, &warnings))
        } while try r.reader.nextElement()
      } catch {
        return
      }
      // A warning names its element's index, which only a sequential read knows.
      guard warnings.isEmpty, r.reader.offset == end else { return }
      coordinator.result = (rows, end)
    }
  }

  /// Finds the end of the array starting at `start` (just past its `]`) and where its object elements
  /// start, looking only at brackets, commas and strings; nil when it does not end.
  static func scan(_ reader: JSONReader, arrayAt start: Int, coordinator: SplitCoordinator) -> (Int, [Int])? {
    reader.withInput { buf in
      guard let base = buf.baseAddress, start < buf.count, base[start] == UInt8(ascii: "[") else { return nil }
      var starts: [Int] = []
      var depth = 0
      var i = start
      let n = buf.count
      while i < n {
        let b = base[i]
        switch b {
        case UInt8(ascii: "\""):
          i += 1
          // Eight bytes at a time while none is '"' or '\\'.
          while true {
            while n &- i >= 8 {
              let v = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
              let ones: UInt64 = 0x0101_0101_0101_0101
              let quote = v ^ (ones &* 0x22)
              let backslash = v ^ (ones &* 0x5C)
              let hits = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)) & (ones &* 0x80)
              if hits != 0 { break }
              i &+= 8
            }
            guard i < n else { return nil }
            if base[i] == UInt8(ascii: "\\") {
              i &+= 2
            } else if base[i] == UInt8(ascii: "\"") {
              break
            } else {
              i &+= 1
            }
          }
        case UInt8(ascii: "{"):
          if depth == 1 { starts.append(i) }
          depth += 1
        case UInt8(ascii: "["):
          depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 { return (i + 1, starts) }
          if depth < 0 { return nil }
        default:
          break
        }
        i += 1
        if i & 0xFFFFF == 0, coordinator.isCancelled { return nil }
      }
      return nil
    }
  }
}

/// What the two threads share, under a lock: where this thread is, the split point, the helper's result.
final class SplitCoordinator: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private var position = 0
  private var split: Int?
  private var cancelled = false
  /// The helper's transactions and the offset just past the array; set only by the helper, read after it is joined.
  var result: ([PurchaseTransaction], Int)?

  init() { pthread_mutex_init(mutex, nil) }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  private func locked<R>(_ body: () -> R) -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return body()
  }

  /// This thread is at the element starting at `offset`: true when that is the split point.
  func arrived(at offset: Int) -> Bool {
    locked {
      position = offset
      return split == offset
    }
  }

  /// Picks the first element start halfway between this thread's position and the end, strictly ahead of it.
  func chooseSplit(elementStarts: [Int], end: Int) -> Int? {
    locked {
      guard !cancelled else { return nil }
      let target = position + (end - position) / 2
      split = elementStarts.first { $0 > position && $0 >= target }
      return split
    }
  }

  func cancel() { locked { cancelled = true } }
  var isCancelled: Bool { locked { cancelled } }
}
