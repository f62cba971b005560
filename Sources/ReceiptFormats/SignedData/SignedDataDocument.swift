import ReceiptModel

/// The input shapes signed data arrives in, recognised from content.
public enum SignedDataShape: String, Sendable, Hashable, CaseIterable {
  /// One compact JWS, bare or quoted.
  case compactJWS
  /// Several compact JWS, one per line.
  case jwsLines
  /// A payload as a JWT debugger shows it: the camelCase JSON object, no header or signature.
  case decodedPayload
  /// Get Transaction History (v1 and v2 look alike): `signedTransactions` with `bundleId`/`environment`.
  case transactionHistory
  /// Get Refund History: `signedTransactions`, `revision`, `hasMore` and nothing about the app.
  case refundHistory
  /// Get All Subscription Statuses: `data[].lastTransactions[]`.
  case subscriptionStatuses
  /// Get Transaction Info: `signedTransactionInfo`.
  case transactionInfo
  /// Notifications V2 raw body: `{"signedPayload": "..."}`.
  case notificationBody
  /// Get Notification History: `notificationHistory[]` of `signedPayload` and `sendAttempts`.
  case notificationHistory
  /// Get Test Notification Status: `signedPayload` and `sendAttempts`.
  case testNotificationStatus
  /// Get App Transaction Info: `signedAppTransactionInfo` alone.
  case appTransactionInfo
  /// Notifications V2 `appData`: `signedAppTransactionInfo` with the app's ids.
  case appData
  /// Look Up Order ID: `status` and `signedTransactions`.
  case orderLookup
  /// A renewal-date extension response (one subscription's, or all active subscribers').
  case renewalExtension
  /// An Advanced Commerce API response: `signedTransactionInfo` and `signedRenewalInfo`.
  case advancedCommerce

  /// How output names the shape.
  public var title: String {
    switch self {
    case .compactJWS: "compact JWS"
    case .jwsLines: "compact JWS, one per line"
    case .decodedPayload: "decoded payload (no signature)"
    case .transactionHistory: "App Store Server API: Get Transaction History response"
    case .refundHistory: "App Store Server API: Get Refund History response"
    case .subscriptionStatuses: "App Store Server API: Get All Subscription Statuses response"
    case .transactionInfo: "App Store Server API: Get Transaction Info response"
    case .notificationBody: "App Store Server Notification V2 body (signedPayload)"
    case .notificationHistory: "App Store Server API: Get Notification History response"
    case .testNotificationStatus: "App Store Server API: Get Test Notification Status response"
    case .appTransactionInfo: "App Store Server API: Get App Transaction Info response"
    case .appData: "App Store Server Notification V2 appData (a signed app transaction)"
    case .orderLookup: "App Store Server API: Look Up Order ID response"
    case .renewalExtension: "App Store Server API: renewal-date extension response"
    case .advancedCommerce: "Advanced Commerce API response"
    }
  }
}

/// Get Transaction History / Get Refund History.
public struct TransactionListResponse: Sendable, Hashable {
  /// `revision`: the token to ask for the next page with.
  public var revision: String?
  /// `hasMore`: whether more pages follow.
  public var hasMore: Bool?
  /// `bundleId`: the app's bundle identifier.
  public var bundleId: String?
  /// `appAppleId`: the app's Apple id in the App Store.
  public var appAppleId: Int64?
  /// `environment`: where the transactions happened (Sandbox, Production, ...).
  public var environment: Coded<AppStoreEnvironment>?
  /// `signedTransactions`: the page's transactions, each decoded or carried with why not.
  public var signedTransactions: [NestedJWS<JWSTransactionPayload>] = []
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []
  /// An unknown `environment` value, carried through.
  public var notes: [SignedDataNote] = []
}

/// One `lastTransactions` item of Get All Subscription Statuses.
public struct LastTransactionStatus: Sendable, Hashable {
  /// Apple's own verdict: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
  public var status: Coded<SubscriptionStatus>?
  /// `originalTransactionId`: the subscription chain this item describes.
  public var originalTransactionId: String?
  /// `signedTransactionInfo`: the chain's latest transaction, still signed.
  public var signedTransactionInfo: NestedJWS<JWSTransactionPayload>?
  /// `signedRenewalInfo`: the chain's renewal info, still signed.
  public var signedRenewalInfo: NestedJWS<JWSRenewalInfoPayload>?
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []
}

/// One `data` item of Get All Subscription Statuses.
public struct SubscriptionGroupStatuses: Sendable, Hashable {
  /// `subscriptionGroupIdentifier`: the subscription group these chains belong to.
  public var subscriptionGroupIdentifier: String?
  /// `lastTransactions`: one item per subscription chain in the group.
  public var lastTransactions: [LastTransactionStatus] = []
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []
}

