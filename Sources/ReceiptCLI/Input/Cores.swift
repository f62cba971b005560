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
