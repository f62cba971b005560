import ReceiptModel

/// What an on-device app receipt (PKCS#7 SignedData) says, read offline.
///
/// Optional fields are nil when the attribute is absent or holds an empty string (Apple writes `""` for "none",
/// e.g. the expiry of a consumable). The signature is read here and checked by `AppReceiptFormat`.
public struct AppReceiptPayload: Sendable, Equatable {
  /// Type 0, `Production`, `ProductionSandbox`, `Xcode`... Community-documented (not in Apple's table).
  public var receiptType: String?
  /// Type 1, the App Store app id (0 in Sandbox and Xcode). Community-documented.
  public var appItemID: Int64?
  /// Type 2, `bundle_id`.
  public var bundleID: String?
  /// Type 3, `application_version` (CFBundleVersion).
  public var appVersion: String?
  /// Type 2's value bytes as stored (the DER UTF8String), which the device hash covers.
  public var bundleIDValue: [UInt8]?
  /// Type 4, the opaque value hashed with the device id (for on-device validation only).
  public var opaqueValue: [UInt8]?
  /// Type 5, the SHA-1 hash to compare on device.
  public var sha1Hash: [UInt8]?
  /// Type 8, a date Apple does not document (community: "transaction date"; empty in Xcode receipts).
  public var transactionDate: Timestamp?
  /// Type 10, the age rating (`4+`). Community-documented.
  public var ageRating: String?
  /// Type 12, `receipt_creation_date`: the moment the receipt describes.
  public var creationDate: Timestamp?
  /// Type 18, the app's original purchase date. Community-documented.
  public var originalPurchaseDate: Timestamp?
  /// Type 19, `original_application_version`.
  public var originalAppVersion: String?
  /// Type 21, `expiration_date` (Volume Purchase Program and Xcode receipts only).
  public var expirationDate: Timestamp?
  /// Type 17, one entry per in-app purchase, in receipt order. Empty is valid (no purchases).
  public var inAppPurchases: [AppReceiptInAppPurchase] = []
  /// Attributes with no documented meaning, or whose value does not have the community-documented shape,
  /// carried through in receipt order.
  public var otherAttributes: [AppReceiptAttribute] = []
  /// The signer certificates as far as they were read, and the fact that nothing was verified.
  public var signature = AppReceiptSignature()

  /// A payload with every field absent.
  public init() {}
}

/// One in-app purchase (a type-17 attribute, itself a SET of attributes).
public struct AppReceiptInAppPurchase: Sendable, Equatable {
  /// Position among the in-app purchases of the receipt, from 0 (the `in-app N` of error paths).
  public var index: Int
  /// 1701 `quantity`.
  public var quantity: Int64?
  /// 1702 `product_id`.
  public var productID: String?
  /// 1703 `transaction_id`.
  public var transactionID: String?
  /// 1704 `purchase_date`.
  public var purchaseDate: Timestamp?
  /// 1705 `original_transaction_id` (absent in Xcode receipts).
  public var originalTransactionID: String?
  /// 1706 `original_purchase_date`.
  public var originalPurchaseDate: Timestamp?
  /// 1707 product type (0 non-consumable, 1 consumable, 2 non-renewing, 3 auto-renewable). Community-documented.
  public var productType: Int64?
  /// 1708 `expires_date`.
  public var expiresDate: Timestamp?
  /// 1711 `web_order_line_item_id` (0 for non-subscriptions in Apple's receipts, which the history reads as
  /// absent; absent in Xcode's).
  public var webOrderLineItemID: Int64?
  /// 1712 `cancellation_date` (refund or revocation).
  public var cancellationDate: Timestamp?
  /// 1713 `is_trial_period`. Community-documented: Apple's table gives the JSON field no ASN.1 type.
  public var isTrialPeriod: Bool?
  /// 1719 `is_in_intro_offer_period`.
  public var isInIntroOfferPeriod: Bool?
  /// 1721 `promotional_offer_id`. Community-documented.
  public var promotionalOfferID: String?
  /// Undocumented attributes (1709, 1710, 1714-1718, 1722...) carried through in receipt order.
  public var otherAttributes: [AppReceiptAttribute] = []

