import ReceiptModel

/// Reads one verifyReceipt-family JSON document into a `PurchaseHistory`, in a single pass over the bytes.
///
/// Recognises verifyReceipt response bodies, App Store Server Notification v1 bodies and
/// bare receipt objects from their keys. Transactions from `receipt.in_app`,
/// `latest_receipt_info` (and the iOS 6-style shapes) are merged by `transaction_id`.
public enum ReceiptDecoder {
  /// Decodes `bytes`; `source` names the input in messages (a file name, or `<stdin>`).
  /// With `options.keepSecrets`, `latest_receipt` and a notification's `password` are kept for `--show-secrets`.
  public static func decode(
    _ bytes: [UInt8], source: String, options: DecodeOptions = DecodeOptions()
  ) throws(ReceiptError) -> PurchaseHistory {
    try decode(bytes, source: source, keepSecrets: options.keepSecrets, pieces: pieces(options, reading: bytes.count))
  }

  /// Decodes `buffer` in place (a mapped file); it must stay valid until this returns.
  public static func decode(
    buffer: UnsafeBufferPointer<UInt8>, source: String, options: DecodeOptions = DecodeOptions()
  ) throws(ReceiptError) -> PurchaseHistory {
    try decode(
      buffer: buffer, source: source, keepSecrets: options.keepSecrets, pieces: pieces(options, reading: buffer.count))
  }

  /// Large arrays are read in pieces when the caller gives threads for them; a document of `count` bytes too
  /// short for any array of it to be split (`TransactionArraySplit.applies`) is given none, not even copied.
  static func pieces(_ options: DecodeOptions, reading count: Int) -> TransactionArraySplit.Pieces? {
    guard count >= TransactionArraySplit.Sizes.standard.minimumBytes else { return nil }
    return options.pieceHelpers.map { TransactionArraySplit.Pieces(helpers: $0) }
  }

  /// Decodes `bytes` reading large transaction arrays in `pieces` (nil: on this thread alone); without
  /// `readsCopiesOnce`, every transaction object is read, none passed over as a copy (`RowCopies`).
  package static func decode(
    _ bytes: [UInt8], source: String, keepSecrets: Bool, pieces: TransactionArraySplit.Pieces?,
    readsCopiesOnce: Bool = true
  ) throws(ReceiptError) -> PurchaseHistory {
    try bytes.withUnsafeBufferPointer { (buffer) throws(ReceiptError) in
      try decode(
        buffer: buffer, source: source, keepSecrets: keepSecrets, pieces: pieces, readsCopiesOnce: readsCopiesOnce)
    }
  }

  static func decode(
    buffer: UnsafeBufferPointer<UInt8>, source: String, keepSecrets: Bool, pieces: TransactionArraySplit.Pieces?,
    readsCopiesOnce: Bool = true
  ) throws(ReceiptError) -> PurchaseHistory {
    do {
      return try JSONReader.withReader(buffer: buffer) { reader in
        var reading = ValueReading(reader: reader, source: source)
        reading.keepSecrets = keepSecrets
        reading.pieces = pieces
        reading.readsCopiesOnce = readsCopiesOnce
        return try reading.decodeDocument()
      }
    } catch let e as ReceiptError {
      throw e
    } catch let e as JSONSyntaxError {
      throw .syntax(source: source, e)
    } catch {
      throw ReceiptError(.internalFailure, message: "\(error)")
    }
  }
}

// MARK: - Key lists

private enum TxKey: Int, CaseIterable {
  case transactionID, originalTransactionID, productID, ownership, quantity
  case purchaseDate, purchaseDateMs, originalPurchaseDate, originalPurchaseDateMs
  case expiresDate, expiresDateMs, expiresDateFormatted, cancellationDate, cancellationDateMs, cancellationReason
  case isTrialPeriod, isInIntroOfferPeriod, isUpgraded, subscriptionGroup, webOrderLineItemID
  case promotionalOfferID, offerCodeRefName

  var name: StaticString {
    switch self {
    case .transactionID: "transaction_id"
    case .originalTransactionID: "original_transaction_id"
    case .productID: "product_id"
    case .ownership: "in_app_ownership_type"
    case .quantity: "quantity"
    case .purchaseDate: "purchase_date"
    case .purchaseDateMs: "purchase_date_ms"
    case .originalPurchaseDate: "original_purchase_date"
    case .originalPurchaseDateMs: "original_purchase_date_ms"
    case .expiresDate: "expires_date"
    case .expiresDateMs: "expires_date_ms"
    case .expiresDateFormatted: "expires_date_formatted"
    case .cancellationDate: "cancellation_date"
    case .cancellationDateMs: "cancellation_date_ms"
    case .cancellationReason: "cancellation_reason"
    case .isTrialPeriod: "is_trial_period"
    case .isInIntroOfferPeriod: "is_in_intro_offer_period"
    case .isUpgraded: "is_upgraded"
    case .subscriptionGroup: "subscription_group_identifier"
    case .webOrderLineItemID: "web_order_line_item_id"
    case .promotionalOfferID: "promotional_offer_id"
    case .offerCodeRefName: "offer_code_ref_name"
    }
  }
}

