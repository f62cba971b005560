import ReceiptModelTestSupport
import Testing

@testable import ReceiptModel

/// `PurchaseTableBuilder` against `ReferencePurchaseTable` (the table built the plainest way), and the table's
/// "known at t" predicates on hand-built histories.
@Suite struct PurchaseTableTests {
  /// The benchmark's document shapes, small, in three seeds; refunds moved about and some reversed, undated rows,
  /// repeated dates and crossgrades inside periods, so that every column and index has something to hold.
  static func shapes() -> [(name: String, history: PurchaseHistory)] {
    let base: [ReceiptShape] = [
      ReceiptShape(name: "one-chain", transactions: 120, chains: 1, products: 4),
      ReceiptShape(
        name: "many-chains", transactions: 300, chains: 40, products: 5, shuffled: true, randomIDs: true,
        familySharedPercent: 25),
      ReceiptShape(name: "family-90", transactions: 300, chains: 40, products: 5, familySharedPercent: 90),
      ReceiptShape(
        name: "many-products", transactions: 400, chains: 60, products: 40, shuffled: true, randomIDs: true,
        familySharedPercent: 25, seed: 31),
      ReceiptShape(
        name: "long-chains", transactions: 300, chains: 3, products: 5, randomIDs: true, familySharedPercent: 25,
        upgradedPercent: 2, seed: 37),
      ReceiptShape(
        name: "many-upgrades", transactions: 400, chains: 30, products: 12, shuffled: true, familySharedPercent: 25,
        upgradedPercent: 30, refundedPercent: 5, seed: 41),
      // Past the 2,048 rows from which the builder sorts by radix.
      ReceiptShape(
        name: "many-chains-2200", transactions: 2_200, chains: 200, products: 5, shuffled: true, randomIDs: true,
        familySharedPercent: 25, upgradedPercent: 5, seed: 43),
    ]
    var out: [(String, PurchaseHistory)] = []
    for shape in base {
      for seed: UInt64 in [0, 1, 2] {
        var s = shape
        s.seed = shape.seed &+ seed
        var h = s.history(index: 0)
        let day: Int64 = 86_400_000
        for i in h.transactions.indices {
          // Every 17th undated; every 23rd bought at its neighbour's moment; every 29th a period a later
          // purchase of another product crosses.
          if i % 17 == 5 { h.transactions[i].purchaseDate = nil }
          if i % 23 == 7, i > 0 { h.transactions[i].purchaseDate = h.transactions[i - 1].purchaseDate }
          if i % 29 == 3, let e = h.transactions[i].expiresDate {
            h.transactions[i].expiresDate = Timestamp(milliseconds: e.milliseconds + 90 * day)
          }
          guard var r = h.transactions[i].revocation else { continue }
          r.date = Timestamp(milliseconds: r.date.milliseconds + Int64(i % 5) * 300 * day) ?? r.date
          if i % 3 != 0 { r.reversedAt = Timestamp(milliseconds: r.date.milliseconds + 200 * day) }
          r.excludesUpgrade = i % 2 == 0
          h.transactions[i].revocation = r
        }
        out.append(("\(shape.name) seed +\(seed)", h))
      }
    }
    return out
  }

  @Test func theBuilderMakesTheReferenceTableOnEveryShape() {
    var replaced = 0
    var stated = 0
    for (name, history) in Self.shapes() {
      let table = PurchaseTable(history)
      let reference = ReferencePurchaseTable.table(history)
      #expect(table == reference, "\(name)")
      replaced += table.upgrade.count { $0?.cause == .replacedPeriod }
      stated += table.upgrade.count { $0?.cause == .stated }
    }
    #expect(replaced > 50, "the shapes hold replaced periods to compare")
    #expect(stated > 50, "the shapes hold stated upgrades to compare")
  }

