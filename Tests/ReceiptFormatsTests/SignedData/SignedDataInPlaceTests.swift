import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Transaction lists read in place must give what the tree reader gives: the same document, or the same error
/// with the same path and position.
@Suite struct SignedDataInPlaceTests {
  static let t0 = SignedDataFixtures.jws(#"{"transactionId":"2000000000","productId":"p","purchaseDate":1}"#)
  static let t1 = SignedDataFixtures.jws(#"{"transactionId":"2000000001","productId":"p","purchaseDate":2}"#)
  static let renewal = SignedDataFixtures.jws(#"{"autoRenewStatus":1,"originalTransactionId":"1"}"#)
  static let apple = SignedDataFixtures.jws(
    #"{"transactionId":"4","productId":"p","purchaseDate":3}"#, header: #"{"alg":"ES256","x5c":["a","b","c"]}"#)
  /// A header as long as the hand-written one, one letter apart.
  static let sameLength = SignedDataFixtures.jws(
    #"{"transactionId":"5","productId":"p","purchaseDate":4}"#,
    header: #"{"alg":"ES256","kid":"hand-writteX","x5c":[],"typ":"JWT"}"#)
  static let badHeader = "e!J" + t1.drop(while: { $0 != "." })
  static let badDate = SignedDataFixtures.jws(#"{"transactionId":"3","expiresDate":"soon"}"#)

  static let notification = SignedDataFixtures.jws(
    #"{"notificationType":"DID_RENEW","notificationUUID":"u","signedDate":5,"data":{"signedTransactionInfo":"\#(t0)","#
      + #""signedRenewalInfo":"\#(renewal)"}}"#)
  static let notificationWithBadNested = SignedDataFixtures.jws(
    #"{"notificationType":"DID_RENEW","notificationUUID":"u","data":{"signedTransactionInfo":"\#(badHeader)"}}"#)

  typealias Outcome = Result<SignedDataDocument, SignedDataError>

  /// The result of `body`: a document or an error.
  static func outcome(_ body: () throws(SignedDataError) -> SignedDataDocument) -> Outcome {
    do throws(SignedDataError) {
      return .success(try body())
    } catch {
      return .failure(error)
    }
  }

  /// What the public entry gives for `text`, and whether the tree reader gives the same.
  static func agree(_ text: String, strict: Bool) -> (Outcome, Bool) {
    let bytes = Array(text.utf8)
    let fast = outcome { () throws(SignedDataError) in try SignedDataDecoder.decode(bytes, strict: strict) }
    let tree = outcome { () throws(SignedDataError) in
      try SignedDataDecoder.decodeObjectWithTree(bytes, strict: strict)
    }
    return (fast, fast == tree)
  }

  static let documents: [String] = [
    #"{"bundleId":"b","environment":"Sandbox","signedTransactions":["\#(t0)","\#(t1)"],"revision":"r","hasMore":true}"#,
    #"{"signedTransactions":["\#(t0)"],"revision":"x","hasMore":false}"#,
    #"{"bundleId":"b","signedTransactions":null}"#,
    #"{"bundleId":"b","signedTransactions":[]}"#,
    #"{"bundleId":"b","signedTransactions":"x"}"#,
    #"{"bundleId":"b","signedTransactions":[null]}"#,
    #"{"bundleId":"b","signedTransactions":[1]}"#,
    #"{"bundleId":"b","bundleId":"c","signedTransactions":["\#(t0)"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)"],"signedTransactions":[]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","\#(t0).x"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","a.b"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","", "  \"\#(t1)\"  "]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","\#(renewal)"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","\#(t0)","\#(t0)","\#(badDate)"]}"#,
    #"{"bundleId":"b","signedTransactions":["\u0065\#(t0.dropFirst())"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)"],"extra":{"a":1,"a":2}}"#,
    #"{"bundleId":"b","appAppleId":1.5,"signedTransactions":["\#(t0)"]}"#,
    #"{"bundleId":"b","environment":"Moon","other":[1],"signedTransactions":["\#(t0)"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)"],"signedPayload":"x"}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)"]"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)"]} x"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","\#(apple)","\#(t1)","\#(apple)"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","\#(badHeader)","\#(t1)"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","\#(sameLength)","\#(t1)"]}"#,
    #"{"bundleId":"b","signedTransactions":["\#(t0)","\#(t1.dropLast(3))!!!","\#(t1)"]}"#,
    "\u{FEFF}" + #"{"bundleId":"b","signedTransactions":["\#(t0)"]}"#,
    // Notification bodies: the webhook's own is read in place, the rest by the tree.
    #"{"signedPayload":"\#(notification)"}"#,
    " \n{ \"signedPayload\" :\t\"\(notification)\" }\r\n",
    "\u{FEFF}" + #"{"signedPayload":"\#(notification)"}"#,
    #"{"signedPayload":"\#(notificationWithBadNested)"}"#,
    #"{"signedPayload":"\#(notification)","x":1}"#,
    #"{"x":1,"signedPayload":"\#(notification)"}"#,
    #"{"signedPayload":"\#(notification)","signedPayload":"\#(notification)"}"#,
    #"{"signedPayload":"\#(notification)","sendAttempts":[]}"#,
    #"{"signedPayload":null}"#, #"{"signedPayload":1}"#, #"{"signedPayload":""}"#, #"{"signedPayload":{}}"#,
    #"{"signedPayload":"\u0065\#(notification.dropFirst())"}"#,
    #"{"signed\u0050ayload":"\#(notification)"}"#,
    #"{"signedPayload":"\#(notification)""#,
    #"{"signedPayload":"\#(notification)"} x"#,
    #"{"signedPayload":"\#(notification).x"}"#,
    #"{"signedPayload":"a.b"}"#,
    #"{"signedPayload":"\#(t0)"}"#,
    #"{"signedPayload":"\#(notification.dropLast(3))!!!"}"#,
    #"{"signedPayload":"\#(badHeader)"}"#,
  ]

  /// A webhook's body, `{"signedPayload":"..."}` alone, is read where it lies; anything more goes to the tree.
  @Test func aWebhookBodyIsReadInPlace() throws {
    func inPlace(_ text: String) throws -> Bool {
      try Array(text.utf8).withUnsafeBufferPointer { (bytes) throws(SignedDataError) in
        try SignedDataDecoder.decodeNotificationBodyInPlace(bytes, strict: false) != nil
      }
    }
    #expect(try inPlace(#"{"signedPayload":"\#(Self.notification)"}"#))
    #expect(try inPlace(" { \"signedPayload\" : \"\(Self.notification)\" } "))
    #expect(try !inPlace(#"{"signedPayload":"\#(Self.notification)","x":1}"#))
    #expect(try !inPlace(#"{"signed\u0050ayload":"\#(Self.notification)"}"#))
    #expect(try !inPlace(#"{"signedPayload":"\u0065\#(Self.notification.dropFirst())"}"#))
    #expect(try !inPlace(#"{"signedPayload":"\#(Self.notification)"} x"#))
  }

  @Test(arguments: documents) func agreesWithTheTreeReader(_ text: String) {
    for strict in [true, false] {
      let (_, same) = Self.agree(text, strict: strict)
      #expect(same, "strict: \(strict)")
    }
  }

  /// Values known from the inputs, not from either reader.
  @Test func pathsAndCarriedErrors() throws {
    let dup = Self.agree(#"{"bundleId":"b","bundleId":"c","signedTransactions":["\#(Self.t0)"]}"#, strict: true).0
    guard case .failure(let e) = dup else {
      Issue.record("a duplicate bundleId must fail")
      return
    }
    #expect(e.path == "bundleId" && e.category == .document)

    let text = #"{"bundleId":"b","signedTransactions":["\#(Self.t0)","a.b","\#(Self.t1)"]}"#
    guard case .success(let doc) = Self.agree(text, strict: false).0,
      case .transactionHistory(let list) = doc.content
    else {
      Issue.record("a bad JWS is carried when not strict")
      return
    }
    #expect(list.signedTransactions.count == 3)
    #expect(list.signedTransactions[2].decoded?.payload.transactionId == "2000000001")
    #expect(doc.carriedErrors.map(\.path) == ["signedTransactions[1]"])

    // Tokens with another header in between each keep their own header.
    let tokens = [Self.t0, Self.apple, Self.t1, Self.sameLength].map { "\"\($0)\"" }.joined(separator: ",")
    let mixed = #"{"signedTransactions":["# + tokens + "]}"

    guard case .success(let m) = Self.agree(mixed, strict: true).0, case .refundHistory(let r) = m.content else {
      Issue.record("three good tokens must decode")
      return
    }
    #expect(r.signedTransactions.map { $0.decoded?.header.x5cCount } == [0, 3, 0, 0])
    let kids = r.signedTransactions.map { $0.decoded?.header.kid }
    #expect(kids == ["hand-written", nil, "hand-written", "hand-writteX"])

    let kind = Self.agree(#"{"signedTransactions":["\#(Self.renewal)"]}"#, strict: true).0
    guard case .failure(let k) = kind else {
      Issue.record("renewal info where a transaction belongs must fail")
      return
    }
    #expect(k.path == "signedTransactions[0] > payload")
  }

  /// An `environment` Apple does not document is carried through and flagged, by both readers, and the history
  /// warns of it (the lists once dropped the note).
  @Test func anUnknownEnvironmentIsFlagged() throws {
    let text = #"{"environment":"Weird","signedTransactions":[""# + Self.t0 + #""]}"#
    let (outcome, same) = Self.agree(text, strict: false)
    #expect(same)
    guard case .success(let document) = outcome, case .transactionHistory(let list) = document.content else {
      Issue.record("a transaction history was expected")
      return
    }
    #expect(list.environment?.raw == "Weird")
    #expect(list.notes.map(\.path) == ["environment"])
    let history = try SignedDataFormat().decode(Array(text.utf8), source: "list.json", options: DecodeOptions())
    #expect(history.warnings.contains { $0.path == "environment" && $0.message.contains("\"Weird\"") })
  }
}
