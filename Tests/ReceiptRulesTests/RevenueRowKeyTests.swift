import ReceiptModel
import Testing

@testable import ReceiptRules

/// The row keys a report remembers by UTC day give what the grouping's key gives.
struct RevenueRowKeyTests {
  @Test func rowKeysByDayGiveTheGroupingsKey() {
    var dates: [Timestamp?] = [nil]
    let edges: [Int64] = [
      Int64.min, -86_400_001, -86_400_000, -1, 0, 1, 86_399_999, 86_400_000, Timestamp.maximumMilliseconds,
      Timestamp.maximumMilliseconds + 1, Int64.max,
    ]
    dates += edges.map { Timestamp(unchecked: $0) }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<3_000 {
      dates.append(Timestamp(unchecked: Int64.random(in: 0...Timestamp.maximumMilliseconds, using: &generator)))
    }
    var report = RevenueReport(hasProceeds: false)
    // One report asked in every grouping in turn: a key remembered for one grouping never answers another.
    for round in 0..<2 {
      for grouping in RevenueGrouping.allCases {
        for date in dates + dates.reversed() {
          #expect(
            report.rowKey(grouping, productID: "p", date: date) == grouping.key(productID: "p", date: date),
            "\(grouping) \(date?.milliseconds ?? 0) round \(round)")
        }
      }
    }
  }
}