  /// Past 2,048 dated rows out of order the builder sorts by radix: the dated rows by date, then row, whatever the
  /// dates (ties, whole seconds or not, undated rows between, a span too wide to pack).
  @Test func datedOrderIsTheSortByDateThenRow() {
    var rng = SplitMix64(seed: 29)
    let cases: [(count: Int, choices: Int, step: Int64)] = [
      (3_000, 50, 1_000), (5_000, 4_000, 1_000), (4_000, 900, 1), (2_100, 10, 86_400_000),
      (3_000, 3, Timestamp.maximumMilliseconds / 3), (100, 20, 7),
    ]
    for (count, choices, step) in cases {
      let dates = (0..<count).map { _ in
        rng.below(13) == 0 ? nil : Timestamp(milliseconds: Int64(rng.below(choices)) * step + 1_000_000)
      }
      let expected = dates.indices.compactMap { r in dates[r].map { PurchaseTableBuilder.DatedRow(at: $0, row: r) } }
        .sorted { ($0.at, $0.row) < ($1.at, $1.row) }
      #expect(PurchaseTableBuilder.datedOrder(TimestampColumn(dates)) == expected, "\(count) \(choices) \(step)")
    }
  }

  @Test func theBuilderMakesTheReferenceTableOnHandBuiltHistories() {
    let histories = [
      CrossgradeChain.history(vocabulary: .test, format: .handBuilt, namesGroup: true),
      CrossgradeChain.history(vocabulary: .testWithoutRenewalState, format: .handBuilt, namesGroup: false),
      PurchaseHistory(format: .handBuilt),
    ]
    for history in histories {
      #expect(PurchaseTable(history) == ReferencePurchaseTable.table(history))
    }
  }

  /// Tables of 0 to 4 rows, the size of most documents, every column drawn at random: one or several products,
  /// chains and groups (or none), undated rows, ties, rows out of date order, no or a later expiry, both owners,
  /// stated upgrades, refunds and their reversals. Each is the reference table, and its products come in the order
  /// of their first row.
  @Test func smallTablesAreTheReferenceTable() {
    var rng = SplitMix64(seed: 53)
    var seen = (upgrades: 0, replaced: 0, refunds: 0, undated: 0, groupless: 0, outOfOrder: 0)
    for count in 0...4 {
      for _ in 0..<400 {
        var h = PurchaseHistory(format: .handBuilt)
        for i in 0..<count {
          let day = Int64(rng.below(6)) * 86_400_000 + 1_700_000_000_000
          var t = CrossgradeChain.row(
            "\(i)", chain: ["1", "2", "3"][rng.below(count > 1 ? 3 : 1)], ["a", "b", "c"][rng.below(3)],
            from: "2024-01-01T00:00:00Z", to: "2024-01-01T00:00:00Z", group: [nil, "g", "h"][rng.below(3)])
          t.purchaseDate = rng.below(6) == 0 ? nil : Timestamp(milliseconds: day)
          t.expiresDate = rng.below(4) == 0 ? nil : Timestamp(milliseconds: day + Int64(rng.below(4)) * 86_400_000)
          t.ownership = rng.below(3) == 0 ? .familyShared : .purchased
          t.isUpgraded = rng.below(5) == 0
          t.offer = rng.below(3) == 0 ? .introductoryPrice : nil
          if rng.below(5) == 0, let at = Timestamp(milliseconds: day + 3_600_000) {
            t.revocation = Revocation(
              date: at, reversedAt: rng.below(2) == 0 ? nil : Timestamp(milliseconds: day + 7_200_000))
          }
          h.transactions.append(t)
        }
        let table = PurchaseTable(h)
        #expect(table == ReferencePurchaseTable.table(h), "\(h.transactions)")
        var firstRows: [Int32] = []
        for p in table.product where !firstRows.contains(p) { firstRows.append(p) }
        #expect(Array(table.productsInOrder) == firstRows)
        seen.upgrades += table.upgrade.count { $0 != nil }
        seen.replaced += table.upgrade.count { $0?.cause == .replacedPeriod }
        seen.refunds += table.revocation.count { $0 != nil }
        seen.undated += table.purchase.count { $0 == nil }
        seen.groupless += table.group.count { $0 < 0 }
        let dates = table.purchase.compactMap { $0 }
        seen.outOfOrder += dates != dates.sorted() ? 1 : 0
      }
    }
    #expect(seen.upgrades > 100 && seen.replaced > 20 && seen.refunds > 100, "\(seen)")
    #expect(seen.undated > 100 && seen.groupless > 100 && seen.outOfOrder > 100, "\(seen)")
  }