/// Keys of the `receipt` object. iOS 6-style receipts are themselves a transaction, so the
/// transaction keys follow these in the same matcher (offset by `count`).
private enum ReceiptKey: Int, CaseIterable {
  case bundleID, bid, applicationVersion, bvrs, originalApplicationVersion, receiptType
  case receiptCreationDate, receiptCreationDateMs, requestDate, requestDateMs
  case originalPurchaseDate, originalPurchaseDateMs, inApp, expirationDate, expirationDateMs

  var name: StaticString {
    switch self {
    case .bundleID: "bundle_id"
    case .bid: "bid"
    case .applicationVersion: "application_version"
    case .bvrs: "bvrs"
    case .originalApplicationVersion: "original_application_version"
    case .receiptType: "receipt_type"
    case .receiptCreationDate: "receipt_creation_date"
    case .receiptCreationDateMs: "receipt_creation_date_ms"
    case .requestDate: "request_date"
    case .requestDateMs: "request_date_ms"
    case .originalPurchaseDate: "original_purchase_date"
    case .originalPurchaseDateMs: "original_purchase_date_ms"
    case .inApp: "in_app"
    case .expirationDate: "expiration_date"
    case .expirationDateMs: "expiration_date_ms"
    }
  }
}

private enum TopKey: Int, CaseIterable {
  case status, environment, isRetryableDash, isRetryableUnderscore, receipt, latestReceiptInfo, latestReceipt
  case pendingRenewalInfo, latestExpiredReceiptInfo, notificationType, unifiedReceipt, password
  case autoRenewStatus, autoRenewProductID, expirationIntent, isInBillingRetryPeriod

  var name: StaticString {
    switch self {
    case .status: "status"
    case .environment: "environment"
    case .isRetryableDash: "is-retryable"
    case .isRetryableUnderscore: "is_retryable"
    case .receipt: "receipt"
    case .latestReceiptInfo: "latest_receipt_info"
    case .latestReceipt: "latest_receipt"
    case .pendingRenewalInfo: "pending_renewal_info"
    case .latestExpiredReceiptInfo: "latest_expired_receipt_info"
    case .notificationType: "notification_type"
    case .unifiedReceipt: "unified_receipt"
    case .password: "password"
    case .autoRenewStatus: "auto_renew_status"
    case .autoRenewProductID: "auto_renew_product_id"
    case .expirationIntent: "expiration_intent"
    case .isInBillingRetryPeriod: "is_in_billing_retry_period"
    }
  }
}

private enum UnifiedKey: Int, CaseIterable {
  case environment, latestReceipt, latestReceiptInfo, pendingRenewalInfo, status

  var name: StaticString {
    switch self {
    case .environment: "environment"
    case .latestReceipt: "latest_receipt"
    case .latestReceiptInfo: "latest_receipt_info"
    case .pendingRenewalInfo: "pending_renewal_info"
    case .status: "status"
    }
  }
}

private enum PendingKey: Int, CaseIterable {
  case productID, autoRenewProductID, originalTransactionID, autoRenewStatus, expirationIntent
  case isInBillingRetryPeriod, gracePeriodExpiresDate, gracePeriodExpiresDateMs, priceConsentStatus

  var name: StaticString {
    switch self {
    case .productID: "product_id"
    case .autoRenewProductID: "auto_renew_product_id"
    case .originalTransactionID: "original_transaction_id"
    case .autoRenewStatus: "auto_renew_status"
    case .expirationIntent: "expiration_intent"
    case .isInBillingRetryPeriod: "is_in_billing_retry_period"
    case .gracePeriodExpiresDate: "grace_period_expires_date"
    case .gracePeriodExpiresDateMs: "grace_period_expires_date_ms"
    case .priceConsentStatus: "price_consent_status"
    }
  }
}

/// A key list: the names read, then `skipped` names the matcher knows only so that rows' keys are guessed in order
/// (`ValueReading.forEachMember`), whose values are skipped as any unknown key's. Fewer than 63 in all; `guesses`
/// is where its entries of `ValueReading.keyAfter` start, apart from every other list's; `learns`: the list's
/// objects repeat in a document (rows), so a key not guessed is remembered for the next.
private struct Keys: Sendable {
  let names: [StaticString]
  let matcher: KeyMatcher
  let guesses: Int
  let learns: Bool
  init(_ names: [StaticString], skipped: [StaticString] = [], guesses: Int, learns: Bool = true) {
    // The reader's own lists, not input: one word records the keys seen, and 63 means "no key before".
    precondition(names.count + skipped.count < 63, "a key list holds fewer than 63 names")
    self.names = names
    matcher = KeyMatcher((names + skipped).map(\.description))
    self.guesses = guesses
    self.learns = learns
  }
}

