import ReceiptModelTestSupport
import Testing

@testable import ReceiptModel

/// `PurchaseTransaction.merge` moves the losing copy's values (FAST-PATHS.md: duplicate rows merged in place) and
/// `TransactionCollector.add` merges in place; both against the copying merge they replaced
/// (`TransactionMergingReference`, ReceiptModelTestSupport).
@Suite struct TransactionMergingTests {
  static func at(_ ms: Int64) -> Timestamp? { Timestamp(milliseconds: ms) }

  /// One transaction with every field set (ids long enough to live on the heap, as Apple's do).
  static let full: PurchaseTransaction = {
    var t = PurchaseTransaction(
      transactionID: "1000000123456789", originalTransactionID: "1000000000000001", productID: "com.example.monthly",
      ownership: .familyShared, quantity: 1, purchaseDate: at(1_600_000_000_000),
      originalPurchaseDate: at(1_590_000_000_000), expiresDate: at(1_602_592_000_000),
      revocation: Revocation(date: at(1_601_000_000_000) ?? .epoch, reason: .appIssue, type: "REFUND_FULL"),
      offer: OfferUse(kind: .promotional, pricing: .payAsYouGo, identifier: "spring-offer-identifier"),
      isUpgraded: true, subscriptionGroup: "21000111", webOrderLineItemID: "10000001234567897",
      productType: .autoRenewable,
      price: StatedPrice(amount: DecimalAmount(units: 499, scale: 2), currency: "USD"),
      sources: .latestReceiptInfo, vocabulary: .test,
      carriedFields: [CarriedField(type: 1701, name: "a carried field", value: "value", encoding: "utf8String")])
    t.signedDate = at(1_603_000_000_000)
    t.statedFields = [StatedField("storefront", .text("USA"))]
    return t
  }()

  /// The full transaction and copies of it that differ in one field each: absent, or another value.
  static let variants: [PurchaseTransaction] = {
    let f = full
    var out = [f]
    func with(_ change: (inout PurchaseTransaction) -> Void) {
      var t = f
      change(&t)
      out.append(t)
    }
    with { $0.originalTransactionID = nil }
    with { $0.originalTransactionID = "1000000000000002" }
    with {
      $0.ownership = .purchased
      $0.ownershipAssumed = true
    }
    with { $0.ownership = .unrecognized("SOMETHING_NEW") }
    with { $0.quantity = nil }
    with { $0.quantity = 3 }
    with { $0.purchaseDate = nil }
    with { $0.originalPurchaseDate = at(1_580_000_000_000) }
    with { $0.expiresDate = nil }
    with { $0.revocation = nil }
    with { $0.revocation?.reason = nil }
    with { $0.revocation = Revocation(date: at(1_601_500_000_000) ?? .epoch, reason: .unrecognized("7")) }
    with { $0.offer = nil }
    with { $0.offer = .freeTrial }
    with { $0.isUpgraded = false }
    with { $0.subscriptionGroup = nil }
    with { $0.webOrderLineItemID = nil }
    with { $0.productType = nil }
    with { $0.price = nil }
    with { $0.signedDate = nil }
    with { $0.signedDate = at(1_604_000_000_000) }
    with { $0.signedDate = at(1_599_000_000_000) }
    with { $0.sources = .inApp }
    with { $0.sources = [.inApp, .signedTransaction] }
    with { $0.carriedFields = [] }
    with { $0.statedFields = [] }
    with { $0.statedFields = [StatedField("storefront", .text("FRA"))] }
    return out
  }()

