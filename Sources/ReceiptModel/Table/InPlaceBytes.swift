// Everything the model reads or compares in place, as bytes: ids interned (`KeyNumbering`) and found
// (`TransactionIDIndex`), bytes compared a word at a time, and dates read and written. With the table's builder
// (PurchaseTableBuilder.swift) and revenue's store (PurchaseLedger.swift), the only unsafe code of the model;
// each function has a plain twin in the tests that holds it to what it must give (InPlaceBytesTests,
// KeyNumberingTests, TimestampTests).

extension Array {
  /// `count` copies of `value`, as `init(repeating:count:)` makes them. That initialiser allocates through the
  /// standard library's unspecialised generic, which looks up the storage's metadata on every call (about 700
  /// instructions): a one-customer document's table makes a dozen small arrays. Growing a reserved array is
  /// specialised; past a few hundred elements the fill costs more than the lookup, so large ones go the usual way.
  @inlinable package init(filling value: Element, count: Int) {
    guard count <= 256 else {
      self.init(repeating: value, count: count)
      return
    }
    self.init()
    reserveCapacity(count)
    for _ in 0..<count { append(value) }
  }
}

/// Whether the `count` bytes at `a` and `b` are equal: eight at a time (the last word overlapping the one
/// before), inline, since what is compared (keys, ids, a JWS header) is a few words long and a call to `memcmp`
/// costs more than comparing them.
@inlinable @inline(__always)
package func bytesEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> Bool {
  guard count >= 8 else {
    var i = 0
    while i < count {
      if a[i] != b[i] { return false }
      i &+= 1
    }
    return true
  }
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  var i = 0
  while i &+ 8 < count {
    if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self) != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
      return false
    }
    i &+= 8
  }
  return ra.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
    == rb.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
}

/// Whether every byte is below 0x80, eight at a time. Two ASCII texts are equal (`==`, which joins canonically
/// equivalent texts) exactly when their bytes are, so an ASCII id can be hashed and compared by its bytes.
@inlinable @inline(__always)
package func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
  guard let base = bytes.baseAddress else { return true }
  let raw = UnsafeRawPointer(base)
  var bits: UInt64 = 0
  var i = 0
  while i &+ 8 <= bytes.count {
    bits |= raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
    i &+= 8
  }
  while i < bytes.count {
    bits |= UInt64(bytes[i])
    i &+= 1
  }
  return bits & 0x8080_8080_8080_8080 == 0
}

/// Whether every UTF-8 byte of `text` is below 0x80, a native string's read in place.
@inlinable
package func isASCII(_ text: String) -> Bool {
  text.utf8.withContiguousStorageIfAvailable { isASCII($0) } ?? text.utf8.allSatisfy { $0 < 0x80 }
}

/// Whether `text` may hold a line break: a byte that is one (10 to 13) or begins one (0xC2 of U+0085, 0xE2 of
/// U+2028 and U+2029), a native string's bytes read in place (`String.onOneLine` asks it of every message; the
/// string's own `utf8.contains(where:)` cost some 35 instructions a byte).
package func mayHoldLineBreak(_ text: String) -> Bool {
  text.utf8.withContiguousStorageIfAvailable { $0.contains(where: isLineBreakByte) }
    ?? text.utf8.contains(where: isLineBreakByte)
}

/// A byte that is a line break or the lead byte of one (`mayHoldLineBreak`).
@inline(__always) package func isLineBreakByte(_ b: UInt8) -> Bool {
  b &- 0x0A < 4 || b == 0xC2 || b == 0xE2
}

/// Whether two strings hold the same UTF-8 bytes, compared in place: a shortcut before a lookup that compares
/// them as `==` does (`==` on two native strings of the same bytes that are not one object goes through Unicode
/// comparison, several times the cost). Different bytes may still be equal strings: the caller then looks up.
package func sameBytes(_ a: String, _ b: String) -> Bool {
  let same = a.utf8.withContiguousStorageIfAvailable { x in
    b.utf8.withContiguousStorageIfAvailable { y -> Bool in
      guard x.count == y.count else { return false }
      guard let p = x.baseAddress, let q = y.baseAddress, p != q else { return true }
      return bytesEqual(p, q, count: x.count)
    }
  }
  return same.flatMap { $0 } ?? false
}

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
    slots = [Slot](filling: Slot(key: 0, row: 0), count: size)
    for s in old where s.row != 0 {
      var slot = Self.slot(s.key, size)
      while slots[slot].row != 0 { slot = (slot + 1) & (size - 1) }
      slots[slot] = s
    }
  }
}

