import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The long-line search (`NewlineSearch`, reading a file in parts on every core) against `memchr` over the same
/// bytes, and the NDJSON test of `ChunkReader` on files past `longLineSearchFloor`, where it is taken.
@Suite struct NewlineSearchTests {
  /// `count` bytes of `x` with a newline at each of `newlines`.
  private func file(count: Int, newlines: [Int]) throws -> (path: String, bytes: [UInt8]) {
    var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: count)
    for i in newlines { bytes[i] = 0x0A }
    return (try InProcessRunner.temporaryFile(bytes, name: "lines.txt"), bytes)
  }

  private func memchrAnswer(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
    bytes[range].firstIndex(of: 0x0A)
  }

  @Test func findsTheFirstNewlineWhereverItIs() throws {
    let count = 3 * NewlineSearch.bufferSize + 12_345
    // Part and buffer edges on either side, the last byte, and none at all.
    let places = [
      0, 1, NewlineSearch.bufferSize - 1, NewlineSearch.bufferSize, count / 2 - 1, count / 2, count / 2 + 1,
      count / 3, 2 * count / 3, count - 1,
    ]
    for parts in 1...4 {
      for place in places + [-1] {
        let (path, bytes) = try file(count: count, newlines: place < 0 ? [] : [place, min(count - 1, place + 7)])
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        for range in [0..<count, 5..<count, 0..<(count - 3), (count / 2)..<count] {
          let found = NewlineSearch.first(in: range, of: fd, parts: parts) { _ in
            Issue.record("every part of a readable file is read")
            return nil
          }
          #expect(found == memchrAnswer(bytes, range), "parts \(parts), newline at \(place), range \(range)")
        }
      }
    }
  }

  @Test func aPartTheSystemWillNotReadIsSearchedByTheFallback() throws {
    let (path, _) = try file(count: 4096, newlines: [])
    let fd = open(path, O_RDONLY)
    #expect(fd >= 0)
    defer { close(fd) }
    // Past the end of the file, as when it shrinks: pread gives nothing, and the fallback answers for the part.
    var asked: [Range<Int>] = []
    let found = NewlineSearch.first(in: 4096..<10_000, of: fd, parts: 2) { part in
      asked.append(part)
      return part.lowerBound == 4096 ? nil : part.lowerBound + 1
    }
    #expect(asked == NewlineSearch.split(4096..<10_000, into: 2))
    #expect(found == asked.last.map { $0.lowerBound + 1 })
  }

  @Test func splitCoversTheRangeInOrder() {
    for count in [0, 1, 2, 3, 10, 1001] {
      for n in 1...5 {
        let pieces = NewlineSearch.split(100..<(100 + count), into: n)
        #expect(pieces.first?.lowerBound ?? 100 == 100)
        #expect(pieces.last?.upperBound ?? 100 == 100 + count)
        #expect(zip(pieces, pieces.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
        #expect(pieces.allSatisfy { !$0.isEmpty } || count == 0)
      }
    }
  }

  /// A first line longer than the search floor: the NDJSON test must reach its end and what follows.
  @Test func ndjsonTestOfALongFirstLine() throws {
    let long = ChunkReader.longLineSearchFloor + 3 * NewlineSearch.bufferSize
    let value = Array(#"{"a":""#.utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: long) + Array(#""}"#.utf8)
    let cases: [([UInt8], Bool)] = [
      (value, false),
      (value + [0x0A], false),
      (value + [0x0A, 0x20, 0x0A], false),
      (value + Array("\n{\"b\":1}\n".utf8), true),
      (Array("{\"b\":1}\n".utf8) + value + [0x0A], true),
      (Array("[\n".utf8) + value + Array("\n]".utf8), false),
    ]
    for (bytes, expected) in cases {
      let path = try InProcessRunner.temporaryFile(bytes, name: "long.json")
      var reader = try #require(try? ChunkReader(path: InputPath(path)))
      defer { reader.close() }
      #expect((try? reader.looksLikeNDJSON()) == expected, "\(bytes.count) bytes")
    }
  }
}