  /// Up to `fewKeys` symbols of a kind are found by looking, more through a numbering made from those so far: at
  /// every count around the change, keys repeated before and after it (numeric ids with and without leading zeros,
  /// non-ASCII ones) get the reference's symbols.
  @Test func aFewSymbolsAndManyGetTheReferenceSymbols() {
    let base = ReceiptShape(name: "one-chain", transactions: 60, chains: 1, products: 2).history(index: 0)
    let spellings = ["7", "007", "com.example.pro", "com.example.pr\u{f6}", "com.example.pr\u{e9}", "x"]
    for distinct in [1, 2, 7, 8, 9, 10, 17] {
      for stride in [1, 3] {
        var history = base
        for i in history.transactions.indices {
          let k = (i * stride) % distinct
          let spelling = spellings[k % spellings.count]
          history.transactions[i].productID = "\(spelling)-\(k)"
          history.transactions[i].originalTransactionID = k % 2 == 0 ? "\(1_000 + k)" : "0\(1_000 + k)"
          history.transactions[i].subscriptionGroup = i % 4 == 0 ? nil : "\(spelling)-\((i * 5) % (distinct + 2))"
        }
        // Canonically equal, different bytes: two products, as the builder and the reference both take them.
        if distinct == 2 { history.transactions[1].productID = "com.example.pro\u{308}-0" }
        if distinct == 2 { history.transactions[0].productID = "com.example.pr\u{f6}-0" }
        let table = PurchaseTable(history)
        #expect(table == ReferencePurchaseTable.table(history), "\(distinct) keys, stride \(stride)")
        let spelt = distinct / (stride == 3 && distinct % 3 == 0 ? 3 : 1)
        #expect(table.productIDs.count == spelt + (distinct == 2 ? 2 : 0))
      }
    }
  }

  /// A product's rows, found by looking in a table of a few products and through the dictionary in one of many, are
  /// the rows whose product id is asked for, in row order, each once (ids repeated, unknown or in any order).
  @Test func rowsOfProductsAreTheRowsOfThoseIDs() {
    var checked = (few: 0, many: 0)
    for (name, history) in Self.shapes() {
      let table = PurchaseTable(history)
      let ids = Array(table.productIDs)
      let asks: [[String]] = [
        [], ["no-such-product"], Array(ids.prefix(1)), Array(ids.reversed()), ids + ids,
        Array(ids.enumerated().filter { $0.offset % 3 == 1 }.map(\.element)) + ["no-such-product"],
      ]
      for ask in asks {
        let wanted = Set(ask)
        let plain = history.transactions.indices.filter { wanted.contains(history.transactions[$0].productID) }
        #expect(table.rows(ofProducts: ask) == plain, "\(name): \(ask.prefix(3))")
      }
      if ids.count <= PurchaseTable.fewProducts { checked.few += 1 } else { checked.many += 1 }
    }
    #expect(checked.few > 0 && checked.many > 0)
  }