/// Get All Subscription Statuses.
public struct SubscriptionStatusesResponse: Sendable, Hashable {
  /// `environment`: where the subscriptions live (Sandbox, Production, ...).
  public var environment: Coded<AppStoreEnvironment>?
  /// `bundleId`: the app's bundle identifier.
  public var bundleId: String?
  /// `appAppleId`: the app's Apple id in the App Store.
  public var appAppleId: Int64?
  /// `data`: one item per subscription group.
  public var data: [SubscriptionGroupStatuses] = []
  /// Top-level keys present but not read, in input order.
  public var unreadKeys: [String] = []
  /// Unknown `environment` or `status` values, carried through.
  public var notes: [SignedDataNote] = []
}

/// What a document held.
public enum SignedDataContent: Sendable, Hashable {
  case compactJWS(SignedJWS<SignedPayload>)
  case jwsLines([NestedJWS<SignedPayload>])
  case decodedPayload(SignedPayload)
  case transactionHistory(TransactionListResponse)
  case refundHistory(TransactionListResponse)
  case subscriptionStatuses(SubscriptionStatusesResponse)
  /// Get Transaction Info's single `signedTransactionInfo`.
  case transactionInfo(NestedJWS<JWSTransactionPayload>, unreadKeys: [String])
  case notificationBody(SignedJWS<NotificationV2Payload>, unreadKeys: [String])
  case notificationHistory(NotificationHistoryResponse)
  /// Get Test Notification Status: one notification and its send attempts, a history item's shape.
  case testNotificationStatus(NotificationHistoryItem)
  /// Get App Transaction Info, or `appData` (`AppData.namesTheApp`).
  case appData(AppData)
  case orderLookup(OrderLookupResponse)
  case renewalExtension(RenewalExtensionResponse)
  case advancedCommerce(AdvancedCommerceResponse)
}

/// A decoded signed-data document.
public struct SignedDataDocument: Sendable, Hashable {
  /// What the document held, by shape.
  public var content: SignedDataContent
  /// Errors in nested signed strings carried instead of thrown (`strict: false` only), in document order.
  public var carriedErrors: [SignedDataError]

  /// Which input shape the document was.
  public var shape: SignedDataShape {
    switch content {
    case .compactJWS: .compactJWS
    case .jwsLines: .jwsLines
    case .decodedPayload: .decodedPayload
    case .transactionHistory: .transactionHistory
    case .refundHistory: .refundHistory
    case .subscriptionStatuses: .subscriptionStatuses
    case .transactionInfo(let t, _):
      t.decoded?.payload.isAdvancedCommerce == true ? .advancedCommerce : .transactionInfo
    case .notificationBody: .notificationBody
    case .notificationHistory: .notificationHistory
    case .testNotificationStatus: .testNotificationStatus
    case .appData(let d): d.namesTheApp ? .appData : .appTransactionInfo
    case .orderLookup: .orderLookup
    case .renewalExtension: .renewalExtension
    case .advancedCommerce: .advancedCommerce
    }
  }

  /// Every decoded payload in document order (a notification's nested transaction and renewal
  /// follow the notification), with the JWS facts where there was a JWS (nil for a decoded payload).
  public var payloads: [(payload: SignedPayload, header: JWSHeader?, source: SigningSource?)] {
    var out: [(SignedPayload, JWSHeader?, SigningSource?)] = []
    func add(_ p: SignedPayload, _ h: JWSHeader?, _ s: SigningSource?) {
      out.append((p, h, s))
      if case .notification(let n) = p, let data = n.data {
        if let t = data.signedTransactionInfo?.decoded { out.append((.transaction(t.payload), t.header, t.source)) }
        if let r = data.signedRenewalInfo?.decoded { out.append((.renewalInfo(r.payload), r.header, r.source)) }
      }
    }
    switch content {
    case .compactJWS(let j): add(j.payload, j.header, j.source)
    case .jwsLines(let lines):
      for case .decoded(let j) in lines { add(j.payload, j.header, j.source) }
    case .decodedPayload(let p): add(p, nil, nil)
    case .transactionHistory(let r), .refundHistory(let r):
      for case .decoded(let j) in r.signedTransactions { add(.transaction(j.payload), j.header, j.source) }
    case .subscriptionStatuses(let r):
      for group in r.data {
        for item in group.lastTransactions {
          if let t = item.signedTransactionInfo?.decoded { add(.transaction(t.payload), t.header, t.source) }
          if let rn = item.signedRenewalInfo?.decoded { add(.renewalInfo(rn.payload), rn.header, rn.source) }
        }
      }
    case .transactionInfo(let t, _):
      if let j = t.decoded { add(.transaction(j.payload), j.header, j.source) }
    case .notificationBody(let j, _): add(.notification(j.payload), j.header, j.source)
    case .notificationHistory(let r):
      for item in r.notificationHistory {
        if let j = item.signedPayload?.decoded { add(.notification(j.payload), j.header, j.source) }
      }
    case .testNotificationStatus(let r):
      if let j = r.signedPayload?.decoded { add(.notification(j.payload), j.header, j.source) }
    case .appData(let d):
      if let j = d.signedAppTransactionInfo?.decoded { add(.appTransaction(j.payload), j.header, j.source) }
    case .orderLookup(let r):
      for case .decoded(let j) in r.signedTransactions { add(.transaction(j.payload), j.header, j.source) }
    case .renewalExtension: break
    case .advancedCommerce(let r):
      if let t = r.signedTransactionInfo?.decoded { add(.transaction(t.payload), t.header, t.source) }
      if let rn = r.signedRenewalInfo?.decoded { add(.renewalInfo(rn.payload), rn.header, rn.source) }
    }
    return out
  }