/// Keys Apple writes in every transaction row that no rule reads.
private let pacificDates: [StaticString] = ["purchase_date_pst", "original_purchase_date_pst", "expires_date_pst"]

private let txKeys = Keys(TxKey.allCases.map(\.name), skipped: pacificDates, guesses: 0)
/// A document's `receipt`, top level and `unified_receipt` come once: their guesses are Apple's order alone.
private let receiptKeys = Keys(
  ReceiptKey.allCases.map(\.name) + TxKey.allCases.map(\.name), skipped: pacificDates, guesses: 64, learns: false)
/// Top-level keys, then the receipt keys a bare receipt object has at the top.
private let topKeys = Keys(
  TopKey.allCases.map(\.name) + ReceiptKey.allCases.map(\.name), guesses: 128, learns: false)
private let unifiedKeys = Keys(UnifiedKey.allCases.map(\.name), guesses: 192, learns: false)
private let pendingKeys = Keys(PendingKey.allCases.map(\.name), guesses: 256)

/// Apple's order of a row's keys (a subscription's; other purchases leave out the expiry keys and
/// `web_order_line_item_id`), the guesses a document starts with: its first row is read by compares too, not only
/// the rows after it.
private let appleRowOrder: [StaticString] = [
  "quantity", "product_id", "transaction_id", "original_transaction_id", "purchase_date", "purchase_date_ms",
  "purchase_date_pst", "original_purchase_date", "original_purchase_date_ms", "original_purchase_date_pst",
  "expires_date", "expires_date_ms", "expires_date_pst", "web_order_line_item_id", "is_trial_period",
  "is_in_intro_offer_period", "in_app_ownership_type", "subscription_group_identifier",
]

/// Apple's order of a response's top-level keys and of its `receipt` object's (`_pst` dates, `adam_id` and the
/// like are not read: skipped, they leave the guess as it was). A document's one receipt and one top level are read
/// by compares too, not only its rows: a key not guessed costs a scan and a hash.
private let appleTopOrder: [StaticString] = [
  "status", "environment", "receipt", "latest_receipt_info", "latest_receipt", "pending_renewal_info",
]
private let appleReceiptOrder: [StaticString] = [
  "receipt_type", "bundle_id", "application_version", "receipt_creation_date", "receipt_creation_date_ms",
  "request_date", "request_date_ms", "original_purchase_date", "original_purchase_date_ms",
  "original_application_version", "in_app",
]

/// `ValueReading.noGuesses` with the guesses of a row (`appleRowOrder`), the top level (`appleTopOrder`) and a
/// `receipt` object (`appleReceiptOrder`) written in.
private let firstGuesses: [UInt8] = {
  var guesses = ValueReading.noGuesses
  func learn(_ order: [StaticString], among names: [StaticString], at place: Int) {
    let all = names.map(\.description)
    var previous = 63
    for name in order {
      // The first of a name listed twice (a receipt's `original_purchase_date`), as the matcher finds it.
      guard let i = all.firstIndex(of: name.description) else { continue }
      guesses[place + previous] = UInt8(i)
      previous = i
    }
  }
  learn(appleRowOrder, among: TxKey.allCases.map(\.name) + pacificDates, at: txKeys.guesses)
  learn(appleTopOrder, among: topKeys.names, at: topKeys.guesses)
  learn(appleReceiptOrder, among: receiptKeys.names, at: receiptKeys.guesses)
  return guesses
}()

// MARK: - Builders

/// One transaction row as read, before the `_ms` / formatted fallbacks are resolved.
private struct TransactionRow {
  /// "" until read, as `productID`: `identifier()` and `text` give nil, not "", for a value of "".
  var transactionID = ""
  var originalTransactionID: String?
  var productID = ""
  /// nil when the row has no `in_app_ownership_type` (PURCHASED is then assumed).
  var ownership: Ownership?
  var quantity: Int?
  /// The formatted dates' times are worked out only where their `_ms` twin is absent (the `_ms` one wins).
  var purchaseMs: Timestamp?, purchaseFormatted: FormattedDate?
  var originalPurchaseMs: Timestamp?, originalPurchaseFormatted: FormattedDate?
  var expiresMs: Timestamp?, expiresFormatted: FormattedDate?
  var cancellationMs: Timestamp?, cancellationFormatted: FormattedDate?
  var cancellationReason: String?
  var isTrialPeriod: Bool?
  var isInIntroOfferPeriod: Bool?
  var isUpgraded: Bool?
  var subscriptionGroup: String?
  var webOrderLineItemID: String?
  var promotionalOfferID: String?
  var offerCodeRefName: String?

  var isEmpty: Bool { transactionID.isEmpty && productID.isEmpty }

