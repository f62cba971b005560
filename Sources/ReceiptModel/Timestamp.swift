/// A point in time in whole milliseconds since 1970-01-01T00:00:00Z, the unit of Apple's `*_ms` fields.
///
/// Kept as an integer so that comparisons are exact; printed as ISO 8601 UTC.
public struct Timestamp: Comparable, Hashable, Sendable {
  /// Whole milliseconds since 1970-01-01T00:00:00Z.
  public var milliseconds: Int64

  /// 9999-12-31T23:59:59.999Z: later values are rejected rather than printed as five-digit years.
  public static let maximumMilliseconds: Int64 = 253_402_300_799_999

  /// A time from milliseconds since 1970, or nil outside 1970...9999.
  /// - Parameter milliseconds: Milliseconds since 1970-01-01T00:00:00Z.
  @inlinable
  public init?(milliseconds: Int64) {
    guard milliseconds >= 0, milliseconds <= Timestamp.maximumMilliseconds else { return nil }
    self.milliseconds = milliseconds
  }

  /// Whether one time is earlier than another.
  /// - Parameters:
  ///   - a: One time.
  ///   - b: The other.
  /// - Returns: True when `a` is earlier.
  public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

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

  /// `iso8601` built from parts, for times outside 1970...9999 (which no checked initialiser makes).
  var iso8601Composed: String {
    let (days, msOfDay) = milliseconds.quotientAndRemainder(dividingBy: 86_400_000)
    let (y, m, d) = Timestamp.civil(fromDays: days)
    let seconds = msOfDay / 1000
    let ms = msOfDay % 1000
    var s = "\(Timestamp.pad(y, 4))-\(Timestamp.pad(m, 2))-\(Timestamp.pad(d, 2))"
    s += "T\(Timestamp.pad(seconds / 3600, 2)):\(Timestamp.pad(seconds / 60 % 60, 2)):\(Timestamp.pad(seconds % 60, 2))"
    if ms != 0 { s += "." + Timestamp.pad(ms, 3) }
    return s + "Z"
  }

  /// `2024-06-15`.
  public var date: String { String(iso8601.prefix(10)) }

  /// `iso8601` cut to the whole second (`2024-06-15T12:00:00Z`), for the evaluation time in text a
  /// person reads: `--as-of now` carries the clock's milliseconds, which only JSON needs exactly.
  public var iso8601WholeSeconds: String {
    Timestamp(unchecked: milliseconds - milliseconds % 1000).iso8601
  }

  /// This time plus a number of days, or nil past the representable range.
  public func adding(days: Int64) -> Timestamp? {
    let (delta, o1) = days.multipliedReportingOverflow(by: 86_400_000)
    guard !o1 else { return nil }
    let (sum, o2) = milliseconds.addingReportingOverflow(delta)
    return o2 ? nil : Timestamp(milliseconds: sum)
  }

  package static func pad(_ v: Int64, _ width: Int) -> String {
    let s = String(v)
    return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
  }

  /// Howard Hinnant's days-to-civil algorithm (proleptic Gregorian), for non-negative day counts.
  package static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
    let z = z0 + 719_468
    let era = z / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  /// Days since 1970-01-01 of a civil date (inverse of `civil`).
  package static func days(year y0: Int64, month m: Int64, day d: Int64) -> Int64 {
    let y = m <= 2 ? y0 - 1 : y0
    let era = y / 400
    let yoe = y - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// Days in each month of a common year.
  private static let monthDays: [Int64] = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

  /// Builds a timestamp from calendar fields, validating each one.
  public init?(
    year: Int64, month: Int64, day: Int64, hour: Int64 = 0, minute: Int64 = 0, second: Int64 = 0, millisecond: Int64 = 0
  ) {
    guard (1970...9999).contains(year), (1...12).contains(month), (0...23).contains(hour),
      (0...59).contains(minute), (0...59).contains(second), (0...999).contains(millisecond)
    else { return nil }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    let maxDay = month == 2 && leap ? 29 : Timestamp.monthDays[Int(month - 1)]
    guard (1...maxDay).contains(day) else { return nil }
    let days = Timestamp.days(year: year, month: month, day: day)
    self.init(milliseconds: ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millisecond)
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

extension Timestamp {
  /// 1970-01-01T00:00:00Z.
  public static let epoch = Timestamp(unchecked: 0)

  /// For values already known to be in range (arithmetic on valid timestamps that cannot leave it).
  package init(unchecked milliseconds: Int64) { self.milliseconds = milliseconds }
}

extension Optional where Wrapped == Timestamp {
  /// ISO 8601 or a dash.
  public var display: String { self?.iso8601 ?? "-" }
}
