#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The moment rules are evaluated at, and where it came from, so answers on fixture receipts never drift.
public struct EvaluationTime: Hashable, Sendable {
  public enum Source: String, Sendable {
    /// Given with `--as-of`.
    case option
    /// The receipt's `request_date`: the moment Apple answered.
    case requestDate = "request_date"
    /// The clock when receipt-tool ran.
    case now
  }

  public var time: Timestamp
  public var source: Source

  public init(time: Timestamp, source: Source) {
    self.time = time
    self.source = source
  }
}

/// What `--as-of` asked for, before a document is known.
public enum AsOfChoice: Hashable, Sendable {
  /// The receipt's request_date when it has one, else now.
  case automatic
  case now
  case request
  case fixed(Timestamp)

  /// Parses `now`, `request`, epoch milliseconds, or an ISO 8601 date / date-time.
  public static func parse(_ text: String?) throws(ReceiptToolError) -> AsOfChoice {
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
  public func resolve(for document: ReceiptDocument, now: Timestamp) throws(ReceiptToolError) -> EvaluationTime {
    switch self {
    case .fixed(let t): return EvaluationTime(time: t, source: .option)
    case .now: return EvaluationTime(time: now, source: .now)
    case .request:
      guard let t = document.receipt?.requestDate else {
        throw .data(source: nil, message: "--as-of request: the receipt has no request_date; give a time or 'now'")
      }
      return EvaluationTime(time: t, source: .requestDate)
    case .automatic:
      if let t = document.receipt?.requestDate { return EvaluationTime(time: t, source: .requestDate) }
      return EvaluationTime(time: now, source: .now)
    }
  }
}

extension Timestamp {
  /// 1970-01-01T00:00:00Z.
  public static let epoch = Timestamp(unchecked: 0)

  init(unchecked milliseconds: Int64) { self.milliseconds = milliseconds }

  /// The current time from the system clock.
  public static func now() -> Timestamp {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    let ms = Int64(ts.tv_sec).multipliedReportingOverflow(by: 1000).partialValue + Int64(ts.tv_nsec / 1_000_000)
    return Timestamp(milliseconds: ms) ?? Timestamp(milliseconds: Timestamp.maximumMilliseconds) ?? Timestamp.epoch
  }
}
