import Dispatch
import ReceiptFormats
import ReceiptModel

/// The one place that starts threads: how many cores the tool uses, and the ways work runs on them.
///
/// Rules, the model and the formats are single-threaded; the input pipeline and the commands split work
/// and run the parts here.
package enum Cores {
  /// Threads that may run at once: the online processors (at least 1).
  package static let available = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

  /// `transform` over `items`, in order, on several threads when there is more than one item and core.
  ///
  /// `transform` must be safe to call concurrently (it computes from its input and returns).
  package static func map<T, R>(_ items: [T], _ transform: (T) -> R) -> [R] {
    guard items.count > 1, available > 1 else { return items.map(transform) }
    var results = [R?](repeating: nil, count: items.count)
    withoutActuallyEscaping(transform) { transform in
      results.withUnsafeMutableBufferPointer { slots in
        // Each iteration writes only its own slot.
        let shared = MapShared(transform: transform, items: items, slots: slots)
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
          shared.slots[i] = shared.transform(shared.items[i])
        }
      }
    }
    return zip(items, results).map { item, result in result ?? transform(item) }
  }

  /// `make` over consecutive ranges of `0..<count`, `size` indices each, on the other cores, handed to `deliver`
  /// in order on this thread as each is ready; at most two ranges per core wait made, so memory stays bounded
  /// however many there are. On one core, or for one range, all on this thread.
  ///
  /// `make` must be safe to call concurrently (it computes from what it is given and returns).
  package static func inOrder<T>(
    count: Int, size: Int, make: (Range<Int>) -> T, deliver: (T) -> Void
  ) {
    let size = max(1, size)
    let ranges = stride(from: 0, to: max(0, count), by: size).map { $0..<min(count, $0 + size) }
    guard available > 1, ranges.count > 1 else {
      for range in ranges { deliver(make(range)) }
      return
    }
    withoutActuallyEscaping(make) { make in
      // Every result is waited for below, so `make` never runs after this returns.
      var made: [BackgroundResult<T>?] = []
      made.reserveCapacity(ranges.count)
      func start() {
        let range = ranges[made.count]
        made.append(BackgroundResult { make(range) })
      }
      while made.count < min(ranges.count, 2 * available) { start() }
      for i in ranges.indices {
        guard let result = made[i] else { continue }
        let value = result.value
        made[i] = nil
        if made.count < ranges.count { start() }
        deliver(value)
      }
    }
  }

  /// What the threads of `map` share: read-only items, the transform, and one result slot each.
  private struct MapShared<T, R>: @unchecked Sendable {
    let transform: (T) -> R
    let items: [T]
    let slots: UnsafeMutableBufferPointer<R?>
  }

  /// Runs `work` on another thread; nobody waits for it.
  package static func detach(_ work: @escaping @Sendable () -> Void) {
    DispatchQueue.global().async(execute: work)
  }

  /// Runs `helper` on `available - 1` other threads while `body` runs on this one, and returns once every
  /// helper has returned too; `body` must make them return.
  static func alongside<R>(_ helper: @escaping @Sendable () -> Void, _ body: () throws -> R) rethrows -> R {
    let group = DispatchGroup()
    for _ in 1..<max(2, available) { DispatchQueue.global().async(group: group, execute: helper) }
    defer { group.wait() }
    return try body()
  }

  /// Helpers for a decoder that reads one large document on every core, or nil on one core (tests take
  /// `ArrayPieceHelpers` to split on any machine).
  package static var pieceHelpers: (any PieceHelpers)? {
    available > 1 ? ArrayPieceHelpers() : nil
  }

  /// `pieceHelpers` for the document `content`, giving back the pages of a mapped file as they are read.
  static func pieceHelpers(reading content: InputBytes) -> (any PieceHelpers)? {
    available > 1 ? ArrayPieceHelpers(releaseReadPrefix: content.readPrefixReleaser) : nil
  }
}

/// A value computed on another thread while this one goes on; `value` waits for it.
///
/// The work may read what the caller holds, but only what nobody writes until `value` returns.
final class BackgroundResult<T>: @unchecked Sendable {
  private var result: T?
  private let work: () -> T
  private let done = DispatchGroup()

  /// Starts `work` on a global queue.
  init(_ work: @escaping () -> T) {
    self.work = work
    // `result` is written by that task only, and read after `done` says it finished.
    DispatchQueue.global().async(group: done) { self.result = self.work() }
  }

  /// The value, once the work has finished.
  var value: T {
    done.wait()
    // Always set once `done` is passed; computing it here instead keeps this free of a trap if it were not.
    guard let result else { return work() }
    return result
  }
}

/// A mutex with one condition to wait on, for state that threads share.
final class SharedLock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  init() {
    pthread_mutex_init(mutex, nil)
    pthread_cond_init(changed, nil)
  }

  deinit {
    pthread_cond_destroy(changed)
    pthread_mutex_destroy(mutex)
    changed.deallocate()
    mutex.deallocate()
  }

  /// `body` with the lock held.
  func locked<R>(_ body: () throws -> R) rethrows -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// With the lock held (inside `locked`): waits for `broadcast`, giving the lock up meanwhile.
  func wait() { pthread_cond_wait(changed, mutex) }

  /// With the lock held: wakes every thread in `wait`.
  func broadcast() { pthread_cond_broadcast(changed) }
}

/// How a renderer makes the output of a long list of transactions: in parts of `size` items, made on every core
/// and written in order (`Cores.inOrder`), or all on the calling thread.
package struct InOrderParts: Sendable {
  /// Items per part.
  package var size: Int
  /// Whether parts are made on other cores.
  package var onCores: Bool

  /// Everything on the calling thread, in one part.
  package static let here = InOrderParts(size: .max, onCores: false)
  /// Parts of 1,024 transactions (about 1 MB of output) on every core.
  package static let cores = InOrderParts(size: 1024, onCores: true)

  package init(size: Int, onCores: Bool) {
    self.size = max(1, size)
    self.onCores = onCores
  }

  /// `make` over the parts of `0..<count`, `deliver` with each in order.
  package func run(count: Int, make: (Range<Int>) -> [UInt8], deliver: ([UInt8]) -> Void) {
    if onCores {
      Cores.inOrder(count: count, size: size, make: make, deliver: deliver)
    } else {
      for start in stride(from: 0, to: count, by: size) { deliver(make(start..<min(count, start + size))) }
    }
  }
}
