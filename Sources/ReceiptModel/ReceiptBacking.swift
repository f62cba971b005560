/// How far a JSON body's purchases (verifyReceipt, Notification v1) are backed by the signed app receipt it
/// carries in `latest_receipt`: each JSON transaction compared with the signed receipt's, by transaction id.
public struct ReceiptBacking: Hashable, Sendable {
  /// What the comparison comes to.
  public enum Outcome: String, Hashable, Sendable {
    /// Every JSON transaction is in the signed receipt with the same facts.
    case backed
    /// None contradicts the signed receipt, but some are not in it.
    case partlyBacked = "partly-backed"
    /// At least one transaction has the same id as a signed one but other facts.
    case contradicted
    /// `latest_receipt` holds no receipt (a placeholder such as "XXXX"): nothing to compare, nothing forged.
    case notAReceipt = "not-a-receipt"
  }

  /// Why a JSON transaction the signed receipt does not hold may still be genuine.
  public enum Absence: String, Hashable, Sendable {
    /// Bought after the signed receipt was made: `latest_receipt_info` may be newer than an older `latest_receipt`.
    case newerThanReceipt = "newer-than-receipt"
    /// No expiry date: a consumable leaves the receipt once the app finishes its transaction.
    case mayBeFinishedConsumable = "may-be-finished-consumable"
    /// Nothing explains it.
    case unexplained
  }

  /// One fact that differs between the JSON and the signed receipt.
  public struct Difference: Hashable, Sendable {
    /// The field, as the JSON names it (`expires_date_ms`).
    public var field: String
    /// The JSON's value, or `absent`.
    public var json: String
    /// The signed receipt's value, or `absent`.
    public var receipt: String

    /// - Parameters:
    ///   - field: The field, as the JSON names it.
    ///   - json: The JSON's value.
    ///   - receipt: The signed receipt's value.
    public init(field: String, json: String, receipt: String) {
      self.field = field
      self.json = json
      self.receipt = receipt
    }
  }

  /// How one JSON transaction stands against the signed receipt.
  public enum Standing: Hashable, Sendable {
    case backed
    case contradicted([Difference])
    case notInReceipt(Absence)
  }

  /// One JSON transaction and its standing.
  public struct Entry: Hashable, Sendable {
    public var transactionID: String
    public var productID: String
    public var standing: Standing

    /// - Parameters:
    ///   - transactionID: The JSON transaction's id.
    ///   - productID: Its product.
    ///   - standing: How it stands against the signed receipt.
    public init(transactionID: String, productID: String, standing: Standing) {
      self.transactionID = transactionID
      self.productID = productID
      self.standing = standing
    }
  }

  /// A transaction the signed receipt holds and the JSON lacks.
  public struct ReceiptOnly: Hashable, Sendable {
    public var transactionID: String
    public var productID: String

    /// - Parameters:
    ///   - transactionID: The signed transaction's id.
    ///   - productID: Its product.
    public init(transactionID: String, productID: String) {
      self.transactionID = transactionID
      self.productID = productID
    }
  }

  /// What the comparison comes to.
  public var outcome: Outcome
  /// For `notAReceipt`: what `latest_receipt` is, in a few plain words (`cut short`, `not a receipt (a placeholder)`).
  public var notAReceiptReason: String?
  /// For `notAReceipt`: where reading it stopped, as the receipt reader says.
  public var notAReceiptDetail: String?
  /// The JSON's transactions, in document order.
  public var entries: [Entry]
  /// The signed receipt's transactions the JSON lacks, in receipt order: the answers take them from the signed
  /// receipt (`backedTransactions(of:by:)`).
  public var onlyInReceipt: [ReceiptOnly]
  /// The signed receipt's creation date (attribute 12).
  public var receiptCreationDate: Timestamp?
  /// Whether the JSON and the signed receipt describe the same moment: the JSON's `receipt_creation_date` is the
  /// signed receipt's. Then a JSON transaction bought before the receipt was made and not in it is an edit.
  public var sameMoment = false
  /// Whether the receipt's signature ends at Apple's root (false: a --trust-root or a test signature).
  public var signedByApple = true

