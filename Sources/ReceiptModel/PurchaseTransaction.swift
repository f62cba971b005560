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
  /// When the transaction was refunded or revoked (`cancellation_date_ms`, `revocationDate`).
  public var date: Timestamp
  /// Why, when the data says (`cancellation_reason`, `revocationReason`).
  public var reason: RevocationReason?
  /// Signed data's `revocationType` as Apple spells it (`REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`).
  public var type: String?
  /// Signed data's `revocationPercentage`: the refunded share of the price in milliunits of a percent
  /// (50000 is 50%); nil when the data states none.
  public var percentage: Int64?
  /// Signed data's `revocationDate` is set only for refunds and Family Sharing revocations, never for an
  /// upgrade (old verifyReceipt receipts also set `cancellation_date` on upgrades), so it stands beside `isUpgraded`.
  public var excludesUpgrade: Bool
  /// When Apple reversed the refund (`REFUND_REVERSED`, or a later-signed copy without the revocation): the
  /// `signedDate` that first says so. From then on the sale stands again.
  public var reversedAt: Timestamp?

  /// Records a refund or revocation.
  /// - Parameters:
  ///   - date: When it happened.
  ///   - reason: Why, when the data says.
  ///   - type: Signed data's `revocationType`, as Apple spells it.
  ///   - percentage: Signed data's `revocationPercentage`, in milliunits of a percent.
  ///   - excludesUpgrade: Whether the format sets the date only for refunds and revocations.
  ///   - reversedAt: When Apple reversed it, when it did.
  public init(
    date: Timestamp, reason: RevocationReason? = nil, type: String? = nil, percentage: Int64? = nil,
    excludesUpgrade: Bool = false, reversedAt: Timestamp? = nil
  ) {
    self.date = date
    self.reason = reason
    self.type = type
    self.percentage = percentage
    self.excludesUpgrade = excludesUpgrade
    self.reversedAt = reversedAt
  }

  /// Whether the revocation is in force at `time`: it happened by then and was not reversed by then.
  public func isInForce(at time: Timestamp) -> Bool {
    date <= time && !(reversedAt.map { $0 <= time } ?? false)
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

  /// What sort of offer it was.
  public var kind: Kind
  /// What the customer paid during the offer, when the data says.
  public var pricing: Pricing?
  /// The promotional offer id or offer code reference name, when there is one.
  public var identifier: String?
  /// Whether this use makes the customer ineligible for introductory offers in the subscription group.
  /// Decided by the format's own documentation: in verifyReceipt data either intro flag (Apple's receipt
  /// rule), in signed data `offerType` 1.
  public var usesIntroductoryOffer: Bool

  /// Records an offer use.
  /// - Parameters:
  ///   - kind: What sort of offer it was.
  ///   - pricing: What the customer paid during it, when known.
  ///   - identifier: The promotional offer id or offer code reference name.
  ///   - usesIntroductoryOffer: Whether it uses up introductory eligibility; nil means only introductory offers do.
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
  /// The amount, in units of `currency`.
  public var amount: DecimalAmount
  /// ISO 4217.
  public var currency: String

  /// Records a stated price.
  /// - Parameters:
  ///   - amount: The amount, in units of `currency`.
  ///   - currency: The ISO 4217 code.
  public init(amount: DecimalAmount, currency: String) {
    self.amount = amount
    self.currency = currency
  }
}

