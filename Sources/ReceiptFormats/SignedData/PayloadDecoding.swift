import ReceiptModel

// Field lists and readers for each payload kind (apple-receipt-reference.md §6).

enum TransactionKey: String, SignedKeyList {
  case transactionId, originalTransactionId, webOrderLineItemId, bundleId, productId, subscriptionGroupIdentifier
  case purchaseDate, originalPurchaseDate, expiresDate, quantity, type, appAccountToken, inAppOwnershipType
  case signedDate, revocationReason, revocationDate, isUpgraded, offerType, offerIdentifier, environment
  case storefront, storefrontId, transactionReason, price, currency, offerDiscountType, offerPeriod
  case appTransactionId, revocationType, revocationPercentage, previousOriginalTransactionId, billingPlanType
  case commitmentInfo, advancedCommerceInfo

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

enum RenewalKey: String, SignedKeyList {
  case expirationIntent, originalTransactionId, autoRenewProductId, productId, autoRenewStatus
  case isInBillingRetryPeriod, priceIncreaseStatus, gracePeriodExpiresDate, offerType, offerIdentifier
  case signedDate, environment, recentSubscriptionStartDate, renewalDate, renewalPrice, currency
  case offerDiscountType, offerPeriod, eligibleWinBackOfferIds, appAccountToken, appTransactionId
  case renewalBillingPlanType, commitmentInfo, advancedCommerceInfo

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

enum TransactionCommitmentKey: String, SignedKeyList {
  case billingPeriodNumber, commitmentExpiresDate, commitmentPrice, totalBillingPeriods

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

enum RenewalCommitmentKey: String, SignedKeyList {
  case commitmentAutoRenewProductId, commitmentAutoRenewStatus, commitmentRenewalBillingPlanType
  case commitmentRenewalDate, commitmentRenewalPrice

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

enum AppTransactionKey: String, SignedKeyList {
  case receiptType, appAppleId, bundleId, applicationVersion, versionExternalIdentifier, receiptCreationDate
  case requestDate, originalPurchaseDate, originalApplicationVersion, deviceVerification, deviceVerificationNonce
  case preorderDate, appTransactionId, originalPlatform

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

enum NotificationKey: String, SignedKeyList {
  case notificationType, subtype, notificationUUID, version, signedDate, data, summary, externalPurchaseToken
  case appData

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

enum DataKey: String, SignedKeyList {
  case appAppleId, bundleId, bundleVersion, environment, status, consumptionRequestReason
  case signedTransactionInfo, signedRenewalInfo

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

enum SummaryKey: String, SignedKeyList {
  case requestIdentifier, environment, appAppleId, bundleId, productId, storefrontCountryCodes, failedCount
  case succeededCount

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

enum TokenKey: String, SignedKeyList {
  case externalPurchaseId, tokenCreationDate, appAppleId, bundleId

  static let ordered = allCases
  static let keys = SignedKeys(ordered.map(\.rawValue))
}

/// A payload kind a JWS's place can require (a history's `signedTransactions`, a notification's
/// `signedRenewalInfo`), read straight into its own type rather than into a `SignedPayload` it is copied out of.
protocol PlacedPayload: Sendable, Hashable {
  /// The kind the place requires.
  static var kind: SignedPayloadKind { get }
  /// Reads the payload object's members.
  static func read(_ r: inout PayloadReading) throws -> Self
  /// The payload, when `payload` is of this kind.
  static func taken(from payload: SignedPayload) -> Self?
  var signedDate: Timestamp? { get }
  var environment: Coded<AppStoreEnvironment>? { get }
  var unreadKeys: [String] { get }
  /// What the payload says of its app (`ExpectedAppCheck`).
  var statedApp: StatedApp { get }
}

extension JWSTransactionPayload: PlacedPayload {
  static var kind: SignedPayloadKind { .transaction }
  static func read(_ r: inout PayloadReading) throws -> Self { try PayloadDecoding.readTransaction(&r) }
  static func taken(from payload: SignedPayload) -> Self? {
    if case .transaction(let p) = payload { return p }
    return nil
  }
}

extension JWSRenewalInfoPayload: PlacedPayload {
  static var kind: SignedPayloadKind { .renewalInfo }
  static func read(_ r: inout PayloadReading) throws -> Self { try PayloadDecoding.readRenewal(&r) }
  static func taken(from payload: SignedPayload) -> Self? {
    if case .renewalInfo(let p) = payload { return p }
    return nil
  }
}

extension NotificationV2Payload: PlacedPayload {
  static var kind: SignedPayloadKind { .notification }
  static func read(_ r: inout PayloadReading) throws -> Self { try PayloadDecoding.readNotification(&r) }
  static func taken(from payload: SignedPayload) -> Self? {
    if case .notification(let p) = payload { return p }
    return nil
  }
}

/// Decodes payload JSON (already base64url-decoded, or pasted as is) into typed payloads.
enum PayloadDecoding {
  /// Keys that say a payload's kind. A payload with keys of two kinds is refused rather than guessed.
  static let kindMarkers: [(SignedPayloadKind, [String])] = [
    (.notification, ["notificationType", "notificationUUID"]),
    (.transaction, ["transactionId", "webOrderLineItemId", "purchaseDate", "inAppOwnershipType", "transactionReason"]),
    (.appTransaction, ["receiptType", "applicationVersion", "originalApplicationVersion", "receiptCreationDate"]),
    (
      .renewalInfo,
      [
        "autoRenewStatus", "autoRenewProductId", "renewalDate", "expirationIntent", "isInBillingRetryPeriod",
        "gracePeriodExpiresDate", "priceIncreaseStatus", "renewalPrice", "recentSubscriptionStartDate",
        "eligibleWinBackOfferIds",
      ]
    ),
  ]

