/// Finds the row a `transaction_id` was first seen at, for merging `in_app` with `latest_receipt_info`.
///
/// Apple's ids are decimal digits, so those are keyed by their value in a flat open-addressing
/// table (no String hashing per row); any other id goes to a dictionary. Leading zeros keep an id
/// out of the numeric table, so "012" and "12" stay different ids, as they are different strings.
package struct TransactionIDIndex {
  /// A numeric id and its row + 1 (0 = empty slot), side by side so that a probe touches one cache line.
  private struct Slot {
    var key: UInt64
    var row: Int
  }

  private var slots: [Slot] = []
  private var count = 0
  private var other: [String: Int] = [:]

  package init() {}

  /// Makes room for `count` more ids without growing on the way (each growth rehashes every id).
  package mutating func reserve(_ count: Int) {
    var size = max(64, slots.count)
    while (self.count + count) * 2 > size { size *= 2 }
    if size > slots.count { rehash(size) }
  }

  /// The row already holding `id`, or nil after recording `id` at `row`.
  package mutating func position(of id: String, inserting row: Int) -> Int? {
    guard let key = Self.numericKey(id) else {
      if let found = other[id] { return found }
      other[id] = row
      return nil
    }
    return position(ofNumericKey: key, inserting: row)
  }

  /// The same for an id whose `numericKey` the caller already has, so it is not parsed twice.
  package mutating func position(ofNumericKey key: UInt64, inserting row: Int) -> Int? {
    if (count + 1) * 2 > slots.count { rehash(max(64, slots.count * 2)) }
    let mask = slots.count - 1
    var slot = Self.slot(key, slots.count)
    while slots[slot].row != 0 {
      if slots[slot].key == key { return slots[slot].row - 1 }
      slot = (slot + 1) & mask
    }
    slots[slot] = Slot(key: key, row: row + 1)
    count += 1
    return nil
  }

  /// Reads the slot each numeric key's probe starts at, all before any is used, so that their cache misses
  /// overlap; returns something made from them, for the caller to keep (reads whose value is unused are not made).
  package func touch(_ keys: [UInt64?]) -> UInt64 {
    guard !slots.isEmpty else { return 0 }
    var seen: UInt64 = 0
    slots.withUnsafeBufferPointer { table in
      for case let key? in keys { seen ^= table[Self.slot(key, table.count)].key }
    }
    return seen
  }

  /// The value of 1 to 19 decimal digits without a leading zero ("0" itself included).
  package static func numericKey(_ id: String) -> UInt64? {
    // In place for native strings (all decoded ones); `withUTF8` on a copy would retain and release it.
    if let found = id.utf8.withContiguousStorageIfAvailable(numericKey) { return found }
    var id = id
    return id.withUTF8(numericKey)
  }

  /// `numericKey` of an id's UTF-8 bytes.
  package static func numericKey(_ b: UnsafeBufferPointer<UInt8>) -> UInt64? {
    guard let base = b.baseAddress, !b.isEmpty, b.count <= 19, b[0] != 0x30 || b.count == 1 else { return nil }
    var v: UInt64 = 0
    var i = 0
    // Eight digits at a time (ids are 15 to 19): all eight checked and combined in three multiplications.
    while i + 8 <= b.count {
      let word = UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(fromByteOffset: i, as: UInt64.self))
      guard let eight = Self.eightDigits(word) else { return nil }
      v = v &* 100_000_000 &+ eight  // 19 digits fit in UInt64
      i += 8
    }
    while i < b.count {
      let c = b[i]
      guard c &- 0x30 < 10 else { return nil }
      v = v &* 10 &+ UInt64(c &- 0x30)
      i += 1
    }
    return v
  }

  /// The value of eight ASCII digits loaded as a little-endian word (the first digit in the low byte), nil
  /// when a byte is not '0'...'9'.
  package static func eightDigits(_ word: UInt64) -> UInt64? {
    // Every high nibble 3, and every low nibble at most 9 (adding 6 carries into the high nibble otherwise;
    // with high nibbles 3 no byte carries into the next).
    let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
    let threes: UInt64 = 0x3030_3030_3030_3030
    guard word & highNibbles == threes, (word &+ 0x0606_0606_0606_0606) & highNibbles == threes else { return nil }
    // Pairs, then fours, then the eight: no lane outgrows its width (99, 9,999, 99,999,999).
    var d = word & 0x0F0F_0F0F_0F0F_0F0F
    d = (d &* 10 &+ (d >> 8)) & 0x00FF_00FF_00FF_00FF
    d = (d &* 100 &+ (d >> 16)) & 0x0000_FFFF_0000_FFFF
    return (d &* 10_000 &+ (d >> 32)) & 0xFFFF_FFFF
  }

  private static func slot(_ key: UInt64, _ size: Int) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & (size - 1)
  }

  /// Moves every id into a table of `size` slots (a power of two).
  private mutating func rehash(_ size: Int) {
    let old = slots
    slots = [Slot](repeating: Slot(key: 0, row: 0), count: size)
    for s in old where s.row != 0 {
      var slot = Self.slot(s.key, size)
      while slots[slot].row != 0 { slot = (slot + 1) & (size - 1) }
      slots[slot] = s
    }
  }
}
