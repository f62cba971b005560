import Foundation
import ReceiptTestSupport
import Testing

/// Large inputs through the built binary, one at a time. The bounds catch quadratic behaviour and hangs, with room
/// for a loaded machine: unloaded, a debug build takes about 1.5 s for the 50 MB string and 7 s for 100,000 rows.
@Suite(.serialized) struct LargeInputTests {
  func timed<R>(_ body: () throws -> R) rethrows -> (R, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let r = try body()
    let d = clock.now - start
    return (r, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
  }

  @Test func aFiftyMegabyteStringIsReadAndPrintedInTime() throws {
    let big = String(repeating: "x", count: 50_000_000)
    let path = try InProcessRunner.temporaryFile(
      Array(#"{"status":0,"environment":"\#(big)","receipt":{"bundle_id":"b"}}"#.utf8))
    let (result, seconds) = try timed { try BinaryRunner.run(["decode", path, "--format", "json"]) }
    #expect(result.status == 0)
    #expect(result.stdout.contains(big))
    #expect(seconds < 10, "took \(seconds) s")
  }

  @Test func aFiftyMegabyteStringInAnErrorIsClipped() throws {
    let big = String(repeating: "9", count: 50_000_000)
    let path = try InProcessRunner.temporaryFile(
      Array(
        #"{"status":0,"receipt":{"bundle_id":"com.x","in_app":[{"transaction_id":"1","product_id":"p","purchase_date_ms":"1600000000000","expires_date_ms":"\#(big)"}]}}"#
          .utf8))
    let (result, seconds) = try timed { try BinaryRunner.run(["decode", path]) }
    #expect(result.status == 65)
    #expect(result.stderr.count < 300)
    #expect(seconds < 10, "took \(seconds) s")
  }

  @Test func a100000TransactionArrayIsRead() throws {
    let rows = (0..<100_000).map { #"{"transaction_id":"\#($0)","product_id":"p","purchase_date_ms":"1600000000000"}"# }
    let path = try InProcessRunner.temporaryFile(
      Array(#"{"status":0,"latest_receipt_info":[\#(rows.joined(separator: ","))]}"#.utf8))
    let (result, seconds) = try timed { try BinaryRunner.run(["decode", path, "--quiet"]) }
    #expect(result.status == 0)
    #expect(seconds < 60, "took \(seconds) s")
  }
}
