import ReceiptCrypto
import ReceiptModel

/// On-device app receipts (PKCS#7 SignedData, `Bundle.main.appStoreReceiptURL`): raw DER, base64 text, a
/// verifyReceipt request body (`receipt-data`) or another JSON object holding the base64 blob
/// (`transactionReceipt`). Read offline; the signature is verified when the caller lends a verifier (against
/// the pinned Apple Inc. Root, at the receipt's creation date), and what only Apple's servers know (ownership,
/// renewal state, refund reasons, subscription groups) is left unknown rather than assumed.
public struct AppReceiptFormat: InputFormat {
  /// The format, ready to register.
  public init() {}

  /// How messages name the format.
  public var name: String { "app receipt (PKCS#7)" }

  /// Certain for DER and base64 that start like a PKCS#7 ContentInfo, for iOS 6 transaction receipts (refused
  /// by name), and for a JSON object with a `receipt-data` or `transactionReceipt` key in its first bytes.
  public func recognition(of sniff: DocumentSniff) -> Recognition {
    switch sniff.withPrefix({ AppReceiptInput.sniff(in: $0, names: sniff.names) }) {
    case .der?, .base64?, .legacyTransactionReceipt?: return .certain
    case .json?:
      // Notification v1 bodies may echo `receipt-data` beside their own keys: those stay verifyReceipt JSON.
      if Self.verifyReceiptKeys.contains(where: sniff.containsKey) { return .no }
      return sniff.containsKey("receipt-data") || sniff.containsKey("transactionReceipt") ? .certain : .no
    case nil: return .no
    }
  }

  /// Keys of verifyReceipt JSON that keep a body echoing `receipt-data` verifyReceipt JSON.
  static let verifyReceiptKeys = ["notification_type", "unified_receipt", "latest_receipt_info", "status", "receipt"]

  /// The names the sniff and the keys above.
  public var sniffNames: [String] { AppReceiptInput.QuotedNames.names + Self.verifyReceiptKeys }

  /// Reads an app receipt in any of its wrappings into a purchase history.
  /// - Parameters:
  ///   - bytes: The document.
  ///   - source: The input's name for messages.
  ///   - options: What the caller allows.
  /// - Returns: The purchases the receipt lists, with ownership and renewal state left unknown.
  /// - Throws: `ReceiptError` with the byte offset and ASN.1 path where the receipt could not be read.
  public func decode(_ bytes: [UInt8], source: String, options: DecodeOptions) throws(ReceiptError) -> PurchaseHistory {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ReceiptError) in
      try decode(buffer, whole: { bytes }, source: source, options: options)
    }
  }

  /// `decode` over a document in place (a mapped file): base64 text is decoded from it without a copy.
  public func decode(
    contentsOf buffer: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions
  ) throws(ReceiptError) -> PurchaseHistory {
    try decode(buffer, whole: { Array(buffer) }, source: source, options: options)
  }

  func decode(
    _ bytes: UnsafeBufferPointer<UInt8>, whole: () -> [UInt8], source: String, options: DecodeOptions
  ) throws(ReceiptError) -> PurchaseHistory {
    let document: AppReceiptReader.Document
    do {
      document = try AppReceiptReader.read(
        bytes, whole: whole, keepsOtherAttributes: options.keepsFieldsOnlyDecodeShows)
    } catch {
      throw Self.receiptError(error, source: source)
    }
    var history = try AppReceiptHistory.history(
      of: document, source: source, keepsCarriedFields: options.keepsFieldsOnlyDecodeShows)
    if let checking = options.signatures {
      if document.payload.signature.signerCount > 0 {
        history.provenance.signatureCheck = AppReceiptHistory.signatureCheck(of: document, checking: checking)
      }
      ExpectedAppCheck.apply(checking.expectedApp, to: &history.provenance.signatureCheck) {
        document.payload.statedApp
      }
    }
    history.provenance.signatureCheck.device = AppReceiptHistory.deviceCheck(
      of: document.payload, device: options.deviceID)
    return history
  }

  /// The library error for a reading failure: the byte offset and the ASN.1 path, as the reader found them.
  /// - Parameters:
  ///   - error: the reader's error.
  ///   - source: the input's name.
  /// - Returns: a `ReceiptError` positioned by byte offset.
  public static func receiptError(_ error: AppReceiptError, source: String) -> ReceiptError {
    let kind: ReceiptError.Kind
    switch error.kind {
    case .notAReceipt, .malformed: kind = .malformed
    case .legacyTransactionReceipt: kind = .unusable
    case .badValue: kind = .invalidValue
    }
    let path = error.path.isEmpty ? nil : error.path.joined(separator: " > ")
    return ReceiptError(kind, source: source, path: path, position: .byteOffset(error.offset), message: error.message)
  }
}

