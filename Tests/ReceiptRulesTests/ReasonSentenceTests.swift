import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// The reasons written in one go (an expired period's, a grant's) against the interpolations they replaced, kept
/// here as the references: every way each sentence branches, over many products, ids and dates.
struct ReasonSentenceTests {
  /// The reference: the sentence as `lostReason` interpolated it.
  static func interpolated(
    _ productID: String, at: Timestamp, intent: String?, silentDocument: String?, graceEnded: Timestamp?
  ) -> String {
    let notRenewed: String
    if let intent {
      notRenewed = " and was not renewed: \(intent)"
    } else if let silentDocument {
      notRenewed =
        "; \(silentDocument) holds no renewal state, so whether it renews, is in billing retry or in a grace period cannot be told from it (server data says)"
    } else {
      notRenewed = " and has not been renewed"
    }
    let graceEnded = graceEnded.map { "; the billing grace period ended on \($0.iso8601)" } ?? ""
    return "\(productID) expired on \(at.iso8601)\(notRenewed)\(graceEnded)."
  }

  static let products = ["com.example.p0.monthly", "", "p", "é.mensuel", "製品.月額", String(repeating: "q", count: 200)]
  static let intents: [String?] =
    [nil] + ["1", "2", "3", "4", "5", "9"].map { ExpirationIntent(code: $0).description } + ["", "ü"]
  static let documents: [String?] = [nil, "verifyReceipt", "the on-device receipt", "", "données"]

  static func date(_ rng: inout SplitMix64) -> Timestamp {
    var t = Timestamp.epoch
    t.milliseconds =
      switch rng.next() % 3 {
      case 0: Int64(rng.next() % 4_000_000_000) * 1000
      case 1: Int64(rng.next() % UInt64(Timestamp.maximumMilliseconds + 1))
      default: -Int64(rng.next() % 1_000_000_000) - 1
      }
    return t
  }

  @Test func expiredReasonIsTheInterpolation() {
    var rng = SplitMix64(seed: 42)
    for _ in 0..<4_000 {
      let product = Self.products[rng.below(Self.products.count)]
      let at = Self.date(&rng)
      let intent = Self.intents[rng.below(Self.intents.count)]
      let document = Self.documents[rng.below(Self.documents.count)]
      let grace = rng.next() % 2 == 0 ? nil : Self.date(&rng)
      let fast = expiredReason(product, at: at, intent: intent, silentDocument: document, graceEnded: grace)
      let plain = Self.interpolated(product, at: at, intent: intent, silentDocument: document, graceEnded: grace)
      #expect(Array(fast.utf8) == Array(plain.utf8))
    }
  }

  /// The reference: the grant's sentence as `grantedReason` interpolated it.
  static func interpolatedGrant(
    _ t: PurchaseTransaction, until: Timestamp?, lost l: PurchaseTransaction?, lostBy grant: AccessGrant?
  ) -> String {
    let keeps = until.map { "keeps it active until \($0.iso8601)" } ?? "keeps it active; it does not expire"
    let id =
      l?.productID == t.productID
      ? "transaction \(t.transactionID)" : "transaction \(t.transactionID), \(t.productID)"
    let source: String
    switch t.ownership {
    case .familyShared: source = "Family Sharing (\(id))"
    case .purchased where t.ownershipAssumed:
      source =
        "the customer's own purchase (\(id); \(t.vocabulary.document) has no \(t.vocabulary.ownership), so it is taken as bought by the customer)"
    case .purchased: source = "the customer's own purchase (\(id))"
    case .unknown:
      source = "\(id) (\(t.vocabulary.document) cannot say whether the customer or a family member bought it)"
    case .unrecognized(let raw): source = "\(id) (ownership \(raw))"
    }
    let sentence = source.prefix(1).uppercased() + source.dropFirst() + " " + keeps + "."
    guard let grant, let l else { return sentence }
    switch grant {
    case .revoked(let at):
      return "Family Sharing access to \(l.productID) was revoked on \(at.iso8601); \(source) \(keeps)."
    case .refunded(let at):
      return "\(l.productID) (transaction \(l.transactionID)) was refunded on \(at.iso8601); \(source) \(keeps)."
    default:
      return sentence
    }
  }

  static let ownerships: [Ownership] = [
    .purchased, .familyShared, .unknown, .unrecognized("SOMETHING_NEW"), .unrecognized(""), .unrecognized("ß"),
  ]
  static let ids = ["2000000000000000", "1", "", "tx-é"]

  static func transaction(_ rng: inout SplitMix64, product: String? = nil) -> PurchaseTransaction {
    PurchaseTransaction(
      transactionID: ids[rng.below(ids.count)], productID: product ?? products[rng.below(products.count)],
      ownership: ownerships[rng.below(ownerships.count)], ownershipAssumed: rng.next() % 2 == 0,
      vocabulary: rng.next() % 2 == 0 ? .test : .testWithoutRenewalState)
  }

  @Test func grantedReasonIsTheInterpolation() {
    var rng = SplitMix64(seed: 7)
    for _ in 0..<4_000 {
      let t = Self.transaction(&rng)
      let until = rng.next() % 3 == 0 ? nil : Self.date(&rng)
      // The newest loss: none, or a row of the same or another product, lost in each way a grant can be.
      let l = rng.next() % 3 == 0 ? nil : Self.transaction(&rng, product: rng.next() % 2 == 0 ? t.productID : nil)
      let grants: [AccessGrant?] = [
        nil, .revoked(Self.date(&rng)), .refunded(Self.date(&rng)), .expired(Self.date(&rng)), .upgraded,
      ]
      let grant = grants[rng.below(grants.count)]
      let fast = grantedReason(t, until: until, lost: l, lostBy: grant)
      let plain = Self.interpolatedGrant(t, until: until, lost: l, lostBy: grant)
      #expect(Array(fast.utf8) == Array(plain.utf8))
    }
  }
}