  static let markerKeys = SignedKeys(kindMarkers.flatMap { $0.1 })
  static let markerKind: [SignedPayloadKind] = kindMarkers.flatMap { entry in entry.1.map { _ in entry.0 } }

  /// Decodes `bytes` as a payload object. With `expected`, the kind is given by the place the JWS came from
  /// and a payload with another kind's markers fails; without, the kind comes from the markers.
  static func decode(
    _ bytes: [UInt8], expected: SignedPayloadKind?, base: String, strict: Bool
  ) throws(SignedDataError) -> (SignedPayload, carried: [SignedDataError]) {
    try decode(bytes, expected: expected, base: LazyPath(base), strict: strict)
  }

  /// As above, the path made only for a message.
  static func decode(
    _ bytes: [UInt8], expected: SignedPayloadKind?, base: LazyPath, strict: Bool, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> (SignedPayload, carried: [SignedDataError]) {
    try bytes.withUnsafeBufferPointer { (buffer) throws(SignedDataError) in
      try decode(buffer, expected: expected, base: base, strict: strict, checks: checks)
    }
  }

  /// As above, over bytes that stay valid until it returns (a decoded segment's buffer).
  static func decode(
    _ bytes: UnsafeBufferPointer<UInt8>, expected: SignedPayloadKind?, base: LazyPath, strict: Bool,
    checks: JWSChecks? = nil
  ) throws(SignedDataError) -> (SignedPayload, carried: [SignedDataError]) {
    try decode(bytes, expected: expected, base: base, strict: strict, checks: checks, typedPassTried: false)
  }

  /// `decode`, its one typed pass skipped when the caller tried that pass already (`decode(_:as:)`) and it did
  /// not settle the kind: it would fail the same way again.
  private static func decode(
    _ bytes: UnsafeBufferPointer<UInt8>, expected: SignedPayloadKind?, base: LazyPath, strict: Bool,
    checks: JWSChecks?, typedPassTried: Bool
  ) throws(SignedDataError) -> (SignedPayload, carried: [SignedDataError]) {
    do {
      return try JSONReader.withReader(buffer: bytes) { reader in
        // Nested signatures checked by a pass that is then read again are checked again: forget the first.
        let checked = checks?.tally
        // When the place gives the kind, one typed pass usually settles it: another kind's markers could only
        // be among the keys it did not know. Anything else (a failure, such a marker, very many unknown keys)
        // is read again the two-pass way below, so errors and their order are the same either way.
        if !typedPassTried, let expected, oneTypedPassSuffices.contains(expected),
          let (payload, carried) = try? readTyped(expected, reader, base: base, strict: strict, checks: checks),
          onePassSettles(payload.unreadKeys)
        {
          return (payload, carried)
        }
        if let checked { checks?.forget(since: checked) }
        let (markers, refusedShape) = try decidingKeys(reader, base: base)
        // A request or response of the App Store Server API holds no purchase, whatever keys it shares.
        if expected == nil, let refusedShape {
          throw ServerAPIShapes.notPurchaseData(shape: refusedShape, keys: [], path: base.text)
        }
        if markers.isEmpty, expected == nil {
          // Valid JSON with no kind's marker (Apple's mock payloads hold only environment, bundleId and
          // signedDate): read as the kind whose fields it fits, and say so; a field no kind has refuses it.
          let (kind, note, strangers) = try bestFittingKind(reader)
          if let strangers {
            throw ServerAPIShapes.notPurchaseData(shape: nil, keys: strangers, path: base.text)
          }
          var (payload, carried) = try readTyped(kind, reader, base: base, strict: strict)
          payload.appendNote(SignedDataNote(path: "", message: note))
          return (payload, carried)
        }
        let kind = try resolveKind(markers, expected: expected, base: base)
        return try readTyped(kind, reader, base: base, strict: strict, checks: checks)
      }
    } catch let e as SignedDataError {
      throw e
    } catch let e as JSONSyntaxError {
      throw SignedDataError(
        .payloadJSON, path: base.text, detail: "not JSON: \(e.message)", line: e.line, column: e.column)
    } catch {
      throw SignedDataError(.payloadJSON, path: base.text, detail: "\(error)")
    }
  }

  /// Decodes `bytes` as the payload kind its place gives, `P`, straight into `P`: one typed pass, as `decode`
  /// tries first, and where that does not settle it the rest of `decode`, the payload then taken out. The same
  /// answer and errors as `decode(_:expected: P.kind, ...)`.
  static func decode<P: PlacedPayload>(
    _ bytes: UnsafeBufferPointer<UInt8>, as type: P.Type, base: LazyPath, strict: Bool, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> (P, carried: [SignedDataError]) {
    let typedPassTried = oneTypedPassSuffices.contains(P.kind)
    if typedPassTried {
      let checked = checks?.tally
      let typed = try? JSONReader.withReader(buffer: bytes) { reader -> (P, [SignedDataError])? in
        var r = PayloadReading(reader: reader, base: base, strict: strict)
        r.checks = checks
        let payload = try P.read(&r)
        try r.reader.finish()
        guard onePassSettles(payload.unreadKeys) else { return nil }
        return (payload, r.carried)
      }
      if let typed = typed ?? nil { return typed }
      if let checked { checks?.forget(since: checked) }
    }
    let (payload, carried) = try decode(
      bytes, expected: P.kind, base: base, strict: strict, checks: checks, typedPassTried: typedPassTried)
    guard let typed = P.taken(from: payload) else {
      throw SignedDataError(.kindMismatch, path: base.text, detail: "expected \(P.kind.noun)")
    }
    return (typed, carried)
  }

  /// Whether a typed pass that left `unreadKeys` settled the kind its place gave: fewer unknown keys than the
  /// limit, and none another kind's marker.
  static func onePassSettles(_ unreadKeys: [String]) -> Bool {
    unreadKeys.count < PayloadReading.maxUnreadKeys && !unreadKeys.contains(where: { markerKeys.names.contains($0) })
  }

  /// Reads the payload as `kind`, to its end.
  static func readTyped(
    _ kind: SignedPayloadKind, _ reader: JSONReader, base: LazyPath, strict: Bool, checks: JWSChecks? = nil
  ) throws -> (SignedPayload, carried: [SignedDataError]) {
    var r = PayloadReading(reader: reader, base: base, strict: strict)
    r.checks = checks
    let payload: SignedPayload
    switch kind {
    case .transaction: payload = .transaction(try readTransaction(&r))
    case .renewalInfo: payload = .renewalInfo(try readRenewal(&r))
    case .appTransaction: payload = .appTransaction(try readAppTransaction(&r))
    case .notification: payload = .notification(try readNotification(&r))
    }
    try r.reader.finish()
    return (payload, r.carried)
  }

  /// The kinds whose own keys include no other kind's marker, so that such a marker can only be unknown to them.
  /// (Sets of names: comparing unequal strings one pair at a time cost some 2.5 million instructions once.)
  static let oneTypedPassSuffices: Set<SignedPayloadKind> = {
    let known: [SignedPayloadKind: [String]] = [
      .transaction: TransactionKey.keys.names, .renewalInfo: RenewalKey.keys.names,
      .appTransaction: AppTransactionKey.keys.names, .notification: NotificationKey.keys.names,
    ]
    return Set(
      kindMarkers.map(\.0).filter { kind in
        let others = Set(kindMarkers.filter { $0.0 != kind }.flatMap(\.1))
        return others.isDisjoint(with: known[kind] ?? [])
      })
  }()

  /// The markers and then the refused shapes' keys (`ServerAPIShapes.refused`), matched in one pass.
  static let decidingKeys = SignedKeys(markerKeys.names + ServerAPIShapes.refusedKeyNames)

  /// Which marker keys the top-level object holds, for each kind (first key seen per kind), and the refused shape
  /// its keys make, if any: one pass over the top level that skips values; the typed pass follows.
  static func decidingKeys(
    _ start: JSONReader, base: LazyPath
  ) throws -> (markers: [SignedPayloadKind: String], refusedShape: String?) {
    var reader = start
    guard try reader.peek() == .object else {
      throw SignedDataError(
        .payloadJSON, path: base.text, detail: "expected a JSON object, found \(try reader.peek().noun)")
    }
    try reader.beginObject()
    var found: [SignedPayloadKind: String] = [:]
    var refusedKeys: [String] = []
    while let key = try reader.nextKey() {
      if let i = decidingKeys.matcher.index(of: key, in: reader) {
        if i >= markerKind.count {
          refusedKeys.append(decidingKeys.names[i])
        } else if found[markerKind[i]] == nil {
          found[markerKind[i]] = decidingKeys.names[i]
        }
      }
      try reader.skipValue()
    }
    return (found, refusedKeys.isEmpty ? nil : ServerAPIShapes.refusedShape(refusedKeys))
  }

  /// The kind that knows the most of a marker-less payload's top-level keys (the first, in `kindMarkers` order,
  /// of those that tie), and the note that says which kinds it fits; `strangers` lists the keys when the payload
  /// has none or one that kind does not know (it then fits no kind).
  static func bestFittingKind(_ start: JSONReader) throws -> (SignedPayloadKind, String, strangers: [String]?) {
    var reader = start
    try reader.beginObject()
    var keys: [String] = []
    while let key = try reader.nextKey() {
      if keys.count < PayloadReading.maxUnreadKeys { keys.append(reader.string(key)) }
      try reader.skipValue()
    }
    let known: [(SignedPayloadKind, [String])] = [
      (.transaction, TransactionKey.keys.names), (.renewalInfo, RenewalKey.keys.names),
      (.appTransaction, AppTransactionKey.keys.names), (.notification, NotificationKey.keys.names),
    ]
    let scored = known.map { kind, names in (kind, keys.count { names.contains($0) }) }
    let best = scored.max { $0.1 < $1.1 }?.1 ?? 0
    let fitting = scored.filter { $0.1 == best && best > 0 }.map(\.0)
    let kind = fitting.first ?? .transaction
    let kindKeys = known.first { $0.0 == kind }?.1 ?? []
    let strangers = keys.isEmpty || !keys.allSatisfy(kindKeys.contains) ? keys : nil
    let fields = keys.isEmpty ? "no fields" : "only " + keys.joined(separator: ", ")
    let fits =
      fitting.count > 1
      ? "; those fit \(fitting.map(\.noun).joined(separator: " or "))"
      : ""
    return (
      kind,
      "the payload has none of transactionId, autoRenewStatus/renewalDate, receiptType or notificationType "
        + "that tell its kind (\(fields))\(fits); read as \(kind.noun)",
      strangers
    )
  }

  static func resolveKind(
    _ markers: [SignedPayloadKind: String], expected: SignedPayloadKind?, base: LazyPath
  ) throws(SignedDataError) -> SignedPayloadKind {
    let kinds = SignedPayloadKind.allCases.filter { markers[$0] != nil }
    func say(_ k: SignedPayloadKind) -> String { "\(markers[k] ?? "?") (\(k.noun))" }
    if let expected {
      if let other = kinds.first(where: { $0 != expected }) {
        throw SignedDataError(
          .kindMismatch, path: base.text, detail: "expected \(expected.noun) here, but the payload has \(say(other))")
      }
      return expected
    }
    switch kinds.count {
    case 1: return kinds[0]
    case 0:
      throw SignedDataError(
        .unknownKind, path: base.text,
        detail: "unknown kind: none of transactionId (transaction), autoRenewStatus/renewalDate (renewal info), "
          + "receiptType (app transaction) or notificationType (notification)")
    default:
      throw SignedDataError(
        .unknownKind, path: base.text,
        detail: "ambiguous kind: the payload has \(kinds.map(say).joined(separator: " and "))")
    }
  }

  // MARK: Kinds

  static func readTransaction(_ r: inout PayloadReading) throws -> JWSTransactionPayload {
    var p = JWSTransactionPayload()
    p.unreadKeys = try r.forEachMember(TransactionKey.keys) { r, index in
      guard let key = TransactionKey.at(index) else { return }
      switch key {
      case .transactionId: p.transactionId = try r.string()
      case .originalTransactionId: p.originalTransactionId = try r.string()
      case .webOrderLineItemId: p.webOrderLineItemId = try r.string()
      case .bundleId: p.bundleId = try r.string()
      case .productId: p.productId = try r.string()
      case .subscriptionGroupIdentifier: p.subscriptionGroupIdentifier = try r.string()
      case .purchaseDate: p.purchaseDate = try r.date()
      case .originalPurchaseDate: p.originalPurchaseDate = try r.date()
      case .expiresDate: p.expiresDate = try r.date()
      case .quantity: p.quantity = try r.integer()
      case .type: p.type = try r.coded(SignedProductType.self)
      case .appAccountToken: p.appAccountToken = try r.string()
      case .inAppOwnershipType: p.inAppOwnershipType = try r.coded(InAppOwnershipType.self)
      case .signedDate: p.signedDate = try r.date()
      case .revocationReason: p.revocationReason = try r.codedNumber(SignedRevocationReason.self)
      case .revocationDate: p.revocationDate = try r.date()
      case .isUpgraded: p.isUpgraded = try r.bool()
      case .offerType: p.offerType = try r.codedNumber(OfferType.self)
      case .offerIdentifier: p.offerIdentifier = try r.string()
      case .environment: p.environment = try r.coded(AppStoreEnvironment.self)
      case .storefront: p.storefront = try r.string()
      case .storefrontId: p.storefrontId = try r.string()
      case .transactionReason: p.transactionReason = try r.coded(TransactionReason.self)
      case .price: p.price = try r.integer()
      case .currency: p.currency = try r.string()
      case .offerDiscountType: p.offerDiscountType = try r.coded(OfferDiscountType.self)
      case .offerPeriod: p.offerPeriod = try r.string()
      case .appTransactionId: p.appTransactionId = try r.string()
      case .revocationType: p.revocationType = try r.coded(RevocationType.self)
      case .revocationPercentage: p.revocationPercentage = try r.integer()
      case .previousOriginalTransactionId: p.previousOriginalTransactionId = try r.string()
      case .billingPlanType: p.billingPlanType = try r.coded(SignedBillingPlanType.self)
      case .commitmentInfo: if !(try r.skipNull()) { p.commitmentInfo = try readTransactionCommitment(&r) }
      case .advancedCommerceInfo: p.advancedCommerceInfo = try r.carriedObject()
      }
    }
    p.notes = r.notes
    return p
  }

  static func readRenewal(_ r: inout PayloadReading) throws -> JWSRenewalInfoPayload {
    var p = JWSRenewalInfoPayload()
    p.unreadKeys = try r.forEachMember(RenewalKey.keys) { r, index in
      guard let key = RenewalKey.at(index) else { return }
      switch key {
      case .expirationIntent: p.expirationIntent = try r.codedNumber(SignedExpirationIntent.self)
      case .originalTransactionId: p.originalTransactionId = try r.string()
      case .autoRenewProductId: p.autoRenewProductId = try r.string()
      case .productId: p.productId = try r.string()
      case .autoRenewStatus: p.autoRenewStatus = try r.codedNumber(SignedAutoRenewStatus.self)
      case .isInBillingRetryPeriod: p.isInBillingRetryPeriod = try r.bool()
      case .priceIncreaseStatus: p.priceIncreaseStatus = try r.codedNumber(PriceIncreaseStatus.self)
      case .gracePeriodExpiresDate: p.gracePeriodExpiresDate = try r.date()
      case .offerType: p.offerType = try r.codedNumber(OfferType.self)
      case .offerIdentifier: p.offerIdentifier = try r.string()
      case .signedDate: p.signedDate = try r.date()
      case .environment: p.environment = try r.coded(AppStoreEnvironment.self)
      case .recentSubscriptionStartDate: p.recentSubscriptionStartDate = try r.date()
      case .renewalDate: p.renewalDate = try r.date()
      case .renewalPrice: p.renewalPrice = try r.integer()
      case .currency: p.currency = try r.string()
      case .offerDiscountType: p.offerDiscountType = try r.coded(OfferDiscountType.self)
      case .offerPeriod: p.offerPeriod = try r.string()
      case .eligibleWinBackOfferIds: p.eligibleWinBackOfferIds = try r.stringArray()
      case .appAccountToken: p.appAccountToken = try r.string()
      case .appTransactionId: p.appTransactionId = try r.string()
      case .renewalBillingPlanType: p.renewalBillingPlanType = try r.coded(SignedBillingPlanType.self)
      case .commitmentInfo: if !(try r.skipNull()) { p.commitmentInfo = try readRenewalCommitment(&r) }
      case .advancedCommerceInfo: p.advancedCommerceInfo = try r.carriedObject()
      }
    }
    p.notes = r.notes
    return p
  }

  /// A transaction's `commitmentInfo`; keys it does not know are noted, not dropped in silence.
  static func readTransactionCommitment(_ r: inout PayloadReading) throws -> TransactionCommitmentInfo {
    var c = TransactionCommitmentInfo()
    c.unreadKeys = try r.forEachMember(TransactionCommitmentKey.keys) { r, index in
      guard let key = TransactionCommitmentKey.at(index) else { return }
      switch key {
      case .billingPeriodNumber: c.billingPeriodNumber = try r.integer()
      case .commitmentExpiresDate: c.commitmentExpiresDate = try r.date()
      case .commitmentPrice: c.commitmentPrice = try r.integer()
      case .totalBillingPeriods: c.totalBillingPeriods = try r.integer()
      }
    }
    r.noteUnread(c.unreadKeys)
    return c
  }

  /// Renewal info's `commitmentInfo`; keys it does not know are noted, not dropped in silence.
  static func readRenewalCommitment(_ r: inout PayloadReading) throws -> RenewalCommitmentInfo {
    var c = RenewalCommitmentInfo()
    c.unreadKeys = try r.forEachMember(RenewalCommitmentKey.keys) { r, index in
      guard let key = RenewalCommitmentKey.at(index) else { return }
      switch key {
      case .commitmentAutoRenewProductId: c.commitmentAutoRenewProductId = try r.string()
      case .commitmentAutoRenewStatus: c.commitmentAutoRenewStatus = try r.codedNumber(SignedAutoRenewStatus.self)
      case .commitmentRenewalBillingPlanType:
        c.commitmentRenewalBillingPlanType = try r.coded(SignedBillingPlanType.self)
      case .commitmentRenewalDate: c.commitmentRenewalDate = try r.date()
      case .commitmentRenewalPrice: c.commitmentRenewalPrice = try r.integer()
      }
    }
    r.noteUnread(c.unreadKeys)
    return c
  }

  static func readAppTransaction(_ r: inout PayloadReading) throws -> AppTransactionPayload {
    var p = AppTransactionPayload()
    p.unreadKeys = try r.forEachMember(AppTransactionKey.keys) { r, index in
      guard let key = AppTransactionKey.at(index) else { return }
      switch key {
      case .receiptType: p.receiptType = try r.coded(AppStoreEnvironment.self)
      case .appAppleId: p.appAppleId = try r.integer()
      case .bundleId: p.bundleId = try r.string()
      case .applicationVersion: p.applicationVersion = try r.string()
      case .versionExternalIdentifier: p.versionExternalIdentifier = try r.integer()
      case .receiptCreationDate: p.receiptCreationDate = try r.lenientDate().0
      case .requestDate: p.requestDate = try r.lenientDate().0
      case .originalPurchaseDate: (p.originalPurchaseDate, p.originalPurchaseDateMilliseconds) = try r.lenientDate()
      case .originalApplicationVersion: p.originalApplicationVersion = try r.string()
      case .deviceVerification: p.deviceVerification = try r.string()
      case .deviceVerificationNonce: p.deviceVerificationNonce = try r.string()
      case .preorderDate: p.preorderDate = try r.lenientDate().0
      case .appTransactionId: p.appTransactionId = try r.string()
      case .originalPlatform: p.originalPlatform = try r.string()
      }
    }
    p.notes = r.notes
    return p
  }

  static func readNotification(_ r: inout PayloadReading) throws -> NotificationV2Payload {
    var p = NotificationV2Payload()
    p.unreadKeys = try r.forEachMember(NotificationKey.keys) { r, index in
      guard let key = NotificationKey.at(index) else { return }
      switch key {
      case .notificationType: p.notificationType = try r.coded(NotificationTypeV2.self)
      case .subtype: p.subtype = try r.coded(NotificationSubtype.self)
      case .notificationUUID: p.notificationUUID = try r.string()
      case .version: p.version = try r.string()
      case .signedDate: p.signedDate = try r.date()
      case .data: if !(try r.skipNull()) { p.data = try readData(&r) }
      case .summary: if !(try r.skipNull()) { p.summary = try readSummary(&r) }
      case .externalPurchaseToken: if !(try r.skipNull()) { p.externalPurchaseToken = try readToken(&r) }
      case .appData: if !(try r.skipNull()) { p.appData = try AppData.read(&r) }
      }
    }
    p.notes = r.notes
    return p
  }

  static func readData(_ r: inout PayloadReading) throws -> NotificationData {
    var d = NotificationData()
    d.unreadKeys = try r.forEachMember(DataKey.keys) { r, index in
      guard let key = DataKey.at(index) else { return }
      switch key {
      case .appAppleId: d.appAppleId = try r.integer()
      case .bundleId: d.bundleId = try r.string()
      case .bundleVersion: d.bundleVersion = try r.string()
      case .environment: d.environment = try r.coded(AppStoreEnvironment.self)
      case .status: d.status = try r.codedNumber(SubscriptionStatus.self)
      case .consumptionRequestReason: d.consumptionRequestReason = try r.string()
      case .signedTransactionInfo: d.signedTransactionInfo = try nested(&r, as: JWSTransactionPayload.self)
      case .signedRenewalInfo: d.signedRenewalInfo = try nested(&r, as: JWSRenewalInfoPayload.self)
      }
    }
    return d
  }

  /// A JWS string inside a payload: decoded, or (not strict) carried with its error.
  static func nested<P: PlacedPayload>(_ r: inout PayloadReading, as type: P.Type) throws -> NestedJWS<P>? {
    guard let token = try r.stringToken() else { return nil }
    let path = r.path
    let bytes: [UInt8] = token.hasEscapes ? Array(r.reader.string(token).utf8) : r.reader.withBytes(token) { Array($0) }
    let (strict, checks) = (r.strict, r.checks)
    var memo = checks?.takeHeaderMemo() ?? CompactJWS.HeaderMemo()
    defer { checks?.keep(memo) }
    let decoded = bytes.withUnsafeBufferPointer { text -> Result<(SignedJWS<P>, [SignedDataError]), SignedDataError> in
      do throws(SignedDataError) {
        return .success(
          try CompactJWS.decode(text, as: P.self, base: LazyPath(path), strict: strict, memo: &memo, checks: checks))
      } catch {
        return .failure(error)
      }
    }
    switch decoded {
    case .success(let (jws, carried)):
      r.carried += carried
      return .decoded(jws)
    case .failure(let e):
      if strict { throw e }
      r.carried.append(e)
      return .undecodable(e)
    }
  }

  static func readSummary(_ r: inout PayloadReading) throws -> NotificationSummary {
    var s = NotificationSummary()
    s.unreadKeys = try r.forEachMember(SummaryKey.keys) { r, index in
      guard let key = SummaryKey.at(index) else { return }
      switch key {
      case .requestIdentifier: s.requestIdentifier = try r.string()
      case .environment: s.environment = try r.coded(AppStoreEnvironment.self)
      case .appAppleId: s.appAppleId = try r.integer()
      case .bundleId: s.bundleId = try r.string()
      case .productId: s.productId = try r.string()
      case .storefrontCountryCodes: s.storefrontCountryCodes = try r.stringArray()
      case .failedCount: s.failedCount = try r.integer()
      case .succeededCount: s.succeededCount = try r.integer()
      }
    }
    return s
  }

  static func readToken(_ r: inout PayloadReading) throws -> ExternalPurchaseToken {
    var t = ExternalPurchaseToken()
    t.unreadKeys = try r.forEachMember(TokenKey.keys) { r, index in
      guard let key = TokenKey.at(index) else { return }
      switch key {
      case .externalPurchaseId: t.externalPurchaseId = try r.string()
      case .tokenCreationDate: t.tokenCreationDate = try r.date()
      case .appAppleId: t.appAppleId = try r.integer()
      case .bundleId: t.bundleId = try r.string()
      }
    }
    return t
  }
}