  /// The newest `signedDate` of any payload: the moment the data describes, when no other is given.
  public var newestSignedDate: Timestamp? { payloads.compactMap { $0.payload.signedDate }.max() }

  /// Two documents are equal when their content and carried errors are.
  /// - Parameters:
  ///   - a: One document.
  ///   - b: The other.
  /// - Returns: Whether they are equal.
  public static func == (a: SignedDataDocument, b: SignedDataDocument) -> Bool {
    a.content == b.content && a.carriedErrors == b.carriedErrors
  }

  /// Hashes the content only; equal documents have equal content.
  /// - Parameter hasher: The hasher to feed.
  public func hash(into hasher: inout Hasher) { hasher.combine(content) }
}

/// Reads any signed-data document: the entry a format registry calls.
public enum SignedDataDecoder {
  /// Most lines in a file of JWS lines.
  public static let maxLines = 10_000_000

  /// Decodes a whole document, recognising its shape from content.
  ///
  /// With `strict` (the default) any malformed nested JWS fails the document; without, it is carried as
  /// `.undecodable` and listed in `carriedErrors` (Apple's fixtures hold placeholder strings there).
  public static func decode(_ bytes: [UInt8], strict: Bool = true) throws(SignedDataError) -> SignedDataDocument {
    try decode(bytes, strict: strict, checks: nil)
  }

  /// Decodes a whole document; with `checks`, every JWS read has its signature checked there.
  static func decode(_ bytes: [UInt8], strict: Bool, checks: JWSChecks?) throws(SignedDataError)
    -> SignedDataDocument
  {
    try bytes.withUnsafeBufferPointer { (buffer) throws(SignedDataError) in
      try decode(buffer: buffer, strict: strict, checks: checks)
    }
  }

  /// `decode` over a document in place (a mapped file or a batch's line), which must stay valid until it returns:
  /// nothing is kept that points into it.
  static func decode(buffer bytes: UnsafeBufferPointer<UInt8>, strict: Bool, checks: JWSChecks?)
    throws(SignedDataError) -> SignedDataDocument
  {
    var start = 0
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
    while start < bytes.count, isSpace(bytes[start]) { start += 1 }
    guard start < bytes.count else {
      throw SignedDataError(.notSignedData, path: "", detail: "empty input")
    }
    if bytes[start] == UInt8(ascii: "{") { return try decodeObject(bytes, strict: strict, checks: checks) }
    return try decodeLines(bytes, from: start, strict: strict, checks: checks)
  }

  static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

