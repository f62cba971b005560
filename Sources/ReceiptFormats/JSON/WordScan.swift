/// Skips bytes eight at a time (SWAR): the one fast scan the readers, the writer and the dot search share (the
/// sniffs' quote walk goes sixteen at a time, by a vector compare). Each test flags the bytes it is meant for in
/// their high bit and may flag bytes above a flagged one, never miss one, so the lowest flagged byte is exact
/// (borrows only run upwards).
enum WordScan {
  static let ones: UInt64 = 0x0101_0101_0101_0101
  static let highs: UInt64 = 0x8080_8080_8080_8080

  /// Flags the bytes of `word` equal to `byte`.
  @inline(__always) static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
    let x = word ^ (ones &* UInt64(byte))
    return (x &- ones) & ~x & highs
  }

  /// Flags the bytes of `word` below `bound` (at most 0x80).
  @inline(__always) static func below(_ word: UInt64, _ bound: UInt8) -> UInt64 {
    (word &- ones &* UInt64(bound)) & ~word & highs
  }

  /// Flags the bytes of `word` that are not ASCII digits: below '0', or at ':' and above (0x3A + 0x46 is 0x80).
  @inline(__always) static func nonDigit(_ word: UInt64) -> UInt64 {
    below(word, 0x30) | ((word &+ ones &* 0x46) | word) & highs
  }

  /// Flags the bytes of `word` that are not ASCII.
  @inline(__always) static func nonASCII(_ word: UInt64) -> UInt64 { word & highs }

  /// Calls `visit` with the offset of each quote and backslash from `start` to `count` bytes from `base`, in order;
  /// stops when `visit` returns true, and says whether it did. The one walk of the format sniffs (`QuotedNameSet`).
  ///
  /// Sixteen bytes at a time by a vector compare: a block holding neither (most of a long value: base64, dates,
  /// ids) is passed over on one test, and one holding either gives their places as a 16-bit mask (`blockMask`).
  /// The last bytes one at a time. `WordScanTests` holds it to a byte-by-byte walk.
  @inline(__always) static func quotesAndBackslashes(
    _ base: UnsafePointer<UInt8>, from start: Int = 0, count n: Int, _ visit: (Int) -> Bool
  ) -> Bool {
    var w = start
    let quotes = SIMD16<UInt8>(repeating: 0x22)
    let backslashes = SIMD16<UInt8>(repeating: 0x5C)
    while n &- w >= 16 {
      let block = UnsafeRawPointer(base + w).loadUnaligned(as: SIMD16<UInt8>.self)
      let found = (block .== quotes) .| (block .== backslashes)
      if anyLane(found) {
        var hits = blockMask(found)
        while hits != 0 {
          let p = w &+ hits.trailingZeroBitCount
          hits &= hits &- 1
          if visit(p) { return true }
        }
      }
      w &+= 16
    }
    while w < n {
      if base[w] == 0x22 || base[w] == 0x5C, visit(w) { return true }
      w &+= 1
    }
    return false
  }

  /// Bit i set where lane i of `lanes` is: each half's lanes (all ones or zeros) kept at their own bit, then summed
  /// into its top byte by one multiplication (no two bits meet, so nothing carries).
  @inline(__always) static func blockMask(_ lanes: SIMDMask<SIMD16<Int8>>) -> UInt64 {
    let words = laneWords(lanes)
    let places: UInt64 = 0x8040_2010_0804_0201
    let low = ((UInt64(littleEndian: words[0]) & places) &* ones) &>> 56
    let high = ((UInt64(littleEndian: words[1]) & places) &* ones) &>> 56
    return low | high &<< 8
  }

  /// Whether any lane of `lanes` is set, from its two words: `any(_:)` goes through `SIMD.min()`, unspecialised (some
  /// 30 instructions a block).
  @inline(__always) static func anyLane(_ lanes: SIMDMask<SIMD16<Int8>>) -> Bool {
    let words = laneWords(lanes)
    return words[0] | words[1] != 0
  }

  /// The lanes of `lanes` as two words, each lane a byte of all ones or zeros (a mask's storage is its lanes).
  @inline(__always) static func laneWords(_ lanes: SIMDMask<SIMD16<Int8>>) -> SIMD2<UInt64> {
    unsafeBitCast(lanes, to: SIMD2<UInt64>.self)
  }

  /// The offset of the first block of sixteen bytes from `start` holding a byte a JSON string's scan stops at (a
  /// quote, a backslash, a control character, a byte that is not ASCII), or where fewer than sixteen are left: a
  /// long value (`latest_receipt`'s base64) is passed over sixteen bytes to one vector compare, and `skip` goes on
  /// from the offset returned.
  @inline(__always) static func skipPlainStringBlocks(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int
  {
    var i = start
    let quotes = SIMD16<Int8>(repeating: 0x22)
    let backslashes = SIMD16<Int8>(repeating: 0x5C)
    // Read as signed bytes, those below a space are the control characters and every byte that is not ASCII.
    let space = SIMD16<Int8>(repeating: 0x20)
    while end &- i >= 16 {
      let block = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<Int8>.self)
      if anyLane((block .== quotes) .| (block .== backslashes) .| (block .< space)) { return i }
      i &+= 16
    }
    return i
  }

  /// The offset of the first byte at or after `start` that `flags` marks, looking a word at a time; where no
  /// whole word before `end` holds one, the offset where fewer than eight bytes are left (the caller goes on
  /// byte by byte).
  @inline(__always) static func skip(
    _ base: UnsafePointer<UInt8>, from start: Int, to end: Int, flags: (UInt64) -> UInt64
  ) -> Int {
    var i = start
    while end &- i >= 8 {
      let hits = flags(UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)))
      if hits != 0 { return i &+ (hits.trailingZeroBitCount &>> 3) }
      i &+= 8
    }
    return i
  }
}