  mutating func read(_ key: TxKey, from r: inout ValueReading) throws {
    switch key {
    case .transactionID: transactionID = try r.identifier() ?? ""
    case .originalTransactionID: originalTransactionID = try r.identifier(sharing: .byChainID)
    case .productID: productID = try r.text(repeating: true) ?? ""
    case .ownership: ownership = try r.ownership()
    case .quantity: quantity = try r.integer(in: 1...1_000_000, what: "a quantity").map { Int($0) }
    case .purchaseDate: purchaseFormatted = try r.formattedDateFields()
    case .purchaseDateMs: purchaseMs = try r.milliseconds()
    case .originalPurchaseDate: originalPurchaseFormatted = try r.formattedDateFields()
    case .originalPurchaseDateMs: originalPurchaseMs = try r.milliseconds()
    case .expiresDate, .expiresDateFormatted:
      if let t = try r.formattedDateFields() { expiresFormatted = t }
    case .expiresDateMs: expiresMs = try r.milliseconds()
    case .cancellationDate: cancellationFormatted = try r.formattedDateFields()
    case .cancellationDateMs: cancellationMs = try r.milliseconds()
    case .cancellationReason: cancellationReason = try r.code()
    case .isTrialPeriod: isTrialPeriod = try r.flag()
    case .isInIntroOfferPeriod: isInIntroOfferPeriod = try r.flag()
    case .isUpgraded: isUpgraded = try r.flag()
    case .subscriptionGroup: subscriptionGroup = try r.identifier(sharing: .byText)
    case .webOrderLineItemID: webOrderLineItemID = try r.identifier()
    case .promotionalOfferID: promotionalOfferID = try r.text()
    case .offerCodeRefName: offerCodeRefName = try r.text()
    }
  }

  /// What the finished transaction needs, checked as the row ends: a row without `transaction_id` or `product_id`
  /// is an error at `offset`; an ownership type Apple does not document and offer fields that contradict each
  /// other are warned about. `transaction` then builds it.
  func check(reading r: ValueReading, at offset: Int, warnings: inout [DataWarning]) throws {
    guard !transactionID.isEmpty else { throw r.fieldError("missing transaction_id", at: offset) }
    guard !productID.isEmpty else { throw r.fieldError("missing product_id", at: offset) }
    if case .unrecognized(let raw)? = ownership {
      warnings.append(
        DataWarning(
          path: r.pathString + ".in_app_ownership_type",
          message:
            "\(Excerpt.quoted(raw)) is not an ownership type Apple documents; kept as received and not counted as the purchaser's"
        ))
    }
    if isTrialPeriod == true, isInIntroOfferPeriod == true {
      warnings.append(
        DataWarning(
          path: r.pathString,
          message: "both is_trial_period and is_in_intro_offer_period are true; read as a free trial"))
    }
    if promotionalOfferID != nil, offerCodeRefName != nil {
      warnings.append(
        DataWarning(
          path: r.pathString + ".offer_code_ref_name",
          message: "both promotional_offer_id and offer_code_ref_name are set; read as the promotional offer"))
    }
  }

  /// The finished transaction, once `check` has passed. It needs nothing of the reader; the row's strings are
  /// moved into it (`take`, `swap`), not copied and released again.
  mutating func transaction(source: TransactionSources) -> PurchaseTransaction {
    var transactionID = ""
    var productID = ""
    swap(&transactionID, &self.transactionID)
    swap(&productID, &self.productID)
    let ownershipAssumed = ownership == nil
    return PurchaseTransaction(
      transactionID: transactionID, originalTransactionID: originalTransactionID.take(), productID: productID,
      ownership: ownership.take() ?? .purchased, ownershipAssumed: ownershipAssumed, quantity: quantity,
      purchaseDate: purchaseMs ?? purchaseFormatted?.timestamp,
      originalPurchaseDate: originalPurchaseMs ?? originalPurchaseFormatted?.timestamp,
      expiresDate: expiresMs ?? expiresFormatted?.timestamp,
      revocation: (cancellationMs ?? cancellationFormatted?.timestamp).map {
        Revocation(date: $0, reason: cancellationReason.take().map(RevocationReason.init(code:)))
      },
      offer: offer(), isUpgraded: isUpgraded ?? false, subscriptionGroup: subscriptionGroup.take(),
      webOrderLineItemID: webOrderLineItemID.take(), sources: source, vocabulary: .verifyReceipt)
  }

  /// The offer the row was bought with. Either intro flag marks introductory-offer use, as Apple's
  /// receipt rule reads them, whatever offer id comes with it (`check` warns when both are set, and when both
  /// offer fields are).
  func offer() -> OfferUse? {
    let pricing: OfferUse.Pricing? =
      isTrialPeriod == true ? .freeTrial : isInIntroOfferPeriod == true ? .introductoryPrice : nil
    let kind: OfferUse.Kind
    if promotionalOfferID != nil {
      kind = .promotional
    } else if offerCodeRefName != nil {
      kind = .offerCode
    } else if pricing != nil {
      kind = .introductory
    } else {
      return nil
    }
    return OfferUse(
      kind: kind, pricing: pricing, identifier: promotionalOfferID ?? offerCodeRefName,
      usesIntroductoryOffer: pricing != nil)
  }
}

