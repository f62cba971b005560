import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

// Issue 39: a verifyReceipt JSON beside the signed receipt it carries, compared in both directions, by whether
// the two describe the same moment; the answers take the signed rows the JSON lacks; an answer drawing on a field
// the signature does not cover says so. Hand-built histories; expected values from the written rules.

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? .epoch }

private func row(
  _ id: String, bought: String, expires: String?, trial: Bool = false, ownership: Ownership = .purchased,
  assumed: Bool = false, sources: TransactionSources = .latestReceiptInfo
) -> PurchaseTransaction {
  PurchaseTransaction(
    transactionID: id, originalTransactionID: "1", productID: "com.acme.pro.monthly", ownership: ownership,
    ownershipAssumed: assumed, purchaseDate: at(bought), expiresDate: expires.map(at),
    offer: trial ? .freeTrial : nil, subscriptionGroup: "21000111", sources: sources, vocabulary: .test)
}

/// The receipt's three rows: a trial, then two renewals; made 2024-06-15.
private let signedRows = [
  row("1", bought: "2024-04-03T00:00:00Z", expires: "2024-05-03T00:00:00Z", trial: true, ownership: .unknown),
  row("2", bought: "2024-05-03T00:00:00Z", expires: "2024-06-03T00:00:00Z", ownership: .unknown),
  row("3", bought: "2024-06-03T00:00:00Z", expires: "2024-07-03T00:00:00Z", ownership: .unknown),
]

private func history(_ rows: [PurchaseTransaction], created: String?) -> PurchaseHistory {
  var h = PurchaseHistory(format: .handBuilt)
  h.provenance.status = ReceiptStatus(0)
  var info = ReceiptInfo()
  info.receiptCreationDate = created.map(at)
  h.provenance.receipt = info
  h.transactions = rows
  return h
}

private let signed = history(signedRows, created: "2024-06-15T00:00:00Z")

private func jsonRows(_ edit: (inout [PurchaseTransaction]) -> Void = { _ in }) -> [PurchaseTransaction] {
  var rows = signedRows.map { t -> PurchaseTransaction in
    var t = t
    t.ownership = .purchased
    return t
  }
  edit(&rows)
  return rows
}

private func intro(_ rows: [PurchaseTransaction]) -> IntroEligibilityStatus? {
  let catalog = Catalog([
    CatalogProduct(
      productID: "com.acme.pro.monthly", type: .autoRenewable, subscriptionGroup: "21000111",
      introOffer: IntroOffer(paymentMode: .freeTrial, period: "P1W"), origin: "c.json")
  ])
  let time = EvaluationTime(time: at("2024-08-01T00:00:00Z"), source: .given)
  return decideIntroEligibility(
    products: ["com.acme.pro.monthly"], history: history(rows, created: nil), catalog: catalog, at: time
  ).first?.status
}

@Suite struct BackedRowsTests {
  @Test func aRowMissingFromTheJSONIsAnsweredFromTheSignedReceiptAtAnyMoment() {
    for created in ["2024-06-15T00:00:00Z", "2024-07-01T00:00:00Z"] {
      let json = history(jsonRows { $0.removeFirst() }, created: created)
      let backing = receiptBacking(of: json, by: signed)
      #expect(backing.outcome == .backed)
      #expect(backing.sameMoment == (created == "2024-06-15T00:00:00Z"))
      #expect(backing.onlyInReceipt.map(\.transactionID) == ["1"])
      let answered = backedTransactions(of: json.transactions, by: signed.transactions, backing: backing)
      #expect(answered.map(\.transactionID) == ["2", "3", "1"])
      #expect(answered.last == signedRows[0])
      // The deleted trial no longer makes the customer eligible again.
      #expect(intro(json.transactions) == .eligible)
      #expect(intro(answered) == .ineligible)
    }
  }

  @Test func aBackedJSONIsAnsweredFromItsOwnRowsUnchanged() {
    let json = history(jsonRows(), created: "2024-06-15T00:00:00Z")
    let backing = receiptBacking(of: json, by: signed)
    #expect(backing.outcome == .backed)
    #expect(backedTransactions(of: json.transactions, by: signed.transactions, backing: backing) == json.transactions)
  }

  @Test func aRowAddedBeforeTheReceiptOfTheSameMomentWasMadeIsAnEdit() {
    let added = row("9", bought: "2024-06-01T00:00:00Z", expires: "2024-07-01T00:00:00Z")
    let same = receiptBacking(of: history(jsonRows { $0.append(added) }, created: "2024-06-15T00:00:00Z"), by: signed)
    #expect(same.outcome == .contradicted)
    #expect(same.contradicted.map(\.transactionID) == ["9"])
    guard case .contradicted(let d)? = same.contradicted.first?.standing else {
      Issue.record("not contradicted")
      return
    }
    #expect(d.map(\.field) == ["transaction_id"])
    // Beside an older receipt the same row is not backed, and nothing explains it.
    let older = receiptBacking(of: history(jsonRows { $0.append(added) }, created: "2024-07-01T00:00:00Z"), by: signed)
    #expect(older.outcome == .partlyBacked)
    #expect(older.absent.map(\.standing) == [.notInReceipt(.unexplained)])
    // Without a creation date in the JSON, the moments are not known to be the same.
    let unknown = receiptBacking(of: history(jsonRows { $0.append(added) }, created: nil), by: signed)
    #expect(unknown.outcome == .partlyBacked)
  }

