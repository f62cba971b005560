import ReceiptModelTestSupport
import Testing

@testable import ReceiptModel

/// A seeded generator (Seeded), so that every run tests the same positions.
struct Seeded {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func below(_ bound: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(max(1, bound)))
  }
  mutating func percent(_ percent: Int) -> Bool { below(100) < percent }
}

/// `DatedPurchases` (FAST-PATHS.md: dated purchases sorted once, packed in one integer when they fit, and read
/// from where each stands) against sorts and scans of the same positions.
@Suite struct DatedPurchasesTests {
  /// What `datedOrder` must give: the dated positions by date, then position.
  static func sortedByDateThenPosition(_ dates: [Timestamp?]) -> [DatedPurchases.Purchase] {
    dates.indices.compactMap { i in dates[i].map { DatedPurchases.Purchase(at: $0, index: i) } }
      .sorted { ($0.at, $0.index) < ($1.at, $1.index) }
  }

  /// Dates drawn from `choices` distinct moments `step` apart from `start` (few choices: long runs of equal
  /// dates), one in `undatedOneIn` undated.
  static func dates(
    count: Int, choices: Int, start: Int64, step: Int64, undatedOneIn: Int, rng: inout Seeded
  ) -> [Timestamp?] {
    (0..<count).map { _ in
      rng.below(undatedOneIn) == 0 ? nil : Timestamp(milliseconds: start + Int64(rng.below(choices)) * step)
    }
  }

  @Test func datedOrderIsTheSortByDateThenPosition() {
    var rng = Seeded(seed: 29)
    // Shuffled with ties (the packed sort), already in order (no sort), and spread over 1970...9999 with more
    // positions than leave room for the date in 64 bits (the sort of pairs).
    let shuffled = Self.dates(
      count: 3_000, choices: 40, start: 1_577_836_800_000, step: 3_600_000, undatedOneIn: 9, rng: &rng)
    let inOrder = (0..<500).map { Timestamp(milliseconds: 1_577_836_800_000 + Int64($0 / 3) * 1_000) }
    let wide = Self.dates(
      count: 70_000, choices: 1_000, start: 0, step: Timestamp.maximumMilliseconds / 1_000, undatedOneIn: 50,
      rng: &rng)
    // Fewer than `radixSortMinimum`: a comparison sort of the packed keys.
    let few = Self.dates(count: 300, choices: 20, start: 1_577_836_800_000, step: 60_000, undatedOneIn: 9, rng: &rng)
    #expect(few.count < DatedPurchases.radixSortMinimum && shuffled.count >= DatedPurchases.radixSortMinimum)
    // Whole seconds apart but not whole hours (from a start that is neither); whole hours but for one date a
    // millisecond off, or a second off; negative distances from the first date.
    let seconds = Self.dates(
      count: 3_000, choices: 900, start: 1_577_836_800_123, step: 7_000, undatedOneIn: 9, rng: &rng)
    var hoursButOne = shuffled
    hoursButOne[2_000] = Timestamp(milliseconds: 1_577_836_800_001)
    var hoursButASecond = shuffled
    hoursButASecond[2_500] = Timestamp(milliseconds: 1_577_836_801_000)
    let cases: [(String, [Timestamp?])] = [
      ("shuffled", shuffled), ("few", few), ("in order", inOrder), ("wide", wide), ("none", []),
      ("seconds", seconds), ("hours but a millisecond", hoursButOne), ("hours but a second", hoursButASecond),
    ]
    for (name, dates) in cases {
      #expect(DatedPurchases.datedOrder(dates) == Self.sortedByDateThenPosition(dates), "\(name)")
    }
    // The widest span with as many positions as still fit packed, and one more bit of positions.
    for count in [32_768, 32_769] {
      var edge = [Timestamp?](repeating: Timestamp(milliseconds: 5), count: count)
      edge[count / 2] = Timestamp(milliseconds: (1 << 47) - 1)
      edge[1] = Timestamp(milliseconds: 0)
      #expect(DatedPurchases.datedOrder(edge) == Self.sortedByDateThenPosition(edge), "edge \(count)")
    }
  }