/// The `latest_receipt_info` copy of a transaction wins over its `in_app` copy: Apple documents more fields there.
private func latestReceiptInfoWins(_ held: PurchaseTransaction, _ new: PurchaseTransaction) -> Bool {
  new.sources.contains(.latestReceiptInfo) && !held.sources.contains(.latestReceiptInfo)
}

/// The kinds of document `ReceiptDecoder` reads, told apart by their top-level keys.
private enum DocumentKind {
  case notificationV1, response, bareReceipt

  var format: FormatIdentity {
    switch self {
    case .notificationV1: VerifyReceiptFormats.notificationV1
    case .response: VerifyReceiptFormats.response
    case .bareReceipt: VerifyReceiptFormats.bareReceipt
    }
  }
}

/// What the top level and `unified_receipt` held, before the kind is decided.
private struct TopLevel {
  var status: Int64?
  var topEnvironment: String?
  var unifiedEnvironment: String?
  var isRetryable: Bool?
  var receipt: ReceiptInfo?
  var bareReceipt = ReceiptInfo()
  var sawBareReceiptKey = false
  var latestReceiptLength: Int?
  var pending: [RenewalState] = []
  var notificationType: String?
  var sawUnifiedReceipt = false
  var sawVerifyReceiptKey = false
  var hasPassword = false
  var password: String?
  var latestReceipt: String?
  var autoRenewStatus: AutoRenewStatus?
  var autoRenewProductID: String?
  /// iOS 6-style top-level renewal fields, shown by `decode` under their own names.
  var expirationIntent: String?
  var isInBillingRetryPeriod: String?
}

// MARK: - Decoding

extension ValueReading {
  mutating func decodeDocument() throws -> PurchaseHistory {
    do {
      return try decodeDocumentBody()
    } catch let e as JSONSyntaxError {
      throw syntax(e)
    }
  }

  private mutating func decodeDocumentBody() throws -> PurchaseHistory {
    let (kind, at) = try peek()
    guard kind == .object else {
      // Positioned like a syntax error, so an NDJSON line's message names the file's line.
      throw syntax(
        reader.error(
          "expected a JSON object (a verifyReceipt response, a notification v1 body or a receipt), found \(kind.noun)",
          at: at))
    }
    if guessesKeys { keyAfter = firstGuesses }
    var top = TopLevel()
    var collector = TransactionCollector()
    var warnings: [DataWarning] = []
    try readTopLevel(into: &top, collector: &collector, warnings: &warnings)
    try reader.finish()
    let documentKind = try documentKind(of: top)
    // Filled where it lies: made in `fill` and returned, it was copied out and the local released (some 1,000
    // instructions a document).
    var history = PurchaseHistory(format: documentKind.format)
    fill(&history, from: &top, kind: documentKind, collector: &collector, warnings: &warnings)
    return history
  }

  /// Reads the top-level object's members: a response's or notification's keys, or a bare receipt's.
  private mutating func readTopLevel(
    into top: inout TopLevel, collector: inout TransactionCollector, warnings: inout [DataWarning]
  ) throws {
    try forEachMember(topKeys.matcher, names: topKeys.names, guesses: topKeys.guesses, learns: topKeys.learns) {
      r, index in
      if index >= TopKey.allCases.count {
        // A bare receipt object: receipt keys at the top level.
        guard let key = ReceiptKey(rawValue: index - TopKey.allCases.count) else { return }
        // Dates alone do not make a receipt: a lone transaction object has them too.
        switch key {
        case .bundleID, .bid, .applicationVersion, .bvrs, .receiptType, .inApp: top.sawBareReceiptKey = true
        default: break
        }
        var unused = TransactionRow()
        try r.readReceiptField(key, into: &top.bareReceipt, row: &unused, collector: &collector, warnings: &warnings)
        return
      }
      guard let key = TopKey(rawValue: index) else { return }
      switch key {
      case .status:
        top.sawVerifyReceiptKey = true
        top.status = try r.integer(in: 0...Int64(Int32.max), what: "a status code")
      case .environment: top.topEnvironment = try r.text()
      case .isRetryableDash, .isRetryableUnderscore: top.isRetryable = try r.flag()
      case .receipt:
        top.sawVerifyReceiptKey = true
        top.receipt = try r.readReceiptObject(collector: &collector, warnings: &warnings)
      case .latestReceiptInfo:
        top.sawVerifyReceiptKey = true
        try r.readTransactions(.latestReceiptInfo, into: &collector, warnings: &warnings)
      case .latestExpiredReceiptInfo:
        try r.readTransactions(.latestExpiredReceiptInfo, into: &collector, warnings: &warnings)
      case .latestReceipt:
        (top.latestReceiptLength, top.latestReceipt) = try r.secret()
      case .pendingRenewalInfo:
        top.pending += try r.readPendingRenewals()
      case .notificationType:
        top.notificationType = try r.text()
      case .unifiedReceipt:
        top.sawUnifiedReceipt = true
        try r.readUnifiedReceipt(into: &top, collector: &collector, warnings: &warnings)
      case .password:
        // The app's shared secret: kept only for --show-secrets.
        top.hasPassword = true
        top.password = try r.secret().1
      case .autoRenewStatus: top.autoRenewStatus = try r.code().map(AutoRenewStatus.init(code:))
      case .autoRenewProductID: top.autoRenewProductID = try r.text()
      case .expirationIntent: top.expirationIntent = try r.code()
      case .isInBillingRetryPeriod: top.isInBillingRetryPeriod = try r.code()
      }
    }
  }

