/// Who owns a transaction (`in_app_ownership_type`, `inAppOwnershipType`).
public enum Ownership: Hashable, Sendable {
  /// The customer bought it.
  case purchased
  /// A family member bought it and shares it with this customer.
  case familyShared
  /// The format cannot say (an on-device receipt has no ownership field).
  case unknown
  /// A value Apple did not document when this tool was written, kept as received.
  case unrecognized(String)

  /// Apple's spelling, or `unknown`.
  public var raw: String {
    switch self {
    case .purchased: "PURCHASED"
    case .familyShared: "FAMILY_SHARED"
    case .unknown: "unknown"
    case .unrecognized(let raw): raw
    }
  }
}

/// Why the App Store refunded or revoked a transaction (`cancellation_reason`, `revocationReason`).
public enum RevocationReason: Hashable, Sendable {
  /// 1: the customer reported a problem with the app.
  case appIssue
  /// 0: another reason (an accidental purchase, say).
  case other
  /// A value Apple does not document, kept as received.
  case unrecognized(String)

  /// Reads Apple's code, `"0"` or `"1"`.
  public init(code: String) {
    switch code {
    case "1": self = .appIssue
    case "0": self = .other
    default: self = .unrecognized(code)
    }
  }

  /// Apple's code.
  public var code: String {
    switch self {
    case .appIssue: "1"
    case .other: "0"
    case .unrecognized(let raw): raw
    }
  }
}

/// A refund or a revocation: the moment the transaction stopped granting anything, and why.
public struct Revocation: Hashable, Sendable {
  public var date: Timestamp
  public var reason: RevocationReason?
  /// Signed data's `revocationType` as Apple spells it (`REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`).
  public var type: String?

  public init(date: Timestamp, reason: RevocationReason? = nil, type: String? = nil) {
    self.date = date
    self.reason = reason
    self.type = type
  }
}

/// An offer a transaction was bought with.
public struct OfferUse: Hashable, Sendable {
  /// What sort of offer it was.
  public enum Kind: Hashable, Sendable {
    case introductory
    case promotional
    case offerCode
    case winBack
    /// An offer type Apple does not document, kept as received.
    case unrecognized(String)
  }

  /// What the customer paid during the offer, when the data says.
  public enum Pricing: Hashable, Sendable {
    case freeTrial
    case payAsYouGo
    case payUpFront
    /// A reduced price whose payment mode the data does not state (`is_in_intro_offer_period`).
    case introductoryPrice
  }

  public var kind: Kind
  public var pricing: Pricing?
  /// The promotional offer id or offer code reference name, when there is one.
  public var identifier: String?
  /// Whether this use makes the customer ineligible for introductory offers in the subscription group.
  /// Decided by the format's own documentation: in verifyReceipt data either intro flag (Apple's receipt
  /// rule), in signed data `offerType` 1.
  public var usesIntroductoryOffer: Bool

  public init(kind: Kind, pricing: Pricing? = nil, identifier: String? = nil, usesIntroductoryOffer: Bool? = nil) {
    self.kind = kind
    self.pricing = pricing
    self.identifier = identifier
    self.usesIntroductoryOffer = usesIntroductoryOffer ?? (kind == .introductory)
  }

  /// An introductory free trial.
  public static let freeTrial = OfferUse(kind: .introductory, pricing: .freeTrial)
  /// An introductory price whose payment mode is not stated.
  public static let introductoryPrice = OfferUse(kind: .introductory, pricing: .introductoryPrice)

  /// A free trial, introductory or not.
  public var isFreeTrial: Bool { pricing == .freeTrial }
}

/// A price the data itself states (`price` in milliunits and `currency`, in signed transactions).
public struct StatedPrice: Hashable, Sendable {
  public var amount: DecimalAmount
  /// ISO 4217.
  public var currency: String

  public init(amount: DecimalAmount, currency: String) {
    self.amount = amount
    self.currency = currency
  }
}