  /// A row's transaction lent by the table (`withTransaction`: in place when it is the data's own, else a copy) is
  /// the transaction as known at the moment (`transaction(_:at:)`), on every shape, at moments before, among and
  /// after its purchases, refunds, reversals and upgrades, where it is the data's own and where it is not.
  @Test func aLentTransactionIsTheTransactionAsKnown() {
    var kinds = (asStated: 0, changed: 0)
    for (name, history) in Self.shapes() {
      let table = PurchaseTable(history)
      let dates = history.transactions.compactMap(\.purchaseDate).map(\.milliseconds).sorted()
      guard let first = dates.first, let last = dates.last else { continue }
      let moments = [first - 1, dates[dates.count / 3], dates[2 * dates.count / 3], last + 800 * 86_400_000]
      for ms in moments {
        let time = Timestamp(milliseconds: ms) ?? .epoch
        for row in table.rows {
          let known = table.transaction(row, at: time)
          #expect(table.withTransaction(row, at: time) { $0 == known }, "\(name) row \(row) at \(ms)")
          if known == history.transactions[row] { kinds.asStated += 1 } else { kinds.changed += 1 }
        }
      }
    }
    #expect(kinds.asStated > 1_000 && kinds.changed > 100)
  }

  /// A month's subscription and, inside it, an annual one of the same group and owner: the month is a replaced
  /// period from the annual purchase on, and not before it.
  @Test func aPeriodIsUpgradedFromThePurchaseThatReplacedItOn() {
    var h = PurchaseHistory(format: .handBuilt)
    h.transactions = [
      CrossgradeChain.row(
        "1", chain: "1", "monthly", from: "2024-01-01T00:00:00Z", to: "2024-02-01T00:00:00Z", group: "g"),
      CrossgradeChain.row(
        "2", chain: "2", "annual", from: "2024-01-10T00:00:00Z", to: "2025-01-10T00:00:00Z", group: "g"),
    ]
    let table = PurchaseTable(h)
    #expect(table.upgrade[0] == UpgradeMoment(.replacedPeriod, at: CrossgradeChain.at("2024-01-10T00:00:00Z")))
    #expect(table.upgrade[1] == nil)
    #expect(!table.isUpgraded(0, at: CrossgradeChain.at("2024-01-09T23:59:59Z")))
    #expect(table.isUpgraded(0, at: CrossgradeChain.at("2024-01-10T00:00:00Z")))
    #expect(table.transaction(0, at: CrossgradeChain.at("2024-01-20T00:00:00Z")).isUpgraded)
    #expect(!table.isKnown(1, at: CrossgradeChain.at("2024-01-09T00:00:00Z")))

    // A FAMILY_SHARED copy and the customer's own purchase are two subscriptions: nothing is replaced.
    h.transactions[1].ownership = .familyShared
    #expect(Array(PurchaseTable(h).upgrade) == [nil, nil])
  }

  /// A refund counts from its date; its reversal from the reversal's; a transaction as known then carries the
  /// refund without a reversal that had not happened yet.
  @Test func aRefundAndItsReversalAreKnownFromTheirMoments() {
    var h = PurchaseHistory(format: .handBuilt)
    var t = CrossgradeChain.row(
      "1", chain: "1", "monthly", from: "2024-01-01T00:00:00Z", to: "2024-02-01T00:00:00Z")
    t.revocation = Revocation(
      date: CrossgradeChain.at("2024-01-05T00:00:00Z"), reversedAt: CrossgradeChain.at("2024-01-09T00:00:00Z"))
    h.transactions = [t]
    let table = PurchaseTable(h)
    #expect(table.revocation(0, at: CrossgradeChain.at("2024-01-04T00:00:00Z")) == nil)
    #expect(table.revocation(0, at: CrossgradeChain.at("2024-01-06T00:00:00Z"))?.date == t.revocation?.date)
    #expect(table.transaction(0, at: CrossgradeChain.at("2024-01-06T00:00:00Z")).revocation?.reversedAt == nil)
    #expect(table.revocation(0, at: CrossgradeChain.at("2024-01-09T00:00:00Z")) == nil)
    #expect(table.transaction(0, at: CrossgradeChain.at("2024-01-09T00:00:00Z")).revocation == nil)
  }