/// The names an on-device receipt gives the facts the rules speak of: the verifyReceipt name a support person
/// knows, with the ASN.1 type that holds it, and what only server data has.
extension FieldVocabulary {
  /// On-device app receipts (PKCS#7).
  public static let appReceipt = FieldVocabulary(
    document: "the on-device receipt", transactionID: "transaction_id (ASN.1 type 1703)",
    originalTransactionID: "original_transaction_id (ASN.1 type 1705)", purchaseDate: "purchase_date (ASN.1 type 1704)",
    expiresDate: "expires_date (ASN.1 type 1708)", revocationDate: "cancellation_date (ASN.1 type 1712)",
    revocationReason: "cancellation_reason (server data only; not in an on-device receipt)",
    ownership: "in_app_ownership_type (server data only; not in an on-device receipt)",
    subscriptionGroup: "subscription_group_identifier (server data only; not in an on-device receipt)",
    isUpgraded: "is_upgraded (server data only; not in an on-device receipt)",
    introductoryOffer: "is_trial_period (ASN.1 type 1713) or is_in_intro_offer_period (ASN.1 type 1719)",
    autoRenewStatus: "auto_renew_status (server data only; not in an on-device receipt)",
    expirationIntent: "expiration_intent (server data only; not in an on-device receipt)",
    isInBillingRetryPeriod: "is_in_billing_retry_period (server data only; not in an on-device receipt)",
    gracePeriodExpiresDate: "grace_period_expires_date (server data only; not in an on-device receipt)",
    holdsRenewalState: false)
}

/// The format-neutral purchase history of a read app receipt.
public enum AppReceiptHistory {
  /// How each wrapping is named in `decode`.
  public static func identity(of form: AppReceiptForm) -> FormatIdentity {
    switch form {
    case .der: FormatIdentity(name: "app_receipt", description: "app receipt (PKCS#7 DER)")
    case .base64: FormatIdentity(name: "app_receipt", description: "app receipt (base64 PKCS#7)")
    case .verifyReceiptRequest(let password, _):
      // The shared secret itself was dropped when the body was read; only its presence is told.
      FormatIdentity(
        name: "app_receipt",
        description: "verifyReceipt request body (app receipt in receipt-data"
          + (password ? "; a password was present, not kept)" : ")"))
    case .jsonField(let field):
      FormatIdentity(name: "app_receipt", description: "JSON object with an app receipt in \(field)")
    }
  }

  /// Maps a read receipt: ownership unknown, the creation date as the data's moment, undocumented and
  /// community-documented-only attributes carried through.
  /// - Parameters:
  ///   - document: the read receipt.
  ///   - source: the input's name for messages.
  ///   - keepsCarriedFields: build the carried fields only `decode` prints (false leaves them empty).
  /// - Returns: the purchase history.
  /// - Throws: `ReceiptError` when a purchase lacks its transaction or product id, or its quantity does not fit.
  public static func history(
    of document: AppReceiptReader.Document, source: String, keepsCarriedFields: Bool = true
  ) throws(ReceiptError) -> PurchaseHistory {
    let payload = document.payload
    var history = PurchaseHistory(format: identity(of: document.form))
    history.environment = environment(of: payload.receiptType)
    var info = ReceiptInfo()
    info.bundleID = payload.bundleID
    info.applicationVersion = payload.appVersion
    info.originalApplicationVersion = payload.originalAppVersion
    info.receiptType = payload.receiptType
    info.receiptCreationDate = payload.creationDate
    info.originalPurchaseDate = payload.originalPurchaseDate
    history.provenance.receipt = info
    let digests = payload.signature.digestAlgorithms.joined(separator: ", ")
    var signature = SignatureFacts(
      algorithm: "PKCS#7 SignedData" + (digests.isEmpty ? "" : " (digest \(digests))"), keyID: nil,
      certificateCount: payload.signature.certificates.count, envelope: .pkcs7)
    signature.certificates = payload.signature.certificates.map {
      CertificateSummary(
        subject: $0.subject, issuer: $0.issuer, notBefore: $0.notBefore, notAfter: $0.notAfter, problem: $0.problem)
    }
    history.provenance.signature = signature
    // Verified by `signatureCheck(of:checking:)` when the caller lends a verifier; otherwise says so.
    history.provenance.signatureCheck =
      payload.signature.signerCount == 0
      ? .unsigned("this app receipt (no signer)")
      : SignatureCheck(.notChecked, note: "app receipt (PKCS#7) read without checking its signature")
    history.provenance.signatureCheck.coverage = payload.signature.signerCount == 0 ? .none : .appReceipt
    if let created = payload.creationDate {
      history.moment = DataMoment(
        time: created, field: "receipt_creation_date", description: "the receipt's creation date")
    }
    history.provenance.carriedFields = carried(payload.otherAttributes, inApp: false)
    // Read but not mapped: shown by `decode` with their type numbers, the opaque value and hash in hex.
    if keepsCarriedFields {
      history.provenance.carriedFields = readAttributes(of: payload) + history.provenance.carriedFields
    }
    if keepsCarriedFields, let expiration = payload.expirationDate {
      history.provenance.carriedFields.append(
        CarriedField(type: 21, name: "expiration_date", value: expiration.iso8601, encoding: "date"))
    }

    var collector = TransactionCollector()
    collector.reserve(payload.inAppPurchases.count)
    var carried = CarriedMemo()
    for purchase in payload.inAppPurchases {
      collector.add(
        try transaction(
          purchase, source: source, carriedFields: keepsCarriedFields ? carried.fields(of: purchase) : []))
    }
    history.transactions = collector.transactions
    history.provenance.duplicateRowsMerged = collector.duplicates
    return history
  }

