import ReceiptModel

/// The field classes an answer reads from the document that the document's verdict does not vouch for: the
/// ownership type of a verifyReceipt JSON backed by its signed receipt (a receipt has no ownership field), a
/// stated price or currency. Only a verdict that holds (verified, test-signed) is asked: any other vouches for
/// nothing and says so itself. A field the document does not state (ownership assumed for lack of
/// `in_app_ownership_type`, an on-device receipt's unknown ownership) is not drawn from it. (§9.3 [S54]: a
/// receipt's in-app set has no ownership type or price; §6.2 [S27]: a signed transaction states both.)
/// - Parameters:
///   - reads: The field classes the answer depends on (`FieldReads`).
///   - history: The document's history, its verdict in `provenance.signatureCheck`.
/// - Returns: The classes read, stated and not covered, in output order; empty when the signature vouches for all.
public func uncoveredFields(
  readBy reads: [SignatureCoverage.FieldClass], in history: PurchaseHistory
) -> [SignatureCoverage.FieldClass] {
  let check = history.provenance.signatureCheck
  guard check.verdict == .verified || check.verdict == .testSigned else { return [] }
  return reads.sorted().filter { field in
    guard !check.vouched.covers(field) else { return false }
    switch field {
    case .ownership:
      return history.transactions.contains { !$0.ownershipAssumed && $0.ownership != .unknown }
    case .price, .currency:
      return history.transactions.contains { $0.price != nil }
    case .appPurchase:
      let receipt = history.provenance.receipt
      return receipt?.originalApplicationVersion != nil || receipt?.originalPurchaseDate != nil
    case .ids, .products, .dates, .quantity, .offerFlags, .cancellation, .deviceHash:
      return !history.transactions.isEmpty
    }
  }
}

/// The field classes each answer reads that some signature does not cover.
public enum FieldReads {
  /// `entitlements`: ownership decides the OWNERSHIP column, a Family Sharing grant and its revocation; with the
  /// catalog's `paid_app`, the app's own purchase decides its grant.
  public static func entitlements(paidApp: Bool) -> [SignatureCoverage.FieldClass] {
    paidApp ? [.ownership, .appPurchase] : [.ownership]
  }
  /// `revenue`: ownership decides owner revenue or a family copy; a stated price and its currency value it.
  public static let revenue: [SignatureCoverage.FieldClass] = [.ownership, .price, .currency]
}
