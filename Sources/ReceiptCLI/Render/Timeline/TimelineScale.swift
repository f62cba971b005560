import ReceiptModel

/// The time axis shared by the timeline renderers: the span every lane is drawn on and its dated ticks.
struct TimelineScale {
  /// The first and last moment on the axis, in milliseconds; `upper > lower`.
  let lower: Int64
  let upper: Int64
  /// True when some bar or zone runs on past its last known date, so the axis leaves room for the arrow.
  let hasOpenEnd: Bool

  init(chart: TimelineChart) {
    var low = chart.evaluationMoment.milliseconds
    var high = low
    var open = false
    func include(_ t: Timestamp?) {
      guard let t else { return }
      low = min(low, t.milliseconds)
      high = max(high, t.milliseconds)
    }
    for bar in chart.allBars {
      include(bar.start)
      include(bar.expiry)
      include(bar.cancellation?.date)
      if bar.effectiveEnd == nil { open = true }
      for zone in bar.zones {
        include(zone.start)
        include(zone.end)
        if zone.end == nil { open = true }
      }
    }
    let day: Int64 = 86_400_000
    if high - low < day {
      // A single moment (or minutes of sandbox renewals): at least a day, so positions stay finite.
      high = low + day
    }
    // Room after the last date for the open-ended bars' arrows and the as-of label.
    if open { high += max((high - low) / 20, 1) }
    lower = low
    upper = high
    hasOpenEnd = open
  }

  /// Where `t` lies on the axis, 0 at `lower`, 1 at `upper`, clamped.
  func fraction(_ t: Timestamp) -> Double { fraction(milliseconds: t.milliseconds) }

  func fraction(milliseconds t: Int64) -> Double {
    let span = Double(upper - lower)
    return min(1, max(0, Double(t - lower) / span))
  }

  /// Step candidates: fixed durations up to a week, then whole calendar months.
  enum Step: Equatable {
    case milliseconds(Int64)
    case months(Int64)

    static let all: [Step] = {
      let minute: Int64 = 60_000
      let fixed: [Int64] = [1, 5, 15, 60, 360, 1440, 10_080].map { $0 * minute }
      let months: [Int64] = [1, 2, 3, 6, 12, 24, 60, 120, 300, 600, 1200, 3000, 6000, 12_000]
      return fixed.map(Step.milliseconds) + months.map(Step.months)
    }()

    /// True for steps of less than a day, whose labels need the time of day.
    var isSubDay: Bool {
      if case .milliseconds(let ms) = self { return ms < 86_400_000 }
      return false
    }
  }

  /// Tick moments on round boundaries (minutes, hours, UTC midnights, first days of months), at most
  /// `maximumCount` of them, with the finest step that respects that; nil step when none fits.
  func ticks(maximumCount: Int) -> (step: Step?, moments: [Timestamp]) {
    guard maximumCount > 0 else { return (nil, []) }
    for step in Step.all {
      if let moments = ticks(step: step, maximumCount: maximumCount), !moments.isEmpty {
        return (step, moments)
      }
    }
    return (nil, [])
  }

  /// The ticks of one step within the axis, or nil when there would be more than `maximumCount`.
  private func ticks(step: Step, maximumCount: Int) -> [Timestamp]? {
    switch step {
    case .milliseconds(let ms):
      guard (upper - lower) / ms <= Int64(maximumCount) + 1 else { return nil }
      var t = (lower + ms - 1) / ms * ms
      var out: [Timestamp] = []
      while t <= upper {
        if out.count == maximumCount { return nil }
        guard let stamp = Timestamp(milliseconds: t) else { break }
        out.append(stamp)
        t += ms
      }
      return out
    case .months(let n):
      // A rough count first, so a span of centuries never walks month by month.
      guard (upper - lower) / (n * 28 * 86_400_000) <= Int64(maximumCount) * 2 + 2 else { return nil }
      let (y, m, _) = Timestamp.civil(fromDays: lower / 86_400_000)
      var index = y * 12 + (m - 1)
      index = (index + n - 1) / n * n
      var out: [Timestamp] = []
      while true {
        guard let stamp = Timestamp(year: index / 12, month: index % 12 + 1, day: 1) else { break }
        if stamp.milliseconds < lower {
          index += n
          continue
        }
        if stamp.milliseconds > upper { break }
        if out.count == maximumCount { return nil }
        out.append(stamp)
        index += n
      }
      return out
    }
  }

  /// `2024-06-01`, or `2024-06-01 12:00` for steps shorter than a day.
  static func label(_ t: Timestamp, step: Step?) -> String {
    guard let step, step.isSubDay else { return t.date }
    let iso = t.iso8601
    return t.date + " " + String(iso.dropFirst(11).prefix(5))
  }

  /// The widest label a step produces.
  static func labelWidth(step: Step?) -> Int { step?.isSubDay == true ? 16 : 10 }

  /// Bars sorted by start, then end (open-ended last), then transaction id, so output never depends on
  /// input order.
  static func sorted(_ bars: [TimelineBar]) -> [TimelineBar] {
    bars.sorted { a, b in
      if a.start != b.start { return a.start < b.start }
      let ae = a.effectiveEnd?.milliseconds ?? Int64.max
      let be = b.effectiveEnd?.milliseconds ?? Int64.max
      if ae != be { return ae < be }
      return a.transactionID < b.transactionID
    }
  }

  /// Each bar (sorted) with the row it is drawn in: a bar goes in the first row where the previous bar
  /// has ended, so overlapping transactions are stacked and never hide each other.
  static func stack(_ bars: [TimelineBar]) -> (placements: [(bar: TimelineBar, row: Int)], rows: Int) {
    var rowEnds: [Int64] = []
    var placements: [(bar: TimelineBar, row: Int)] = []
    for bar in sorted(bars) {
      let end = bar.effectiveEnd?.milliseconds ?? Int64.max
      if let r = rowEnds.firstIndex(where: { $0 <= bar.start.milliseconds }) {
        rowEnds[r] = end
        placements.append((bar, r))
      } else {
        rowEnds.append(end)
        placements.append((bar, rowEnds.count - 1))
      }
    }
    return (placements, rowEnds.count)
  }

  /// Periods without any bar between one transaction's end and the next one's start ("the gap before a
  /// renewal"), from bars sorted by start.
  static func gaps(_ sorted: [TimelineBar]) -> [(from: Timestamp, to: Timestamp)] {
    var out: [(Timestamp, Timestamp)] = []
    var covered: Timestamp?
    var open = false
    for bar in sorted {
      if let c = covered, !open, bar.start > c { out.append((c, bar.start)) }
      if let end = bar.effectiveEnd {
        covered = max(covered ?? end, end)
      } else {
        open = true
      }
    }
    return out
  }
}
