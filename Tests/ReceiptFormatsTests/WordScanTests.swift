import ReceiptModelTestSupport
import Testing

@testable import ReceiptFormats

/// The eight-bytes-at-a-time scan stops where a byte-by-byte search finds the first byte it looks for, or where
/// fewer than eight bytes are left, for every test its callers give it.
@Suite struct WordScanTests {
  /// The callers' tests, each with the byte-by-byte predicate it stands for.
  static var scans: [(name: String, flags: (UInt64) -> UInt64, isFlagged: (UInt8) -> Bool)] {
    [
      (
        "JSON string",
        { WordScan.equal($0, 0x22) | WordScan.equal($0, 0x5C) | WordScan.below($0, 0x20) | WordScan.nonASCII($0) },
        { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 >= 0x80 }
      ),
      (
        "JSON writer",
        {
          WordScan.equal($0, 0x22) | WordScan.equal($0, 0x5C) | WordScan.equal($0, 0x7F) | WordScan.below($0, 0x20)
            | WordScan.nonASCII($0)
        }, { $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 < 0x20 || $0 >= 0x80 }
      ),
      ("quote", { WordScan.equal($0, 0x22) }, { $0 == 0x22 }),
      ("dot", { WordScan.equal($0, 0x2E) }, { $0 == 0x2E }),
      ("digits", { WordScan.nonDigit($0) }, { $0 < 0x30 || $0 > 0x39 }),
    ]
  }

  /// Random runs of letters with a few bytes of an alphabet put anywhere (a linear congruential generator).
  struct Letters {
    var state: UInt64