/// Numbers text keys densely (0, 1, 2, … in order of first appearance), so that indexes keyed by them are
/// arrays. Apple's ids are decimal digits: those go through `TransactionIDIndex` (no String hashing); any other
/// key is found by a hash of its bytes (eight at a time) in a table of its own, its bytes compared (a word at a
/// time, with a copy kept beside the table) only on a matching hash, instead of hashing the String for a
/// dictionary.
public struct KeyNumbering: Sendable {
  /// A key that is not decimal digits: its hash and its number + 1 (0 = empty slot).
  private struct Slot {
    var hash: UInt64
    var number: Int
  }

  private var numeric = TransactionIDIndex()
  private var slots: [Slot] = []
  /// The keys that are not decimal digits: where each one's bytes are in `bytes`, and its number.
  private var other: [(start: Int, count: Int, number: Int)] = []
  /// The bytes of every key in `other`, one after another: compared in place, a word at a time.
  private var bytes: [UInt8] = []
  /// How many keys are numbered.
  public private(set) var count = 0

  public init() {}

  /// The number of `key`, a new one when it is new.
  public mutating func number(of key: String) -> Int {
    // In place for native strings (all decoded ones); `withUTF8` on a copy would retain and release it.
    if let number = key.utf8.withContiguousStorageIfAvailable({ number(of: $0) }) { return number }
    var copy = key
    return copy.withUTF8 { number(of: $0) }
  }

  private mutating func number(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
    if let value = TransactionIDIndex.numericKey(bytes) { return number(ofNumericKey: value) }
    let number = otherNumber(of: bytes, hash: Self.hash(bytes))
    if number == count { count += 1 }
    return number
  }

  /// The number of the key whose text is the decimal digits of `value` (`TransactionIDIndex.numericKey`).
  package mutating func number(ofNumericKey value: UInt64) -> Int {
    let number = numeric.position(ofNumericKey: value, inserting: count) ?? count
    if number == count { count += 1 }
    return number
  }

  /// The number of a key that is not decimal digits, `count` after recording it when it is new.
  private mutating func otherNumber(of key: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int {
    if (other.count + 1) * 2 > slots.count { rehash(max(16, slots.count * 2)) }
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot].number != 0 {
      if slots[slot].hash == hash {
        let entry = other[slots[slot].number - 1]
        if entry.count == key.count, Self.equal(key, bytes, at: entry.start) { return entry.number }
      }
      slot = (slot + 1) & mask
    }
    other.append((bytes.count, key.count, count))
    bytes.append(contentsOf: key)
    slots[slot] = Slot(hash: hash, number: other.count)
    return count
  }

  /// Whether `key` is the bytes of `all` from `start` on (`all` holds `key.count` of them there).
  private static func equal(_ key: UnsafeBufferPointer<UInt8>, _ all: [UInt8], at start: Int) -> Bool {
    all.withUnsafeBufferPointer { all in
      guard let a = key.baseAddress, let b = all.baseAddress.map({ $0 + start }) else { return key.isEmpty }
      return bytesEqual(a, b, count: key.count)
    }
  }

  private mutating func rehash(_ size: Int) {
    let old = slots
    slots = [Slot](filling: Slot(hash: 0, number: 0), count: size)
    for s in old where s.number != 0 {
      var slot = Int(truncatingIfNeeded: s.hash) & (size - 1)
      while slots[slot].number != 0 { slot = (slot + 1) & (size - 1) }
      slots[slot] = s
    }
  }

  /// A hash of `bytes`, eight at a time (multiply and shift: the low bits, which pick the slot, depend on
  /// every byte).
  package static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var h = UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15
    guard let base = bytes.baseAddress else { return h }
    let raw = UnsafeRawPointer(base)
    var i = 0
    while i + 8 <= bytes.count {
      h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0x100_0000_01B3
      h ^= h >> 29
      i += 8
    }
    var tail: UInt64 = 0
    if i < bytes.count, bytes.count >= 8 {
      // The last eight bytes, overlapping the words before: one load instead of a byte at a time.
      tail = raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
    } else {
      while i < bytes.count {
        tail = tail << 8 | UInt64(bytes[i])
        i += 1
      }
    }
    h = (h ^ tail) &* 0x9E37_79B9_7F4A_7C15
    return h ^ (h >> 32)
  }
}