  /// Reads a `receipt` object (nil for null): its fields, and the iOS 6-style transaction it may hold.
  private mutating func readReceiptObject(
    collector: inout TransactionCollector, warnings: inout [DataWarning]
  ) throws -> ReceiptInfo? {
    let receiptCount = ReceiptKey.allCases.count
    let (k, objAt) = try peek()
    if k == .null {
      try reader.readNull()
      return nil
    }
    guard k == .object else { throw wrongType(k, expected: "an object", at: objAt) }
    var info = ReceiptInfo()
    var row = TransactionRow()
    try forEachMember(
      receiptKeys.matcher, names: receiptKeys.names, guesses: receiptKeys.guesses, learns: receiptKeys.learns
    ) { rr, i in
      if i < receiptCount, let rk = ReceiptKey(rawValue: i) {
        try rr.readReceiptField(rk, into: &info, row: &row, collector: &collector, warnings: &warnings)
      } else if let tk = TxKey(rawValue: i - receiptCount) {
        try row.read(tk, from: &rr)
      }
    }
    if !row.isEmpty {
      try row.check(reading: self, at: objAt, warnings: &warnings)
      let added = collector.add(row.transaction(source: .legacyReceipt), prefer: latestReceiptInfoWins)
      if added.merged { rowCopies.forget(held: added.held) }
    }
    return info
  }

  /// Which kind of document the top-level keys make it; none of them is not a receipt.
  private func documentKind(of top: TopLevel) throws -> DocumentKind {
    if top.notificationType != nil || top.sawUnifiedReceipt {
      return .notificationV1
    } else if top.sawVerifyReceiptKey {
      return .response
    } else if top.sawBareReceiptKey {
      return .bareReceipt
    } else {
      throw ReceiptError.data(
        source: source,
        message:
          "not a receipt: the object has none of status, receipt, latest_receipt_info, notification_type, unified_receipt, bundle_id or in_app; "
          + ServerAPIShapes.kindsRead
      )
    }
  }

  /// Fills `history`, a new one of `kind`'s format, with what `top`, `collector` and `warnings` hold, moved into it
  /// (they are left emptied), so that no value read is copied and released again.
  private func fill(
    _ history: inout PurchaseHistory, from top: inout TopLevel, kind: DocumentKind,
    collector: inout TransactionCollector, warnings: inout [DataWarning]
  ) {
    history.provenance.status = top.status.map(ReceiptStatus.init)
    history.provenance.isRetryable = top.isRetryable
    history.provenance.latestReceiptLength = top.latestReceiptLength
    history.provenance.latestReceipt = top.latestReceipt.take()
    history.provenance.duplicateRowsMerged = collector.duplicates
    swap(&history.renewals, &top.pending)
    history.transactions = collector.takeTransactions()
    switch kind {
    case .notificationV1:
      history.environment = top.unifiedEnvironment.take() ?? top.topEnvironment
      var n = NotificationInfo()
      n.notificationType = top.notificationType.take()
      n.environment = top.topEnvironment.take()
      n.autoRenewStatus = top.autoRenewStatus
      n.autoRenewProductID = top.autoRenewProductID.take()
      n.bundleID = top.bareReceipt.bundleID.take()
      n.hasPassword = top.hasPassword
      n.password = top.password.take()
      history.provenance.notification = n
      history.provenance.receipt = top.receipt.take()
    case .response:
      history.environment = top.topEnvironment.take()
      history.provenance.receipt = top.receipt.take()
    case .bareReceipt:
      history.environment = top.topEnvironment.take()
      var receipt = ReceiptInfo()
      swap(&receipt, &top.bareReceipt)
      history.provenance.receipt = receipt
    }
    // The iOS 6-style top-level renewal fields (a notification shows its own auto-renew fields itself).
    if kind != .notificationV1 {
      history.provenance.statedFields.add("auto_renew_status", top.autoRenewStatus?.code)
      history.provenance.statedFields.add("auto_renew_product_id", top.autoRenewProductID.take())
    }
    history.provenance.statedFields.add("expiration_intent", top.expirationIntent.take())
    history.provenance.statedFields.add("is_in_billing_retry_period", top.isInBillingRetryPeriod.take())
    history.moment = history.provenance.receipt?.requestDate.map {
      DataMoment(time: $0, field: "request_date", description: "the receipt's request_date")
    }
    if let status = history.provenance.status, !status.isKnown {
      warnings.append(
        DataWarning(path: "status", message: "status \(status.code) is not a code Apple documents; kept as received"))
    }
    swap(&history.warnings, &warnings)
  }

