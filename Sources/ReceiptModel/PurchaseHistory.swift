/// Which input format a document was read as.
public struct FormatIdentity: Hashable, Sendable {
  /// A stable name for machine-readable output (`verify_receipt_response`).
  public var name: String
  /// How a person names it ("verifyReceipt response").
  public var description: String

  public init(name: String, description: String) {
    self.name = name
    self.description = description
  }
}

/// A message about a value that was carried through rather than understood.
public struct DataWarning: Hashable, Sendable {
  public var path: String
  public var message: String

  public init(path: String, message: String) {
    self.path = path
    self.message = message
  }
}

/// The app receipt's own metadata (verifyReceipt's `receipt` object, an on-device receipt's app fields).
public struct ReceiptInfo: Hashable, Sendable {
  public var bundleID: String?
  public var applicationVersion: String?
  public var originalApplicationVersion: String?
  public var receiptType: String?
  public var receiptCreationDate: Timestamp?
  public var requestDate: Timestamp?
  public var originalPurchaseDate: Timestamp?

  public init() {}
}

/// The top-level fields only a v1 notification has. `password` is deliberately not kept unless asked
/// for: it is the app's shared secret.
public struct NotificationInfo: Hashable, Sendable {
  public var notificationType: String?
  /// "PROD" or "Sandbox" (the notification's own spelling).
  public var environment: String?
  public var autoRenewStatus: AutoRenewStatus?
  public var autoRenewProductID: String?
  public var bundleID: String?
  public var hasPassword: Bool = false
  /// Only kept when asked for with `--show-secrets`.
  public var password: String?

  public init() {}
}

/// What a signed document's header says. The signature itself is never verified by this tool.
public struct SignatureFacts: Hashable, Sendable {
  public var algorithm: String?
  public var keyID: String?
  public var certificateCount: Int
  /// The embedded certificates' subjects and validity, when the format's reader summarises them.
  public var certificates: [CertificateSummary] = []
  /// Who signed it, as far as can be told without verifying (Xcode, LocalTesting, hand-written); nil when
  /// it claims to be the App Store.
  public var signer: String?
  /// Always false: receipt-tool has no cryptography and checks no signature.
  public var verified: Bool { false }

  public init(algorithm: String?, keyID: String?, certificateCount: Int, signer: String? = nil) {
    self.algorithm = algorithm
    self.keyID = keyID
    self.certificateCount = certificateCount
    self.signer = signer
  }
}

/// An embedded certificate as read, never as checked.
public struct CertificateSummary: Hashable, Sendable {
  public var subject: String?
  public var issuer: String?
  public var notBefore: Timestamp?
  public var notAfter: Timestamp?
  /// Why the certificate could not be summarised, when it could not.
  public var problem: String?

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
  public var format: FormatIdentity
  /// verifyReceipt's `status`; nil when the document has none.
  public var status: ReceiptStatus?
  public var isRetryable: Bool?
  public var receipt: ReceiptInfo?
  public var notification: NotificationInfo?
  /// Length of the base64 `latest_receipt`; the credential itself is never kept unless asked for.
  public var latestReceiptLength: Int?
  /// The base64 `latest_receipt` itself, only kept when asked for with `--show-secrets`.
  public var latestReceipt: String?
  /// How many rows were merged into a transaction already seen.
  public var duplicateRowsMerged: Int
  public var signature: SignatureFacts?
  /// Document-level fields carried through without a meaning (an on-device receipt's undocumented attributes).
  public var carriedFields: [CarriedField] = []

  public init(format: FormatIdentity) {
    self.format = format
    duplicateRowsMerged = 0
  }
}

/// Everything receipt-tool knows about one customer's purchases from one input document, whatever
/// its format: the only thing the rules read.
public struct PurchaseHistory: Sendable {
  /// De-duplicated by transaction id, in the order first seen.
  public var transactions: [PurchaseTransaction]
  public var renewals: [RenewalState]
  /// The moment the data describes, when it names one.
  public var moment: DataMoment?
  /// The App Store environment (`Production`, `Sandbox`, `Xcode`), as the data spells it.
  public var environment: String?
  public var warnings: [DataWarning]
  public var provenance: Provenance

  public init(format: FormatIdentity) {
    transactions = []
    renewals = []
    warnings = []
    provenance = Provenance(format: format)
  }

  /// The renewal state of a subscription chain.
  public func renewal(originalTransactionID: String?) -> RenewalState? {
    guard let originalTransactionID else { return nil }
    return renewals.first { $0.originalTransactionID == originalTransactionID }
  }
}