  /// An in-app purchase with every field absent.
  /// - Parameter index: Its position among the receipt's in-app purchases, from 0.
  public init(index: Int) { self.index = index }
}

/// An attribute carried through without a mapping: its type number and its value as far as it can be read.
public struct AppReceiptAttribute: Sendable, Equatable {
  /// The attribute's type number (e.g. 1709).
  public var type: Int64
  /// The attribute's version field, as Apple wrote it.
  public var version: Int64
  /// The value, as far as it could be read.
  public var value: AppReceiptAttributeValue
  /// Byte offset of the attribute's SEQUENCE in the DER input.
  public var offset: Int

  /// Carries an attribute through.
  /// - Parameters:
  ///   - type: The type number.
  ///   - version: The version field.
  ///   - value: The value as read.
  ///   - offset: Byte offset of the attribute in the DER input.
  public init(type: Int64, version: Int64, value: AppReceiptAttributeValue, offset: Int) {
    self.type = type
    self.version = version
    self.value = value
    self.offset = offset
  }
}

/// The value OCTET STRING of an attribute: one DER string or integer when it holds exactly one, else raw bytes.
public enum AppReceiptAttributeValue: Sendable, Equatable {
  case utf8String(String)
  case ia5String(String)
  case integer(Int64)
  case bytes([UInt8])

  /// Text for output: strings as they are, integers in decimal, bytes in lowercase hex.
  public var text: String {
    switch self {
    case .utf8String(let s), .ia5String(let s): return s
    case .integer(let v): return Self.decimal(v)
    case .bytes(let b): return AppReceiptAttributeValue.hex(b)
    }
  }

  /// `utf8String`, `ia5String`, `integer` or `bytes`: the encoding found, for JSON output.
  public var encoding: String {
    switch self {
    case .utf8String: return "utf8String"
    case .ia5String: return "ia5String"
    case .integer: return "integer"
    case .bytes: return "bytes"
    }
  }

  /// Bytes as lowercase hex, two digits each (`0a1b`).
  public static func hex(_ bytes: [UInt8]) -> String { lowercaseHex(bytes) }

  /// `String(value)`, written into the string's storage: the web order line item id and the carried integers of
  /// every purchase come through here, and the generic conversion costs several times as much.
  /// - Parameter value: The integer.
  /// - Returns: Its decimal text (`-12`, `1000000048877195`).
  public static func decimal(_ value: Int64) -> String {
    // At most 20 characters (`-9223372036854775808`), written from the right into a buffer on the stack.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
      var magnitude = value.magnitude
      var i = buffer.count
      repeat {
        i -= 1
        buffer[i] = 0x30 + UInt8(truncatingIfNeeded: magnitude % 10)
        magnitude /= 10
      } while magnitude > 0
      if value < 0 {
        i -= 1
        buffer[i] = UInt8(ascii: "-")
      }
      return String(decoding: UnsafeBufferPointer(rebasing: buffer[i...]), as: UTF8.self)
    }
  }
}

/// The PKCS#7 signature as read; `AppReceiptFormat` checks it with ReceiptCrypto.
public struct AppReceiptSignature: Sendable, Equatable {
  /// Digest algorithms the SignedData declares (`sha1`, `sha256`, or a dotted OID).
  public var digestAlgorithms: [String] = []
  /// The certificates embedded in the SignedData, in order.
  public var certificates: [AppReceiptCertificate] = []
  /// How many SignerInfos there are (Apple's receipts have one).
  public var signerCount = 0

  /// A signature with nothing read yet.
  public init() {}
}

/// A certificate's subject and validity, or why they could not be read (certificates never fail the receipt).
public struct AppReceiptCertificate: Sendable, Equatable {
  /// `CN=Mac App Store and iTunes Store Receipt Signing, OU=Apple Worldwide Developer Relations, O=Apple Inc., C=US`.
  public var subject: String?
  /// Who the certificate says issued it.
  public var issuer: String?
  /// The start of the certificate's stated validity.
  public var notBefore: Timestamp?
  /// The end of the certificate's stated validity.
  public var notAfter: Timestamp?
  /// Set when the certificate could not be summarised; the receipt is still read.
  public var problem: String?

  /// A certificate with nothing read yet.
  public init() {}
}

