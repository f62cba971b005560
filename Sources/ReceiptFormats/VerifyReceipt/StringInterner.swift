import ReceiptModel

/// Hands out one shared String for values that repeat in every transaction (product ids,
/// original transaction ids, subscription groups), so a large receipt allocates and
/// validates each distinct value once instead of once per row.
///
/// An open-addressing table by a hash of every byte, which keeps each value once made: a direct-mapped cache
/// (what it was) evicted a value at every collision, and product ids that differ only in their middle
/// (`com.example.p126.monthly`) all fell in one slot, so a receipt of 400 products made a String per row. It
/// starts with no table (a small document makes few Strings), makes one of 8 slots at its first String, and
/// doubles it whenever more than half is used, up to `largestSize`; past that, values not held are made each
/// time and not kept. Its first two values are held beside the table, which is made only at a third (and then
/// holds them too): a one-transaction body holds a product and a group in one interner and a chain in the other,
/// and a table made and freed for them cost about 1,600 instructions a document.
struct StringInterner {
  /// A held value: its byte count (-1: an empty slot), its first and last eight bytes (zero-padded when fewer),
  /// which are all of it up to 16 bytes, and its String.
  private struct Slot {
    var count = -1
    var head: UInt64 = 0
    var tail: UInt64 = 0
    var string = ""

    /// Whether this holds exactly `bytes`, whose ends are `head` and `tail`.
    @inline(__always)
    func holds(_ bytes: UnsafeBufferPointer<UInt8>, head: UInt64, tail: UInt64) -> Bool {
      count == bytes.count && self.head == head && self.tail == tail
        && (count <= 16 || StringInterner.same(string, bytes))
    }
  }

  /// Small: a batch line makes its tables anew, and each slot is made and destroyed; a one-transaction body holds
  /// a product and a group in one table, a chain in the other (8 rather than 16: 2,000 such bodies 520.7 M to
  /// 519.3 M instructions).
  static let firstSize = 8
  /// 8,192 slots hold 4,096 values: the chain ids of a receipt of 2,000 chains, twice over.
  static let largestSize = 8_192

  private var slots: [Slot] = []
  /// The first two values, while `slots` is empty.
  private var first = Slot()
  private var second = Slot()
  private var held = 0

  /// How many distinct values are held (for tests).
  var heldCount: Int { held }
  /// How many slots the table has (for tests).
  var size: Int { slots.count }

  /// The String for `bytes`, which must be valid UTF-8 without escapes: the one held when its bytes are
  /// `bytes`, byte for byte, else a new one (kept while there is room).
  mutating func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    let n = bytes.count
    let (head, tail) = Self.ends(bytes)
    if slots.isEmpty {
      if first.holds(bytes, head: head, tail: tail) { return first.string }
      if second.holds(bytes, head: head, tail: tail) { return second.string }
      let made = String(decoding: bytes, as: UTF8.self)
      if first.count < 0 {
        first = Slot(count: n, head: head, tail: tail, string: made)
      } else if second.count < 0 {
        second = Slot(count: n, head: head, tail: tail, string: made)
      } else {
        grow()
        slots[emptySlot(for: Self.hash(bytes, head: head, tail: tail))] = Slot(
          count: n, head: head, tail: tail, string: made)
      }
      held &+= 1
      return made
    }
    let hash = Self.hash(bytes, head: head, tail: tail)
    let mask = slots.count &- 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot].count >= 0 {
      if slots[slot].holds(bytes, head: head, tail: tail) { return slots[slot].string }
      slot = (slot &+ 1) & mask
    }
    let made = String(decoding: bytes, as: UTF8.self)
    if (held &+ 1) &* 2 > slots.count {
      guard slots.count < Self.largestSize else { return made }
      grow()
      slot = emptySlot(for: hash)
    }
    slots[slot] = Slot(count: n, head: head, tail: tail, string: made)
    held &+= 1
    return made
  }

  /// Twice the slots (the first `firstSize`, holding `first` and `second`), every value moved to its place in them.
  private mutating func grow() {
    let old = slots
    // Not `init(repeating:count:)`, which allocates through the standard library's unspecialised generic.
    slots = Array(filling: Slot(), count: max(Self.firstSize, old.count &* 2))
    for entry in old where entry.count >= 0 { place(entry) }
    if old.isEmpty {
      place(first)
      place(second)
      first = Slot()
      second = Slot()
    }
  }

  /// Puts a held value in an empty slot of the table.
  private mutating func place(_ entry: Slot) {
    guard entry.count >= 0 else { return }
    let hash = entry.string.utf8.withContiguousStorageIfAvailable {
      Self.hash($0, head: entry.head, tail: entry.tail)
    }
    slots[emptySlot(for: hash ?? 0)] = entry
  }

  /// The first empty slot from `hash`'s own (the table has one: it is at most half full).
  private func emptySlot(for hash: UInt64) -> Int {
    let mask = slots.count &- 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot].count >= 0 { slot = (slot &+ 1) & mask }
    return slot
  }

  /// The first and last eight bytes as little-endian words (overlapping under 16 bytes); under eight, the bytes
  /// in the first and nothing in the last.
  @inline(__always)
  private static func ends(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
    let n = bytes.count
    guard let base = bytes.baseAddress else { return (0, 0) }
    let raw = UnsafeRawPointer(base)
    guard n >= 8 else {
      var word: UInt64 = 0
      var i = 0
      while i < n {
        word |= UInt64(base[i]) << UInt64(i &* 8)
        i &+= 1
      }
      return (word, 0)
    }
    return (
      UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)),
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
    )
  }

  /// Whether `string`'s UTF-8 is exactly `bytes`.
  private static func same(_ string: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    string.utf8.withContiguousStorageIfAvailable { held in
      guard held.count == bytes.count else { return false }
      guard let a = held.baseAddress, let b = bytes.baseAddress else { return true }
      return bytesEqual(a, b, count: bytes.count)
    } ?? string.utf8.elementsEqual(bytes)
  }

  /// A hash of every byte: the count and the two end words, and each word between them (ids differ anywhere,
  /// product ids often only in their middle).
  @inline(__always)
  static func hash(_ bytes: UnsafeBufferPointer<UInt8>, head: UInt64, tail: UInt64) -> UInt64 {
    func mix(_ h: UInt64, _ word: UInt64) -> UInt64 { (h ^ word) &* 0xBF58_476D_1CE4_E5B9 }
    var h = mix(UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15, head)
    h = mix(h, tail)
    if bytes.count > 16, let base = bytes.baseAddress {
      let raw = UnsafeRawPointer(base)
      var i = 8
      while i < bytes.count &- 8 {
        h = mix(h, UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
        i &+= 8
      }
    }
    // MurmurHash3's finaliser: a difference in any bit reaches the low bits a slot is taken from.
    h = (h ^ (h >> 33)) &* 0xFF51_AFD7_ED55_8CCD
    h = (h ^ (h >> 33)) &* 0xC4CE_B9FE_1A85_EC53
    return h ^ (h >> 33)
  }
}
