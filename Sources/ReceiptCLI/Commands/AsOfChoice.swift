import ReceiptModel

/// What `--as-of` asked for, before a document is known.
package enum AsOfChoice: Hashable, Sendable {
  /// The moment the data describes when it names one, else now.
  case automatic
  case now
  case request
  case fixed(Timestamp)

  /// Parses `now`, `request`, epoch milliseconds, or an ISO 8601 date / date-time.
  package static func parse(_ text: String?) throws(ReceiptToolError) -> AsOfChoice {
    guard let text else { return .automatic }
    switch text {
    case "now": return .now
    case "request": return .request
    default:
      if let t = Timestamp.parse(milliseconds: Array(text.utf8)) ?? Timestamp.parse(formatted: text) {
        return .fixed(t)
      }
      throw .usage(
        "The value '\(text)' is invalid for '--as-of <time>'. Please provide an ISO 8601 date or date-time (2024-06-15, 2024-06-15T12:00:00Z), epoch milliseconds, 'now' or 'request'.",
        command: nil)
    }
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
