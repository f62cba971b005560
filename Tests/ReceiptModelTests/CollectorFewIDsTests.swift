import ReceiptModelTestSupport
import Testing

@testable import ReceiptModel

/// `TransactionCollector` looks the first few numeric ids up in a row (`firstKeys`) before it builds its index
/// (FAST-PATHS.md): against the collector that builds the index from the first id (`looksUpFewIDsInLine` false).
@Suite struct CollectorFewIDsTests {
  /// Ids that collide as numbers but not as text ("7" and "07"), text ids, and enough of them to pass eight.
  static let ids = [
    "1000000123456789", "7", "07", "0", "1000000123456790", "id-a", "18446744073709551615", "99", "3", "4", "5",
    "6", "8", "9", "10", "11",
  ]

  /// One step of a random run: an id to add alone, a batch to add, or a reservation.
  enum Step {
    case add(String)
    case batch([String])
    case reserve(Int, ids: Int)
  }

  static func transaction(_ id: String, _ n: Int) -> PurchaseTransaction {
    var t = TransactionMergingTests.full
    t.transactionID = id
    // Each copy a value of its own, so that which copy wins shows.
    t.quantity = n
    t.sources = n % 2 == 0 ? .inApp : .latestReceiptInfo
    return t
  }

  /// The collector after `steps`, and what each single `add` returned.
  static func run(_ steps: [Step], inLine: Bool) -> (TransactionCollector, [String]) {
    var collector = TransactionCollector()
    collector.looksUpFewIDsInLine = inLine
    var said: [String] = []
    var n = 0
    let prefer: (PurchaseTransaction, PurchaseTransaction) -> Bool = { held, new in
      (held.quantity ?? 0) % 3 == (new.quantity ?? 0) % 2
    }
    for step in steps {
      switch step {
      case .add(let id):
        n += 1
        let added = collector.add(transaction(id, n), prefer: prefer)
        said.append("\(added.held) \(added.merged)")
      case .batch(let batch):
        var lastFirst = batch.reversed().map { id -> PurchaseTransaction in
          n += 1
          return transaction(id, n)
        }
        collector.add(lastFirst: &lastFirst, prefer: prefer)
      case .reserve(let count, let ids):
        collector.reserve(count, ids: ids)
      }
    }
    return (collector, said)
  }

  @Test func aFewIDsInARowGiveWhatTheIndexGives() {
    var rng = SplitMix64(seed: 42)
    for round in 0..<3_000 {
      // Draw from a few ids or from all, so that runs stay under eight distinct ids, reach it, or pass it.
      let pool = rng.below(Self.ids.count) + 1
      var steps: [Step] = []
      for _ in 0..<rng.below(24) {
        let id = Self.ids[rng.below(pool)]
        switch rng.below(8) {
        case 0:
          steps.append(
            .batch((0..<rng.below(12)).map { _ in Self.ids[rng.below(pool)] }))
        case 1: steps.append(.reserve(rng.below(4), ids: rng.below(12)))
        default: steps.append(.add(id))
        }
      }
      let (fast, fastSaid) = Self.run(steps, inLine: true)
      let (plain, plainSaid) = Self.run(steps, inLine: false)
      #expect(fast.transactions == plain.transactions, "round \(round)")
      #expect(fast.duplicates == plain.duplicates, "round \(round)")
      #expect(fastSaid == plainSaid, "round \(round)")
    }
  }

  @Test func theNinthIDAndATextIDMoveTheRowIntoTheIndex() {
    // Eight numeric ids, then each again: every copy merged into its own; then a ninth, a text id, and all again.
    var collector = TransactionCollector()
    let numeric = (1...9).map { "\(1_000_000_000_000_000 + $0)" }
    for (k, id) in numeric.prefix(8).enumerated() { #expect(collector.add(Self.transaction(id, k)) == (k, false)) }
    for (k, id) in numeric.prefix(8).enumerated() { #expect(collector.add(Self.transaction(id, k)) == (k, true)) }
    #expect(collector.add(Self.transaction(numeric[8], 8)) == (8, false))
    #expect(collector.add(Self.transaction("text", 9)) == (9, false))
    for (k, id) in (numeric + ["text"]).enumerated() { #expect(collector.add(Self.transaction(id, k)) == (k, true)) }
    #expect(collector.duplicates == 18)
    #expect(collector.transactions.map(\.transactionID) == numeric + ["text"])
  }
}
