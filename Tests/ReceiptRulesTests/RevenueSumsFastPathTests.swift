import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// `RevenueGroup.Sums.adding` (every sum made, then checked together) against `addingInTurn` (each checked as
/// made): the same figures, or the same first error, whichever figures overflow.
struct RevenueSumsFastPathTests {
  @Test func sumsCheckedTogetherGiveTheFirstErrorInTurn() throws {
    func group(_ values: [Int64], proceeds: Int64?) -> RevenueGroup {
      var g = RevenueGroup(key: "k", proceeds: proceeds)
      (g.units, g.trials, g.refunded, g.gross) = (values[0], values[1], values[2], values[3])
      (g.refunds, g.upgradeProrations, g.estimatedProrationRefunds) = (values[4], values[5], values[6])
      return g
    }
    var generator = SystemRandomNumberGenerator()
    var cases: [(RevenueGroup, RevenueGroup)] = []
    // Every set of the eight figures at the edge, and random figures.
    for mask in 0..<256 {
      let high = (0..<7).map { mask >> $0 & 1 == 1 ? Int64.max - 2 : Int64(mask) }
      let proceeds: Int64? = mask & 128 != 0 ? Int64.min + 1 : mask % 3 == 0 ? nil : 5
      cases.append((group(high, proceeds: proceeds), group(Array(repeating: 3, count: 7), proceeds: -4)))
      cases.append((group(high, proceeds: nil), group(Array(repeating: -1, count: 7), proceeds: proceeds)))
    }
    for _ in 0..<500 {
      let a = (0..<7).map { _ in Int64.random(in: -1_000_000...1_000_000, using: &generator) }
      let b = (0..<7).map { _ in Int64.random(in: -1_000_000...1_000_000, using: &generator) }
      cases.append((group(a, proceeds: a[0]), group(b, proceeds: b[1])))
    }
    var overflows = 0
    for (a, b) in cases {
      let sums = RevenueGroup.Sums(a)
      let together = Result { () throws(ReceiptError) in RevenueGroup(key: "k", try sums.adding(b)) }
      let inTurn = Result { () throws(ReceiptError) in RevenueGroup(key: "k", try sums.addingInTurn(b)) }
      #expect(together == inTurn, "\(a) + \(b)")
      if case .failure = inTurn { overflows += 1 }
    }
    #expect(overflows > 200, "most edge cases overflow some figure")
  }
}