  /// The purchases after (or from) a position's own, read from where it stands, against scans of the dates.
  static func expectReadFromItsPlaceIsTheScan(
    _ purchases: DatedPurchases, dates: [Timestamp?], chains: [Int32], groups: [Int32], _ name: String
  ) {
    func scan(_ same: (Int) -> Bool, _ keep: (Timestamp) -> Bool) -> [DatedPurchases.Purchase] {
      Self.sortedByDateThenPosition(dates).filter { same($0.index) && keep($0.at) }
    }
    #expect(purchases.latestPurchase == dates.compactMap { $0 }.max(), "\(name)")
    for i in dates.indices {
      let chain = Array(purchases.chainAfterItsPurchase(of: i))
      let after = Array(purchases.groupAfterItsPurchase(of: i))
      let from = Array(purchases.groupFromItsPurchase(of: i))
      // The same purchases read in place: their first, and where they stand in the flat lists.
      #expect(purchases.firstInChainAfterItsPurchase(of: i) == chain.first, "\(name): first in chain \(i)")
      #expect(purchases.firstInGroupAfterItsPurchase(of: i) == after.first, "\(name): first in group \(i)")
      #expect(Array(purchases.chainPurchases[purchases.chainRangeAfterItsPurchase(of: i)]) == chain, "\(name)")
      #expect(Array(purchases.groupPurchases[purchases.groupRangeAfterItsPurchase(of: i)]) == after, "\(name)")
      guard let bought = dates[i] else {
        #expect(chain.isEmpty && after.isEmpty && from.isEmpty, "\(name): undated \(i)")
        continue
      }
      #expect(chain == scan({ chains[$0] == chains[i] }, { $0 > bought }), "\(name): chain after \(i)")
      #expect(chain == Array(purchases.chain(of: i, after: bought)), "\(name): chain after \(i)")
      let inGroup = { (j: Int) in groups[i] >= 0 && groups[j] == groups[i] }
      #expect(after == scan(inGroup, { $0 > bought }), "\(name): group after \(i)")
      #expect(from == scan(inGroup, { $0 >= bought }), "\(name): group from \(i)")
      #expect(from == Array(purchases.group(of: i, from: bought)), "\(name): group from \(i)")
    }
  }

  @Test func radixSortIsTheSort() {
    var rng = Seeded(seed: 41)
    // Keys of every width up to 64 bits, with repeats and digits all keys share (skipped passes).
    for bits in [1, 11, 12, 22, 40, 53, 64] {
      let mask: UInt64 = bits == 64 ? .max : (1 << UInt64(bits)) - 1
      var keys = (0..<3_000).map { _ in
        (UInt64(truncatingIfNeeded: rng.below(Int.max)) << 1 ^ UInt64(truncatingIfNeeded: rng.below(Int.max))) & mask
      }
      keys += keys.prefix(500)
      var sorted = keys
      DatedPurchases.radixSort(&sorted, bits: bits)
      #expect(sorted == keys.sorted(), "\(bits) bits")
      var same = [UInt64](repeating: mask & 0x5555_5555_5555_5555, count: 2_100)
      DatedPurchases.radixSort(&same, bits: bits)
      #expect(same == [UInt64](repeating: mask & 0x5555_5555_5555_5555, count: 2_100))
    }
  }

  @Test func radixSortFromABitIsTheStableSortByTheBitsAbove() {
    var rng = Seeded(seed: 43)
    // Few distinct values above the bit: long runs of equal keys whose order must stay the order they came in.
    for (bits, lowest) in [(30, 15), (41, 15), (22, 11), (40, 0), (12, 12), (20, 25), (64, 3), (64, 64)] {
      let mask: UInt64 = bits == 64 ? .max : (1 << UInt64(bits)) - 1
      let keys = (0..<3_000).map { _ in
        let high = UInt64(truncatingIfNeeded: rng.below(40)) << UInt64(min(63, lowest))
        return (high | UInt64(truncatingIfNeeded: rng.below(Int.max))) & mask
      }
      let stable = keys.enumerated().sorted {
        ($0.element >> UInt64(lowest), $0.offset) < ($1.element >> UInt64(lowest), $1.offset)
      }
      var sorted = keys
      DatedPurchases.radixSort(&sorted, bits: bits, from: lowest)
      #expect(sorted == stable.map(\.element), "\(bits) bits from \(lowest)")
    }
  }

