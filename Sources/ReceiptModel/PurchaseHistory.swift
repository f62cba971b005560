/// Which input format a document was read as.
public struct FormatIdentity: Hashable, Sendable {
  /// A stable name for machine-readable output (`verify_receipt_response`).
  public let name: String
  /// How a person names it ("verifyReceipt response").
  public let description: String
  /// The note of a document of this format until a signature is checked ("verifyReceipt response carries no
  /// signature"): made once a format, not once a document (`Provenance(format:)`).
  let unsignedNote: String

  /// Names a format.
  /// - Parameters:
  ///   - name: The stable machine-readable name.
  ///   - description: How a person names it.
  public init(name: String, description: String) {
    self.name = name
    self.description = description
    unsignedNote = SignatureCheck.unsignedNote(description)
  }
}

/// A message about a value that was carried through rather than understood.
public struct DataWarning: Hashable, Sendable {
  /// Where the value was, as a path into the document (`receipt.in_app[2].expires_date_ms`).
  public var path: String
  /// What was carried through and why, in plain words.
  public var message: String

  /// Makes a warning.
  /// - Parameters:
  ///   - path: Where the value was.
  ///   - message: What was carried through and why.
  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }
}

/// The app receipt's own metadata (verifyReceipt's `receipt` object, an on-device receipt's app fields).
public struct ReceiptInfo: Hashable, Sendable {
  /// `bundle_id` / `bundleId`: the app's bundle identifier.
  public var bundleID: String?
  /// `application_version`: the app version the receipt was made for.
  public var applicationVersion: String?
  /// `original_application_version`: the app version the customer first bought or downloaded.
  public var originalApplicationVersion: String?
  /// `receipt_type`: the environment the receipt came from (`Production`, `ProductionSandbox`, ...).
  public var receiptType: String?
  /// `receipt_creation_date_ms`: when the App Store created the receipt.
  public var receiptCreationDate: Timestamp?
  /// `request_date_ms`: when the receipt was requested from verifyReceipt.
  public var requestDate: Timestamp?
  /// `original_purchase_date_ms`: when the customer first got the app.
  public var originalPurchaseDate: Timestamp?
  /// `originalPlatform` (AppTransaction only; a receipt has none): the platform the customer first got the app
  /// on (`iOS`, `macOS`, `tvOS`, `visionOS`), as written.
  public var originalPlatform: String?
  /// Fields the source states that no rule reads, under the source's own names (`expiration_date`,
  /// `appAppleId`), for `decode`.
  public var statedFields: [StatedField] = []

  /// Receipt metadata with every field absent.
  public init() {}
}

/// A field the source states that no rule reads, kept under the source's own name so that `decode` shows
/// every field it read.
public struct StatedField: Hashable, Sendable {
  /// The value, typed as the source gave it.
  public enum Value: Hashable, Sendable {
    case text(String)
    /// A number, as written in decimal.
    case number(String)
    case date(Timestamp)
    case flag(Bool)
    case list([String])
    /// An object carried as read, its members under the source's own names (`advancedCommerceInfo`).
    case object([StatedField])
    /// An array carried as read.
    case array([Value])
  }

  /// The source's own name (`storefront`, `data.status`, `expiration_intent`).
  public var name: String
  /// The value.
  public var value: Value

  /// - Parameters:
  ///   - name: The source's own name for the field.
  ///   - value: Its value.
  public init(_ name: String, _ value: Value) {
    self.name = name
    self.value = value
  }
}

extension [StatedField] {
  /// Appends `name` when `value` is present.
  public mutating func add(_ name: String, _ value: String?) {
    if let value { append(StatedField(name, .text(value))) }
  }
  /// Appends `name` when `value` is present.
  public mutating func add<I: BinaryInteger>(_ name: String, number value: I?) {
    if let value { append(StatedField(name, .number(String(value)))) }
  }
  /// Appends `name` when `value` is present.
  public mutating func add(_ name: String, date value: Timestamp?) {
    if let value { append(StatedField(name, .date(value))) }
  }
  /// Appends `name` when `value` is present.
  public mutating func add(_ name: String, flag value: Bool?) {
    if let value { append(StatedField(name, .flag(value))) }
  }
}