  /// Reads one key of a `receipt` object (or of a bare receipt at the top level).
  fileprivate mutating func readReceiptField(
    _ key: ReceiptKey, into info: inout ReceiptInfo, row: inout TransactionRow,
    collector: inout TransactionCollector, warnings: inout [DataWarning]
  ) throws {
    switch key {
    case .bundleID, .bid:
      if let v = try text() { info.bundleID = v }
    case .applicationVersion, .bvrs:
      if let v = try text() { info.applicationVersion = v }
    case .originalApplicationVersion: info.originalApplicationVersion = try text()
    case .receiptType: info.receiptType = try text()
    case .receiptCreationDate:
      if info.receiptCreationDate == nil {
        info.receiptCreationDate = try formattedDate()
      } else {
        try reader.skipValue()
      }
    case .receiptCreationDateMs:
      if let t = try milliseconds() { info.receiptCreationDate = t }
    case .requestDate:
      if info.requestDate == nil { info.requestDate = try formattedDate() } else { try reader.skipValue() }
    case .requestDateMs:
      if let t = try milliseconds() { info.requestDate = t }
    case .originalPurchaseDate:
      let t = try formattedDate()
      if info.originalPurchaseDate == nil { info.originalPurchaseDate = t }
      row.originalPurchaseFormatted = t.map(FormattedDate.time)
    case .originalPurchaseDateMs:
      let t = try milliseconds()
      if let t { info.originalPurchaseDate = t }
      row.originalPurchaseMs = t
    case .inApp:
      try readTransactions(.inApp, into: &collector, warnings: &warnings)
    case .expirationDate:
      // The formatted date is the fallback for the `_ms` one, as for every receipt date.
      if let t = try formattedDate(), !info.statedFields.contains(where: { $0.name == "expiration_date" }) {
        info.statedFields.add("expiration_date", date: t)
      }
    case .expirationDateMs:
      if let t = try milliseconds() {
        info.statedFields.removeAll { $0.name == "expiration_date" }
        info.statedFields.add("expiration_date", date: t)
      }
    }
  }

  fileprivate mutating func readTransactions(
    _ source: TransactionSources, into collector: inout TransactionCollector, warnings: inout [DataWarning]
  ) throws {
    // A transaction takes a few hundred bytes; reserving for what is left of the input avoids
    // copying a large array as it grows, and untouched capacity costs address space only.
    // Ids are reserved for fewer (their slots are written at once): a row takes 600 bytes or more as Apple writes it.
    collector.reserve((reader.end - reader.offset) / 256, ids: (reader.end - reader.offset) / 1024)
    // A piece's row, read on any thread, appended to the piece's transactions.
    let element: (inout ValueReading, inout [DataWarning], inout [PurchaseTransaction]) throws -> Void = {
      r, warnings, rows in
      let at = r.reader.offset
      var row = TransactionRow()
      try r.readRow(into: &row)
      try row.check(reading: r, at: at, warnings: &warnings)
      rows.append(row.transaction(source: source))
    }
    if let pieces, try peek().0 == .array, TransactionArraySplit.applies(to: reader, sizes: pieces.sizes) {
      // Pieces are merged in batches that do not say where: nothing is remembered across them.
      rowCopies.forgetAll()
      try TransactionArraySplit.read(
        &self, pieceBytes: pieces.sizes.pieceBytes, helpers: pieces.helpers, warnings: &warnings, element: element,
        add: { collector.add(lastFirst: &$0, keys: $1, prefer: latestReceiptInfoWins) },
        addOne: { r, warnings in try r.addRow(source, into: &collector, warnings: &warnings, remembering: false) })
      return
    }
    // Only iOS 6-style latest_receipt_info is ever a lone object; an in_app object is a malformed receipt.
    try forEachObject(singleObjectAllowed: source != .inApp) { r, _ in
      try r.addRow(source, into: &collector, warnings: &warnings, remembering: true)
    }
  }