/// Documentation of each mapped attribute type, for help text and output that marks what Apple does not document.
public struct AppReceiptFieldInfo: Sendable, Equatable {
  /// The ASN.1 attribute type number.
  public var type: Int64
  /// The verifyReceipt JSON name of the same value, or a descriptive snake_case name when JSON has none.
  public var name: String
  /// True when the mapping comes from community parsers (TPInAppReceipt, RevenueCat), not Apple's table.
  public var communityDocumented: Bool
  /// True for in-app purchase attributes (inside type 17).
  public var isInApp: Bool

  /// Every type the reader maps to a field.
  public static let all: [AppReceiptFieldInfo] = [
    .init(type: 0, name: "receipt_type", communityDocumented: true, isInApp: false),
    .init(type: 1, name: "app_item_id", communityDocumented: true, isInApp: false),
    .init(type: 2, name: "bundle_id", communityDocumented: false, isInApp: false),
    .init(type: 3, name: "application_version", communityDocumented: false, isInApp: false),
    .init(type: 4, name: "opaque_value", communityDocumented: false, isInApp: false),
    .init(type: 5, name: "sha1_hash", communityDocumented: false, isInApp: false),
    .init(type: 8, name: "transaction_date", communityDocumented: true, isInApp: false),
    .init(type: 10, name: "age_rating", communityDocumented: true, isInApp: false),
    .init(type: 12, name: "receipt_creation_date", communityDocumented: false, isInApp: false),
    .init(type: 17, name: "in_app", communityDocumented: false, isInApp: false),
    .init(type: 18, name: "original_purchase_date", communityDocumented: true, isInApp: false),
    .init(type: 19, name: "original_application_version", communityDocumented: false, isInApp: false),
    .init(type: 21, name: "expiration_date", communityDocumented: false, isInApp: false),
    .init(type: 1701, name: "quantity", communityDocumented: false, isInApp: true),
    .init(type: 1702, name: "product_id", communityDocumented: false, isInApp: true),
    .init(type: 1703, name: "transaction_id", communityDocumented: false, isInApp: true),
    .init(type: 1704, name: "purchase_date", communityDocumented: false, isInApp: true),
    .init(type: 1705, name: "original_transaction_id", communityDocumented: false, isInApp: true),
    .init(type: 1706, name: "original_purchase_date", communityDocumented: false, isInApp: true),
    .init(type: 1707, name: "product_type", communityDocumented: true, isInApp: true),
    .init(type: 1708, name: "expires_date", communityDocumented: false, isInApp: true),
    .init(type: 1711, name: "web_order_line_item_id", communityDocumented: false, isInApp: true),
    .init(type: 1712, name: "cancellation_date", communityDocumented: false, isInApp: true),
    .init(type: 1713, name: "is_trial_period", communityDocumented: true, isInApp: true),
    .init(type: 1719, name: "is_in_intro_offer_period", communityDocumented: false, isInApp: true),
    .init(type: 1721, name: "promotional_offer_id", communityDocumented: true, isInApp: true),
  ]

  /// The entry for a type number, if it is mapped.
  public static func info(type: Int64, inApp: Bool) -> AppReceiptFieldInfo? {
    guard let i = index(type: type, inApp: inApp), i < all.count else { return nil }
    return all[i]
  }

  /// Whether a mapped type's meaning is community-documented only; nil when the type is not mapped. Read for
  /// every attribute, so it builds no entry.
  static func communityDocumented(type: Int64, inApp: Bool) -> Bool? {
    guard index(type: type, inApp: inApp) != nil else { return nil }
    switch type {
    case 0, 1, 8, 10, 18, 1707, 1713, 1721: return true
    default: return false
    }
  }

  /// The position of a type in `all` (a switch, not a search: it runs for every attribute).
  static func index(type: Int64, inApp: Bool) -> Int? {
    if inApp {
      switch type {
      case 1701...1708: return Int(type - 1701) + 13
      case 1711: return 21
      case 1712: return 22
      case 1713: return 23
      case 1719: return 24
      case 1721: return 25
      default: return nil
      }
    }
    switch type {
    case 0...5: return Int(type)
    case 8: return 6
    case 10: return 7
    case 12: return 8
    case 17: return 9
    case 18: return 10
    case 19: return 11
    case 21: return 12
    default: return nil
    }
  }
}