/// Where a transaction was found in its document (verifyReceipt arrays, a signed transaction, a receipt set).
public struct TransactionSources: OptionSet, Hashable, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  public static let inApp = TransactionSources(rawValue: 1)
  public static let latestReceiptInfo = TransactionSources(rawValue: 2)
  /// iOS 6-style bodies: the `receipt` object is itself a transaction.
  public static let legacyReceipt = TransactionSources(rawValue: 4)
  /// iOS 6-style bodies: `latest_expired_receipt_info`.
  public static let latestExpiredReceiptInfo = TransactionSources(rawValue: 8)
  /// A signed transaction (JWS) or its decoded payload.
  public static let signedTransaction = TransactionSources(rawValue: 16)
  /// An in-app purchase receipt set of an on-device receipt (ASN.1 type 17).
  public static let appReceipt = TransactionSources(rawValue: 32)

  /// Names for output, in a fixed order.
  public var names: [String] {
    var out: [String] = []
    if contains(.inApp) { out.append("in_app") }
    if contains(.latestReceiptInfo) { out.append("latest_receipt_info") }
    if contains(.legacyReceipt) { out.append("receipt") }
    if contains(.latestExpiredReceiptInfo) { out.append("latest_expired_receipt_info") }
    if contains(.signedTransaction) { out.append("signed_transaction") }
    if contains(.appReceipt) { out.append("app_receipt") }
    return out
  }
}

/// One in-app purchase transaction, whatever format it came in, merged from every place it appeared.
public struct PurchaseTransaction: Hashable, Sendable {
  public var transactionID: String
  public var originalTransactionID: String?
  public var productID: String
  public var ownership: Ownership
  /// True when the data had no ownership field and PURCHASED was assumed (verifyReceipt rows older
  /// than Family Sharing, and the `in_app` array, omit it).
  public var ownershipAssumed: Bool
  /// nil when absent; Apple always sends it, usually 1.
  public var quantity: Int?
  public var purchaseDate: Timestamp?
  public var originalPurchaseDate: Timestamp?
  public var expiresDate: Timestamp?
  /// Set when the App Store refunded the transaction or revoked it from Family Sharing.
  public var revocation: Revocation?
  public var offer: OfferUse?
  public var isUpgraded: Bool
  public var subscriptionGroup: String?
  public var webOrderLineItemID: String?
  /// The product type, when the data states it (signed transactions' `type`).
  public var productType: ProductType?
  /// The price the customer paid, when the data states it.
  public var price: StatedPrice?
  /// When this copy was signed (signed data's `signedDate`): of two copies, the later one wins.
  public var signedDate: Timestamp?
  public var sources: TransactionSources
  /// The source's own field names, for reasons that quote them.
  public var vocabulary: FieldVocabulary
  /// Fields of this transaction carried through without a meaning, for `decode` to show.
  public var carriedFields: [CarriedField] = []

  public init(
    transactionID: String, originalTransactionID: String? = nil, productID: String,
    ownership: Ownership = .purchased, ownershipAssumed: Bool = false, quantity: Int? = 1,
    purchaseDate: Timestamp? = nil, originalPurchaseDate: Timestamp? = nil, expiresDate: Timestamp? = nil,
    revocation: Revocation? = nil, offer: OfferUse? = nil, isUpgraded: Bool = false,
    subscriptionGroup: String? = nil, webOrderLineItemID: String? = nil, productType: ProductType? = nil,
    price: StatedPrice? = nil, sources: TransactionSources = .latestReceiptInfo,
    vocabulary: FieldVocabulary = .verifyReceipt
  ) {
    self.transactionID = transactionID
    self.originalTransactionID = originalTransactionID
    self.productID = productID
    self.ownership = ownership
    self.ownershipAssumed = ownershipAssumed
    self.quantity = quantity
    self.purchaseDate = purchaseDate
    self.originalPurchaseDate = originalPurchaseDate
    self.expiresDate = expiresDate
    self.revocation = revocation
    self.offer = offer
    self.isUpgraded = isUpgraded
    self.subscriptionGroup = subscriptionGroup
    self.webOrderLineItemID = webOrderLineItemID
    self.productType = productType
    self.price = price
    self.sources = sources
    self.vocabulary = vocabulary
  }

  /// Revenue belongs to the purchaser: PURCHASED, or no ownership field at all (pre-Family-Sharing receipts).
  public var isOwnedByPurchaser: Bool { ownership == .purchased }

  /// The subscription chain this transaction belongs to.
  public var chainID: String { originalTransactionID ?? transactionID }
}
