/// Finds the row a `transaction_id` was first seen at, for merging `in_app` with `latest_receipt_info`.
///
/// Apple's ids are decimal digits, so those are keyed by their value in a flat open-addressing
/// table (no String hashing per row); any other id goes to a dictionary. Leading zeros keep an id
/// out of the numeric table, so "012" and "12" stay different ids, as they are different strings.
package struct TransactionIDIndex {
  /// Numeric id and row + 1 (0 = empty slot).
  private var keys: [UInt64] = []
  private var rows: [Int] = []
  private var count = 0
  private var other: [String: Int] = [:]

  package init() {}

  /// The row already holding `id`, or nil after recording `id` at `row`.
  package mutating func position(of id: String, inserting row: Int) -> Int? {
    guard let key = Self.numericKey(id) else {
      if let found = other[id] { return found }
      other[id] = row
      return nil
    }
    if (count + 1) * 2 > keys.count { grow() }
    var slot = Self.slot(key, keys.count)
    while rows[slot] != 0 {
      if keys[slot] == key { return rows[slot] - 1 }
      slot = (slot + 1) & (keys.count - 1)
    }
    keys[slot] = key
    rows[slot] = row + 1
    count += 1
    return nil
  }

  /// The value of 1 to 19 decimal digits without a leading zero ("0" itself included).
  package static func numericKey(_ id: String) -> UInt64? {
    var id = id
    return id.withUTF8 { b -> UInt64? in
      guard !b.isEmpty, b.count <= 19, b[0] != 0x30 || b.count == 1 else { return nil }
      var v: UInt64 = 0
      for c in b {
        guard c &- 0x30 < 10 else { return nil }
        v = v &* 10 &+ UInt64(c &- 0x30)  // 19 digits fit in UInt64
      }
      return v
    }
  }

  private static func slot(_ key: UInt64, _ size: Int) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & (size - 1)
  }

  private mutating func grow() {
    let oldKeys = keys
    let oldRows = rows
    let size = max(64, keys.count * 2)
    keys = [UInt64](repeating: 0, count: size)
    rows = [Int](repeating: 0, count: size)
    for i in oldRows.indices where oldRows[i] != 0 {
      var slot = Self.slot(oldKeys[i], size)
      while rows[slot] != 0 { slot = (slot + 1) & (size - 1) }
      keys[slot] = oldKeys[i]
      rows[slot] = oldRows[i]
    }
  }
}
