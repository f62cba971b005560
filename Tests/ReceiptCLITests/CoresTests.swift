import Dispatch
import Foundation
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

  /// Records which thread number each claim named and on which thread it ran.
  final class ClaimThreads: @unchecked Sendable {
    private let lock = SharedLock()
    private var seen: [(number: Int, thread: pthread_t)] = []
    func add(_ number: Int) { lock.locked { seen.append((number, pthread_self())) } }
    var all: [(number: Int, thread: pthread_t)] { lock.locked { seen } }
  }

  /// A claim's thread number belongs to one thread and that thread to one number, below `threads`, and 0 is
  /// the reader's: what lets each thread keep its own interners from piece to piece without a lock.
  @Test func eachThreadNumberIsOneThreadsOwn() throws {
    let input = Array(("[" + Array(repeating: #"{"a":"1"}"#, count: 4_000).joined(separator: ",") + "]").utf8)
    let helpers = ArrayPieceHelpers()
    let claims = ClaimThreads()
    let reader = pthread_self()
    try input.withUnsafeBufferPointer { input in
      try helpers.withBoard(
        input: input, arrayStart: 0, pieceBytes: 64,
        parse: { claim, _ in
          claims.add(claim.thread)
          // Slower than the reader, so that it finds pieces claimed and parses the next open ones itself.
          usleep(400)
          return nil
        }
      ) { board in
        // A helper starts when the global queue runs it, which other tests may delay: wait for its first claim.
        for _ in 0..<30_000 where claims.all.isEmpty { usleep(1_000) }
        var k = 1
        while board.start(of: k) != nil {
          // The helpers claim pieces within a window ahead of the reader: it gives them time to start.
          usleep(100)
          _ = board.arrive(at: k)
          k += 1
        }
        #expect(k > 100)
      }
    }
    let all = claims.all
    #expect(!all.isEmpty)
    var threadOf: [Int: pthread_t] = [:]
    for (number, thread) in all {
      #expect((0..<helpers.threads).contains(number))
      #expect((number == 0) == (pthread_equal(thread, reader) != 0), "thread number \(number)")
      let first = threadOf[number, default: thread]
      threadOf[number] = first
      #expect(pthread_equal(first, thread) != 0, "thread number \(number) on two threads")
    }
    #expect(Set(threadOf.values).count == threadOf.count, "one thread under two numbers: \(threadOf)")
  }
}