  /// The benchmark's shuffled shapes (three seeds each, past `radixSortMinimum`): their dates sorted by radix
  /// over the dates' bits alone, against the sort by date then position, and every chain's and group's list.
  @Test func datedOrderOfTheShuffledShapesIsTheSortByDateThenPosition() {
    let shapes = [
      ReceiptShape(
        name: "many-chains", transactions: 3_000, chains: 150, products: 5, shuffled: true, randomIDs: true,
        familySharedPercent: 25),
      ReceiptShape(
        name: "many-products", transactions: 3_000, chains: 300, products: 60, shuffled: true, randomIDs: true,
        familySharedPercent: 25, seed: 31),
      ReceiptShape(
        name: "many-upgrades", transactions: 3_000, chains: 150, products: 12, shuffled: true,
        familySharedPercent: 25, upgradedPercent: 30, refundedPercent: 5, seed: 41),
    ]
    var sorted = 0
    for base in shapes {
      for offset in 0..<3 as Range<UInt64> {
        var shape = base
        shape.seed += offset
        let all = shape.history(index: Int(offset)).transactions
        let name = "\(shape.name) seed \(shape.seed)"
        let dates = all.map(\.purchaseDate)
        let expected = Self.sortedByDateThenPosition(dates)
        #expect(DatedPurchases.datedOrder(dates) == expected, "\(name)")
        if expected.count >= DatedPurchases.radixSortMinimum, expected.map(\.index) != expected.map(\.index).sorted() {
          sorted += 1
        }
        let purchases = DatedPurchases(all)
        for c in 0..<purchases.chainCount {
          let chain = expected.filter { Int(purchases.chainNumbers[$0.index]) == c }
          #expect(Array(purchases.chain(number: c)) == chain, "\(name): chain \(c)")
        }
        for g in 0..<purchases.groupCount {
          let group = expected.filter { Int(purchases.groupNumbers[$0.index]) == g }
          #expect(Array(purchases.group(number: g)) == group, "\(name): group \(g)")
        }
      }
    }
    #expect(sorted == 9, "every shape and seed is out of date order and sorted by radix")
  }

  @Test func purchasesReadFromTheirPlaceAreTheScansAnswer() {
    var rng = Seeded(seed: 31)
    // Few moments: runs of equal dates longer than the eight stepped over before searching.
    for (choices, count) in [(6, 400), (60, 400), (1_000, 300)] {
      let dates = Self.dates(
        count: count, choices: choices, start: 1_577_836_800_000, step: 86_400_000, undatedOneIn: 7, rng: &rng)
      let chains = (0..<count).map { _ in Int32(rng.below(9)) }
      let groups = (0..<count).map { _ in Int32(rng.below(4)) - 1 }
      let purchases = DatedPurchases(chainNumbers: chains, groupNumbers: groups) { dates[$0] }
      let name = "\(choices) moments"
      Self.expectReadFromItsPlaceIsTheScan(purchases, dates: dates, chains: chains, groups: groups, name)
      // Narrowed to some positions: places, lists and the latest purchase follow.
      var newPosition: [Int] = []
      var kept: [Int] = []
      for old in 0..<count {
        if rng.percent(30) {
          newPosition.append(-1)
        } else {
          newPosition.append(kept.count)
          kept.append(old)
        }
      }
      Self.expectReadFromItsPlaceIsTheScan(
        purchases.keeping(newPosition), dates: kept.map { dates[$0] }, chains: kept.map { chains[$0] },
        groups: kept.map { groups[$0] }, "\(name), narrowed")
    }
  }
}