  /// - Parameters:
  ///   - outcome: What the comparison comes to.
  ///   - entries: The JSON's transactions and their standing.
  ///   - onlyInReceipt: Signed transactions the JSON lacks.
  ///   - receiptCreationDate: The signed receipt's creation date.
  public init(
    outcome: Outcome, entries: [Entry] = [], onlyInReceipt: [ReceiptOnly] = [], receiptCreationDate: Timestamp? = nil
  ) {
    self.outcome = outcome
    self.entries = entries
    self.onlyInReceipt = onlyInReceipt
    self.receiptCreationDate = receiptCreationDate
  }

  /// `latest_receipt` holds no receipt.
  /// - Parameters:
  ///   - reason: What it held instead, in a few words.
  ///   - detail: Where reading it stopped.
  /// - Returns: The `notAReceipt` backing.
  public static func notAReceipt(_ reason: String, detail: String? = nil) -> ReceiptBacking {
    var backing = ReceiptBacking(outcome: .notAReceipt)
    backing.notAReceiptReason = reason
    backing.notAReceiptDetail = detail
    return backing
  }

  /// `latest_receipt is <reason>: nothing backs this JSON`.
  static func nothingBacks(_ reason: String) -> String {
    "latest_receipt is " + reason + ": nothing backs this JSON"
  }

  /// The phrases of the reasons `latest_receipt`'s check gives (LatestReceiptBacking), the commonest first; any
  /// other reason's phrase is joined when asked for.
  static let joinedPhrases: [(reason: String, phrase: String)] = [
    "cut short", "not a receipt (a placeholder)", "empty", "damaged", "not a receipt (not base64)",
    "not a receipt (not PKCS#7)", "not a receipt (no signer)", "not a receipt",
  ].map { ($0, nothingBacks($0)) }

  /// How many JSON transactions the signed receipt backs.
  public var backedCount: Int {
    entries.reduce(0) { $0 + ($1.standing == .backed ? 1 : 0) }
  }

  /// The JSON transactions that contradict the signed receipt.
  public var contradicted: [Entry] {
    entries.filter { if case .contradicted = $0.standing { true } else { false } }
  }

  /// The JSON transactions the signed receipt does not hold.
  public var absent: [Entry] {
    entries.filter { if case .notInReceipt = $0.standing { true } else { false } }
  }

  /// One phrase a support person can read out: `backed by Apple's signature: 9 of 9 transactions`, then what
  /// is not backed and why.
  public var summary: String {
    if outcome == .notAReceipt {
      // Every body whose latest_receipt is a placeholder or cut short asks for it (twice: its note and its backing's
      // summary), so the phrases of the reasons the check gives are joined once.
      let reason = notAReceiptReason ?? "not a receipt"
      for known in Self.joinedPhrases where known.reason == reason { return known.phrase }
      return Self.nothingBacks(reason)
    }
    let contradictions = contradicted
    let signature = signedByApple ? "Apple's signature" : "the receipt's signature (not Apple's)"
    var parts: [String] = []
    switch outcome {
    case .contradicted:
      parts.append(
        "contradicted by \(signature): \(contradictions.count) of \(entries.count) transactions "
          + "differ from the signed receipt (\(backedCount) backed)")
    case .partlyBacked:
      parts.append("partly backed by \(signature): \(backedCount) of \(entries.count) transactions")
    case .backed, .notAReceipt:
      parts.append("backed by \(signature): \(backedCount) of \(entries.count) transactions")
    }
    let missing = absent
    if !missing.isEmpty {
      let ids = missing.map { entry -> String in
        guard case .notInReceipt(let why) = entry.standing else { return entry.transactionID }
        return "\(entry.transactionID) (\(Self.phrase(why, created: receiptCreationDate)))"
      }
      parts.append("not in the signed receipt: " + ids.joined(separator: ", "))
    }
    if !onlyInReceipt.isEmpty {
      parts.append(
        "the signed receipt also holds "
          + onlyInReceipt.map { "\($0.transactionID) (\($0.productID))" }.joined(separator: ", ")
          + ", which the JSON lacks: the answers take \(onlyInReceipt.count == 1 ? "it" : "them") from the signed receipt"
      )
    }
    return parts.joined(separator: "; ")
  }

  /// Why an absence may be genuine, in words.
  public static func phrase(_ absence: Absence, created: Timestamp?) -> String {
    switch absence {
    case .newerThanReceipt:
      "bought after the signed receipt was made\(created.map { " (\($0.iso8601))" } ?? ""): latest_receipt_info may be newer than latest_receipt"
    case .mayBeFinishedConsumable:
      "no expiry date: a finished consumable leaves the receipt"
    case .unexplained: "unexplained"
    }
  }
}