  /// The PKCS#7 signature's verdict, checked at the receipt's creation date (attribute 12): Apple's signing
  /// certificates expire while the receipts they signed stay genuine. That date, read from the payload before
  /// anything is verified, only chooses the moment; the signature must still verify. Without a creation date,
  /// the run's "now".
  static func signatureCheck(of document: AppReceiptReader.Document, checking: SignatureChecking) -> SignatureCheck {
    var moment = VerificationMoment(millisecondsSince1970: checking.now.milliseconds, source: .now)
    if let created = document.payload.creationDate {
      moment = VerificationMoment(millisecondsSince1970: created.milliseconds, source: .receiptCreationDate)
    }
    let verdict = checking.verifiers.withWorkspace { $0.verifier.verifyPKCS7(document.der, at: moment) }
    var check = JWSChecks.check(of: verdict, path: LazyPath("PKCS#7 SignedData"))
    check.coverage = .appReceipt
    return check
  }

  /// The receipt's device hash (type 5) against SHA-1 over the device's bytes, the opaque value (type 4) and the
  /// bundle id attribute's value bytes (type 2, as stored).
  static func deviceCheck(of payload: AppReceiptPayload, device: DeviceIdentifier?) -> DeviceCheck {
    guard let device else { return .notChecked }
    let missing = [
      payload.sha1Hash == nil ? "device hash (type 5)" : nil,
      payload.opaqueValue == nil ? "opaque value (type 4)" : nil,
      payload.bundleIDValue == nil ? "bundle id (type 2)" : nil,
    ].compactMap { $0 }
    guard let hash = payload.sha1Hash, let opaque = payload.opaqueValue, let bundle = payload.bundleIDValue else {
      return .cannotCheck(deviceID: device.text, missing: missing.joined(separator: ", "))
    }
    let computed = DigestAlgorithm.sha1.digest(device.bytes + opaque + bundle)
    guard computed == hash else {
      return .mismatch(deviceID: device.text, receiptHash: lowercaseHex(hash), computed: lowercaseHex(computed))
    }
    return .matches(deviceID: device.text)
  }

  /// `Production`, `Sandbox` or `Xcode`, as verifyReceipt's `environment` spells them, from Apple's
  /// documented receipt types (`ProductionSandbox`, `ProductionVPPSandbox`...); anything else as received.
  static func environment(of receiptType: String?) -> String? {
    guard let receiptType else { return nil }
    switch receiptType {
    case "Production", "ProductionVPP": return "Production"
    case "ProductionSandbox", "ProductionVPPSandbox": return "Sandbox"
    case "Xcode": return "Xcode"
    default: return receiptType
    }
  }

  /// The carried fields made for the last purchase, with what they were made from: purchases mostly carry what
  /// the one before carried, and those share its array rather than build their own.
  struct CarriedMemo {
    var productType: Int64?
    var attributes: [AppReceiptAttribute] = []
    var fields: [CarriedField]?

    /// The fields of `p` (`carriedFields(of:)`), shared with the last purchase's when they would be equal: the
    /// same product type and the same undocumented types and values (their offsets and versions are not shown).
    mutating func fields(of p: AppReceiptInAppPurchase) -> [CarriedField] {
      if let fields, productType == p.productType, attributes.count == p.otherAttributes.count {
        var same = true
        for i in attributes.indices
        where attributes[i].type != p.otherAttributes[i].type || attributes[i].value != p.otherAttributes[i].value {
          same = false
          break
        }
        if same { return fields }
      }
      let made = AppReceiptHistory.carriedFields(of: p)
      (productType, attributes, fields) = (p.productType, p.otherAttributes, made)
      return made
    }
  }

