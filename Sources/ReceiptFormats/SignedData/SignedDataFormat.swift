import ReceiptModel

/// StoreKit 2 and App Store Server data: compact JWS (alone or one per line), decoded payloads, App Store
/// Server API responses and Notifications V2 bodies, read into the same purchase history as verifyReceipt JSON.
///
/// Every JWS's signature is checked when the options ask for it (`DecodeOptions.signatures`): the document's
/// verdict, the weakest item's, is the provenance's `signatureCheck`.
/// Nested signed strings that cannot be read (Apple's sample responses hold placeholders) are carried as
/// warnings; a broken document, or a broken top-level JWS, fails with the place it broke.
public struct SignedDataFormat: InputFormat {
  /// The format, ready to register.
  public init() {}

  /// How messages name the format.
  public var name: String { "StoreKit 2 signed data" }

  /// A JWS (`eyJ`), or a JSON object with keys only signed data and the App Store Server API use.
  public func recognition(of sniff: DocumentSniff) -> Recognition {
    sniff.withPrefix { SignedDataDecoder.looksLikeSignedData(in: $0, names: sniff.names) }
      ? .certain : .no
  }

  /// The camelCase keys the sniff looks for (`SignedDataDecoder.sniffKeyNames`).
  public var sniffNames: [String] { SignedDataDecoder.sniffKeyNames }

