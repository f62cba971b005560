import ReceiptModel
import Testing

@testable import ReceiptRules

/// A row key written as text is the grouping's key: months and days kept as numbers are the dates' own text.
struct RevenueRowKeyTests {
  @Test func aRowKeysTextIsTheGroupingsKey() {
    var dates: [Timestamp?] = [nil]
    let edges: [Int64] = [
      Int64.min, -86_400_001, -86_400_000, -1, 0, 1, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999,
      Timestamp.maximumMilliseconds, Timestamp.maximumMilliseconds + 1, Int64.max,
    ]
    dates += edges.map { Timestamp(unchecked: $0) }
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<3_000 {
      dates.append(Timestamp(unchecked: Int64.random(in: 0...Timestamp.maximumMilliseconds, using: &generator)))
    }
    for grouping in RevenueGrouping.allCases {
      for date in dates {
        #expect(
          grouping.rowKey(productID: "p", date: date).text == grouping.key(productID: "p", date: date),
          "\(grouping) \(date?.milliseconds ?? 0)")
      }
    }
  }

  /// Events of one month on different days are one row; the next month is another.
  @Test func eventsOfOneMonthShareARow() throws {
    var report = RevenueReport(hasProceeds: false)
    let days: [Int64] = [19_875, 19_876, 19_904, 19_905]  // 2024-06-01, 06-02, 06-30, 07-01
    for day in days {
      var row = RevenueGroup(key: "")
      (row.units, row.gross) = (1, 100)
      let key = RevenueGrouping.month.rowKey(productID: "p", date: Timestamp(unchecked: day * 86_400_000 + 5))
      try report.add(row, key: key, currency: "USD")
    }
    let groups = try #require(report.currencies.first).groups
    #expect(groups.map(\.key) == ["2024-06", "2024-07"])
    #expect(groups.map(\.units) == [3, 1])
  }
}
