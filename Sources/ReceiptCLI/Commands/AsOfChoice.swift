import ReceiptModel

/// What `--as-of` asked for, before a document is known.
package enum AsOfChoice: Hashable, Sendable {
  /// The moment the data describes when it names one, else now.
  case automatic
  case now
  case request
  case fixed(Timestamp)

  /// Parses `now`, `request`, an ISO 8601 date / date-time, epoch milliseconds in `plausibleMilliseconds`,
  /// or a number with an explicit unit (`1718409600s`, `1718409600000ms`). Anything else is a usage
  /// error that shows the accepted forms: a bare number outside the range is most likely seconds or a
  /// date without dashes, and reading it as milliseconds would evaluate in 1970.
  /// - Parameters:
  ///   - text: the option's value; nil when it was not given.
  ///   - option: the option's name for the message (`as-of`, `from`, `to`).
  ///   - allowsRequest: whether `request` (the receipt's own request date) makes sense for the option.
  /// - Returns: the choice; `.automatic` when not given.
  /// - Throws: a usage error showing the accepted forms.
  package static func parse(_ text: String?, option: String = "as-of", allowsRequest: Bool = true)
    throws(ReceiptToolError) -> AsOfChoice
  {
    guard let text else { return .automatic }
    switch text {
    case "now": return .now
    case "request" where allowsRequest: return .request
    default:
      if let t = Timestamp.parse(formatted: text) { return .fixed(t) }
      if let t = epoch(text) { return .fixed(t) }
      var hint = ""
      if let bare = Timestamp.parse(milliseconds: Array(text.utf8)) {
        let ms = bare.milliseconds
        if (1_000_000_000...9_999_999_999).contains(ms) {
          hint = " \(text) looks like epoch seconds: write \(text)s."
        } else if text.utf8.count == 8, let day = Timestamp.parse(formatted: dashed(text)) {
          hint = " \(text) looks like a date: write \(day.date)."
        } else {
          hint = " As epoch milliseconds it is outside 2008-2100: write \(text)ms if that is meant."
        }
      }
      throw .usage(
        "The value '\(text)' is invalid for '--\(option) <time>'.\(hint) Please provide \(acceptedForms(allowsRequest)).",
        command: nil)
    }
  }

  /// Bare epoch milliseconds are read only between 2008-01-01 (before the App Store) and 2100-01-01.
  package static let plausibleMilliseconds: ClosedRange<Int64> = 1_199_145_600_000...4_102_444_800_000

  /// The forms a time option accepts, for usage errors.
  static func acceptedForms(_ allowsRequest: Bool) -> String {
    "an ISO 8601 date or date-time (2024-06-15, 2024-06-15T12:00:00Z), epoch milliseconds from 2008 to 2100 (1718409600000),"
      + " epoch seconds or milliseconds with a unit (1718409600s, 1718409600000ms)"
      + (allowsRequest ? ", 'now' or 'request'" : " or 'now'")
  }

  /// `1718409600s`, `1718409600000ms`, or bare milliseconds within `plausibleMilliseconds`.
  static func epoch(_ text: String) -> Timestamp? {
    if text.hasSuffix("ms") { return Timestamp.parse(milliseconds: Array(text.utf8.dropLast(2))) }
    if text.hasSuffix("s") {
      guard let seconds = Timestamp.parse(milliseconds: Array(text.utf8.dropLast())) else { return nil }
      let (ms, overflow) = seconds.milliseconds.multipliedReportingOverflow(by: 1000)
      return overflow ? nil : Timestamp(milliseconds: ms)
    }
    guard let t = Timestamp.parse(milliseconds: Array(text.utf8)), plausibleMilliseconds.contains(t.milliseconds)
    else { return nil }
    return t
  }

  /// `20240615` as `2024-06-15`.
  private static func dashed(_ text: String) -> String {
    let c = Array(text)
    guard c.count == 8 else { return text }
    return String(c[0..<4]) + "-" + String(c[4..<6]) + "-" + String(c[6..<8])
  }

  /// The time for one document; `now` is the clock, passed in so tests can fix it.
  package func resolve(moment: DataMoment?, now: Timestamp) throws(ReceiptError) -> EvaluationTime {
    switch self {
    case .fixed(let t): return EvaluationTime(time: t, source: .given)
    case .now: return EvaluationTime(time: now, source: .now)
    case .request:
      guard let moment else {
        throw .data(source: nil, message: "--as-of request: the receipt has no request_date; give a time or 'now'")
      }
      return EvaluationTime(time: moment.time, source: .data(moment))
    case .automatic:
      if let moment { return EvaluationTime(time: moment.time, source: .data(moment)) }
      return EvaluationTime(time: now, source: .now)
    }
  }
}