    mutating func next() -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33)
    }

    /// Fewer than `longest` letters, fewer than `specials` of them replaced by bytes of `alphabet`.
    mutating func bytes(upTo longest: Int, specials: Int, from alphabet: [UInt8]) -> [UInt8] {
      let count = next() % longest
      var bytes = (0..<count).map { _ in UInt8(ascii: "a") + UInt8(next() % 26) }
      for _ in 0..<(next() % specials) where count > 0 { bytes[next() % count] = alphabet[next() % alphabet.count] }
      return bytes
    }
  }

  /// Where `skip` must stop: the first flagged byte within the whole words from `start`, else the last word's end.
  static func expected(_ bytes: [UInt8], from start: Int, isFlagged: (UInt8) -> Bool) -> Int {
    let wordsEnd = start + (bytes.count - start) / 8 * 8
    return (start..<wordsEnd).first { isFlagged(bytes[$0]) } ?? wordsEnd
  }

  @Test func stopsWhereAByteByByteSearchStops() {
    // Bytes next to each flagged value (borrows from one byte into the next are the classic SWAR mistake).
    let alphabet: [UInt8] = [
      0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x2D, 0x2E, 0x2F, 0x41, 0x5B, 0x5C, 0x5D, 0x7E, 0x7F, 0x80, 0xC2, 0xFF,
    ]
    var random = Letters(state: 0x9E37_79B9_7F4A_7C15)
    func next() -> Int { random.next() }
    var checked = 0
    for _ in 0..<3_000 {
      // Mostly plain letters, so runs of clean words occur, with one or two special bytes anywhere.
      let bytes = random.bytes(upTo: 40, specials: 3, from: alphabet)
      let count = bytes.count
      let start = count == 0 ? 0 : next() % (count + 1)
      for scan in Self.scans {
        let found = bytes.withUnsafeBufferPointer { buffer -> Int in
          guard let base = buffer.baseAddress else { return start }
          return WordScan.skip(base, from: start, to: buffer.count, flags: scan.flags)
        }
        #expect(found == Self.expected(bytes, from: start, isFlagged: scan.isFlagged), "\(scan.name) \(bytes) \(start)")
        checked += 1
      }
    }
    #expect(checked == 15_000)
  }

  /// The sniffs' walk passes every quote and backslash, in order, and nothing else a caller looking at the byte
  /// keeps; it stops where its caller says, at any place of a word or past the last whole word.
  @Test func theQuoteAndBackslashWalkPassesEachInOrder() {
    let alphabet: [UInt8] = [0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x01, 0x7F, 0x80, 0xFF]
    var random = Letters(state: 0x2545_F491_4F6C_DD1D)
    func next() -> Int { random.next() }
    var passed = 0
    for _ in 0..<3_000 {
      let bytes = random.bytes(upTo: 40, specials: 6, from: alphabet)
      let count = bytes.count
      let expected = bytes.indices.filter { bytes[$0] == 0x22 || bytes[$0] == 0x5C }
      let stopAt = expected.isEmpty || next() % 2 == 0 ? nil : expected[next() % expected.count]
      var seen: [Int] = []
      let stopped = bytes.withUnsafeBufferPointer { buffer -> Bool in
        guard let base = buffer.baseAddress else { return false }
        return WordScan.quotesAndBackslashes(base, count: buffer.count) { p in
          if base[p] == 0x22 || base[p] == 0x5C { seen.append(p) }
          return p == stopAt
        }
      }
      #expect(seen == expected.filter { $0 <= (stopAt ?? count) }, "\(bytes) \(String(describing: stopAt))")
      #expect(stopped == (stopAt != nil), "\(bytes)")
      passed += seen.count
    }
    #expect(passed > 1_000)
  }

  /// The quote and backslash walk written plainly: each byte in turn (the reference).
  static func byteByByteQuotesAndBackslashes(_ bytes: [UInt8], _ visit: (Int) -> Bool) -> Bool {
    bytes.indices.contains { (bytes[$0] == 0x22 || bytes[$0] == 0x5C) && visit($0) }
  }

  /// The walk passes exactly the quotes and backslashes, in order, and stops where the byte-by-byte walk stops:
  /// among bytes next to theirs and their high-bit twins, in long runs without either so that whole blocks of
  /// sixteen are passed over, at every length to 100, stopping at none, at one and at the last.
  @Test func theQuoteAndBackslashWalkPassesWhatAByteByByteWalkPasses() {
    let alphabet: [UInt8] = [0x22, 0x5C, 0x23, 0x5D, 0x21, 0x5B, 0x00, 0x01, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
    var random = Letters(state: 0xD1B5_4A32_D192_ED03)
    func next() -> Int { random.next() }
    var compared = 0
    var passedOver = 0
    for round in 0..<4_000 {
      var bytes = random.bytes(upTo: 101, specials: round % 3 == 0 ? 2 : 12, from: alphabet)
      if round % 5 == 0, !bytes.isEmpty { bytes[bytes.count - 1] = alphabet[next() % 2] }
      let all = bytes.indices.filter { bytes[$0] == 0x22 || bytes[$0] == 0x5C }
      for stop in [nil] + (all.isEmpty ? [] : [all[next() % all.count], all[all.count - 1]]) {
        var expected: [Int] = []
        let expectedStop = Self.byteByByteQuotesAndBackslashes(bytes) { p in
          expected.append(p)
          return p == stop
        }
        var passed: [Int] = []
        let stopped = bytes.withUnsafeBufferPointer { buffer -> Bool in
          guard let base = buffer.baseAddress else { return false }
          return WordScan.quotesAndBackslashes(base, count: buffer.count) { p in
            passed.append(p)
            return p == stop
          }
        }
        #expect(passed == expected && stopped == expectedStop, "\(bytes) stopping at \(String(describing: stop))")
        compared += 1
      }
      // A block of sixteen from the start holding neither byte.
      if bytes.count >= 16, !bytes[..<16].contains(0x22), !bytes[..<16].contains(0x5C) { passedOver += 1 }
    }
    #expect(compared > 7_000)
    #expect(passedOver > 500)
  }

  /// The JSON string scan's blocks of sixteen stop at the block holding the first byte the string scan stops at,
  /// or where fewer than sixteen are left: every byte value at every place of two blocks, from every start.
  @Test func plainStringBlocksStopAtTheBlockOfTheFirstStop() {
    let isFlagged: (UInt8) -> Bool = { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 || $0 >= 0x80 }
    var checked = 0
    for value in 0...255 {
      for place in 0..<40 {
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 40)
        bytes[place] = UInt8(value)
        for start in [0, 1, 7, 15, 16, 23] {
          let found = bytes.withUnsafeBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress else { return -1 }
            return WordScan.skipPlainStringBlocks(base, from: start, to: buffer.count)
          }
          let blocksEnd = start + (bytes.count - start) / 16 * 16
          let first = (start..<blocksEnd).first { isFlagged(bytes[$0]) }
          let expected = first.map { start + ($0 - start) / 16 * 16 } ?? blocksEnd
          #expect(found == expected, "\(value) at \(place) from \(start)")
          checked += 1
        }
      }
    }
    #expect(checked == 256 * 40 * 6)
  }

  /// Each place of a block found alone, beside every other place, and all sixteen at once.
  @Test func blockMaskIsTheLanesFound() {
    for place in 0..<16 {
      for other in 0..<16 {
        var bytes = [UInt8](repeating: 0xA2, count: 16)
        bytes[place] = 0x22
        bytes[other] = 0x5C
        let mask = bytes.withUnsafeBufferPointer { buffer -> UInt64 in
          guard let base = buffer.baseAddress else { return 0 }
          let block = UnsafeRawPointer(base).loadUnaligned(as: SIMD16<UInt8>.self)
          return WordScan.blockMask((block .== SIMD16(repeating: 0x22)) .| (block .== SIMD16(repeating: 0x5C)))
        }
        #expect(mask == 1 << UInt64(place) | 1 << UInt64(other), "\(place) \(other)")
      }
    }
    let all = WordScan.blockMask(SIMDMask<SIMD16<Int8>>(repeating: true))
    #expect(all == 0xFFFF)
  }

  /// `anyLane` reads a mask's two words: it says what `any(_:)` says for no lane, each lane alone, and random masks.
  @Test func anyLaneIsAny() {
    var masks = [SIMDMask<SIMD16<Int8>>(repeating: false), SIMDMask<SIMD16<Int8>>(repeating: true)]
    for place in 0..<16 {
      var mask = SIMDMask<SIMD16<Int8>>(repeating: false)
      mask[place] = true
      masks.append(mask)
    }
    var random = SplitMix64(seed: 4_242)
    for _ in 0..<200 {
      var mask = SIMDMask<SIMD16<Int8>>(repeating: false)
      let bits = random.next()
      for place in 0..<16 where bits >> UInt64(place * 4) & 15 == 0 { mask[place] = true }
      masks.append(mask)
    }
    for mask in masks {
      #expect(WordScan.anyLane(mask) == any(mask), "\(mask)")
      #expect(WordScan.blockMask(mask).nonzeroBitCount == (0..<16).filter { mask[$0] }.count)
    }
  }

  @Test func everyByteValueAtEveryPlaceOfAWord() {
    for scan in Self.scans {
      for value in 0...255 {
        for place in 0..<8 {
          var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 16)
          bytes[place] = UInt8(value)
          let found = bytes.withUnsafeBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress else { return -1 }
            return WordScan.skip(base, from: 0, to: buffer.count, flags: scan.flags)
          }
          #expect(
            found == Self.expected(bytes, from: 0, isFlagged: scan.isFlagged), "\(scan.name) \(value) at \(place)")
        }
      }
    }
  }

  /// Among digits (the plain-string reads' ids and timestamps), every byte value at every place, alone and before
  /// each other value (a carry out of one byte must not hide the next from the byte-by-byte answer's place).
  @Test func nonDigitStopsAtTheFirstNonDigitAmongDigits() {
    let isFlagged: (UInt8) -> Bool = { $0 < 0x30 || $0 > 0x39 }
    for background in [UInt8(ascii: "0"), UInt8(ascii: "5"), UInt8(ascii: "9")] {
      for value in 0...255 {
        for other in [0x00, 0x2F, 0x30, 0x39, 0x3A, 0x7F, 0x80, 0xFF] {
          for place in 0..<8 {
            var bytes = [UInt8](repeating: background, count: 16)
            bytes[place] = UInt8(value)
            bytes[place + 1] = UInt8(other)
            let found = bytes.withUnsafeBufferPointer { buffer -> Int in
              guard let base = buffer.baseAddress else { return -1 }
              return WordScan.skip(base, from: 0, to: buffer.count) { WordScan.nonDigit($0) }
            }
            #expect(found == Self.expected(bytes, from: 0, isFlagged: isFlagged), "\(value) at \(place), \(other)")
          }
        }
      }
    }
  }
}
