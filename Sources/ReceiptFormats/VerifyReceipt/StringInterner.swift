import ReceiptModel

/// Hands out one shared String for values that repeat in every transaction (product ids,
/// original transaction ids, subscription groups), so a large receipt allocates and
/// validates each distinct value once instead of once per row.
///
/// A small direct-mapped cache: a miss replaces the slot, so unique values only cost the lookup.
struct StringInterner {
  private var slots = [String?](repeating: nil, count: 64)

  /// The String for `bytes`, which must be valid UTF-8 without escapes.
  mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    let slot = Int(truncatingIfNeeded: KeyMatcher.hash(bytes)) & (slots.count - 1)
    if var cached = slots[slot], cached.utf8.count == bytes.count {
      let same = cached.withUTF8 { c in
        guard let a = c.baseAddress, let b = bytes.baseAddress else { return c.count == bytes.count }
        return memcmp(a, b, bytes.count) == 0
      }
      if same { return cached }
    }
    let made = String(decoding: bytes, as: UTF8.self)
    slots[slot] = made
    return made
  }
}
