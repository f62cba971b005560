import ReceiptModel

/// Whether a counted amount rests on a verified signature (signed `price`, `currency` and `inAppOwnershipType`
/// [S27] §6; Apple's reports stay the record §7.8) that covers both the amount and the ownership it was
/// counted under, or why not.
///
/// The rule: an amount is backed when
/// 1. the document that stated the copy counted has the signature verdict `verified` (a document's verdict is
///    its weakest signed item's, so one failed signature backs none of the document's money); a chain that ends
///    at a `--trust-root` counts, and is named apart (`backedThroughTrustRoot`), since that root is not Apple's;
/// 2. the amount is the signed transaction's own `price` and `currency` (a free trial: the signed payload's
///    offer), not a catalog or introductory price: no signature covers a catalog;
/// 3. the ownership it was counted under is the signed payload's own `inAppOwnershipType`.
///
/// A receipt (on-device, or the `latest_receipt` of verifyReceipt JSON) states neither price nor ownership, so
/// no amount counted from one is backed. A refund or an upgrade proration is booked in the class of the sale it
/// reduces: backed money is net of every refund known of a backed sale, whichever copy stated it, so backed
/// money is never more than the signed data shows kept.
public enum MoneyBacking: Hashable, Sendable {
  /// Backed, through the root named.
  case backed(SignatureCheck.Anchor)
  /// Not backed, for the reason named.
  case notBacked(NotBackedReason)
}

/// Why a counted amount does not rest on a verified signature; the raw value is the JSON key.
public enum NotBackedReason: String, Hashable, Sendable, CaseIterable, Comparable {
  /// The document's signature failed: the data may have been altered or made up.
  case signatureInvalid = "signature_invalid"
  /// The document carries no signature (verifyReceipt JSON without `latest_receipt`, a decoded payload).
  case unsigned
  /// Signed, but not checked (read without a verifier).
  case signatureNotChecked = "signature_not_checked"
  /// Signed by Xcode StoreKit testing, not by Apple.
  case testSigned = "test_signed"
  /// Signed data that states no price: valued from the catalog, which no signature covers.
  case catalogPrice = "catalog_price"
  /// The price is signed, but the ownership was assumed (the payload states no `inAppOwnershipType`).
  case ownershipNotSigned = "ownership_not_signed"
  /// Neither price nor ownership is signed: a receipt's or verifyReceipt JSON's row, valued from the catalog.
  case priceAndOwnershipNotSigned = "price_and_ownership_not_signed"
  /// Made by a receipt-tool before backing was recorded (a ledger line or a `--merge` part without it).
  case notRecorded = "not_recorded"

  /// A few words a finance person can read out.
  public var explanation: String {
    switch self {
    case .signatureInvalid: "signature invalid"
    case .unsigned: "unsigned"
    case .signatureNotChecked: "signature not checked"
    case .testSigned: "test-signed, not Apple's"
    case .catalogPrice: "catalog price, not signed"
    case .ownershipNotSigned: "ownership not signed"
    case .priceAndOwnershipNotSigned: "receipt: price and ownership not signed"
    case .notRecorded: "backing not recorded"
    }
  }

  public static func < (a: NotBackedReason, b: NotBackedReason) -> Bool {
    (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
  }
}

/// What a counted copy's document and payload say about its signature, as the ledger carries it.
public struct MoneyEvidence: Hashable, Sendable {
  /// The verdict of the document that stated the copy; nil when not recorded (an older ledger line).
  public var verdict: SignatureCheck.Verdict?
  /// The root a `verified` chain ends at.
  public var anchor: SignatureCheck.Anchor?
  /// Whether the ownership is the signed payload's own `inAppOwnershipType` (not assumed, not a JSON row's).
  public var ownershipSigned: Bool

  /// - Parameters:
  ///   - verdict: The document's verdict.
  ///   - anchor: The root a verified chain ends at.
  ///   - ownershipSigned: Whether the signed payload states the ownership.
  public init(verdict: SignatureCheck.Verdict?, anchor: SignatureCheck.Anchor?, ownershipSigned: Bool) {
    self.verdict = verdict
    self.anchor = anchor
    self.ownershipSigned = ownershipSigned
  }

  /// Nothing recorded: what an older ledger line says.
  public static let notRecorded = MoneyEvidence(verdict: nil, anchor: nil, ownershipSigned: false)

  /// What `ledger` recorded of the transaction at `position`: its document's verdict, and `ownershipSigned`, whether
  /// its ownership is signed (`PurchaseLedger.Reader.isOwnershipSigned(_:)`).
  init(of ledger: PurchaseLedger, at position: Int, ownershipSigned: Bool) {
    guard let check = ledger.documentCheck(at: position) else {
      self = .notRecorded
      return
    }
    self.init(verdict: check.verdict, anchor: check.anchor, ownershipSigned: ownershipSigned)
  }
}

/// Decides whether the amount `value` of an owner transaction, counted from a copy with `evidence`, is backed.
/// - Parameters:
///   - value: The transaction's value, as revenue counts it.
///   - evidence: The copy's document verdict and where its ownership came from.
/// - Returns: `.backed` with the root, or the first reason it is not (the signature, then the price, then the
///   ownership).
public func moneyBacking(of value: TransactionValue?, evidence: MoneyEvidence) -> MoneyBacking {
  switch evidence.verdict {
  case nil: return .notBacked(.notRecorded)
  case .invalid: return .notBacked(.signatureInvalid)
  case .unsigned: return .notBacked(.unsigned)
  case .notChecked: return .notBacked(.signatureNotChecked)
  case .testSigned: return .notBacked(.testSigned)
  case .verified: break
  }
  let priceSigned: Bool
  switch value {
  case .paid(_, .transactionPrice): priceSigned = true
  // A free trial's zero is the signed payload's offer when the payload is the transaction's own.
  case .trial: priceSigned = evidence.ownershipSigned
  case .paid, .unpriced, nil: priceSigned = false
  }
  switch (priceSigned, evidence.ownershipSigned) {
  case (true, true): return .backed(evidence.anchor ?? .apple)
  case (true, false): return .notBacked(.ownershipNotSigned)
  case (false, true): return .notBacked(.catalogPrice)
  case (false, false): return .notBacked(.priceAndOwnershipNotSigned)
  }
}
