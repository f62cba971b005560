import ReceiptModel

/// Hands out one shared String for values that repeat in every transaction (product ids,
/// original transaction ids, subscription groups), so a large receipt allocates and
/// validates each distinct value once instead of once per row.
///
/// A direct-mapped cache: a miss replaces the slot, so unique values only cost the lookup. It starts with no
/// table (a small document makes few Strings) and grows, emptied, from 64 to 1,024 slots once misses
/// outnumber its slots twice over (more distinct values than it holds: a receipt of 400 products).
struct StringInterner {
  private var slots: [String?] = []
  private var misses = 0

  /// The String for `bytes`, which must be valid UTF-8 without escapes.
  mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    // A hash of every byte, its slot from the high bits of a multiplication: `KeyMatcher.hash` reads only the
    // first and last eight bytes and its low bits miss the last ones, so `com.example.p0.monthly` and
    // `…p1.monthly`, or ids a few apart, shared a slot and kept replacing each other (60,000 Strings for five
    // products in 100,000 rows).
    let hash = Int(truncatingIfNeeded: (KeyNumbering.hash(bytes) &* 0x9E37_79B9_7F4A_7C15) >> 32)
    if !slots.isEmpty, var cached = slots[hash & (slots.count &- 1)], cached.utf8.count == bytes.count {
      let same = cached.withUTF8 { c in
        guard let a = c.baseAddress, let b = bytes.baseAddress else { return c.count == bytes.count }
        return memcmp(a, b, bytes.count) == 0
      }
      if same { return cached }
    }
    let made = String(decoding: bytes, as: UTF8.self)
    if let grown = InternerGrowth.size(slots.count, misses: &misses) {
      slots = [String?](repeating: nil, count: grown)
    }
    slots[hash & (slots.count &- 1)] = made
    return made
  }
}

/// When an interner's table is made or grows.
enum InternerGrowth {
  static let firstSize = 64
  static let largestSize = 4_096

  /// The new table size after one more miss with `size` slots (0: none yet), or nil to keep the table.
  static func size(_ size: Int, misses: inout Int) -> Int? {
    guard size > 0 else { return firstSize }
    guard size < largestSize else { return nil }
    misses &+= 1
    guard misses > 2 &* size else { return nil }
    misses = 0
    return min(size &* 16, largestSize)
  }
}
