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
