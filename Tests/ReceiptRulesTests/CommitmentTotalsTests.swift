import ReceiptModel
import Testing

@testable import ReceiptRules

/// What a charge on a commitment plan adds to revenue's commitment totals: a charge always, a commitment at its
/// first billing period, valued only at a stated price in the charge's own currency.
@Suite struct CommitmentTotalsTests {
  static func commitment(period: Int64?, price: String?, currency: String = "USD") -> TransactionCommitment {
    TransactionCommitment(
      billingPeriodNumber: period, totalBillingPeriods: 12,
      price: price.flatMap(DecimalAmount.init(parsing:)).map { StatedPrice(amount: $0, currency: currency) })
  }

  @Test func theFirstBillingPeriodStartsACommitment() {
    let first = CommitmentTotals.charge(Self.commitment(period: 1, price: "119.88"), gross: 999, currency: "USD")
    #expect((first.charges, first.chargesGross, first.started, first.committed) == (1, 999, 1, 11988))
    let third = CommitmentTotals.charge(Self.commitment(period: 3, price: "119.88"), gross: 999, currency: "USD")
    #expect((third.charges, third.started, third.committed) == (1, 0, 0))
    // Not stated: a charge, but no commitment known to start.
    let unknown = CommitmentTotals.charge(Self.commitment(period: nil, price: "119.88"), gross: 999, currency: "USD")
    #expect((unknown.charges, unknown.started) == (1, 0))
  }

  @Test func aPriceNotStatedOrInAnotherCurrencyIsNeverValued() {
    let none = CommitmentTotals.charge(Self.commitment(period: 1, price: nil), gross: 999, currency: "USD")
    #expect((none.started, none.committed, none.startedWithoutPrice) == (1, 0, 1))
    let other = CommitmentTotals.charge(
      Self.commitment(period: 1, price: "119.88", currency: "EUR"), gross: 999, currency: "USD")
    #expect((other.started, other.committed, other.startedWithoutPrice) == (1, 0, 1))
    // More decimals than the currency has: not rounded into a figure.
    let fine = CommitmentTotals.charge(Self.commitment(period: 1, price: "119.885"), gross: 999, currency: "USD")
    #expect((fine.committed, fine.startedWithoutPrice) == (0, 1))
  }

  @Test func totalsAddAndAnOverflowChangesNothing() throws {
    var sum = CommitmentTotals.charge(Self.commitment(period: 1, price: "119.88"), gross: 999, currency: "USD")
    try sum.add(CommitmentTotals.charge(Self.commitment(period: 2, price: "119.88"), gross: 999, currency: "USD"))
    #expect((sum.charges, sum.chargesGross, sum.started, sum.committed) == (2, 1998, 1, 11988))
    var huge = CommitmentTotals()
    huge.chargesGross = Int64.max
    let before = sum
    #expect(throws: ReceiptError.self) { try sum.add(huge) }
    #expect(sum == before)
  }
}
