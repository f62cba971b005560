import Dispatch
import Testing

@testable import ReceiptCLI

/// The one place that runs work on other threads gives back what the work computed, in order, once each.
@Suite struct CoresTests {
  /// Counts calls from several threads.
  final class Calls: @unchecked Sendable {
    private let lock = SharedLock()
    private var count = 0
    func add() { lock.locked { count += 1 } }
    var total: Int { lock.locked { count } }
  }

  @Test func backgroundResultRunsWhileTheCallerGoesOnAndGivesTheWorksValueOnce() {
    let go = DispatchSemaphore(value: 0)
    let calls = Calls()
    // The work waits until the caller goes on past `init`: on the caller's own thread it would time out.
    let result = BackgroundResult { () -> Int in
      calls.add()
      return go.wait(timeout: .now() + 30) == .success ? 42 : -1
    }
    go.signal()
    #expect(result.value == 42)
    #expect(result.value == 42)
    #expect(calls.total == 1)
  }

  @Test func mapGivesEachResultInItsItemsPlaceOnce() {
    let items = Array(0..<1_000)
    let calls = Calls()
    let mapped = Cores.map(items) { (i: Int) -> String in
      calls.add()
      return String(i * 7, radix: 3)
    }
    #expect(mapped == items.map { String($0 * 7, radix: 3) })
    #expect(calls.total == items.count)
    #expect(Cores.map([5]) { $0 + 1 } == [6])
    #expect(Cores.map([Int]()) { $0 + 1 } == [])
  }

  @Test func alongsideReturnsOnlyOnceEveryHelperHasReturned() {
    let calls = Calls()
    let stop = DispatchSemaphore(value: 0)
    let helpers = max(2, Cores.available) - 1
    let helper: @Sendable () -> Void = {
      _ = stop.wait(timeout: .now() + 30)
      calls.add()
    }
    let answer = Cores.alongside(helper) { () -> Int in
      for _ in 0..<helpers { stop.signal() }
      return 7
    }
    #expect(answer == 7)
    #expect(calls.total == helpers)
  }
}
