import Dispatch

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
