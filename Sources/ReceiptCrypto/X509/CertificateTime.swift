/// Certificate times (RFC 5280 4.1.2.5): UTCTime `YYMMDDHHMMSSZ` (1950-2049) or GeneralizedTime
/// `YYYYMMDDHHMMSSZ`, nothing else (no fractions, no offsets), read as milliseconds since 1970.
public enum CertificateTime {
  /// The time an element holds, or an error saying why it is not a certificate time.
  public static func milliseconds(_ element: ASN1Element, in reader: ASN1Reader, _ name: String) throws(ASN1Error)
    -> Int64
  {
    let text = Array(reader.content(element))
    let digits: Int
    switch element.tag {
    case ASN1Tag.utcTime: digits = 12
    case ASN1Tag.generalizedTime: digits = 14
    default:
      throw ASN1Error(
        "expected \(name) (UTCTime or GeneralizedTime), found \(ASN1Tag.name(element.tag))", element.offset)
    }
    guard text.count == digits + 1, text[digits] == UInt8(ascii: "Z"),
      text[0..<digits].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
    else {
      throw ASN1Error("\(name) is not \(digits) digits and Z (RFC 5280 4.1.2.5)", element.offset)
    }
    func number(_ from: Int, _ count: Int) -> Int64 {
      var value: Int64 = 0
      for i in from..<(from + count) { value = value * 10 + Int64(text[i] - 0x30) }
      return value
    }
    let year: Int64
    let rest: Int
    if digits == 12 {
      let yy = number(0, 2)
      year = yy < 50 ? 2000 + yy : 1900 + yy
      rest = 2
    } else {
      year = number(0, 4)
      rest = 4
    }
    guard
      let ms = milliseconds(
        year: year, month: number(rest, 2), day: number(rest + 2, 2), hour: number(rest + 4, 2),
        minute: number(rest + 6, 2), second: number(rest + 8, 2))
    else { throw ASN1Error("\(name) is not a calendar date and time", element.offset) }
    return ms
  }

  /// Milliseconds since 1970 of a UTC civil time, or nil when a field is out of range.
  public static func milliseconds(
    year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64
  ) -> Int64? {
    guard year >= 0, year <= 9999, month >= 1, month <= 12, day >= 1, hour < 24, hour >= 0, minute >= 0,
      minute < 60, second >= 0, second < 60
    else { return nil }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    let monthDays: Int64
    switch month {
    case 2: monthDays = leap ? 29 : 28
    case 4, 6, 9, 11: monthDays = 30
    default: monthDays = 31
    }
    guard day <= monthDays else { return nil }
    return ((daysFromCivil(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000
  }

  /// Days since 1970-01-01 (H. Hinnant's days_from_civil).
  static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
    let y = m <= 2 ? y0 - 1 : y0
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

  /// `2023-09-24T02:50:33Z` (`.123` when there are milliseconds), for messages.
  public static func text(_ milliseconds: Int64) -> String {
    let ms = milliseconds.quotientAndRemainder(dividingBy: 1000)
    var seconds = ms.quotient
    var fraction = ms.remainder
    if fraction < 0 {
      seconds -= 1
      fraction += 1000
    }
    let dayAndSecond = seconds.quotientAndRemainder(dividingBy: 86_400)
    var days = dayAndSecond.quotient
    var secondOfDay = dayAndSecond.remainder
    if secondOfDay < 0 {
      days -= 1
      secondOfDay += 86_400
    }
    // H. Hinnant's civil_from_days.
    let z = days + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
    func pad(_ v: Int64, _ width: Int) -> String {
      let s = String(v)
      return String(repeating: "0", count: max(0, width - s.count)) + s
    }
    let time = "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
    return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(time)\(fraction == 0 ? "" : "." + pad(fraction, 3))Z"
  }
}
