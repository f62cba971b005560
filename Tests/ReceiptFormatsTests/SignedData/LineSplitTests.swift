import ReceiptModel
import ReceiptModelTestSupport
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// A file of JWS lines is cut at each newline found by `memchr` (`SignedDataDecoder.lineRanges`); it must give the
/// lines, numbers and trimmed bounds that looking at every byte gives (`lineRangesByteByByte`).
@Suite struct LineSplitTests {
  /// Both splits of `text` from `start`: the same ranges, or the same error.
  static func expectSame(_ bytes: [UInt8], from start: Int, _ comment: Comment? = nil) {
    bytes.withUnsafeBufferPointer { buffer in
      let fast = Result { () throws(SignedDataError) in try SignedDataDecoder.lineRanges(buffer, from: start) }
      let plain = Result { () throws(SignedDataError) in
        try SignedDataDecoder.lineRangesByteByByte(buffer, from: start)
      }
      switch (fast, plain) {
      case (.success(let a), .success(let b)):
        #expect(a.map { [$0.line, $0.lo, $0.hi] } == b.map { [$0.line, $0.lo, $0.hi] }, comment)
      case (.failure(let a), .failure(let b)):
        #expect(a.detail == b.detail && a.path == b.path, comment)
      default:
        Issue.record("one split failed and the other did not \(comment.map { "\($0)" } ?? "")")
      }
    }
  }

  @Test func randomLinesSplitAsByteByByte() {
    var random = SplitMix64(seed: 22)
    // Newlines, other whitespace and token bytes, in runs long and short (memchr's blocks are 16 to 64 bytes).
    let alphabet: [UInt8] = Array("\n\n\r\t  ab.-_=".utf8) + [0x00, 0x0B, 0xFF]
    for round in 0..<3_000 {
      let count = [0, 1, 2, 15, 16, 17, 63, 64, 65, 200, 4_100][round % 11] + random.below(3)
      let newlineEvery = 1 + random.below(300)
      var bytes: [UInt8] = []
      for _ in 0..<count {
        bytes.append(
          random.below(newlineEvery) == 0 ? 0x0A : alphabet[2 + random.below(alphabet.count - 2)])
      }
      let start = bytes.isEmpty ? 0 : random.below(bytes.count + 1)
      Self.expectSame(bytes, from: start, "round \(round)")
      Self.expectSame(bytes, from: 0, "round \(round) from 0")
      Self.expectSame(bytes, from: bytes.count, "round \(round) from the end")
    }
  }

  @Test func theBenchmarksLinesSplitAsByteByByte() {
    let token = Array(SignedReadingFastPathTests.tokens(seed: 3, count: 1)[0].utf8)
    let shapes: [[UInt8]] = [
      token, token + [0x0A], [0x0A] + token, token + [0x0D, 0x0A] + token, token + [0x0A, 0x0A, 0x20, 0x0A] + token,
      [0x20, 0x09] + token + [0x20], Array(repeating: 0x0A, count: 40), [],
    ]
    for (i, shape) in shapes.enumerated() {
      for start in [0, 1, 2] where start <= shape.count {
        Self.expectSame(shape, from: start, "shape \(i) from \(start)")
      }
    }
  }
}
