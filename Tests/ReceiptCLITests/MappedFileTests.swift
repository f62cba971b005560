import Dispatch
import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Files mapped from many threads at once, as in-process test runs and a pipeline's workers do. The SIGBUS
/// message each mapping installs was once freed by every thread that replaced it: a double free that corrupted
/// the heap (`malloc(): unaligned tcache chunk detected`) in parallel test runs. With that code this test
/// aborted (`free(): unaligned chunk detected in tcache 2`, or SIGSEGV) within its 50,000 mappings.
@Suite struct MappedFileTests {
  @Test func mappingFromManyThreadsAtOnceIsSafe() throws {
    let path = try InProcessRunner.temporaryFile(Array(repeating: UInt8(ascii: "x"), count: 8192), name: "mapped.bin")
    let fd = open(path, O_RDONLY)
    #expect(fd >= 0)
    defer { close(fd) }
    let sums = UnsafeMutableBufferPointer<Int>.allocate(capacity: 50000)
    defer { sums.deallocate() }
    sums.initialize(repeating: 0)
    let shared = Slots(sums: sums)
    DispatchQueue.concurrentPerform(iterations: 50000) { i in
      guard let file = MappedFile(fd: fd, count: 8192, path: "mapped-\(i).bin") else { return }
      shared.sums[i] = file.buffer(0..<8192).reduce(0) { $0 + Int($1) }
    }
    #expect(sums.allSatisfy { $0 == 8192 * Int(UInt8(ascii: "x")) })
  }

  private struct Slots: @unchecked Sendable {
    let sums: UnsafeMutableBufferPointer<Int>
  }
}