/// The top-level fields only a v1 notification has. `password` is deliberately not kept unless asked
/// for: it is the app's shared secret.
public struct NotificationInfo: Hashable, Sendable {
  /// `notification_type`: what happened, as the v1 notification names it (e.g. `DID_RENEW`).
  public var notificationType: String?
  /// "PROD" or "Sandbox" (the notification's own spelling).
  public var environment: String?
  /// `auto_renew_status`: whether the subscription will renew.
  public var autoRenewStatus: AutoRenewStatus?
  /// `auto_renew_product_id`: the product that renews next.
  public var autoRenewProductID: String?
  /// `bid`: the app's bundle identifier.
  public var bundleID: String?
  /// Whether the notification carried a `password` (the app's shared secret), kept or not.
  public var hasPassword: Bool = false
  /// Only kept when asked for with `--show-secrets`.
  public var password: String?
  /// Fields the notification states that no rule reads (`notificationUUID`, `version`, `signedDate`,
  /// `data.status`), under its own names, for `decode`.
  public var statedFields: [StatedField] = []

  /// Notification fields with every field absent.
  public init() {}
}

/// What a signed document's header says; whether the signature verifies is the provenance's `signatureCheck`.
public struct SignatureFacts: Hashable, Sendable {
  /// What wraps the signed content.
  public enum Envelope: Hashable, Sendable {
    /// A JWS header (StoreKit 2, App Store Server API and notifications V2).
    case jws
    /// A PKCS#7 SignedData around an app receipt, whose certificates are summarised.
    case pkcs7
  }

  /// What wraps the signed content.
  public var envelope: Envelope
  /// `alg`: the signing algorithm the header names (Apple: `ES256`).
  public var algorithm: String?
  /// `kid`: the key id the header names, if any.
  public var keyID: String?
  /// How many certificates the header embeds (`x5c`, or the PKCS#7 certificate set).
  public var certificateCount: Int
  /// The embedded certificates' subjects and validity, when the format's reader summarises them.
  public var certificates: [CertificateSummary] = []
  /// Who signed it, as far as can be told without verifying (Xcode, LocalTesting, hand-written); nil when
  /// it claims to be the App Store.
  public var signer: String?
  /// Records what a header says.
  /// - Parameters:
  ///   - algorithm: The signing algorithm named.
  ///   - keyID: The key id named.
  ///   - certificateCount: How many certificates are embedded.
  ///   - signer: Who signed it, when it is not claimed to be the App Store.
  ///   - envelope: What wraps the signed content.
  public init(
    algorithm: String?, keyID: String?, certificateCount: Int, signer: String? = nil, envelope: Envelope = .jws
  ) {
    self.envelope = envelope
    self.algorithm = algorithm
    self.keyID = keyID
    self.certificateCount = certificateCount
    self.signer = signer
  }
}

/// An embedded certificate as read, never as checked.
public struct CertificateSummary: Hashable, Sendable {
  /// Who the certificate names as its holder.
  public var subject: String?
  /// Who the certificate says issued it.
  public var issuer: String?
  /// The start of the certificate's stated validity.
  public var notBefore: Timestamp?
  /// The end of the certificate's stated validity.
  public var notAfter: Timestamp?
  /// Why the certificate could not be summarised, when it could not.
  public var problem: String?

  /// Summarises a certificate as read.
  /// - Parameters:
  ///   - subject: Who it names as its holder.
  ///   - issuer: Who it says issued it.
  ///   - notBefore: The start of its stated validity.
  ///   - notAfter: The end of its stated validity.
  ///   - problem: Why it could not be summarised, when it could not.
  public init(
    subject: String?, issuer: String?, notBefore: Timestamp?, notAfter: Timestamp?, problem: String? = nil
  ) {
    self.subject = subject
    self.issuer = issuer
    self.notBefore = notBefore
    self.notAfter = notAfter
    self.problem = problem
  }
}