  /// One JWS, or one per line.
  static func decodeLines(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, strict: Bool, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> SignedDataDocument {
    let ranges = try lineRanges(bytes, from: start)
    if ranges.count == 1 {
      let r = ranges[0]
      let (jws, carried) = try CompactJWS.decode(
        UnsafeBufferPointer(rebasing: bytes[r.lo..<r.hi]), expected: nil, base: LazyPath(""), strict: strict,
        checks: checks)
      return SignedDataDocument(content: .compactJWS(jws), carriedErrors: carried)
    }
    var items: [NestedJWS<SignedPayload>] = []
    items.reserveCapacity(ranges.count)
    var carried: [SignedDataError] = []
    // Lines signed alike share one header (and its certificate chain's text) instead of a copy each.
    var memo = checks?.takeHeaderMemo() ?? CompactJWS.HeaderMemo()
    defer { checks?.keep(memo) }
    for r in ranges {
      do throws(SignedDataError) {
        let (jws, inner) = try CompactJWS.decode(
          UnsafeBufferPointer(rebasing: bytes[r.lo..<r.hi]), expected: nil, base: LazyPath("line \(r.line)"),
          strict: strict, memo: &memo, checks: checks)
        items.append(.decoded(jws))
        carried += inner
      } catch {
        if strict { throw error }
        items.append(.undecodable(error))
        carried.append(error)
      }
    }
    return SignedDataDocument(content: .jwsLines(items), carriedErrors: carried)
  }

  /// A non-blank line of a file of JWS lines: its number and its bytes without surrounding whitespace.
  typealias LineRange = (line: Int, lo: Int, hi: Int)

  /// The non-blank lines from `start` (the lines before it blank), each newline found by `memchr` rather than by
  /// looking at every byte: a line is one ~4 KB token, and a batch's document is one line, so most bytes are
  /// passed over many at a time. `lineRangesByteByByte` is the reference.
  static func lineRanges(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(SignedDataError)
    -> [LineRange]
  {
    guard let base = bytes.baseAddress else { return [] }
    var ranges: [LineRange] = []
    var line = 1
    for b in bytes[0..<start] where b == 0x0A { line += 1 }
    var lo = start
    while true {
      var end = bytes.count
      if lo < bytes.count, let found = memchr(base + lo, 0x0A, bytes.count - lo) {
        end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
      }
      try appendTrimmed(bytes, line: line, from: lo, to: end, to: &ranges)
      guard end < bytes.count else { return ranges }
      line += 1
      lo = end + 1
    }
  }

  /// `lineRanges` looking at every byte: the reference it is held to.
  static func lineRangesByteByByte(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(SignedDataError)
    -> [LineRange]
  {
    var ranges: [LineRange] = []
    var line = 1
    var lo = start
    // Lines before `start` were blank.
    for b in bytes[0..<start] where b == 0x0A { line += 1 }
    var i = start
    while i <= bytes.count {
      if i == bytes.count || bytes[i] == 0x0A {
        try appendTrimmed(bytes, line: line, from: lo, to: i, to: &ranges)
        line += 1
        lo = i + 1
      }
      i += 1
    }
    return ranges
  }

  /// Appends line `line`, from `lo` to `end`, without its surrounding whitespace, unless that leaves nothing.
  private static func appendTrimmed(
    _ bytes: UnsafeBufferPointer<UInt8>, line: Int, from lo: Int, to end: Int, to ranges: inout [LineRange]
  ) throws(SignedDataError) {
    var a = lo
    var z = end
    while a < z, isSpace(bytes[a]) { a += 1 }
    while z > a, isSpace(bytes[z - 1]) { z -= 1 }
    guard z > a else { return }
    guard ranges.count < maxLines else {
      throw SignedDataError(.tooLarge, path: "line \(line)", detail: "more than \(maxLines) lines")
    }
    ranges.append((line, a, z))
  }

  // MARK: JSON objects

  static func decodeObject(
    _ bytes: UnsafeBufferPointer<UInt8>, strict: Bool, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> SignedDataDocument {
    if let document = try decodeNotificationBodyInPlace(bytes, strict: strict, checks: checks) { return document }
    if let document = try decodeTransactionListInPlace(bytes, strict: strict, checks: checks) { return document }
    return try decodeObjectWithTree(bytes, strict: strict, checks: checks)
  }

  /// Any object through a JSON tree: every shape, and the reference the in-place list reader must agree with.
  static func decodeObjectWithTree(_ bytes: [UInt8], strict: Bool, checks: JWSChecks? = nil) throws(SignedDataError)
    -> SignedDataDocument
  {
    try bytes.withUnsafeBufferPointer { (buffer) throws(SignedDataError) in
      try decodeObjectWithTree(buffer, strict: strict, checks: checks)
    }
  }

  /// `decodeObjectWithTree` over bytes in place.
  static func decodeObjectWithTree(
    _ bytes: UnsafeBufferPointer<UInt8>, strict: Bool, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> SignedDataDocument {
    let value: JSONValue
    do {
      value = try JSONReader.withReader(buffer: bytes) { reader in
        let value = try reader.readValue()
        try reader.finish()
        return value
      }
    } catch let e as JSONSyntaxError {
      throw SignedDataError(.document, path: "", detail: "not JSON: \(e.message)", line: e.line, column: e.column)
    } catch {
      throw SignedDataError(.document, path: "", detail: "\(error)")
    }
    guard case .object(let members) = value else {
      throw SignedDataError(.notSignedData, path: "", detail: "expected a JSON object")
    }
    let keys = Set(members.map(\.key))
    if let shape = ServerAPIShapes.readShape(keys) {
      return try decodeResponse(shape, bytes, strict: strict, checks: checks)
    }
    if let refused = ServerAPIShapes.refusedShape(keys) {
      throw ServerAPIShapes.notPurchaseData(shape: refused, keys: members.map(\.key), path: "")
    }
    var walker = TreeWalker(strict: strict, checks: checks)
    defer { walker.keepHeaderMemo() }
    let content: SignedDataContent
    if keys.contains("signedPayload") {
      try walker.noDuplicates(value, among: ["signedPayload"])
      content = try walker.notificationBody(members)
    } else if keys.contains("signedTransactions") {
      try walker.noDuplicates(value, among: TreeWalker.listKeys)
      let isHistory = keys.contains("bundleId") || keys.contains("appAppleId") || keys.contains("environment")
      let list = try walker.transactionList(members)
      content = isHistory ? .transactionHistory(list) : .refundHistory(list)
    } else if !keys.contains("notificationType"), case .array? = value.member("data") {
      try walker.noDuplicates(value, among: TreeWalker.statusKeys)
      content = .subscriptionStatuses(try walker.statuses(members))
    } else if !keys.contains("notificationType"), keys.contains("signedTransactionInfo") {
      try walker.noDuplicates(value, among: ["signedTransactionInfo"])
      content = try walker.transactionInfo(members)
    } else {
      // A decoded payload has no signature; the JWS nested in it (a notification's) still have theirs.
      let (payload, carried) = try PayloadDecoding.decode(
        bytes, expected: nil, base: LazyPath(""), strict: strict, checks: checks)
      return SignedDataDocument(content: .decodedPayload(payload), carriedErrors: carried)
    }
    return SignedDataDocument(content: content, carriedErrors: walker.carried)
  }

  /// A response `ServerAPIShapes` reads as its own kind, read from the document's bytes.
  static func decodeResponse(
    _ shape: ServerAPIShapes.ReadShape, _ bytes: UnsafeBufferPointer<UInt8>, strict: Bool, checks: JWSChecks?
  ) throws(SignedDataError) -> SignedDataDocument {
    let (content, carried) = try ResponseReading.readWhole(bytes, strict: strict, checks: checks) {
      r -> SignedDataContent in
      switch shape {
      case .notificationHistory: return .notificationHistory(try NotificationHistoryResponse.read(&r))
      case .testNotificationStatus:
        var item = try NotificationHistoryItem.read(&r)
        item.notes = r.notes
        return .testNotificationStatus(item)
      case .appData:
        var d = try AppData.read(&r)
        d.notes = r.notes
        return .appData(d)
      case .orderLookup: return .orderLookup(try OrderLookupResponse.read(&r))
      case .renewalExtension: return .renewalExtension(try RenewalExtensionResponse.read(&r))
      case .advancedCommerce: return .advancedCommerce(try AdvancedCommerceResponse.read(&r))
      }
    }
    return SignedDataDocument(content: content, carriedErrors: carried)
  }

  /// A top-level member of a transaction list read in place: a scalar, or the `signedTransactions` tokens.
  enum ListMember {
    case value(JSONValue)
    /// Content ranges of plain strings (no escapes): the JWS bytes as they lie in the document.
    case tokens([Range<Int>])
  }

  /// Get Transaction History / Get Refund History without a tree: when the top level holds only scalars and
  /// `signedTransactions` is null or an array of strings without escapes, each JWS is decoded from the document
  /// bytes where it lies. Anything else (a syntax error, nesting, an escape, `signedPayload`) returns nil and the
  /// tree reader decides, so every message and position stays the tree reader's.
  static func decodeTransactionListInPlace(
    _ buffer: UnsafeBufferPointer<UInt8>, strict: Bool, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> SignedDataDocument? {
    guard let members = scanTransactionList(buffer) else { return nil }
    // The only place a duplicate can be is the top level; the tree reader's check says the same there.
    var seen: Set<String> = []
    for member in members where TreeWalker.listKeys.contains(member.key) {
      if !seen.insert(member.key).inserted {
        throw SignedDataError(
          .document, path: member.key, detail: "duplicate key; the tool will not guess which value is meant")
      }
    }
    let isHistory = seen.contains("bundleId") || seen.contains("appAppleId") || seen.contains("environment")
    var walker = TreeWalker(strict: strict, checks: checks)
    defer { walker.keepHeaderMemo() }
    let list = try walker.transactionList(members, in: buffer)
    let content: SignedDataContent = isHistory ? .transactionHistory(list) : .refundHistory(list)
    return SignedDataDocument(content: content, carriedErrors: walker.carried)
  }

  /// A Notification V2 body as a webhook receives it, `{"signedPayload":"..."}` and nothing else, without a tree:
  /// its JWS decoded from the document's bytes where it lies, not from a copy. Anything else (another key, an
  /// escape, a syntax error) returns nil and the tree reader decides, so every message stays the tree reader's.
  static func decodeNotificationBodyInPlace(
    _ buffer: UnsafeBufferPointer<UInt8>, strict: Bool, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> SignedDataDocument? {
    guard let token = scanNotificationBody(buffer) else { return nil }
    var walker = TreeWalker(strict: strict, checks: checks)
    defer { walker.keepHeaderMemo() }
    let content = try walker.notificationBody(token: UnsafeBufferPointer(rebasing: buffer[token]), unreadKeys: [])
    return SignedDataDocument(content: content, carriedErrors: walker.carried)
  }

  /// Where the one string of a body that fits `decodeNotificationBodyInPlace` lies; nil otherwise.
  static func scanNotificationBody(_ buffer: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
    try? JSONReader.withReader(buffer: buffer) { reader -> Range<Int>? in
      guard try reader.peek() == .object else { return nil }
      try reader.beginObject()
      guard let key = try reader.nextKey(), !key.hasEscapes,
        reader.withBytes(key, { $0.elementsEqual("signedPayload".utf8) }), try reader.peek() == .string
      else { return nil }
      let token = try reader.readStringToken()
      guard !token.hasEscapes, try reader.nextKey() == nil else { return nil }
      try reader.finish()
      return token.start..<token.end
    }
  }

  /// The top-level members when the document fits `decodeTransactionListInPlace`; nil otherwise.
  static func scanTransactionList(_ buffer: UnsafeBufferPointer<UInt8>) -> [(key: String, value: ListMember)]? {
    try? JSONReader.withReader(buffer: buffer) { reader -> [(key: String, value: ListMember)]? in
      guard try reader.peek() == .object else { return nil }
      try reader.beginObject()
      var members: [(key: String, value: ListMember)] = []
      var sawList = false
      while let keyToken = try reader.nextKey() {
        let key = reader.string(keyToken)
        // A notification body, or Look Up Order ID (its `status`): the tree reader decides.
        if key == "signedPayload" || key == "status" { return nil }
        switch try reader.peek() {
        case .object: return nil
        case .array:
          guard key == "signedTransactions" else { return nil }
          sawList = true
          try reader.beginArray()
          var tokens: [Range<Int>] = []
          while try reader.nextElement() {
            guard try reader.peek() == .string else { return nil }
            let token = try reader.readStringToken()
            if token.hasEscapes { return nil }
            tokens.append(token.start..<token.end)
          }
          members.append((key, .tokens(tokens)))
        default:
          if key == "signedTransactions" { sawList = true }
          members.append((key, .value(try reader.readValue())))
        }
      }
      try reader.finish()
      return sawList ? members : nil
    }
  }

  // MARK: Sniffing

  /// Keys only signed data and the App Store Server API use (verifyReceipt JSON is snake_case).
  static let sniffKeyNames =
    [
      "signedPayload", "signedTransactions", "signedTransactionInfo", "signedRenewalInfo", "lastTransactions",
      "notificationType", "notificationUUID", "transactionId", "originalTransactionId", "autoRenewStatus",
      "autoRenewProductId", "receiptType", "inAppOwnershipType",
      // Keys every signed payload may carry alone (Apple's mock payloads hold only these); verifyReceipt has neither.
      "signedDate", "bundleId",
    ] + ServerAPIShapes.sniffKeys
  static let sniffKeys = QuotedNameSet(sniffKeyNames)

  /// True when the first bytes look like signed data: a JWS (`eyJ`, base64url of `{"`), bare or quoted,
  /// or a JSON object naming one of the camelCase keys above within `prefix` (give it the first few KB; 8 KB are read).
  public static func looksLikeSignedData(_ prefix: some Collection<UInt8>) -> Bool {
    let window = prefix.prefix(8192)
    if let answer = window.withContiguousStorageIfAvailable({ looksLikeSignedData(in: $0) }) { return answer }
    return Array(window).withUnsafeBufferPointer { looksLikeSignedData(in: $0) }
  }

  /// `looksLikeSignedData` over the bytes in place (the registry's prefix): one pass, no copy, and none when the
  /// registry's walk found the names (`names`, over the same bytes).
  static func looksLikeSignedData(in bytes: UnsafeBufferPointer<UInt8>, names: QuotedNameFinds? = nil) -> Bool {
    var i = 0
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
    while i < bytes.count, isSpace(bytes[i]) { i += 1 }
    if i < bytes.count, bytes[i] == UInt8(ascii: "\"") { i += 1 }
    if bytes.count - i >= 3, bytes[i] == UInt8(ascii: "e"), bytes[i + 1] == UInt8(ascii: "y"),
      bytes[i + 2] == UInt8(ascii: "J")
    {
      return true
    }
    guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return false }
    if let names { return names.anyOccurs(of: sniffKeys) }
    return sniffKeys.occurs(in: bytes)
  }

}

/// Walks the small JSON tree of an App Store Server API response; signed strings go to `CompactJWS`.
struct TreeWalker {
  let strict: Bool
  var carried: [SignedDataError] = []
  /// The header last read from a list's tokens (the checks' memo, given back with `keepHeaderMemo`).
  var headerMemo: CompactJWS.HeaderMemo
  /// The document's signature checks, when they are made.
  let checks: JWSChecks?

  static let listKeys: Set<String> = [
    "signedTransactions", "revision", "hasMore", "bundleId", "appAppleId", "environment",
  ]
  static let statusKeys: Set<String> = [
    "environment", "bundleId", "appAppleId", "data", "subscriptionGroupIdentifier", "lastTransactions", "status",
    "originalTransactionId", "signedTransactionInfo", "signedRenewalInfo",
  ]

  init(strict: Bool, checks: JWSChecks? = nil) {
    self.strict = strict
    self.checks = checks
    headerMemo = checks?.takeHeaderMemo() ?? CompactJWS.HeaderMemo()
  }

  /// Gives the header memo back to the checks, for the worker's next documents.
  func keepHeaderMemo() { checks?.keep(headerMemo) }

  func noDuplicates(_ value: JSONValue, among keys: Set<String>) throws(SignedDataError) {
    if let path = value.firstDuplicateKey(among: keys, path: "") {
      throw SignedDataError(
        .document, path: String(path.drop(while: { $0 == "." })),
        detail: "duplicate key; the tool will not guess which value is meant")
    }
  }

  func wrong(_ value: JSONValue, _ expected: String, _ path: String) -> SignedDataError {
    SignedDataError(.document, path: path, detail: "expected \(expected), found \(value.kind.noun)")
  }

  func string(_ value: JSONValue?, _ path: String) throws(SignedDataError) -> String? {
    switch value {
    case nil, .null?: return nil
    case .string(let s)?: return s
    case let v?: throw wrong(v, "a string", path)
    }
  }

  func integer(_ value: JSONValue?, _ path: String) throws(SignedDataError) -> Int64? {
    switch value {
    case nil, .null?: return nil
    case .number(let n)?:
      guard let v = Int64(n) else {
        throw SignedDataError(.document, path: path, detail: "\(Excerpt.clip(n)) is not an integer in range")
      }
      return v
    case let v?: throw wrong(v, "an integer", path)
    }
  }

  func bool(_ value: JSONValue?, _ path: String) throws(SignedDataError) -> Bool? {
    switch value {
    case nil, .null?: return nil
    case .bool(let b)?: return b
    case let v?: throw wrong(v, "a boolean", path)
    }
  }

  func environment(_ value: JSONValue?, _ path: String, notes: inout [SignedDataNote]) throws(SignedDataError)
    -> Coded<AppStoreEnvironment>?
  {
    guard let raw = try string(value, path) else { return nil }
    let coded = Coded<AppStoreEnvironment>(raw: raw)
    if coded.known == nil {
      notes.append(SignedDataNote(path: path, message: "unrecognised value \(Excerpt.quoted(raw)); carried through"))
    }
    return coded
  }

  /// A signed string at `path`, decoded as the kind `P`; (not strict) a failure is carried.
  mutating func nested<P: PlacedPayload>(
    _ value: JSONValue?, _ path: String, as type: P.Type
  ) throws(SignedDataError) -> NestedJWS<P>? {
    guard let text = try string(value, path) else { return nil }
    return try Array(text.utf8).withUnsafeBufferPointer { (bytes) throws(SignedDataError) in
      try nested(bytes, base: LazyPath(path), as: P.self)
    }
  }

  /// The signed text `text` at `base`, decoded straight into the kind `P` its place requires; (not strict) a
  /// failure is carried.
  mutating func nested<P: PlacedPayload>(
    _ text: UnsafeBufferPointer<UInt8>, base: LazyPath, as type: P.Type
  ) throws(SignedDataError) -> NestedJWS<P> {
    do throws(SignedDataError) {
      let (jws, inner) = try CompactJWS.decode(
        text, as: P.self, base: base, strict: strict, memo: &headerMemo, checks: checks)
      carried += inner
      return .decoded(jws)
    } catch {
      if strict { throw error }
      carried.append(error)
      return .undecodable(error)
    }
  }

  mutating func transactionList(_ members: [(key: String, value: JSONValue)]) throws(SignedDataError)
    -> TransactionListResponse
  {
    var r = TransactionListResponse()
    for (key, value) in members {
      switch key {
      case "signedTransactions":
        switch value {
        case .null: break
        case .array(let items):
          for (i, item) in items.enumerated() {
            if let jws = try nested(item, "signedTransactions[\(i)]", as: JWSTransactionPayload.self) {
              r.signedTransactions.append(jws)
            } else {
              throw SignedDataError(
                .document, path: "signedTransactions[\(i)]", detail: "expected a string, found null")
            }
          }
        default: throw wrong(value, "an array of JWS strings", key)
        }
      default: try listMember(key, value, into: &r)
      }
    }
    return r
  }

  /// A transaction list's member other than `signedTransactions`, the same for both readers.
  func listMember(_ key: String, _ value: JSONValue, into r: inout TransactionListResponse) throws(SignedDataError) {
    switch key {
    case "revision": r.revision = try string(value, key)
    case "hasMore": r.hasMore = try bool(value, key)
    case "bundleId": r.bundleId = try string(value, key)
    case "appAppleId": r.appAppleId = try integer(value, key)
    case "environment": r.environment = try environment(value, key, notes: &r.notes)
    default: r.unreadKeys.append(key)
    }
  }

  /// `transactionList` over members read in place; each JWS decoded from `buffer` where it lies.
  mutating func transactionList(
    _ members: [(key: String, value: SignedDataDecoder.ListMember)], in buffer: UnsafeBufferPointer<UInt8>
  ) throws(SignedDataError) -> TransactionListResponse {
    var r = TransactionListResponse()
    for (key, member) in members {
      guard case .value(let value) = member else {
        if case .tokens(let tokens) = member, key == "signedTransactions" {
          r.signedTransactions.reserveCapacity(r.signedTransactions.count + tokens.count)
          for (i, range) in tokens.enumerated() {
            r.signedTransactions.append(
              try nested(
                UnsafeBufferPointer(rebasing: buffer[range]), base: LazyPath("signedTransactions", index: i),
                as: JWSTransactionPayload.self))
          }
        }
        continue
      }
      if key == "signedTransactions" {
        guard case .null = value else { throw wrong(value, "an array of JWS strings", key) }
      } else {
        try listMember(key, value, into: &r)
      }
    }
    return r
  }

  /// `signedTransactions[index]` read in place; the path is made only for a message.
  mutating func statuses(_ members: [(key: String, value: JSONValue)]) throws(SignedDataError)
    -> SubscriptionStatusesResponse
  {
    var r = SubscriptionStatusesResponse()
    for (key, value) in members {
      switch key {
      case "environment": r.environment = try environment(value, key, notes: &r.notes)
      case "bundleId": r.bundleId = try string(value, key)
      case "appAppleId": r.appAppleId = try integer(value, key)
      case "data":
        guard case .array(let groups) = value else { throw wrong(value, "an array", key) }
        for (g, group) in groups.enumerated() {
          let gPath = "data[\(g)]"
          guard case .object(let gMembers) = group else { throw wrong(group, "an object", gPath) }
          var item = SubscriptionGroupStatuses()
          for (gKey, gValue) in gMembers {
            let path = "\(gPath).\(gKey)"
            switch gKey {
            case "subscriptionGroupIdentifier": item.subscriptionGroupIdentifier = try string(gValue, path)
            case "lastTransactions":
              guard case .array(let rows) = gValue else { throw wrong(gValue, "an array", path) }
              for (t, row) in rows.enumerated() {
                item.lastTransactions.append(try lastTransaction(row, "\(path)[\(t)]", notes: &r.notes))
              }
            default: item.unreadKeys.append(gKey)
            }
          }
          r.data.append(item)
        }
      default: r.unreadKeys.append(key)
      }
    }
    return r
  }

  mutating func lastTransaction(_ row: JSONValue, _ base: String, notes: inout [SignedDataNote]) throws(SignedDataError)
    -> LastTransactionStatus
  {
    guard case .object(let members) = row else { throw wrong(row, "an object", base) }
    var item = LastTransactionStatus()
    for (key, value) in members {
      let path = "\(base).\(key)"
      switch key {
      case "status":
        if let raw = try integer(value, path) {
          item.status = Coded(raw: raw)
          if item.status?.known == nil {
            notes.append(SignedDataNote(path: path, message: "unrecognised status \(raw); carried through"))
          }
        }
      case "originalTransactionId": item.originalTransactionId = try string(value, path)
      case "signedTransactionInfo":
        item.signedTransactionInfo = try nested(value, path, as: JWSTransactionPayload.self)
      case "signedRenewalInfo":
        item.signedRenewalInfo = try nested(value, path, as: JWSRenewalInfoPayload.self)
      default: item.unreadKeys.append(key)
      }
    }
    return item
  }

  mutating func transactionInfo(_ members: [(key: String, value: JSONValue)]) throws(SignedDataError)
    -> SignedDataContent
  {
    var found: NestedJWS<JWSTransactionPayload>? = nil
    var unread: [String] = []
    for (key, value) in members {
      if key == "signedTransactionInfo" {
        found = try nested(value, key, as: JWSTransactionPayload.self)
      } else {
        unread.append(key)
      }
    }
    guard let found else {
      throw SignedDataError(.document, path: "signedTransactionInfo", detail: "expected a JWS string, found null")
    }
    return .transactionInfo(found, unreadKeys: unread)
  }

  mutating func notificationBody(_ members: [(key: String, value: JSONValue)]) throws(SignedDataError)
    -> SignedDataContent
  {
    var unread: [String] = []
    var text: String? = nil
    for (key, value) in members {
      if key == "signedPayload" { text = try string(value, key) } else { unread.append(key) }
    }
    guard let text else {
      throw SignedDataError(.document, path: "signedPayload", detail: "expected a JWS string, found null")
    }
    return try Array(text.utf8).withUnsafeBufferPointer { (bytes) throws(SignedDataError) in
      try notificationBody(token: bytes, unreadKeys: unread)
    }
  }

  /// The body whose `signedPayload` is `token`, its other keys `unreadKeys`.
  mutating func notificationBody(token: UnsafeBufferPointer<UInt8>, unreadKeys: [String]) throws(SignedDataError)
    -> SignedDataContent
  {
    // The notification itself is never carried: without it there is nothing.
    let (jws, inner) = try CompactJWS.decode(
      token, as: NotificationV2Payload.self, base: LazyPath("signedPayload"), strict: strict, memo: &headerMemo,
      checks: checks)
    carried += inner
    return .notificationBody(jws, unreadKeys: unreadKeys)
  }
}