  /// An undated row is known at every moment (whether it was bought by then is for the rules to say), and comes
  /// after the dated rows of its chain.
  @Test func undatedRowsAreKnownAndLastInTheirChain() {
    var h = PurchaseHistory(format: .handBuilt)
    h.transactions = [
      CrossgradeChain.row("1", chain: "1", "monthly", from: "2024-03-01T00:00:00Z", to: "2024-04-01T00:00:00Z"),
      CrossgradeChain.row("2", chain: "1", "monthly", from: "2024-01-01T00:00:00Z", to: "2024-02-01T00:00:00Z"),
    ]
    h.transactions[0].purchaseDate = nil
    let table = PurchaseTable(h)
    #expect(table.isKnown(0, at: .epoch))
    #expect(Array(table.rows(ofChain: 0)) == [1, 0])
    #expect(table.knownRows(at: CrossgradeChain.at("2023-01-01T00:00:00Z")) == [0])
  }

  /// A stated upgrade whose replacing purchase the data does not hold is upgraded at every moment.
  @Test func aStatedUpgradeWithoutItsReplacementIsUpgradedThroughout() {
    var h = PurchaseHistory(format: .handBuilt)
    h.transactions = [
      CrossgradeChain.row("1", chain: "1", "monthly", from: "2024-01-01T00:00:00Z", to: "2024-02-01T00:00:00Z")
    ]
    h.transactions[0].isUpgraded = true
    let table = PurchaseTable(h)
    #expect(table.upgrade[0] == UpgradeMoment(.stated, at: nil))
    #expect(table.isUpgraded(0, at: CrossgradeChain.at("2024-01-01T00:00:00Z")))
  }

  /// Revenue's rows are distinct transactions: their upgrade moments are the table's rule on their own index.
  @Test func upgradeMomentsOfRowsThatAreNotATableAreTheTablesRule() {
    for (name, history) in Self.shapes() {
      let table = PurchaseTable(history)
      let stated = history.transactions.map(\.isUpgraded)
      let moments = PurchaseTable.upgradeMoments(
        chain: Array(table.chain), group: Array(table.group), purchase: table.purchase, upgraded: stated)
      let expected = table.upgrade.map { $0?.cause == .stated ? $0?.at : nil }
      #expect(moments == expected, "\(name)")
    }
  }
}

/// The packed columns give back what they were made of.
struct PackedColumnTests {
  @Test func aTimestampColumnGivesBackItsDates() {
    let dates: [Timestamp?] = [
      nil, .epoch, Timestamp(milliseconds: Timestamp.maximumMilliseconds), nil, Timestamp(milliseconds: 1),
    ]
    var appended = TimestampColumn()
    for d in dates { appended.append(d) }
    #expect(Array(TimestampColumn(dates)) == dates)
    #expect(appended == TimestampColumn(dates))
  }

  /// The builder's columns are parts of one array: each part reads, compares and hashes as the column of its own
  /// values, whatever lies beside it.
  @Test func partsOfOneArrayAreTheirOwnColumns() {
    let dates: [Timestamp?] = [.epoch, nil, Timestamp(milliseconds: 5)]
    let both = (dates + dates.reversed()).flatMap { TimestampColumn.halves(of: TimestampColumn.kept($0)) }
    let (first, second) = (TimestampColumn(part: 0, of: both, count: 3), TimestampColumn(part: 1, of: both, count: 3))
    #expect(Array(first) == dates && Array(second) == dates.reversed())
    #expect(first == TimestampColumn(dates) && first.hashValue == TimestampColumn(dates).hashValue)
    #expect(second != TimestampColumn(dates) && first.count == 3)
    let symbols: [Int32] = [0, 1, 1, 0, 0, -1]
    let parts = (0..<3).map { SymbolColumn(part: $0, of: symbols, count: 2) }
    #expect(parts.map(Array.init) == [[0, 1], [1, 0], [0, -1]])
    #expect(parts[0] == SymbolColumn([0, 1]) && parts[0].hashValue == SymbolColumn([0, 1]).hashValue)
    #expect(parts[1] != SymbolColumn([0, 1]) && parts[2] != SymbolColumn([0, -1, 0]))
  }

