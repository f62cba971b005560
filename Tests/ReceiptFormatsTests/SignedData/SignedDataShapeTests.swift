import Foundation
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Container shapes and malformed input, on hand-written (unsigned) JWS built like make-jws.py does.
@Suite struct SignedDataShapeTests {
  typealias F = SignedDataFixtures

  static let transaction = #"""
    {"transactionId":"2000000001","originalTransactionId":"2000000000","productId":"pro.monthly",
    "purchaseDate":1718409600000,"expiresDate":1721001600000,"signedDate":1718409601000,
    "type":"Auto-Renewable Subscription","inAppOwnershipType":"FAMILY_SHARED","environment":"Sandbox",
    "subscriptionGroupIdentifier":"21000000","offerType":1,"offerDiscountType":"FREE_TRIAL",
    "price":0,"currency":"USD","revocationType":"FAMILY_REVOKE","revocationDate":1719000000000}
    """#
  static let renewal = #"""
    {"originalTransactionId":"2000000000","autoRenewProductId":"pro.yearly","productId":"pro.monthly",
    "autoRenewStatus":1,"signedDate":1718409602000,"environment":"Sandbox","renewalDate":1721001600000}
    """#

  func decode(_ text: String, strict: Bool = true) throws -> SignedDataDocument {
    try SignedDataDecoder.decode(Array(text.utf8), strict: strict)
  }

  func failure(_ text: String, strict: Bool = true) -> SignedDataError? {
    F.error { _ = try decode(text, strict: strict) }
  }

  @Test func bareQuotedAndLines() throws {
    let one = F.jws(Self.transaction)
    for text in [one, "  \(one)\n", "\"\(one)\"", "\n\n \"\(one)\" \r\n"] {
      let doc = try decode(text)
      guard case .compactJWS(let jws) = doc.content, case .transaction(let t) = jws.payload else {
        Issue.record("shape \(doc.shape)")
        continue
      }
      #expect(jws.source == .handWritten)
      #expect(jws.header.x5cCount == 0)
      #expect(t.inAppOwnershipType?.known == .familyShared)
      #expect(t.revocationType?.known == .familyRevoke)
      #expect(t.offerDiscountType?.known == .freeTrial)
    }
    let lines = try decode(one + "\n\n" + F.jws(Self.renewal) + "\n")
    guard case .jwsLines(let items) = lines.content else {
      Issue.record("shape \(lines.shape)")
      return
    }
    #expect(items.count == 2)
    #expect(lines.payloads.map(\.payload.kind) == [.transaction, .renewalInfo])
    #expect(lines.newestSignedDate?.milliseconds == 1_718_409_602_000)
    // A bad third line is named by its line number.
    let e = failure(one + "\n" + F.jws(Self.renewal) + "\nnot-a-jws\n")
    #expect(e?.path == "line 3")
    #expect(e?.category == .segmentCount)
  }

  @Test func historyRefundAndInfoResponses() throws {
    let t = F.jws(Self.transaction)
    let history = try decode(
      #"{"revision":"r1","hasMore":true,"bundleId":"com.example","appAppleId":123,"environment":"Sandbox","#
        + #""signedTransactions":["\#(t)","\#(t)"]}"#)
    guard case .transactionHistory(let h) = history.content else {
      Issue.record("shape \(history.shape)")
      return
    }
    #expect(h.revision == "r1" && h.hasMore == true && h.bundleId == "com.example" && h.appAppleId == 123)
    #expect(h.environment?.known == .sandbox)
    #expect(h.signedTransactions.count == 2)
    #expect(h.signedTransactions[1].decoded?.payload.transactionId == "2000000001")

    let refunds = try decode(#"{"signedTransactions":["\#(t)"],"revision":"x","hasMore":false}"#)
    #expect(refunds.shape == .refundHistory)

    let info = try decode(#"{"signedTransactionInfo":"\#(t)"}"#)
    guard case .transactionInfo(let nested, _) = info.content else {
      Issue.record("shape \(info.shape)")
      return
    }
    #expect(nested.decoded?.payload.productId == "pro.monthly")
  }

  @Test func statusesAndNotifications() throws {
    let t = F.jws(Self.transaction)
    let r = F.jws(Self.renewal)
    let statuses = try decode(
      #"{"environment":"Sandbox","bundleId":"b","appAppleId":1,"data":[{"subscriptionGroupIdentifier":"21000000","#
        + #""lastTransactions":[{"status":9,"originalTransactionId":"2000000000","signedTransactionInfo":"\#(t)","#
        + #""signedRenewalInfo":"\#(r)"}]}]}"#)
    guard case .subscriptionStatuses(let s) = statuses.content else {
      Issue.record("shape \(statuses.shape)")
      return
    }
    let row = s.data[0].lastTransactions[0]
    // Status 9 is unknown: carried and flagged, never dropped.
    #expect(row.status?.raw == 9 && row.status?.known == nil)
    #expect(s.notes.map(\.path) == ["data[0].lastTransactions[0].status"])
    #expect(row.signedRenewalInfo?.decoded?.payload.autoRenewProductId == "pro.yearly")
    #expect(statuses.payloads.count == 2)

    // A raw V2 body with a REVOKE about a family-shared transaction.
    let notification =
      #"{"notificationType":"REVOKE","notificationUUID":"u","version":"2.0","#
      + #""signedDate":1719000000500,"data":{"environment":"Sandbox","bundleId":"b","#
      + #""signedTransactionInfo":"\#(t)","signedRenewalInfo":"\#(r)","status":5}}"#
    let body = try decode(#"{"signedPayload":"\#(F.jws(notification))"}"#)
    guard case .notificationBody(let jws, _) = body.content else {
      Issue.record("shape \(body.shape)")
      return
    }
    #expect(jws.payload.notificationType?.known == .revoke)
    #expect(jws.payload.data?.status?.known == .revoked)
    #expect(jws.payload.content == .transaction)
    #expect(body.payloads.map(\.payload.kind) == [.notification, .transaction, .renewalInfo])
    #expect(body.newestSignedDate?.milliseconds == 1_719_000_000_500)
    // The same notification pasted decoded.
    let pasted = try decode(notification)
    #expect(pasted.shape == .decodedPayload)
    #expect(pasted.payloads.count == 3)
  }

  /// Summary and external-purchase notifications decode and say there is no transaction.
  @Test func notificationsWithoutTransaction() throws {
    let summary =
      #"{"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","notificationUUID":"u","#
      + #""version":"2.0","signedDate":1698148900000,"summary":{"environment":"LocalTesting","appAppleId":41234,"#
      + #""bundleId":"com.example","productId":"com.example.product","#
      + #""requestIdentifier":"efb27071-45a4-4aca-9854-2a1e9146f265","storefrontCountryCodes":["CAN","USA","MEX"],"#
      + #""succeededCount":5,"failedCount":2}}"#
    let doc = try decode(#"{"signedPayload":"\#(F.jws(summary))"}"#)
    guard case .notificationBody(let jws, _) = doc.content else { return }
    #expect(jws.payload.content == .summary)
    #expect(jws.payload.summary?.storefrontCountryCodes == ["CAN", "USA", "MEX"])
    #expect(jws.payload.summary?.succeededCount == 5 && jws.payload.summary?.failedCount == 2)
    #expect(doc.payloads.count == 1)

    let token =
      #"{"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"UNREPORTED","signedDate":1698148900000,"#
      + #""externalPurchaseToken":{"externalPurchaseId":"b2158121","tokenCreationDate":1698148950000,"#
      + #""appAppleId":55555,"bundleId":"com.example"}}"#
    let t = try decode(F.jws(token))
    guard case .compactJWS(let j) = t.content, case .notification(let n) = j.payload else { return }
    #expect(n.content == .externalPurchaseToken)
    #expect(n.externalPurchaseToken?.tokenCreationDate?.milliseconds == 1_698_148_950_000)

    let unknown = try decode(F.jws(#"{"notificationType":"SOMETHING_NEW","signedDate":1}"#))
    guard case .compactJWS(let u) = unknown.content, case .notification(let un) = u.payload else { return }
    #expect(un.notificationType?.raw == "SOMETHING_NEW" && un.notificationType?.known == nil)
    #expect(un.notes.first?.path == "notificationType")
    #expect(un.content == .empty)
  }

  // MARK: Malformed JWS: one line, what and where, never the token.

  @Test func malformedMessages() throws {
    let good = F.jws(Self.transaction)
    let parts = good.split(separator: ".").map(String.init)

    let two = try #require(failure(parts[0] + "." + parts[1]))
    #expect(two.category == .segmentCount)
    #expect(
      two.description
        == "(document): not a compact JWS: 2 segments separated by '.', expected 3 (header.payload.signature)")

    #expect(failure("a.b.c.d.e.f.g")?.detail.hasPrefix("not a compact JWS: 5 or more segments") == true)
    #expect(failure("eyJhbGciOiJFUzI1NiJ9")?.detail.hasPrefix("not a compact JWS: 1 segment separated") == true)

    // A '*' at offset 10 of the payload segment.
    var payload = Array(parts[1])
    payload[10] = "*"
    let bad = try #require(failure(parts[0] + "." + String(payload) + "." + parts[2]))
    #expect(bad.category == .base64url)
    #expect(bad.path == "payload")
    #expect(bad.detail.hasPrefix("invalid base64url character '*' at offset 10 of the payload segment"))

    // Payload JSON broken on its second line: line:column inside the payload.
    let broken = try #require(failure(F.jws("{\"transactionId\":\"1\",\n \"price\": 12,,}")))
    #expect(broken.category == .payloadJSON)
    #expect(broken.path == "payload")
    // Column 14 of line 2: the second ',' where a key must be.
    #expect(broken.line == 2)
    #expect(broken.column == 14)

    // No kind's marker: read as what it can be when every field is one a kind has, with a note saying so
    // (issue 30); a field no kind has makes it no purchase data, refused by name (issue 41).
    #expect(failure(F.jws(#"{"bundleId":"b","signedDate":1}"#)) == nil)
    let unknown = try #require(failure(F.jws(#"{"foo":1}"#)))
    #expect(unknown.category == .notPurchaseData && unknown.detail.contains("\"foo\" fit no kind"))

    let ambiguous = try #require(failure(F.jws(#"{"transactionId":"1","notificationType":"TEST"}"#)))
    #expect(ambiguous.detail.hasPrefix("ambiguous kind"))

    // A renewal where a transaction belongs.
    let mismatch = try #require(failure(#"{"signedTransactionInfo":"\#(F.jws(Self.renewal))"}"#))
    #expect(mismatch.category == .kindMismatch)
    #expect(mismatch.path == "signedTransactionInfo > payload")

    // The kind is checked before any value, however the payload is read: a bad price first still says mismatch,
    // and so does a marker after more unknown keys than a payload keeps.
    let badThenMarker = try #require(
      failure(#"{"signedTransactionInfo":"\#(F.jws(#"{"price":"x","autoRenewStatus":1}"#))"}"#))
    #expect(badThenMarker.category == .kindMismatch)
    let manyUnknown = (0..<300).map { "\"k\($0)\":0" }.joined(separator: ",")
    let hiddenMarker = try #require(
      failure(#"{"signedTransactionInfo":"\#(F.jws("{\(manyUnknown),\"renewalDate\":1}"))"}"#))
    #expect(hiddenMarker.category == .kindMismatch)
    #expect(PayloadDecoding.oneTypedPassSuffices == Set(SignedPayloadKind.allCases))

    let header = try #require(failure(F.jws(Self.transaction, header: #"{"alg":5}"#)))
    #expect(header.category == .header)
    #expect(header.path == "header > alg")

    for e in [two, bad, broken, ambiguous, mismatch, header] {
      #expect(!e.description.contains(parts[1]) && !e.description.contains(parts[0]))
      #expect(!e.description.contains("\n"))
    }
  }

  /// Wrong types name the path through the JWS, as in `signedTransactions[3] > payload > expiresDate`.
  @Test func wrongTypesNameThePath() throws {
    let t = F.jws(Self.transaction)
    let badDate = F.jws(#"{"transactionId":"9","expiresDate":"2024-06-15"}"#)
    let text = #"{"bundleId":"b","signedTransactions":["\#(t)","\#(t)","\#(t)","\#(badDate)"]}"#
    let e = try #require(failure(text))
    #expect(e.path == "signedTransactions[3] > payload > expiresDate")
    #expect(e.detail == "expected a number of milliseconds since 1970, found a string")
    // Column 36: the opening quote of "2024-06-15" inside the payload.
    #expect(e.line == 1)
    #expect(e.column == 36)

    // Not strict: carried, and the rest decodes.
    let doc = try decode(text, strict: false)
    #expect(doc.carriedErrors == [e])
    #expect(doc.payloads.count == 3)

    let negative = try #require(failure(F.jws(#"{"transactionId":"9","purchaseDate":-5}"#)))
    #expect(negative.detail == "-5 milliseconds is outside 1970...9999")
    let dup = try #require(failure(F.jws(#"{"transactionId":"9","price":1,"price":2}"#)))
    #expect(dup.path == "payload > price" && dup.detail.hasPrefix("duplicate key"))
    let flag = try #require(failure(F.jws(#"{"transactionId":"9","isUpgraded":"true"}"#)))
    #expect(flag.detail == "expected a boolean, found a string")
    let list = try #require(failure(#"{"bundleId":"b","signedTransactions":"x"}"#))
    #expect(list.path == "signedTransactions" && list.category == .document)
  }

  @Test func notSignedData() {
    #expect(failure("")?.category == .notSignedData)
    #expect(failure("   \n")?.category == .notSignedData)
    #expect(failure("{\"status\": 0")?.category == .document)
    #expect(!SignedDataDecoder.looksLikeSignedData(Array(#"{"status":0,"receipt":{}}"#.utf8)))
    #expect(SignedDataDecoder.looksLikeSignedData(Array("\n\"eyJhbGciOi".utf8)))
  }

  /// Every prefix and every single-bit flip of a real JWS gives an error or a decode, never a crash.
  @Test func prefixesAndBitFlips() throws {
    let real = F.bytes(F.appleDirectory + "xcode-signed-transaction") ?? Array(F.jws(Self.transaction).utf8)
    var decoded = 0
    var failed = 0
    func attempt(_ bytes: [UInt8]) {
      for strict in [true, false] {
        do {
          _ = try SignedDataDecoder.decode(bytes, strict: strict)
          decoded += 1
        } catch {
          failed += 1
          #expect(!error.description.contains("\n"))
        }
      }
      #expect(SignedDataFuzzing.fuzz(bytes).isEmpty)
    }
    for n in stride(from: 0, through: real.count, by: 1) { attempt(Array(real[0..<n])) }
    // Bits flipped in every byte of the payload segment area and a sample elsewhere (the header is long).
    for i in stride(from: 0, to: real.count, by: 1) {
      for bit in [0, 5, 7] {
        var copy = real
        copy[i] ^= UInt8(1 << bit)
        attempt(copy)
      }
    }
    #expect(decoded > 0 && failed > 0)
  }
}