/// Where a transaction was found in its document (verifyReceipt arrays, a signed transaction, a receipt set).
public struct TransactionSources: OptionSet, Hashable, Sendable {
  /// The bits of the set.
  public let rawValue: UInt8
  /// A set from its bits.
  /// - Parameter rawValue: The bits.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// verifyReceipt's `receipt.in_app` array.
  public static let inApp = TransactionSources(rawValue: 1)
  /// verifyReceipt's `latest_receipt_info` array.
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
///
/// Optional fields are spelled `Optional<T>`, not `T?`: a `var x: T?` is first set to nil and then assigned in the
/// init, and that left the optimizer copying the whole transaction (retaining every String) and destroying the
/// first one, once per transaction made (Swift 6.3).
// swift-format-ignore: UseShorthandTypeNames
public struct PurchaseTransaction: Hashable, Sendable {
  // Stored in this order so that what the rules read of every transaction lies in its first two cache lines
  // (ids, product, ownership, purchase and expiry dates, the flags, the group; the revocation's presence just
  // after): at scale the transactions outgrow the cache and are read in date order, a miss per line touched.
  /// `transaction_id` / `transactionId`: this purchase's own id (each renewal gets a new one).
  public var transactionID: String
  /// `original_transaction_id` / `originalTransactionId`: the first purchase in this chain.
  public var originalTransactionID: Optional<String>
  /// `product_id` / `productId`: the product bought.
  public var productID: String
  /// Who owns it: bought by this customer or shared through Family Sharing.
  public var ownership: Ownership
  /// `purchase_date_ms` / `purchaseDate`: when the App Store charged for this transaction.
  public var purchaseDate: Optional<Timestamp>
  /// `expires_date_ms` / `expiresDate`: when the period ends; subscriptions only.
  public var expiresDate: Optional<Timestamp>
  /// True when the data had no ownership field and PURCHASED was assumed (verifyReceipt rows older
  /// than Family Sharing, and the `in_app` array, omit it).
  public var ownershipAssumed: Bool
  /// `is_upgraded` / `isUpgraded`: the customer upgraded away from this subscription.
  public var isUpgraded: Bool
  /// The product type, when the data states it (signed transactions' `type`).
  public var productType: Optional<ProductType>
  /// `subscription_group_identifier`: the subscription group the product belongs to.
  public var subscriptionGroup: Optional<String>
  /// Set when the App Store refunded the transaction or revoked it from Family Sharing.
  public var revocation: Optional<Revocation>
  /// nil when absent; Apple always sends it, usually 1.
  public var quantity: Optional<Int>
  /// `original_purchase_date_ms` / `originalPurchaseDate`: when the original transaction was bought.
  public var originalPurchaseDate: Optional<Timestamp>
  /// The offer the transaction was bought with, if any.
  public var offer: Optional<OfferUse>
  /// `web_order_line_item_id`: the id of this subscription purchase event across devices.
  public var webOrderLineItemID: Optional<String>
  /// The price the customer paid, when the data states it.
  public var price: Optional<StatedPrice>
  /// When this copy was signed (signed data's `signedDate`): of two copies, the later one wins.
  public var signedDate: Optional<Timestamp>
  /// Every place in the document this transaction appeared.
  public var sources: TransactionSources
  /// The source's own field names, for reasons that quote them.
  public var vocabulary: FieldVocabulary
  /// Fields of this transaction carried through without a meaning, for `decode` to show.
  public var carriedFields: [CarriedField]
  /// Fields the transaction states that no rule reads (`storefront`, `transactionReason`), under the source's
  /// own names, for `decode` to show.
  public var statedFields: [StatedField]
  /// Kept out of line (`billing`, `itemRefunds`): one word, nil for every transaction that states neither.
  @usableFromInline var chargeBox: Optional<ChargeDetailsBox>

  /// The billing plan and commitment the data states (signed data's `billingPlanType`, `commitmentInfo`).
  public var billing: Optional<BillingTerms> {
    get { chargeBox?.details.billing }
    set {
      var details = chargeBox?.details ?? ChargeDetails()
      details.billing = newValue
      chargeBox = ChargeDetailsBox.boxing(details)
    }
  }

  /// Its billing terms and item refunds together; nil (one check) for the many transactions that state neither.
  public var chargeDetails: ChargeDetails? { chargeBox?.details }

  /// An Advanced Commerce transaction's item refunds (`advancedCommerceInfo.items[].refunds[]`).
  public var itemRefunds: [ItemRefund] {
    get { chargeBox?.details.itemRefunds ?? [] }
    set {
      var details = chargeBox?.details ?? ChargeDetails()
      details.itemRefunds = newValue
      chargeBox = ChargeDetailsBox.boxing(details)
    }
  }

  /// Makes a transaction; only the ids, the product and the vocabulary (which its format names) are required.
  /// - Parameters:
  ///   - transactionID: This purchase's own id.
  ///   - originalTransactionID: The first purchase in this chain.
  ///   - productID: The product bought.
  ///   - ownership: Who owns it.
  ///   - ownershipAssumed: Whether PURCHASED was assumed for lack of a field.
  ///   - quantity: How many were bought.
  ///   - purchaseDate: When the App Store charged.
  ///   - originalPurchaseDate: When the original transaction was bought.
  ///   - expiresDate: When the period ends.
  ///   - revocation: The refund or revocation, if any.
  ///   - offer: The offer it was bought with, if any.
  ///   - isUpgraded: Whether the customer upgraded away from it.
  ///   - subscriptionGroup: The subscription group.
  ///   - webOrderLineItemID: The purchase event id across devices.
  ///   - productType: The product type, when the data states it.
  ///   - price: The price paid, when the data states it.
  ///   - sources: Where in the document it appeared.
  ///   - vocabulary: The source's own field names.
  ///   - carriedFields: What the format carries beyond the mapped fields, for `decode`.
  @inlinable public init(
    transactionID: String, originalTransactionID: String? = nil, productID: String,
    ownership: Ownership = .purchased, ownershipAssumed: Bool = false, quantity: Int? = 1,
    purchaseDate: Timestamp? = nil, originalPurchaseDate: Timestamp? = nil, expiresDate: Timestamp? = nil,
    revocation: Revocation? = nil, offer: OfferUse? = nil, isUpgraded: Bool = false,
    subscriptionGroup: String? = nil, webOrderLineItemID: String? = nil, productType: ProductType? = nil,
    price: StatedPrice? = nil, sources: TransactionSources = .latestReceiptInfo,
    vocabulary: FieldVocabulary, carriedFields: [CarriedField] = []
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
    self.carriedFields = carriedFields
    // Set here rather than by a property initializer, so that the inlined init builds the value in place.
    self.statedFields = []
    self.signedDate = nil
    self.chargeBox = nil
  }

  /// Revenue belongs to the purchaser: PURCHASED, or no ownership field at all (pre-Family-Sharing receipts).
  public var isOwnedByPurchaser: Bool { ownership == .purchased }

  /// The subscription chain this transaction belongs to.
  public var chainID: String { originalTransactionID ?? transactionID }
}