  /// The purchase as a transaction carrying `carriedFields` (see `carriedFields(of:)`).
  static func transaction(
    _ p: AppReceiptInAppPurchase, source: String, carriedFields: [CarriedField]
  ) throws(ReceiptError) -> PurchaseTransaction {
    // The path is built only for an error.
    guard let id = p.transactionID else {
      throw ReceiptError(
        .invalidValue, source: source, path: "in-app \(p.index)",
        message: "an in-app purchase without a transaction_id (ASN.1 type 1703)")
    }
    guard let product = p.productID else {
      throw ReceiptError(
        .invalidValue, source: source, path: "in-app \(p.index)",
        message: "in-app purchase \(id) has no product_id (ASN.1 type 1702)")
    }
    var quantity: Int?
    if let q = p.quantity {
      guard let fits = Int(exactly: q) else {
        throw ReceiptError(
          .invalidValue, source: source, path: "in-app \(p.index)", message: "quantity \(q) does not fit")
      }
      quantity = fits
    }
    // Either intro flag marks introductory-offer use, as Apple's receipt rule reads them (as verifyReceipt's).
    let pricing: OfferUse.Pricing? =
      p.isTrialPeriod == true ? .freeTrial : p.isInIntroOfferPeriod == true ? .introductoryPrice : nil
    var offer: OfferUse?
    if let promo = p.promotionalOfferID {
      offer = OfferUse(kind: .promotional, pricing: pricing, identifier: promo, usesIntroductoryOffer: pricing != nil)
    } else if let pricing {
      offer = OfferUse(kind: .introductory, pricing: pricing)
    }
    return PurchaseTransaction(
      transactionID: id, originalTransactionID: p.originalTransactionID, productID: product, ownership: .unknown,
      ownershipAssumed: false, quantity: quantity, purchaseDate: p.purchaseDate,
      originalPurchaseDate: p.originalPurchaseDate, expiresDate: p.expiresDate,
      revocation: p.cancellationDate.map { Revocation(date: $0) }, offer: offer,
      webOrderLineItemID: webOrderLineItemID(of: p), productType: nil,
      sources: .appReceipt,
      vocabulary: .appReceipt, carriedFields: carriedFields)
  }

  /// 1711 as the history carries it: Apple's field applies only to auto-renewable subscriptions, and its
  /// receipts write 0 for other purchases, which verifyReceipt omits; so a 0 on a purchase with no expiry date
  /// (1708) is absent, as it is there. A subscription's value is kept whatever it is.
  static func webOrderLineItemID(of p: AppReceiptInAppPurchase) -> String? {
    guard let id = p.webOrderLineItemID, id != 0 || p.expiresDate != nil else { return nil }
    return AppReceiptAttributeValue.decimal(id)
  }

  /// What `decode` shows of a purchase beyond the mapped fields: 1707, whose meaning is community-documented only
  /// (shown, never used to decide a product type), then the undocumented attributes.
  static func carriedFields(of p: AppReceiptInAppPurchase) -> [CarriedField] {
    var fields: [CarriedField] = []
    fields.reserveCapacity(p.otherAttributes.count + 1)
    if let type = p.productType {
      fields.append(
        CarriedField(
          type: 1707, name: "product_type", value: AppReceiptAttributeValue.decimal(type), encoding: "integer"))
    }
    for a in p.otherAttributes { fields.append(carried(a, inApp: true)) }
    return fields
  }

  /// The receipt attributes the reader reads that the history has no field for: 1, 4, 5, 8 and 10.
  static func readAttributes(of p: AppReceiptPayload) -> [CarriedField] {
    var fields: [CarriedField] = []
    if let id = p.appItemID {
      fields.append(
        CarriedField(type: 1, name: "app_item_id", value: AppReceiptAttributeValue.decimal(id), encoding: "integer"))
    }
    if let opaque = p.opaqueValue {
      fields.append(
        CarriedField(type: 4, name: "opaque_value", value: lowercaseHex(opaque), encoding: "bytes"))
    }
    if let hash = p.sha1Hash {
      fields.append(
        CarriedField(type: 5, name: "sha1_hash", value: lowercaseHex(hash), encoding: "bytes"))
    }
    if let date = p.transactionDate {
      fields.append(CarriedField(type: 8, name: "transaction_date", value: date.iso8601, encoding: "date"))
    }
    if let rating = p.ageRating {
      fields.append(CarriedField(type: 10, name: "age_rating", value: rating, encoding: "utf8String"))
    }
    return fields
  }

  static func carried(_ attributes: [AppReceiptAttribute], inApp: Bool) -> [CarriedField] {
    attributes.map { carried($0, inApp: inApp) }
  }

  static func carried(_ attribute: AppReceiptAttribute, inApp: Bool) -> CarriedField {
    CarriedField(
      type: attribute.type, name: AppReceiptFieldInfo.info(type: attribute.type, inApp: inApp)?.name,
      value: attribute.value.text, encoding: attribute.value.encoding)
  }
}