extension Timestamp {
  /// `2024-06-15T00:00:00Z`, or with `.123` when the milliseconds are not zero.
  public var iso8601: String {
    guard milliseconds >= 0, milliseconds <= Timestamp.maximumMilliseconds else { return iso8601Composed }
    // Written into one buffer: renderers print several dates per transaction.
    return String(unsafeUninitializedCapacity: 24) { out in
      guard let base = out.baseAddress else { return 0 }
      return writeISO8601(to: base) ?? 0
    }
  }

  /// Writes `iso8601`'s bytes at `out`, which has room for 24, and returns how many it wrote; nil outside
  /// 1970...9999 (`iso8601Composed` spells those). The one writer of the text, for strings and byte output alike.
  /// - Parameter out: Where the bytes go.
  /// - Returns: The count written (20 or 24), or nil when the time is out of that range.
  public func writeISO8601(to out: UnsafeMutablePointer<UInt8>) -> Int? {
    guard milliseconds >= 0, milliseconds <= Timestamp.maximumMilliseconds else { return nil }
    let (days, msOfDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
    let (y, m, d) = Timestamp.civil(fromDays: days)
    let seconds = msOfDay / 1000
    let ms = msOfDay % 1000
    var i = 0
    func put(_ v: Int64, _ width: Int) {
      var v = v
      var k = width
      while k > 0 {
        k -= 1
        out[i + k] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
        v /= 10
      }
      i += width
    }
    func put(_ c: Unicode.Scalar) {
      out[i] = UInt8(ascii: c)
      i += 1
    }
    put(y, 4)
    put("-")
    put(m, 2)
    put("-")
    put(d, 2)
    put("T")
    put(seconds / 3600, 2)
    put(":")
    put(seconds / 60 % 60, 2)
    put(":")
    put(seconds % 60, 2)
    if ms != 0 {
      put(".")
      put(ms, 3)
    }
    put("Z")
    return i
  }

  /// Parses Apple's `2020-07-23 19:32:51 Etc/GMT` (also `GMT`/`UTC`) and ISO 8601 `2020-07-23T19:32:51Z`,
  /// `2020-07-23T19:32:51.250Z`, `2020-07-23T19:32:51+01:00` and a bare date `2020-07-23` (midnight UTC).
  public static func parse(formatted text: String) -> Timestamp? {
    var text = text
    return text.withUTF8 { parse(formatted: $0) }
  }

  /// `parse(formatted:)` over UTF-8 bytes, so the decoder need not build a String per date.
  public static func parse(formatted b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    if let t = parseAppleUTC(b) { return t }
    return parseAnyFormatted(b)
  }

  /// Apple's own spelling, `YYYY-MM-DD HH:MM:SS Etc/GMT` (three dates in every verifyReceipt row), read at fixed
  /// places; nil for any other text, which `parseAnyFormatted` reads (it gives the same for this spelling:
  /// `TimestampTests.appleDatesReadAtFixedPlacesAsTheGeneralReaderReadsThem`).
  package static func parseAppleUTC(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    appleUTCFields(b)?.timestamp
  }

  /// A date in Apple's spelling checked and its fields read (`appleUTCFields`), the time not yet worked out:
  /// a row's formatted date is most often not used, its `_ms` twin winning.
  package struct AppleUTCFields: Sendable, Equatable {
    /// Year, month, day, hour, minute and second, from the high bits down: 16 bits for the year, 8 for each other.
    let packed: UInt64

    /// The time the fields name (`parseAppleUTC`'s answer). Every field was checked, so it lies in 1970...9999.
    package var timestamp: Timestamp {
      let year = packed >> 40
      let month = (packed >> 32) & 0xFF
      let day = (packed >> 24) & 0xFF
      let hour = (packed >> 16) & 0xFF
      let minute = (packed >> 8) & 0xFF
      let second = packed & 0xFF
      // `days(year:month:day:)` in unsigned arithmetic: the year is at least 1969 once March starts it.
      let y = month <= 2 ? year &- 1 : year
      let era = y / 400
      let yoe = y &- era &* 400
      let doy = (153 &* (month > 2 ? month &- 3 : month &+ 9) &+ 2) / 5 &+ day &- 1
      let doe = yoe &* 365 &+ yoe / 4 &- yoe / 100 &+ doy
      let days = era &* 146_097 &+ doe &- 719_468
      let ms = ((days &* 24 &+ hour) &* 60 &+ minute) &* 60_000 &+ second &* 1000
      return Timestamp(unchecked: Int64(truncatingIfNeeded: ms))
    }
  }

  /// `parseAppleUTC`'s check and fields, without working out the time (`AppleUTCFields.timestamp` does).
  @inline(__always)
  package static func appleUTCFields(_ b: UnsafeBufferPointer<UInt8>) -> AppleUTCFields? {
    guard b.count == 27, let p = b.baseAddress else { return nil }
    // Three little-endian words hold the digits and separators (byte i of a word is bits 8i...8i+7):
    // "YYYY-MM-", "DD HH:MM", ":SS Etc/"; the last eight bytes are " Etc/GMT".
    let raw = UnsafeRawPointer(p)
    let w0 = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
    let w1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    let w2 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    let zone = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 19, as: UInt64.self))
    guard zone == 0x544D_472F_6374_4520,  // " Etc/GMT"
      w0 & ~digits0 == separators0, w1 & ~digits1 == separators1, w2 & 0xFF == 0x3A,
      let d0 = digitValues(w0, digits0), let d1 = digitValues(w1, digits1), let d2 = digitValues(w2, digits2)
    else { return nil }
    // Each pair of digits at bytes k, k + 1 made one value at byte k: ten times each byte plus the byte above
    // (at most 99: nothing carries into the next byte).
    let p0 = d0 &* 10 &+ (d0 >> 8)
    let p1 = d1 &* 10 &+ (d1 >> 8)
    let p2 = d2 &* 10 &+ (d2 >> 8)
    let year = (p0 & 0xFF) &* 100 &+ ((p0 >> 16) & 0xFF)
    let month = (p0 >> 40) & 0xFF
    let day = p1 & 0xFF
    let hour = (p1 >> 24) & 0xFF
    let minute = (p1 >> 48) & 0xFF
    let second = (p2 >> 8) & 0xFF
    guard year >= 1970, month >= 1, month <= 12, day >= 1, hour <= 23, minute <= 59, second <= 59 else { return nil }
    // Days in a common year's month less 28, four bits each from January's at bit 4.
    if day > 28 &+ (0x3_2323_3232_3030 >> (month &* 4)) & 0xF {
      let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
      guard month == 2, day == 29, leap else { return nil }
    }
    return AppleUTCFields(
      packed: year << 40 | month << 32 | day << 24 | hour << 16 | minute << 8 | second)
  }

  // Digit bytes of the three words, and what the others hold.
  private static var digits0: UInt64 { 0x00FF_FF00_FFFF_FFFF }
  private static var separators0: UInt64 { 0x2D00_002D_0000_0000 }
  private static var digits1: UInt64 { 0xFFFF_00FF_FF00_FFFF }
  private static var separators1: UInt64 { 0x0000_3A00_0020_0000 }
  private static var digits2: UInt64 { 0x0000_0000_00FF_FF00 }

  /// The values of `word`'s digit bytes (`mask`) in place, when each is an ASCII digit; else nil.
  @inline(__always)
  private static func digitValues(_ word: UInt64, _ mask: UInt64) -> UInt64? {
    let highNibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0 & mask
    let lowNibbles: UInt64 = 0x0F0F_0F0F_0F0F_0F0F & mask
    guard word & highNibbles == 0x3030_3030_3030_3030 & mask else { return nil }
    let values = word & lowNibbles
    // A value above 9 carries into its byte's fifth bit when 6 is added (no carry leaves a byte).
    guard (values &+ 0x0606_0606_0606_0606 & mask) & 0x1010_1010_1010_1010 == 0 else { return nil }
    return values
  }

  /// Every spelling `parse(formatted:)` reads.
  static func parseAnyFormatted(_ b: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    // At most four digits, so the arithmetic cannot overflow.
    func num(_ from: Int, _ count: Int) -> Int64? {
      guard from + count <= b.count else { return nil }
      var v: Int64 = 0
      var i = from
      while i < from &+ count {
        let digit = b[i] &- 0x30
        guard digit < 10 else { return nil }
        v = v &* 10 &+ Int64(digit)
        i &+= 1
      }
      return v
    }
    guard b.count >= 10, let y = num(0, 4), b[4] == 0x2D, let mo = num(5, 2), b[7] == 0x2D, let d = num(8, 2) else {
      return nil
    }
    if b.count == 10 { return Timestamp(year: y, month: mo, day: d) }
    guard b.count >= 19, b[10] == 0x20 || b[10] == 0x54, let h = num(11, 2), b[13] == 0x3A, let mi = num(14, 2),
      b[16] == 0x3A, let s = num(17, 2)
    else { return nil }
    var i = 19
    var ms: Int64 = 0
    if i < b.count, b[i] == 0x2E {
      i += 1
      var digits = 0
      while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
        if digits < 3 { ms = ms * 10 + Int64(b[i] - 0x30) }
        digits += 1
        i += 1
      }
      guard digits > 0 else { return nil }
      for _ in digits..<max(digits, 3) { ms *= 10 }
    }
    guard let base = Timestamp(year: y, month: mo, day: d, hour: h, minute: mi, second: s, millisecond: ms) else {
      return nil
    }
    let zone = UnsafeBufferPointer(rebasing: b[i...])
    if isUTC(zone) { return base }
    // ±HH:MM or ±HHMM
    guard zone.count == 6 || zone.count == 5, zone[0] == 0x2B || zone[0] == 0x2D else { return nil }
    let hh = num(i + 1, 2)
    let mm = zone.count == 6 ? (zone[3] == 0x3A ? num(i + 4, 2) : nil) : num(i + 3, 2)
    guard let hh, let mm, hh < 24, mm < 60 else { return nil }
    let offset = (hh * 60 + mm) * 60_000
    return Timestamp(milliseconds: zone[0] == 0x2B ? base.milliseconds - offset : base.milliseconds + offset)
  }

  /// `Z`, ` Etc/GMT`, ` GMT`, ` UTC` or ` Etc/UTC`: the zones Apple and ISO 8601 write for UTC.
  private static func isUTC(_ zone: UnsafeBufferPointer<UInt8>) -> Bool {
    func equals(_ name: StaticString) -> Bool {
      guard zone.count == name.utf8CodeUnitCount, let z = zone.baseAddress else { return false }
      return bytesEqual(z, name.utf8Start, count: zone.count)
    }
    switch zone.count {
    case 1: return equals("Z")
    case 4: return equals(" GMT") || equals(" UTC")
    case 8: return equals(" Etc/GMT") || equals(" Etc/UTC")
    default: return false
    }
  }

  /// Parses a string of decimal digits as milliseconds; rejects signs, spaces, exponents and out-of-range values.
  /// Inlinable, so that decoders in other modules get it specialised for their byte buffers (the hot path).
  @inlinable
  public static func parse(milliseconds bytes: some Collection<UInt8>) -> Timestamp? {
    Array(bytes).withUnsafeBufferPointer { parse(milliseconds: $0) }
  }

  /// The same for bytes in place: the decoder's hot path, not generic, so it is never called through
  /// witness tables from another module.
  public static func parse(milliseconds bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    guard let base = bytes.baseAddress, !bytes.isEmpty, bytes.count <= 16 else { return nil }
    // Apple's are 13 digits: the first eight checked and combined at once (`TransactionIDIndex.eightDigits`), the
    // rest one by one. At most 16 digits, so the value fits (10^16 < 2^63) and no step overflows.
    var v: UInt64 = 0
    var i = 0
    if bytes.count >= 8 {
      let word = UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(as: UInt64.self))
      guard let eight = TransactionIDIndex.eightDigits(word) else { return nil }
      v = eight
      i = 8
    }
    while i < bytes.count {
      let digit = base[i] &- 0x30
      guard digit < 10 else { return nil }
      v = v &* 10 &+ UInt64(digit)
      i += 1
    }
    return Timestamp(milliseconds: Int64(v))
  }

  /// `parse(milliseconds:)` one digit at a time, as it read before the eight-digit step; tests compare the two.
  package static func parseDigitByDigit(milliseconds bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
    var v: Int64 = 0
    for c in bytes {
      guard c >= 0x30, c <= 0x39 else { return nil }
      v = v * 10 + Int64(c - 0x30)
    }
    return Timestamp(milliseconds: v)
  }
}