  /// Reads the transaction row at the reader (at its `{`) and adds it to `collector` as found in `source`.
  /// `remembering` (and `readsCopiesOnce`): a row that repeats one read before in this document byte for byte is
  /// not read again but added as another copy of its transaction, and a row whose reading said nothing but its
  /// transaction, taken as a new one, is remembered (`RowCopies`).
  fileprivate mutating func addRow(
    _ source: TransactionSources, into collector: inout TransactionCollector, warnings: inout [DataWarning],
    remembering: Bool
  ) throws {
    let at = reader.offset
    let input = reader.withInput { $0 }
    let fingerprint = remembering && readsCopiesOnce ? RowCopies.fingerprint(input, at: at) : nil
    if let fingerprint,
      let copy = rowCopies.copy(
        in: input, at: at, depth: reader.nesting, maxDepth: reader.maxDepth, fingerprint: fingerprint)
    {
      reader.pass(toOffset: at + copy.length)
      collector.addCopy(ofHeldAt: copy.held, sources: source)
      copiesPassed += 1
      return
    }
    var row = TransactionRow()
    try readRow(into: &row)
    let warned = warnings.count
    try row.check(reading: self, at: at, warnings: &warnings)
    let added = collector.add(row.transaction(source: source), prefer: latestReceiptInfoWins)
    if added.merged {
      rowCopies.forget(held: added.held)
    } else if let fingerprint, warnings.count == warned {
      rowCopies.remember(
        start: at, length: reader.offset - at, depth: reader.nesting, fingerprint: fingerprint, held: added.held)
    }
  }

  /// Reads the transaction row at the reader (at its `{`) into `row`.
  fileprivate mutating func readRow(into row: inout TransactionRow) throws {
    try forEachMember(txKeys.matcher, names: txKeys.names, guesses: txKeys.guesses) { r, i in
      guard let key = TxKey(rawValue: i) else { return }
      try row.read(key, from: &r)
    }
  }

  fileprivate mutating func readPendingRenewals() throws -> [RenewalState] {
    var out: [RenewalState] = []
    try forEachObject { r, _ in
      var p = RenewalState(vocabulary: .verifyReceipt)
      var graceMs: Timestamp?
      var graceFormatted: Timestamp?
      try r.forEachMember(pendingKeys.matcher, names: pendingKeys.names, guesses: pendingKeys.guesses) { rr, i in
        guard let key = PendingKey(rawValue: i) else { return }
        switch key {
        case .productID: p.productID = try rr.text()
        case .autoRenewProductID: p.autoRenewProductID = try rr.text()
        case .originalTransactionID: p.originalTransactionID = try rr.identifier()
        case .autoRenewStatus: p.autoRenewStatus = try rr.code().map(AutoRenewStatus.init(code:))
        case .expirationIntent: p.expirationIntent = try rr.code().map(ExpirationIntent.init(code:))
        case .isInBillingRetryPeriod: p.isInBillingRetryPeriod = try rr.flag()
        case .gracePeriodExpiresDate: graceFormatted = try rr.formattedDate()
        case .gracePeriodExpiresDateMs: graceMs = try rr.milliseconds()
        case .priceConsentStatus: p.priceConsentStatus = try rr.code()
        }
      }
      p.gracePeriodExpiresDate = graceMs ?? graceFormatted
      out.append(p)
    }
    return out
  }

  fileprivate mutating func readUnifiedReceipt(
    into top: inout TopLevel, collector: inout TransactionCollector, warnings: inout [DataWarning]
  ) throws {
    let (k, at) = try peek()
    guard k == .object else { throw wrongType(k, expected: "an object", at: at) }
    try forEachMember(
      unifiedKeys.matcher, names: unifiedKeys.names, guesses: unifiedKeys.guesses, learns: unifiedKeys.learns
    ) { r, i in
      guard let key = UnifiedKey(rawValue: i) else { return }
      switch key {
      case .environment: top.unifiedEnvironment = try r.text()
      case .latestReceipt: (top.latestReceiptLength, top.latestReceipt) = try r.secret()
      case .latestReceiptInfo: try r.readTransactions(.latestReceiptInfo, into: &collector, warnings: &warnings)
      case .pendingRenewalInfo: top.pending += try r.readPendingRenewals()
      case .status: top.status = try r.integer(in: 0...Int64(Int32.max), what: "a status code")
      }
    }
  }

  /// A credential string (`latest_receipt`, `password`): its length, and the value only with `keepSecrets`.
  mutating func secret() throws -> (Int?, String?) {
    let (kind, at) = try peek()
    switch kind {
    case .string:
      let token = try reader.readStringToken()
      return (token.end - token.start, keepSecrets ? reader.string(token) : nil)
    case .null:
      try reader.readNull()
      return (nil, nil)
    default:
      throw wrongType(kind, expected: "a string", at: at)
    }
  }
}

/// The three JSON shapes this decoder reads, told apart by their keys.
public enum VerifyReceiptFormats {
  public static let response = FormatIdentity(name: "verify_receipt_response", description: "verifyReceipt response")
  public static let notificationV1 = FormatIdentity(
    name: "notification_v1", description: "App Store Server Notification v1")
  public static let bareReceipt = FormatIdentity(name: "receipt", description: "bare receipt object")
}
