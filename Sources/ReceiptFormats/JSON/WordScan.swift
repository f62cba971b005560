/// Skips bytes eight at a time (SWAR): the one fast scan the readers, the writer and the name and dot
/// searches share. Each test flags the bytes it is meant for in their high bit and may flag bytes above a
/// flagged one, never miss one, so the lowest flagged byte is exact (borrows only run upwards).
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

  /// Calls `visit` with the offset of each quote and backslash in `count` bytes from `base`, in order, from a word's
  /// flags (a byte just above a flagged one may be passed too: `visit` looks at the byte); stops when `visit`
  /// returns true, and says whether it did. The one walk of the format sniffs (`QuotedNameSet`).
  @inline(__always) static func quotesAndBackslashes(
    _ base: UnsafePointer<UInt8>, count n: Int, _ visit: (Int) -> Bool
  ) -> Bool {
    var w = 0
    while n &- w >= 8 {
      var hits = UInt64(littleEndian: UnsafeRawPointer(base + w).loadUnaligned(as: UInt64.self))
      hits = equal(hits, 0x22) | equal(hits, 0x5C)
      while hits != 0 {
        let p = w &+ (hits.trailingZeroBitCount &>> 3)
        hits &= hits &- 1
        if visit(p) { return true }
      }
      w &+= 8
    }
    while w < n {
      if base[w] == 0x22 || base[w] == 0x5C, visit(w) { return true }
      w &+= 1
    }
    return false
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