  @Test func mergingMovesWhatTheCopyingMergeCopied() {
    let variants = Self.variants
    #expect(variants.count > 25)
    for (i, a) in variants.enumerated() {
      for (j, b) in variants.enumerated() {
        for otherWins in [false, true] {
          var moved = a
          moved.merge(b, otherWins: otherWins)
          #expect(
            moved == TransactionMergingReference.copyingMerge(a, b, otherWins: otherWins),
            "variants \(i) and \(j), otherWins \(otherWins)")
          #expect(a.merged(with: b, otherWins: otherWins) == moved)
        }
      }
    }
  }

  @Test func theCollectorMergesInPlaceAsTheCopyingMergeDid() {
    // Every variant as a second copy of a transaction held, then a third copy, the preferred one decided by
    // `prefer` either way; ids numeric and not, so both halves of the index are used.
    let variants = Self.variants
    for preferNew in [false, true] {
      var collector = TransactionCollector()
      var expected: [PurchaseTransaction] = []
      var duplicates = 0
      for (k, v) in variants.enumerated() {
        for id in ["\(2_000_000_000_000_000 + k)", "id-\(k)"] {
          var first = Self.full
          first.transactionID = id
          var second = v
          second.transactionID = id
          var third = variants[(k * 7 + 3) % variants.count]
          third.transactionID = id
          var merged = first
          for copy in [second, third] {
            merged = TransactionMergingReference.copyingMerge(merged, copy, otherWins: preferNew)
            duplicates += 1
          }
          expected.append(merged)
          for copy in [first, second, third] { collector.add(copy) { _, _ in preferNew } }
        }
      }
      #expect(collector.transactions == expected)
      #expect(collector.duplicates == duplicates)
      // The same copies in batches (`add(lastFirst:keys:)`, as a piece's rows come) of 1 to 40: the same history.
      let copies = collector.transactions.indices.flatMap { k -> [PurchaseTransaction] in
        let id = expected[k].transactionID
        let v = k / 2
        return [Self.full, variants[v], variants[(v * 7 + 3) % variants.count]].map {
          var t = $0
          t.transactionID = id
          return t
        }
      }
      for size in [1, 2, 3, 7, 40] {
        var batched = TransactionCollector()
        var start = 0
        while start < copies.count {
          var lastFirst = Array(copies[start..<min(copies.count, start + size)].reversed())
          // Odd sizes with the keys given (as a piece parsed on another thread comes), even ones without.
          let keys = size % 2 == 1 ? lastFirst.map { TransactionIDIndex.numericKey($0.transactionID) } : []
          batched.add(lastFirst: &lastFirst, keys: keys) { _, _ in preferNew }
          #expect(lastFirst.isEmpty)
          start += size
        }
        #expect(batched.transactions == expected, "batches of \(size)")
        #expect(batched.duplicates == duplicates, "batches of \(size)")
      }
    }
  }
}

/// `TransactionCollector.addCopy` gives what `add` gives for a copy whose values are the held one's and whose
/// sources may differ (a transaction written twice byte for byte, passed over by the verifyReceipt reader):
/// whichever copy `prefer` favours, the held values stay, the sources join and the copy is counted.
@Suite struct TransactionCopyTests {
  @Test func aCopyOfTheHeldValuesAddsItsSourcesWhicheverCopyWins() {
    let otherSources: [TransactionSources] = [
      .inApp, .latestReceiptInfo, .legacyReceipt, .latestExpiredReceiptInfo, [.inApp, .latestReceiptInfo],
    ]
    var compared = 0
    for preferNew in [false, true] {
      for (k, v) in TransactionMergingTests.variants.enumerated() {
        for id in ["\(3_000_000_000_000_000 + k)", "id-\(k)"] {
          var held = v
          held.transactionID = id
          for sources in otherSources {
            var copy = held
            copy.sources = sources
            var merging = TransactionCollector()
            var passing = TransactionCollector()
            // Another transaction first, so the held one is not at 0.
            for c in [TransactionMergingTests.full, held] {
              let (mergingAt, mergingMerged) = merging.add(c) { _, _ in preferNew }
              let (passingAt, passingMerged) = passing.add(c) { _, _ in preferNew }
              #expect(mergingAt == passingAt && mergingMerged == passingMerged)
            }
            let (at, merged) = merging.add(copy) { _, _ in preferNew }
            #expect(at == 1 && merged)
            passing.addCopy(ofHeldAt: 1, sources: sources)
            #expect(passing.transactions == merging.transactions, "variant \(k) \(id) \(sources) \(preferNew)")
            #expect(passing.duplicates == merging.duplicates)
            // A third copy, after the second.
            merging.add(copy) { _, _ in preferNew }
            passing.addCopy(ofHeldAt: 1, sources: sources)
            #expect(passing.transactions == merging.transactions, "variant \(k) \(id) \(sources) \(preferNew)")
            #expect(passing.duplicates == merging.duplicates && passing.duplicates == 2)
            compared += 1
          }
        }
      }
    }
    #expect(compared > 250)
  }

  @Test func addSaysWhereTheTransactionIsHeldAndWhetherItWasMerged() {
    var collector = TransactionCollector()
    var a = TransactionMergingTests.full
    a.transactionID = "1"
    var b = a
    b.transactionID = "b"
    #expect(collector.add(a) == (0, false))
    #expect(collector.add(b) == (1, false))
    #expect(collector.add(b) == (1, true))
    #expect(collector.add(a) == (0, true))
    #expect(collector.duplicates == 2)
  }
}
