import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// `moneyBacking` and the per-currency backed money of a report, on hand-built histories.
@Suite struct MoneyBackingTests {
  typealias F = RevenueFixtures

  static let verifiedByApple = verified(.apple)
  static let verifiedByTrustRoot = verified(.trustRoot)

  static func verified(_ anchor: SignatureCheck.Anchor) -> SignatureCheck {
    var check = SignatureCheck(.verified)
    (check.signedItems, check.verifiedItems, check.anchor) = (1, 1, anchor)
    return check
  }

  /// A signed transaction as StoreKit 2 states it: its own price and currency, its ownership from the payload.
  static func signed(
    _ id: String, cents: Int64, ownership: Ownership = .purchased, ownershipAssumed: Bool = false,
    refunded: String? = nil, day: String = "2024-01-08"
  ) -> PurchaseTransaction {
    var t = PurchaseTransaction(
      transactionID: id, productID: "coins", ownership: ownership, ownershipAssumed: ownershipAssumed,
      purchaseDate: F.day(day), revocation: refunded.flatMap { F.day($0) }.map { Revocation(date: $0) },
      price: StatedPrice(amount: DecimalAmount(units: cents * 10, scale: 3), currency: "USD"),
      sources: .signedTransaction, vocabulary: .test)
    t.signedDate = F.day("2024-03-01")
    return t
  }

  static func document(_ transactions: [PurchaseTransaction], check: SignatureCheck) -> PurchaseHistory {
    var doc = F.document(transactions)
    doc.provenance.signatureCheck = check
    return doc
  }

  @Test func theRuleNeedsAVerifiedSignedPriceAndSignedOwnership() {
    let signed = MoneyEvidence(verdict: .verified, anchor: .apple, ownershipSigned: true)
    let statedPrice = TransactionValue.paid(Money(minorUnits: 99, currency: "USD"), basis: .transactionPrice)
    let catalogPrice = TransactionValue.paid(Money(minorUnits: 99, currency: "USD"), basis: .catalogPrice)
    #expect(moneyBacking(of: statedPrice, evidence: signed) == .backed(.apple))
    var trustRoot = signed
    trustRoot.anchor = .trustRoot
    #expect(moneyBacking(of: statedPrice, evidence: trustRoot) == .backed(.trustRoot))
    #expect(moneyBacking(of: catalogPrice, evidence: signed) == .notBacked(.catalogPrice))
    var assumed = signed
    assumed.ownershipSigned = false
    #expect(moneyBacking(of: statedPrice, evidence: assumed) == .notBacked(.ownershipNotSigned))
    #expect(moneyBacking(of: catalogPrice, evidence: assumed) == .notBacked(.priceAndOwnershipNotSigned))
    for (verdict, reason) in [
      (SignatureCheck.Verdict.invalid, NotBackedReason.signatureInvalid), (.unsigned, .unsigned),
      (.notChecked, .signatureNotChecked), (.testSigned, .testSigned),
    ] {
      let evidence = MoneyEvidence(verdict: verdict, anchor: nil, ownershipSigned: true)
      #expect(moneyBacking(of: statedPrice, evidence: evidence) == .notBacked(reason))
    }
    #expect(moneyBacking(of: statedPrice, evidence: .notRecorded) == .notBacked(.notRecorded))
  }