  @Test func aRowBoughtAfterTheReceiptWasMadeIsGenuineButNotBackedAtAnyMoment() {
    let newer = row("4", bought: "2024-07-03T00:00:00Z", expires: "2024-08-03T00:00:00Z")
    for created in ["2024-06-15T00:00:00Z", "2024-07-05T00:00:00Z"] {
      let backing = receiptBacking(of: history(jsonRows { $0.append(newer) }, created: created), by: signed)
      #expect(backing.outcome == .partlyBacked)
      #expect(backing.absent.map(\.standing) == [.notInReceipt(.newerThanReceipt)])
    }
  }

  @Test func aChangedTrialOrIntroFlagContradictsTheReceipt() {
    let cleared = receiptBacking(
      of: history(jsonRows { $0[0].offer = nil }, created: "2024-06-15T00:00:00Z"), by: signed)
    #expect(cleared.outcome == .contradicted)
    guard case .contradicted(let d)? = cleared.contradicted.first?.standing else {
      Issue.record("not contradicted")
      return
    }
    #expect(d == [ReceiptBacking.Difference(field: "is_trial_period", json: "false", receipt: "true")])
    let intro = receiptBacking(
      of: history(jsonRows { $0[1].offer = .introductoryPrice }, created: "2024-07-01T00:00:00Z"), by: signed)
    #expect(intro.contradicted.map(\.transactionID) == ["2"])
  }

  @Test func ownershipIsNotComparedForNoReceiptHoldsIt() {
    let shared = receiptBacking(
      of: history(jsonRows { $0[2].ownership = .familyShared }, created: "2024-06-15T00:00:00Z"), by: signed)
    #expect(shared.outcome == .backed)
  }

  @Test func anAnswerDrawingOnOwnershipBesideAReceiptNamesIt() {
    var json = history(jsonRows(), created: "2024-06-15T00:00:00Z")
    var check = SignatureCheck(.verified)
    check.coverage = .appReceipt
    json.provenance.signatureCheck = check
    #expect(uncoveredFields(readBy: [.ownership], in: json) == [.ownership])
    #expect(uncoveredFields(readBy: [.dates, .offerFlags], in: json).isEmpty)
    // Stated by nothing (assumed for lack of in_app_ownership_type), it is not drawn from the JSON.
    json.transactions = json.transactions.map { t in
      var t = t
      t.ownershipAssumed = true
      return t
    }
    #expect(uncoveredFields(readBy: [.ownership], in: json).isEmpty)
    // A signed transaction covers ownership, price and currency.
    var jws = history(jsonRows(), created: nil)
    jws.transactions[0].price = StatedPrice(amount: DecimalAmount(units: 999, scale: 2), currency: "USD")
    check.coverage = .signedTransaction
    jws.provenance.signatureCheck = check
    #expect(uncoveredFields(readBy: [.ownership, .price, .currency], in: jws).isEmpty)
    check.coverage = .appReceipt
    jws.provenance.signatureCheck = check
    #expect(uncoveredFields(readBy: FieldReads.revenue, in: jws) == [.ownership, .price, .currency])
    #expect(uncoveredFields(readBy: [.currency, .ownership], in: jws) == [.ownership, .currency])
    // A verdict that does not hold vouches for nothing, and says so itself.
    check.verdict = .unsigned
    jws.provenance.signatureCheck = check
    #expect(uncoveredFields(readBy: [.ownership], in: jws).isEmpty)
  }

  /// A paid-app grant rests on the receipt's app purchase: an on-device receipt signs it (types 19 and 18), a
  /// verifyReceipt body's latest_receipt does not (it is compared with the JSON's transactions only).
  @Test func aPaidAppGrantBesideALatestReceiptNamesTheAppPurchase() {
    var json = history(jsonRows(), created: "2024-06-15T00:00:00Z")
    var info = ReceiptInfo()
    info.originalApplicationVersion = "301"
    json.provenance.receipt = info
    var check = SignatureCheck(.verified)
    check.coverage = .latestReceipt
    json.provenance.signatureCheck = check
    #expect(uncoveredFields(readBy: FieldReads.entitlements(paidApp: true), in: json) == [.appPurchase, .ownership])
    #expect(uncoveredFields(readBy: FieldReads.entitlements(paidApp: false), in: json) == [.ownership])
    check.coverage = .appReceipt
    json.provenance.signatureCheck = check
    #expect(uncoveredFields(readBy: [.appPurchase], in: json).isEmpty)
    // Without the app's facts nothing is drawn from them.
    check.coverage = .latestReceipt
    json.provenance.signatureCheck = check
    json.provenance.receipt = ReceiptInfo()
    #expect(uncoveredFields(readBy: [.appPurchase], in: json).isEmpty)
  }
}