  /// Every ownership (undocumented spellings among them), stated type and offer flag, in every combination and in
  /// runs of one product and chain or many: the builder's packed facts read back as each row states them, and as the
  /// reference builder's, whose columns are made from arrays of the values.
  @Test func packedRowFactsReadAsTheRowsStateThem() {
    let owners: [Ownership] = [
      .purchased, .familyShared, .unknown, .unrecognized("BORROWED"), .unrecognized(""),
      .unrecognized("FAMILY_SHARED "),
    ]
    let types: [ProductType?] = [nil] + ProductType.allCases
    let offers: [OfferUse?] = [
      nil, OfferUse(kind: .introductory), OfferUse(kind: .promotional),
      OfferUse(kind: .promotional, usesIntroductoryOffer: true),
    ]
    var rows: [PurchaseTransaction] = []
    for (i, owner) in owners.enumerated() {
      for (j, type) in types.enumerated() {
        for (k, offer) in offers.enumerated() {
          let n = rows.count
          rows.append(
            PurchaseTransaction(
              transactionID: "\(n)", originalTransactionID: "\(n % 3)", productID: "p\((i + j + k) % 4)",
              ownership: owner, purchaseDate: Timestamp(milliseconds: Int64(n) * 1_000), offer: offer,
              subscriptionGroup: n % 5 == 0 ? nil : "g", productType: type, vocabulary: .test))
        }
      }
    }
    for count in [1, 2, 7, rows.count] {
      for start in stride(from: 0, to: rows.count, by: count) {
        let part = Array(rows[start..<min(start + count, rows.count)])
        var history = PurchaseHistory(format: .handBuilt)
        history.transactions = part
        let table = PurchaseTable(history)
        #expect(Array(table.ownership) == part.map(\.ownership), "\(count) from \(start)")
        #expect(Array(table.productType) == part.map(\.productType), "\(count) from \(start)")
        let introductory = part.map { $0.offer?.usesIntroductoryOffer ?? false }
        #expect(Array(table.usesIntroductoryOffer) == introductory, "\(count) from \(start)")
        #expect(table == ReferencePurchaseTable.table(history), "\(count) from \(start)")
      }
    }
  }

  /// A symbol kind's texts, the first kept in place and the rest in an array: they read, compare and hash as the
  /// array they were made from, for none, one, two and many texts.
  @Test func symbolTextsAreTheTextsTheyWereMadeOf() {
    let texts = ["com.example.pro", "", "1000000000000001", "pr\u{f6}", "pro\u{308}", "x", "y", "z", "w"]
    for count in 0...texts.count {
      let own = Array(texts.prefix(count))
      let made = SymbolTexts(own)
      #expect(Array(made) == own && made.count == count)
      #expect(made == SymbolTexts(own) && made.hashValue == SymbolTexts(own).hashValue)
      if count > 0 {
        var other = own
        other[count - 1] += "!"
        #expect(made != SymbolTexts(other))
        #expect(made != SymbolTexts(Array(own.dropLast())))
      }
    }
  }

  @Test func aSparseColumnGivesBackItsValues() {
    let values: [Int?] = [nil, 3, nil, nil, 3, 7, nil]
    #expect(Array(SparseColumn(values)) == values)
    #expect(SparseColumn<Int>([]).isEmpty)
    #expect(SparseColumn(values) != SparseColumn([nil, 3, nil, nil, 3, 8, nil]))
    // A column of nils keeps its length alone, and equals one that had a place for each.
    var none = SparseColumn<Int>()
    none.appendNone(3)
    #expect(Array(none) == [nil, nil, nil])
    #expect(none == SparseColumn([nil, nil, nil]) && none != SparseColumn([nil, nil]))
    var late = SparseColumn<Int>()
    late.appendNone(2)
    late.append(5)
    late.appendNone(1)
    #expect(Array(late) == [nil, nil, 5, nil])
    #expect(late == SparseColumn([nil, nil, 5, nil]))
  }
}