  @Test func aBatchSplitsEachCurrencysMoneyByBacking() throws {
    let genuine = Self.document([Self.signed("1", cents: 999)], check: Self.verifiedByApple)
    // A refund signed data states subtracts from backed money.
    let refunded = Self.document(
      [Self.signed("2", cents: 499, refunded: "2024-01-10")], check: Self.verifiedByApple)
    var tamperedCheck = SignatureCheck(.invalid)
    tamperedCheck.signedItems = 1
    let tampered = Self.document([Self.signed("3", cents: 2999)], check: tamperedCheck)
    let unsigned = Self.document([Self.signed("4", cents: 199)], check: .unsigned("a decoded payload"))
    // A verified document whose row carries no price or ownership (a receipt's): valued from the catalog.
    let receiptRow = Self.document(
      [
        PurchaseTransaction(
          transactionID: "5", productID: "coins", purchaseDate: F.day("2024-01-08"), vocabulary: .test)
      ],
      check: Self.verifiedByApple)
    // A family member's copy is never revenue, backed or not.
    let family = Self.document(
      [Self.signed("6", cents: 999, ownership: .familyShared)], check: Self.verifiedByApple)
    let r = try F.report([genuine, refunded, tampered, unsigned, receiptRow, family], commission: .smallBusiness)
    let usd = try #require(F.usd(r))
    let b = usd.backing
    #expect(b.backed.transactions == 2)
    #expect(b.backed.gross == 1498)
    #expect(b.backed.refunds == 499)
    #expect(b.backed.net == 999)
    #expect(b.backed.proceeds == 849)
    #expect(b.backedThroughTrustRoot == BackedFigures())
    #expect(b.notBacked[.signatureInvalid]?.gross == 2999)
    #expect(b.notBacked[.unsigned]?.gross == 199)
    #expect(b.notBacked[.priceAndOwnershipNotSigned]?.gross == 99)
    #expect(b.notBacked.count == 3)
    // The classes split the total.
    let rest = try #require(b.notBackedTotal)
    #expect(b.backed.gross + rest.gross == usd.total.gross)
    #expect(b.backed.net + rest.net == usd.total.net)
    #expect(b.backed.proceeds.map { $0 + (rest.proceeds ?? 0) } == usd.total.proceeds)
    #expect(r.counts.familySharedExcluded == 1)
  }

  @Test func aTrustRootCountsAsBackedAndIsNamedApart() throws {
    let apple = Self.document([Self.signed("1", cents: 999)], check: Self.verifiedByApple)
    let ours = Self.document([Self.signed("2", cents: 499)], check: Self.verifiedByTrustRoot)
    let b = try #require(F.usd(try F.report([apple, ours]))).backing
    #expect(b.backed.gross == 1498)
    #expect(b.backedThroughTrustRoot.gross == 499)
    #expect(b.backedThroughTrustRoot.transactions == 1)
  }

  @Test func ownershipTheSignedPayloadDoesNotStateIsNotBacked() throws {
    let r = try F.report([
      Self.document([Self.signed("1", cents: 999, ownershipAssumed: true)], check: Self.verifiedByApple)
    ])
    let b = try #require(F.usd(r)).backing
    #expect(b.backed.gross == 0)
    #expect(b.notBacked[.ownershipNotSigned]?.gross == 999)
  }

  @Test func theCopyWhosePriceIsCountedDecidesAndALaterRefundStillSubtracts() throws {
    // One machine: the first copy read stands (its price and ownership), a later copy adds its refund.
    let genuine = Self.document([Self.signed("1", cents: 999)], check: Self.verifiedByApple)
    let laterUnsigned = Self.document(
      [Self.signed("1", cents: 999, refunded: "2024-01-09")], check: .unsigned("a decoded payload"))
    let b = try #require(F.usd(try F.report([genuine, laterUnsigned]))).backing
    #expect(b.backed.gross == 999)
    #expect(b.backed.refunds == 999)
    #expect(b.backed.net == 0)
    #expect(b.notBacked.isEmpty)
  }

  @Test func theLedgerCarriesTheEvidenceAndTheReductionGivesOneMachinesBacking() throws {
    let docs = [
      Self.document([Self.signed("1", cents: 999), Self.signed("2", cents: 499)], check: Self.verifiedByTrustRoot),
      Self.document([Self.signed("3", cents: 2999)], check: .unsigned("a decoded payload")),
    ]
    var reduction = LedgerReduction()
    for (i, doc) in docs.enumerated() {
      var one = PurchaseLedger()
      one.add(doc)
      for record in try one.records(catalog: F.catalog, copy: "copy\(i)") { reduction.add(record) }
    }
    let reduced = try reduction.report(grouping: .product, range: PurchaseDateRange(), commission: .standard)
    let whole = try F.report(docs, commission: .standard)
    #expect(F.usd(reduced)?.backing == F.usd(whole)?.backing)
    #expect(F.usd(whole)?.backing.backedThroughTrustRoot.gross == 1498)
    #expect(F.usd(whole)?.backing.notBacked[.unsigned]?.gross == 2999)
  }
}
