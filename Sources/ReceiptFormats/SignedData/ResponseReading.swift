import ReceiptModel

/// Warnings about how signed data was read that every command shows on standard error, not only `decode`: keys
/// the tool does not read (carried as names, never dropped unsaid), a notification history about several
/// purchases answered as one customer's, and an item refund revenue cannot book.
public enum ReadingWarnings {
  /// How the warning about keys the tool does not read begins.
  static let unreadKeysPrefix = "keys receipt-tool does not read"
  /// How the warning about a notification history of several purchases begins.
  static let severalPurchasesPrefix = "the notifications are about"
  /// How a warning about an Advanced Commerce item refund revenue cannot book begins.
  static let itemRefundPrefix = "item refunds not booked"

  /// The warnings of `history` every command shows, as `path: message`.
  public static func shown(in history: PurchaseHistory) -> [String] {
    history.warnings.filter {
      $0.message.hasPrefix(unreadKeysPrefix) || $0.message.hasPrefix(severalPurchasesPrefix)
        || $0.message.hasPrefix(itemRefundPrefix)
    }
    .map { "\($0.path): \($0.message)" }
  }
}

/// What the readers of App Store Server API responses share: a whole document read with `PayloadReading` (the
/// payloads' typed reader, so a response's fields are typed and located as a payload's are), arrays of objects
/// and `sendAttempts`.
enum ResponseReading {
  /// Most elements read from one array of a response (a page holds at most a few hundred).
  static let maxElements = 100_000

  /// Reads the whole document with `body`, which reads its top-level object; nested JWS failures are carried
  /// (not strict) and returned.
  static func readWhole<T>(
    _ bytes: UnsafeBufferPointer<UInt8>, strict: Bool, checks: JWSChecks?, _ body: (inout PayloadReading) throws -> T
  ) throws(SignedDataError) -> (T, carried: [SignedDataError]) {
    do {
      return try JSONReader.withReader(buffer: bytes) { reader in
        var r = PayloadReading(reader: reader, base: LazyPath(""), strict: strict)
        r.checks = checks
        let value = try body(&r)
        try r.reader.finish()
        return (value, r.carried)
      }
    } catch let e as SignedDataError {
      throw e
    } catch let e as JSONSyntaxError {
      throw SignedDataError(.document, path: "", detail: "not JSON: \(e.message)", line: e.line, column: e.column)
    } catch {
      throw SignedDataError(.document, path: "", detail: "\(error)")
    }
  }
}

extension PayloadReading {
  /// Visits each element of the array that comes next (null: none), with its index; at most
  /// `ResponseReading.maxElements`.
  mutating func forEachElement(_ body: (inout PayloadReading) throws -> Void) throws {
    if try skipNull() { return }
    let (kind, at) = try peek()
    guard kind == .array else { throw wrongType(kind, "an array", at: at) }
    try reader.beginArray()
    var count = 0
    while try reader.nextElement() {
      guard count < ResponseReading.maxElements else {
        throw SignedDataError(
          .tooLarge, path: path, detail: "more than \(ResponseReading.maxElements) elements in one array")
      }
      try step("[\(count)]") { try body(&$0) }
      count += 1
    }
  }

  /// Reads `sendAttempts`: each attempt's `attemptDate` and `sendAttemptResult`.
  mutating func sendAttempts() throws -> [SendAttempt] {
    var attempts: [SendAttempt] = []
    try forEachElement { r in
      var attempt = SendAttempt(attemptDate: nil, result: nil)
      let unread = try r.forEachMember(SendAttemptKeys.keys) { r, index in
        if index == 0 { attempt.attemptDate = try r.date() } else { attempt.result = try r.string() }
      }
      for key in unread { r.note("key \(Excerpt.quoted(key)) is not read") }
      attempts.append(attempt)
    }
    return attempts
  }
}

/// `SendAttemptItem`'s fields.
private enum SendAttemptKeys {
  static let keys = SignedKeys(["attemptDate", "sendAttemptResult"])
}
