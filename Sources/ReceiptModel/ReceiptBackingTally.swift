/// How far the signed receipts of many JSON bodies back them, in sums: what a report over many documents
/// (`revenue`) says of their `latest_receipt` backings. Sums, so that it is the same whatever order the
/// documents, or the parts of a split run, are added in.
public struct ReceiptBackingTally: Hashable, Sendable {
  /// Documents that carry a `latest_receipt` (a receipt or not).
  public var documents: Int = 0
  /// Of those, the ones whose `latest_receipt` holds no receipt.
  public var notAReceiptDocuments: Int = 0
  /// Of those that hold a receipt, the ones whose receipt is not signed by Apple (a --trust-root or a test signature).
  public var notSignedByAppleDocuments: Int = 0
  /// The JSON transactions compared.
  public var transactions: Int = 0
  /// Of those, the ones the signed receipt backs.
  public var backed: Int = 0
  /// Of those, the ones that contradict the signed receipt.
  public var contradicted: Int = 0
  /// Of those, the ones the signed receipt does not hold.
  public var notInReceipt: Int = 0
  /// Signed transactions the JSON lacks.
  public var onlyInReceipt: Int = 0

  public init() {}

  /// One document's backing.
  /// - Parameter backing: The comparison of one JSON body with its signed receipt.
  public init(_ backing: ReceiptBacking) {
    documents = 1
    if backing.outcome == .notAReceipt {
      notAReceiptDocuments = 1
      return
    }
    notSignedByAppleDocuments = backing.signedByApple ? 0 : 1
    transactions = backing.entries.count
    backed = backing.backedCount
    contradicted = backing.contradicted.count
    notInReceipt = backing.absent.count
    onlyInReceipt = backing.onlyInReceipt.count
  }

  /// Adds another tally (overflow saturates: the counts come from bounded documents).
  /// - Parameter other: The tally of other documents.
  public mutating func add(_ other: ReceiptBackingTally) {
    func sum(_ a: Int, _ b: Int) -> Int {
      let (s, overflow) = a.addingReportingOverflow(b)
      return overflow ? Int.max : s
    }
    documents = sum(documents, other.documents)
    notAReceiptDocuments = sum(notAReceiptDocuments, other.notAReceiptDocuments)
    notSignedByAppleDocuments = sum(notSignedByAppleDocuments, other.notSignedByAppleDocuments)
    transactions = sum(transactions, other.transactions)
    backed = sum(backed, other.backed)
    contradicted = sum(contradicted, other.contradicted)
    notInReceipt = sum(notInReceipt, other.notInReceipt)
    onlyInReceipt = sum(onlyInReceipt, other.onlyInReceipt)
  }

  /// What the comparisons come to, the weakest first: a contradiction, then an absence; `notAReceipt` only when
  /// no document holds a receipt.
  public var outcome: ReceiptBacking.Outcome {
    if contradicted > 0 { return .contradicted }
    if notInReceipt > 0 { return .partlyBacked }
    if documents > 0, documents == notAReceiptDocuments { return .notAReceipt }
    return .backed
  }

  /// One phrase a support person can read out: `backed by Apple's signature: 9 of 9 transactions`, then
  /// what is not backed, in counts (each document's own output names the transactions).
  public var summary: String {
    if outcome == .notAReceipt {
      return documents == 1
        ? "latest_receipt is not a receipt: nothing backs this JSON"
        : "latest_receipt is not a receipt in \(documents) documents: nothing backs their JSON"
    }
    let receipts = documents - notAReceiptDocuments
    let signature =
      notSignedByAppleDocuments == 0
      ? "Apple's signature"
      : receipts == 1 ? "the receipt's signature (not Apple's)" : "the receipts' signatures (not all Apple's)"
    let verb: String
    switch outcome {
    case .contradicted: verb = "contradicted by"
    case .partlyBacked: verb = "partly backed by"
    case .backed, .notAReceipt: verb = "backed by"
    }
    var parts = [
      "\(verb) \(signature): \(backed) of \(transactions) transactions"
        + (receipts > 1 ? " in \(receipts) documents" : "")
    ]
    if contradicted > 0 {
      parts.append("\(contradicted) \(contradicted == 1 ? "contradicts" : "contradict") the signed receipt")
    }
    if notInReceipt > 0 { parts.append("\(notInReceipt) not in the signed receipt") }
    if onlyInReceipt > 0 { parts.append("the signed receipts also hold \(onlyInReceipt) the JSON lacks") }
    if notAReceiptDocuments > 0 {
      parts.append(
        notAReceiptDocuments == 1
          ? "1 document's latest_receipt is not a receipt"
          : "\(notAReceiptDocuments) documents' latest_receipt is not a receipt")
    }
    return parts.joined(separator: "; ")
  }
}