/// A field the format has but no rule reads (an undocumented ASN.1 attribute, a community-documented one
/// whose meaning is not certain), carried through so that `decode` shows it rather than dropping it.
public struct CarriedField: Hashable, Sendable {
  /// The format's own number for the field (an ASN.1 attribute type).
  public var type: Int64
  /// The community's name for it, when there is one.
  public var name: String?
  /// The value as text: strings as they are, integers in decimal, other bytes in hex.
  public var value: String
  /// How the value was encoded (`utf8String`, `ia5String`, `integer`, `bytes`).
  public var encoding: String

  /// Carries a field through.
  /// - Parameters:
  ///   - type: The format's number for the field.
  ///   - name: The community's name for it, if any.
  ///   - value: The value as text.
  ///   - encoding: How the value was encoded.
  public init(type: Int64, name: String?, value: String, encoding: String) {
    self.type = type
    self.name = name
    self.value = value
    self.encoding = encoding
  }
}

/// Where a purchase history came from, in the terms of its format: what the rules do not need but a
/// person reading `decode` does.
public struct Provenance: Sendable {
  /// Which input format the document was read as.
  public var format: FormatIdentity
  /// verifyReceipt's `status`; nil when the document has none.
  public var status: ReceiptStatus?
  /// verifyReceipt's `is-retryable`: Apple says to try the request again.
  public var isRetryable: Bool?
  /// The receipt's own metadata, when the document has a receipt.
  public var receipt: ReceiptInfo?
  /// A v1 notification's top-level fields, when the document is one.
  public var notification: NotificationInfo?
  /// Length of the base64 `latest_receipt`; the credential itself is never kept unless asked for.
  public var latestReceiptLength: Int?
  /// The base64 `latest_receipt` itself, only kept when asked for with `--show-secrets`.
  public var latestReceipt: String?
  /// How many rows were merged into a transaction already seen.
  public var duplicateRowsMerged: Int
  /// What the signed document's header says, when it is signed.
  public var signature: SignatureFacts?
  /// Whether the document's signatures show it came from Apple (the weakest of its signed items).
  public var signatureCheck: SignatureCheck
  /// Document-level fields carried through without a meaning (an on-device receipt's undocumented attributes).
  public var carriedFields: [CarriedField] = []
  /// Document-level fields the source states that no rule reads (an iOS 6 response's top-level
  /// `expiration_intent`), under its own names, for `decode`.
  public var statedFields: [StatedField] = []
  /// The page a paged App Store Server API response is, when it is one.
  public var page: ResponsePage?
  /// A response's own status (Look Up Order ID), when it has one.
  public var responseStatus: ResponseStatus?
  /// The notifications a notification history or test notification status lists, with their send attempts.
  public var deliveries: [DeliveredNotification] = []

  /// Provenance with nothing known yet but the format.
  /// - Parameter format: The format the document was read as.
  public init(format: FormatIdentity) {
    self.format = format
    duplicateRowsMerged = 0
    signatureCheck = SignatureCheck(.unsigned, note: format.unsignedNote)
  }
}

/// Everything receipt-tool knows about one customer's purchases from one input document, whatever
/// its format: the only thing the rules read.
public struct PurchaseHistory: Sendable {
  /// De-duplicated by transaction id, in the order first seen.
  public var transactions: [PurchaseTransaction]
  /// Renewal info for subscription chains (`pending_renewal_info`, renewal info payloads).
  public var renewals: [RenewalState]
  /// The moment the data describes, when it names one.
  public var moment: DataMoment?
  /// The App Store environment (`Production`, `Sandbox`, `Xcode`), as the data spells it.
  public var environment: String?
  /// Values carried through rather than understood.
  public var warnings: [DataWarning]
  /// Where the history came from, in its format's own terms.
  public var provenance: Provenance

  /// An empty history for a document of one format.
  /// - Parameter format: The format the document was read as.
  public init(format: FormatIdentity) {
    transactions = []
    renewals = []
    warnings = []
    provenance = Provenance(format: format)
  }

  /// The renewal state of a subscription chain.
  public func renewal(originalTransactionID: String?) -> RenewalState? {
    renewals.renewal(ofChain: originalTransactionID)
  }
}