  /// Reads signed data of any shape into a purchase history; nested JWS that cannot be read become warnings.
  /// - Parameters:
  ///   - bytes: The document.
  ///   - source: The input's name for messages.
  ///   - options: What the caller allows.
  /// - Returns: The transactions and renewal states the document holds.
  /// - Throws: `ReceiptError` naming the path and position where the document or its top-level JWS broke.
  public func decode(_ bytes: [UInt8], source: String, options: DecodeOptions) throws(ReceiptError) -> PurchaseHistory {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ReceiptError) in
      try decode(contentsOf: buffer, source: source, options: options)
    }
  }

  /// `decode` over a document in place (a mapped file, a batch's line): each JWS is decoded where it lies.
  public func decode(
    contentsOf bytes: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions
  ) throws(ReceiptError) -> PurchaseHistory {
    let keepsStated = options.keepsFieldsOnlyDecodeShows
    guard let checking = options.signatures else {
      var history = try decode(bytes, source: source, checks: nil, keepsStatedFields: keepsStated)
      if history.provenance.format.name != "signed_payload_decoded" {
        history.provenance.signatureCheck = SignatureCheck(.notChecked, note: "read without checking signatures")
        history.provenance.signatureCheck.coverage = .signedTransaction
      }
      return history
    }
    // One workspace for the whole document: its chain cache and header memos serve every JWS in it, then the next
    // document.
    let result = checking.verifiers.withWorkspace { workspace -> Result<PurchaseHistory, ReceiptError> in
      let checks = JWSChecks(workspace: workspace.movedOut(), now: checking.now, expectedApp: checking.expectedApp)
      defer { workspace = checks.workspace }
      do throws(ReceiptError) {
        var history = try decode(bytes, source: source, checks: checks, keepsStatedFields: keepsStated)
        if history.provenance.format.name != "signed_payload_decoded" {
          history.provenance.signatureCheck = checks.documentCheck(coverage: .signedTransaction)
        }
        return .success(history)
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  /// Reads a document, checking its signatures into `checks` when given; the stated fields only `decode` shows
  /// are built when `keepsStatedFields`.
  func decode(
    _ bytes: UnsafeBufferPointer<UInt8>, source: String, checks: JWSChecks?, keepsStatedFields: Bool = true
  ) throws(ReceiptError) -> PurchaseHistory {
    let document: SignedDataDocument
    do {
      document = try SignedDataDecoder.decode(buffer: bytes, strict: false, checks: checks)
    } catch {
      throw error.receiptError(source: source)
    }
    return try SignedDataMapping.history(of: document, source: source, keepsStatedFields: keepsStatedFields)
  }
}

extension SignedDataError {
  /// The library error: `.invalidValue` for a field of the wrong type or range, `.malformed` for the rest;
  /// line and column are inside the innermost JSON text the path names.
  /// - Parameter source: the input's name.
  /// - Returns: the error with source, path and position.
  public func receiptError(source: String) -> ReceiptError {
    var position = line.flatMap { line in column.map { InputPosition.lineColumn(line: line, column: $0) } }
    // Inside a JWS the line and column are in the decoded header or payload, not in the file: said in words.
    var inside = ""
    if let line, let column,
      let part = path.split(separator: " > ").last(where: { $0 == "payload" || $0 == "header" })
    {
      position = nil
      inside = " (line \(line), column \(column) of the decoded \(part))"
    }
    let kind: ReceiptError.Kind = category == .field ? .invalidValue : .malformed
    let what: String
    switch category {
    case .notSignedData: what = "not StoreKit 2 signed data"
    case .segmentCount, .base64url, .header: what = "malformed JWS"
    case .payloadJSON: what = "malformed JWS payload"
    case .unknownKind, .kindMismatch: what = "unrecognised signed payload"
    case .notPurchaseData: what = "not purchase data"
    case .field: what = "invalid value"
    case .document: what = "malformed App Store Server data"
    case .tooLarge: what = "too large"
    }
    return ReceiptError(
      kind, source: source, path: path.isEmpty ? nil : path, position: position,
      message: "\(what)\(inside): \(detail)")
  }
}

extension FieldVocabulary {
  /// Signed transactions and renewal info (StoreKit 2, App Store Server API, Notifications V2): camelCase.
  public static let storeKit2 = FieldVocabulary(
    document: "the signed transaction", transactionID: "transactionId", originalTransactionID: "originalTransactionId",
    purchaseDate: "purchaseDate", expiresDate: "expiresDate", revocationDate: "revocationDate",
    revocationReason: "revocationReason", ownership: "inAppOwnershipType",
    subscriptionGroup: "subscriptionGroupIdentifier", isUpgraded: "isUpgraded", introductoryOffer: "offerType 1",
    autoRenewStatus: "autoRenewStatus", expirationIntent: "expirationIntent",
    isInBillingRetryPeriod: "isInBillingRetryPeriod", gracePeriodExpiresDate: "gracePeriodExpiresDate")
}

/// Builds a purchase history from a decoded signed-data document, field by field.
enum SignedDataMapping {
  /// Items, and refunds of an item, read from one Advanced Commerce transaction: bounded against a hostile payload.
  static let maxItemRefunds = 1_000

  /// Largest quantity read, as for verifyReceipt rows.
  static let maxQuantity: Int64 = 1_000_000

  /// The purchase history `document` holds.
  /// - Parameters:
  ///   - document: The decoded document.
  ///   - source: The input's name for messages.
  ///   - keepsStatedFields: Build each item's `statedFields` (only `decode` shows them; false leaves them empty
  ///     and changes nothing else).
  /// - Returns: The transactions, renewal states and facts the document holds.
  /// - Throws: `ReceiptError` naming the path of a value that cannot be interpreted.
  static func history(
    of document: SignedDataDocument, source: String, keepsStatedFields: Bool = true
  ) throws(ReceiptError) -> PurchaseHistory {
    var builder = Builder(source: source, keepsStatedFields: keepsStatedFields)
    try builder.read(document)
    return builder.finish(document)
  }

  struct Builder {
    let source: String
    let keepsStatedFields: Bool
    var collector = TransactionCollector()
    var renewals: [RenewalState] = []
    var warnings: [DataWarning] = []
    var signature: SignatureFacts?
    var environment: String?
    var notification: NotificationInfo?
    var receipt: ReceiptInfo?
    var contentNote: String?
    var page: ResponsePage?
    var responseStatus: ResponseStatus?
    var deliveries: [DeliveredNotification] = []
    var documentFields: [StatedField] = []

    init(source: String, keepsStatedFields: Bool) {
      self.source = source
      self.keepsStatedFields = keepsStatedFields
    }

    mutating func read(_ document: SignedDataDocument) throws(ReceiptError) {
      for error in document.carriedErrors {
        warnings.append(
          DataWarning(
            path: error.path.isEmpty ? "(document)" : error.path,
            message: "could not be read and was left out: \(error.detail)"))
      }
      switch document.content {
      case .compactJWS(let jws):
        header(jws.header, jws.source)
        try payload(jws.payload, path: "payload")
      case .jwsLines(let lines):
        for case .decoded(let jws) in lines {
          header(jws.header, jws.source)
        }
        var line = 0
        for item in lines {
          line += 1
          if case .decoded(let jws) = item { try payload(jws.payload, path: "JWS \(line) > payload") }
        }
      case .decodedPayload(let p):
        try payload(p, path: "")
      case .transactionHistory(let r), .refundHistory(let r):
        environment = r.environment?.raw
        notes(r.notes, path: "")
        unread(r.unreadKeys, path: "")
        if r.hasMore != nil || r.revision != nil {
          page = ResponsePage(hasMore: r.hasMore, continuationField: "revision", continuation: r.revision)
        }
        for i in r.signedTransactions.indices {
          guard case .decoded(let jws) = r.signedTransactions[i] else { continue }
          header(jws.header, jws.source)
          try transaction(jws.payload, path: "signedTransactions[\(i)] > payload")
        }
      case .subscriptionStatuses(let r):
        environment = r.environment?.raw
        notes(r.notes, path: "")
        unread(r.unreadKeys, path: "")
        for (g, group) in r.data.enumerated() {
          unread(group.unreadKeys, path: "data[\(g)]")
          for (t, item) in group.lastTransactions.enumerated() {
            unread(item.unreadKeys, path: "data[\(g)].lastTransactions[\(t)]")
            try statusItem(item, group: group.subscriptionGroupIdentifier, path: "data[\(g)].lastTransactions[\(t)]")
          }
        }
      case .transactionInfo(let nested, let unreadKeys):
        unread(unreadKeys, path: "")
        if let jws = nested.decoded {
          header(jws.header, jws.source)
          try transaction(jws.payload, path: "signedTransactionInfo > payload")
        }
      case .notificationBody(let jws, let unreadKeys):
        unread(unreadKeys, path: "")
        header(jws.header, jws.source)
        try notificationPayload(jws.payload, path: "signedPayload > payload")
      case .notificationHistory(let r): try read(r)
      case .testNotificationStatus(let r): try read(testNotificationStatus: r)
      case .appData(let d):
        notes(d.notes, path: "")
        read(d, path: "")
      case .orderLookup(let r): try read(r)
      case .renewalExtension(let x): read(x)
      case .advancedCommerce(let r): try read(r)
      }
    }

    /// Keys the tool does not read, shown rather than dropped: a warning every command prints, `decode` lists.
    mutating func unread(_ keys: [String], path: String) {
      guard !keys.isEmpty else { return }
      let shown = keys.prefix(8).map { Excerpt.quoted($0) }.joined(separator: ", ")
      warnings.append(
        DataWarning(
          path: path.isEmpty ? "(document)" : path,
          message: "\(ReadingWarnings.unreadKeysPrefix) (\(shown)\(keys.count > 8 ? ", …" : "")): carried "
            + "as names only; the answer does not use them"))
    }

    func finish(_ document: SignedDataDocument) -> PurchaseHistory {
      var history = PurchaseHistory(format: SignedDataMapping.identity(document, note: contentNote))
      if document.shape == .decodedPayload { history.provenance.signatureCheck = .unsigned("a decoded payload") }
      history.transactions = collector.transactions
      history.renewals = renewals
      history.warnings = warnings
      history.environment = environment
      history.provenance.signature = signature
      history.provenance.notification = notification
      history.provenance.receipt = receipt
      history.provenance.page = page
      history.provenance.responseStatus = responseStatus
      history.provenance.deliveries = deliveries
      history.provenance.statedFields = documentFields
      history.provenance.duplicateRowsMerged = collector.duplicates
      if let newest = newestSignedDate() {
        history.moment = DataMoment(time: newest, field: "signedDate", description: "the newest signedDate in the data")
        // The data knows of a refund it dates later than any signature (Apple's test data does): it is known.
        if let refund = collector.transactions.compactMap(\.revocation?.date).max(), refund > newest {
          history.moment = DataMoment(
            time: refund, field: "revocationDate",
            description: "the newest revocationDate in the data, later than any signedDate")
        }
      }
      return history
    }

    func newestSignedDate() -> Timestamp? {
      let dates = collector.transactions.compactMap(\.signedDate) + renewals.compactMap(\.signedDate)
      return ([notificationSignedDate, receipt?.receiptCreationDate].compactMap { $0 } + dates).max()
    }

    var notificationSignedDate: Timestamp?

    /// The first signature header read speaks for the document (Apple signs a response's strings alike).
    mutating func header(_ h: JWSHeader, _ signer: SigningSource) {
      guard signature == nil else { return }
      signature = SignatureFacts(
        algorithm: h.alg, keyID: h.kid, certificateCount: h.x5cCount ?? 0,
        signer: signer == .appStoreClaimed ? nil : signer.label)
    }

    mutating func notes(_ notes: [SignedDataNote], path: String) {
      for note in notes {
        warnings.append(DataWarning(path: SignedDataPath.join(path, note.path), message: note.message))
      }
    }

    mutating func payload(_ p: SignedPayload, path: String) throws(ReceiptError) {
      switch p {
      case .transaction(let t): try transaction(t, path: path)
      case .renewalInfo(let r): renewal(r, path: path, status: nil)
      case .appTransaction(let a): appTransaction(a, path: path)
      case .notification(let n): try notificationPayload(n, path: path)
      }
    }

    mutating func appTransaction(_ a: AppTransactionPayload, path: String) {
      notes(a.notes, path: path)
      unread(a.unreadKeys, path: path)
      var info = ReceiptInfo()
      info.bundleID = a.bundleId
      info.applicationVersion = a.applicationVersion
      info.originalApplicationVersion = a.originalApplicationVersion
      info.originalPlatform = a.originalPlatform
      info.receiptType = a.receiptType?.raw
      info.receiptCreationDate = a.receiptCreationDate
      info.requestDate = a.requestDate
      info.originalPurchaseDate = a.originalPurchaseDate
      // Xcode's year-1 placeholder is outside the checked range: shown as it is, never used as a moment.
      if info.originalPurchaseDate == nil, let ms = a.originalPurchaseDateMilliseconds {
        info.originalPurchaseDate = Timestamp(unchecked: ms)
      }
      if keepsStatedFields { info.statedFields = SignedDataMapping.statedFields(of: a) }
      receipt = info
      if environment == nil { environment = a.receiptType?.raw }
    }

    mutating func notificationPayload(_ n: NotificationV2Payload, path: String) throws(ReceiptError) {
      if let unknown = NotificationEffects.unknownEvent(n) {
        // One warning names both; the payload's own notes on the two fields would repeat it.
        notes(n.notes.filter { $0.path != "notificationType" && $0.path != "subtype" }, path: path)
        warnings.append(DataWarning(path: path.isEmpty ? "(notification)" : path, message: unknown))
      } else {
        notes(n.notes, path: path)
      }
      unread(n.unreadKeys, path: path)
      if let d = n.data { unread(d.unreadKeys, path: SignedDataPath.join(path, "data")) }
      if let s = n.summary { unread(s.unreadKeys, path: SignedDataPath.join(path, "summary")) }
      if let t = n.externalPurchaseToken {
        unread(t.unreadKeys, path: SignedDataPath.join(path, "externalPurchaseToken"))
      }
      var info = NotificationInfo()
      let type = n.notificationType?.raw
      info.notificationType = [type, n.subtype?.raw].compactMap { $0 }.joined(separator: " / ")
      if type == nil && n.subtype == nil { info.notificationType = nil }
      info.environment = n.environment?.raw
      info.bundleID = n.data?.bundleId ?? n.summary?.bundleId ?? n.externalPurchaseToken?.bundleId
      if keepsStatedFields { info.statedFields = SignedDataMapping.statedFields(of: n) }
      notification = info
      notificationSignedDate = n.signedDate
      if environment == nil { environment = n.environment?.raw }
      switch n.content {
      case .transaction: break
      case .noTransaction:
        contentNote =
          NotificationEffects.isAboutTheApp(n.notificationType)
          ? "no transaction: the notification is about the app, not a purchase"
          : "no signedTransactionInfo: the purchase it is about is not in the data"
      case .summary: contentNote = "summary: a renewal extension for many subscribers, no one customer's transaction"
      case .externalPurchaseToken: contentNote = "external purchase token: no App Store transaction"
      case .appData:
        contentNote = "appData: the app transaction of the customer it is about"
        if let d = n.appData { read(d, path: SignedDataPath.join(path, "appData")) }
      case .empty: contentNote = "no data, summary, externalPurchaseToken or appData"
      }
      guard let data = n.data else { return }
      let dataPath = SignedDataPath.join(path, "data")
      var chain: String?
      var signed: [Timestamp] = []
      if let t = data.signedTransactionInfo?.decoded {
        header(t.header, t.source)
        chain = t.payload.originalTransactionId ?? t.payload.transactionId
        signed += [t.payload.signedDate].compactMap { $0 }
        try transaction(t.payload, path: SignedDataPath.join(dataPath, "signedTransactionInfo > payload"))
        if n.notificationType?.known == .refundReversed, let id = t.payload.transactionId {
          reverseRefund(of: id, at: n.signedDate ?? t.payload.signedDate)
        }
      }
      let status = data.status.map { StoreSubscriptionStatus(code: $0.raw, asOf: nil) }
      if let r = data.signedRenewalInfo?.decoded {
        header(r.header, r.source)
        signed += [r.payload.signedDate].compactMap { $0 }
        var s = status
        s?.asOf = (signed + [n.signedDate].compactMap { $0 }).max()
        var payload = r.payload
        NotificationEffects.fillRenewal(&payload, type: n.notificationType?.known, subtype: n.subtype?.known)
        renewal(payload, path: SignedDataPath.join(dataPath, "signedRenewalInfo > payload"), status: s)
        chain = chain ?? r.payload.originalTransactionId
      } else if var s = status {
        s.asOf = (signed + [n.signedDate].compactMap { $0 }).max()
        var state = RenewalState(originalTransactionID: chain, vocabulary: .storeKit2)
        var filled = JWSRenewalInfoPayload()
        NotificationEffects.fillRenewal(&filled, type: n.notificationType?.known, subtype: n.subtype?.known)
        state.expirationIntent = filled.expirationIntent.map { ExpirationIntent(code: String($0.raw)) }
        state.isInBillingRetryPeriod = filled.isInBillingRetryPeriod
        merge(state, status: s)
      }
      if let s = data.status, data.signedTransactionInfo?.decoded == nil {
        let why = data.signedTransactionInfo == nil ? "is missing" : "could not be read"
        warnings.append(
          DataWarning(
            path: SignedDataPath.join(dataPath, "status"),
            message:
              "Apple's status \(s.raw) (\(StoreSubscriptionStatus(code: s.raw, asOf: nil).meaning)) is about a "
              + "subscription whose signedTransactionInfo \(why); the status is kept, the purchase is not known"))
      }
    }

    /// `REFUND_REVERSED`: Apple reversed the refund of transaction `id` when it signed the notification.
    mutating func reverseRefund(of id: String, at time: Timestamp?) {
      guard let at = time else { return }
      collector.update(id) { t in
        if t.revocation != nil, t.revocation?.reversedAt == nil { t.revocation?.reversedAt = at }
      }
    }

    mutating func statusItem(
      _ item: LastTransactionStatus, group: String?, path: String
    ) throws(ReceiptError) {
      var signed: [Timestamp] = []
      if let t = item.signedTransactionInfo?.decoded {
        header(t.header, t.source)
        signed += [t.payload.signedDate].compactMap { $0 }
        try transaction(t.payload, path: path + ".signedTransactionInfo > payload", group: group)
      }
      var status = item.status.map { StoreSubscriptionStatus(code: $0.raw, asOf: nil) }
      if let s = item.status, item.signedTransactionInfo?.decoded == nil {
        let why = item.signedTransactionInfo == nil ? "is missing" : "could not be read"
        warnings.append(
          DataWarning(
            path: path + ".status",
            message:
              "Apple's status \(s.raw) (\(StoreSubscriptionStatus(code: s.raw, asOf: nil).meaning)) for "
              + "originalTransactionId \(item.originalTransactionId ?? "(none)") is kept, but its "
              + "signedTransactionInfo \(why): the purchase it is about is not known"))
      }
      if let r = item.signedRenewalInfo?.decoded {
        header(r.header, r.source)
        signed += [r.payload.signedDate].compactMap { $0 }
        status?.asOf = signed.max()
        renewal(r.payload, path: path + ".signedRenewalInfo > payload", status: status)
      } else if item.originalTransactionId != nil || status != nil {
        status?.asOf = signed.max()
        merge(RenewalState(originalTransactionID: item.originalTransactionId, vocabulary: .storeKit2), status: status)
      }
    }

    mutating func transaction(
      _ p: JWSTransactionPayload, path: @autoclosure () -> String, group: String? = nil
    ) throws(ReceiptError) {
      // The path is made only for a note or warning.
      if !p.notes.isEmpty { notes(p.notes, path: path()) }
      if !p.unreadKeys.isEmpty { unread(p.unreadKeys, path: path()) }
      if environment == nil { environment = p.environment?.raw }
      guard let id = p.transactionId, let product = p.productId else {
        let missing = p.transactionId == nil ? "transactionId" : "productId"
        warnings.append(
          DataWarning(
            path: path().isEmpty ? "(payload)" : path(),
            message: "a transaction without \(missing); it cannot be counted and was left out"))
        return
      }
      let ownership: Ownership
      switch p.inAppOwnershipType?.known {
      case .purchased?: ownership = .purchased
      case .familyShared?: ownership = .familyShared
      case nil: ownership = p.inAppOwnershipType.map { .unrecognized($0.raw) } ?? .purchased
      }
      var quantity: Int?
      if let q = p.quantity {
        guard (1...SignedDataMapping.maxQuantity).contains(q), let value = Int(exactly: q) else {
          throw ReceiptError(
            .invalidValue, source: source, path: SignedDataPath.join(path(), "quantity"),
            message: "quantity \(q) is outside 1...\(SignedDataMapping.maxQuantity)")
        }
        quantity = value
      }
      var t = PurchaseTransaction(
        transactionID: id, originalTransactionID: p.originalTransactionId, productID: product, ownership: ownership,
        ownershipAssumed: p.inAppOwnershipType == nil, quantity: quantity, purchaseDate: p.purchaseDate,
        originalPurchaseDate: p.originalPurchaseDate, expiresDate: p.expiresDate,
        revocation: p.revocationDate.map {
          Revocation(
            date: $0, reason: p.revocationReason.map { RevocationReason(code: String($0.raw)) },
            type: p.revocationType?.raw, percentage: p.revocationPercentage, excludesUpgrade: true)
        },
        offer: SignedDataMapping.offer(type: p.offerType, discount: p.offerDiscountType, identifier: p.offerIdentifier),
        isUpgraded: p.isUpgraded == true, subscriptionGroup: p.subscriptionGroupIdentifier ?? group,
        webOrderLineItemID: p.webOrderLineItemId, productType: SignedDataMapping.productType(p.type),
        price: nil, sources: .signedTransaction, vocabulary: .storeKit2)
      t.signedDate = p.signedDate
      if keepsStatedFields { t.statedFields = SignedDataMapping.statedFields(of: p) }
      if let share = p.revocationPercentage, !(0...100_000).contains(share) {
        throw ReceiptError(
          .invalidValue, source: source, path: SignedDataPath.join(path(), "revocationPercentage"),
          message: "revocationPercentage \(share) is outside 0...100000 (milliunits of a percent)")
      }
      if p.revocationDate != nil, p.revocationType?.known == .refundProrated, p.revocationPercentage == nil {
        warnings.append(
          DataWarning(
            path: SignedDataPath.join(path(), "revocationPercentage"),
            message: "a REFUND_PRORATED without a revocationPercentage; revenue books the whole price as refunded"))
      }
      if p.revocationDate == nil, p.revocationReason != nil {
        warnings.append(
          DataWarning(
            path: SignedDataPath.join(path(), "revocationReason"),
            message: "a revocationReason without a revocationDate; no revocation is assumed"))
      }
      t.price = statedPrice(
        p.price, currency: p.currency, path: SignedDataPath.join(path(), "price"),
        missing: "a price without a currency; the price is not used")
      if p.billingPlanType != nil || p.commitmentInfo != nil {
        t.billing = billingTerms(p, path: path())
      }
      if let info = p.advancedCommerceInfo {
        t.itemRefunds = itemRefunds(info, currency: p.currency, path: path())
      }
      add(t)
    }

    /// `billingPlanType` and `commitmentInfo` in the model's terms; what cannot be used is said.
    mutating func billingTerms(_ p: JWSTransactionPayload, path: String) -> BillingTerms {
      var terms = BillingTerms(plan: p.billingPlanType.map { BillingPlanType(raw: $0.raw) })
      guard let c = p.commitmentInfo else { return terms }
      var commitment = TransactionCommitment(
        billingPeriodNumber: c.billingPeriodNumber, totalBillingPeriods: c.totalBillingPeriods,
        expiresDate: c.commitmentExpiresDate)
      let at = SignedDataPath.join(path, "commitmentInfo")
      commitment.price = statedPrice(
        c.commitmentPrice, currency: p.currency, path: SignedDataPath.join(at, "commitmentPrice"),
        missing: "a commitmentPrice without the transaction's currency; the price is not used")
      if let k = c.billingPeriodNumber, k < 1 || c.totalBillingPeriods.map({ k > $0 }) ?? false {
        let of = c.totalBillingPeriods.map { " of \($0) (totalBillingPeriods)" } ?? ""
        warnings.append(
          DataWarning(
            path: SignedDataPath.join(at, "billingPeriodNumber"),
            message: "billing period \(k)\(of) is not a period of the commitment; shown as given"))
      }
      if let n = c.totalBillingPeriods, n < 1 {
        warnings.append(
          DataWarning(
            path: SignedDataPath.join(at, "totalBillingPeriods"),
            message: "a commitment of \(n) billing periods; shown as given"))
      }
      terms.commitment = commitment
      return terms
    }

    /// `milliunits` of `currency` as a stated price; without a currency, nil and the `missing` warning at `path`.
    mutating func statedPrice(
      _ milliunits: Int64?, currency: String?, path: @autoclosure () -> String, missing: String
    ) -> StatedPrice? {
      guard let milliunits else { return nil }
      guard let currency else {
        // The path is made only for the warning.
        warnings.append(DataWarning(path: path(), message: missing))
        return nil
      }
      return StatedPrice(amount: DecimalAmount(units: milliunits, scale: 3), currency: currency)
    }

    /// Adds a transaction; of two copies the later-signed one wins, and a difference is noted.
    mutating func add(_ t: PurchaseTransaction) {
      // The collector finds the copy held by its id index and asks which wins only then: no search per add.
      var difference: DataWarning?
      collector.add(t) { held, new in
        let newWins = held.isSignedEarlier(than: new)
        let fields = held.differences(from: new)
        if !fields.isEmpty {
          let when = (newWins ? new : held).signedDate.map { " (signedDate \($0.iso8601))" } ?? ""
          difference = DataWarning(
            path: "transactionId \(new.transactionID)",
            message:
              "two signed copies differ in \(fields.joined(separator: ", ")); the later-signed copy\(when) is used")
        }
        return newWins
      }
      if let difference { warnings.append(difference) }
    }

    mutating func renewal(_ p: JWSRenewalInfoPayload, path: String, status: StoreSubscriptionStatus?) {
      notes(p.notes, path: path)
      unread(p.unreadKeys, path: path)
      if environment == nil { environment = p.environment?.raw }
      var r = RenewalState(
        productID: p.productId, autoRenewProductID: p.autoRenewProductId,
        originalTransactionID: p.originalTransactionId,
        autoRenewStatus: p.autoRenewStatus.map { AutoRenewStatus(code: String($0.raw)) },
        expirationIntent: p.expirationIntent.map { ExpirationIntent(code: String($0.raw)) },
        isInBillingRetryPeriod: p.isInBillingRetryPeriod, gracePeriodExpiresDate: p.gracePeriodExpiresDate,
        priceConsentStatus: p.priceIncreaseStatus.map { String($0.raw) }, renewalDate: p.renewalDate,
        vocabulary: .storeKit2)
      r.signedDate = p.signedDate
      r.billingPlan = p.renewalBillingPlanType.map { BillingPlanType(raw: $0.raw) }
      if let c = p.commitmentInfo {
        r.commitment = RenewalCommitment(
          autoRenewProductID: c.commitmentAutoRenewProductId,
          autoRenewStatus: c.commitmentAutoRenewStatus.map { AutoRenewStatus(code: String($0.raw)) },
          billingPlan: c.commitmentRenewalBillingPlanType.map { BillingPlanType(raw: $0.raw) },
          renewalDate: c.commitmentRenewalDate,
          renewalPrice: statedPrice(
            c.commitmentRenewalPrice, currency: p.currency,
            path: SignedDataPath.join(path, "commitmentInfo.commitmentRenewalPrice"),
            missing: "a commitmentRenewalPrice without the renewal info's currency; the price is not used"))
      }
      if keepsStatedFields { r.statedFields = SignedDataMapping.statedFields(of: p) }
      merge(r, status: status)
    }

    /// Renewal info merges by original transaction id; the later-signed copy wins.
    mutating func merge(_ r: RenewalState, status: StoreSubscriptionStatus?) {
      var r = r
      if let status { r.storeStatus = status }
      guard let chain = r.originalTransactionID,
        let i = renewals.firstIndex(where: { $0.originalTransactionID == chain })
      else {
        renewals.append(r)
        return
      }
      renewals[i] = renewals[i].merged(with: r)
    }
  }

  /// `offerType` 1 is an introductory offer (with `offerDiscountType` as its pricing); 2 promotional, 3 offer
  /// code and 4 win-back never use the introductory offer.
  static func offer(
    type: Coded<OfferType>?, discount: Coded<OfferDiscountType>?, identifier: String?
  ) -> OfferUse? {
    guard let type else { return nil }
    var pricing: OfferUse.Pricing?
    switch discount?.known {
    case .freeTrial?: pricing = .freeTrial
    case .payAsYouGo?: pricing = .payAsYouGo
    case .payUpFront?: pricing = .payUpFront
    case .oneTime?, nil: pricing = nil
    }
    switch type.known {
    case .introductory?:
      // Before iOS 17.2 Apple sent no offerDiscountType: an introductory offer of unstated payment mode.
      return OfferUse(
        kind: .introductory, pricing: pricing ?? .introductoryPrice, identifier: identifier, usesIntroductoryOffer: true
      )
    case .promotional?:
      return OfferUse(kind: .promotional, pricing: pricing, identifier: identifier, usesIntroductoryOffer: false)
    case .offerCode?:
      return OfferUse(kind: .offerCode, pricing: pricing, identifier: identifier, usesIntroductoryOffer: false)
    case .winBack?:
      return OfferUse(kind: .winBack, pricing: pricing, identifier: identifier, usesIntroductoryOffer: false)
    case nil:
      return OfferUse(
        kind: .unrecognized(String(type.raw)), pricing: pricing, identifier: identifier, usesIntroductoryOffer: false)
    }
  }

  /// `type` in the model's terms; nil for a value Apple does not document (a note says so).
  static func productType(_ type: Coded<SignedProductType>?) -> ProductType? {
    switch type?.known {
    case .autoRenewableSubscription?: .autoRenewable
    case .nonConsumable?: .nonConsumable
    case .consumable?: .consumable
    case .nonRenewingSubscription?: .nonRenewing
    case nil: nil
    }
  }

  /// The document's format identity: its shape, and for one JWS or payload, its kind.
  static func identity(_ document: SignedDataDocument, note: String?) -> FormatIdentity {
    var description = document.shape.title
    switch document.content {
    case .compactJWS(let jws): description += ": " + jws.payload.kind.noun
    case .decodedPayload(let p): description += ": " + p.kind.noun
    default: break
    }
    if let note { description += " (\(note))" }
    let name: String
    switch document.shape {
    case .compactJWS: name = "signed_jws"
    case .jwsLines: name = "signed_jws_lines"
    case .decodedPayload: name = "signed_payload_decoded"
    case .transactionHistory: name = "transaction_history_response"
    case .refundHistory: name = "refund_history_response"
    case .subscriptionStatuses: name = "subscription_statuses_response"
    case .transactionInfo: name = "transaction_info_response"
    case .notificationBody: name = "notification_v2_body"
    case .notificationHistory: name = "notification_history_response"
    case .testNotificationStatus: name = "test_notification_status_response"
    case .appTransactionInfo: name = "app_transaction_info_response"
    case .appData: name = "app_data"
    case .orderLookup: name = "order_lookup_response"
    case .renewalExtension: name = "renewal_extension_response"
    case .advancedCommerce: name = "advanced_commerce_response"
    }
    return FormatIdentity(name: name, description: description)
  }
}
