import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Hand-made Notification V2 sequences and signed transactions (unsigned JWS, as make-jws.py writes them), read
/// through the command line as one customer's documents.
enum NotificationSequence {
  /// 2025-01-01T00:00:00Z.
  static let start: Int64 = 1_735_689_600_000
  static let day: Int64 = 86_400_000

  /// `start` + `days` as milliseconds.
  static func at(_ days: Int64, hours: Int64 = 0) -> Int64 { start + days * day + hours * 3_600_000 }

  /// `start` + `days` as --as-of text.
  static func asOf(_ days: Int64, hours: Int64 = 0) -> String {
    let seconds = Double(at(days, hours: hours)) / 1000
    return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: seconds))
  }

  /// A signed transaction payload (JSON), with the fields given over sensible defaults.
  static func transaction(
    id: String, original: String? = nil, product: String = "com.acme.pro.monthly", group: String? = "G1",
    bought: Int64, expires: Int64? = nil, signed: Int64, type: String = "Auto-Renewable Subscription",
    price: Int64 = 9990, extra: [String: Any] = [:]
  ) -> [String: Any] {
    var t: [String: Any] = [
      "transactionId": id, "originalTransactionId": original ?? id, "productId": product, "purchaseDate": bought,
      "originalPurchaseDate": bought, "quantity": 1, "type": type, "inAppOwnershipType": "PURCHASED",
      "signedDate": signed, "environment": "Sandbox", "price": price, "currency": "USD", "bundleId": "com.acme",
    ]
    if let group { t["subscriptionGroupIdentifier"] = group }
    if let expires { t["expiresDate"] = expires }
    for (k, v) in extra { t[k] = v }
    return t
  }

  /// A renewal info payload (JSON).
  static func renewal(
    original: String, product: String = "com.acme.pro.monthly", signed: Int64, extra: [String: Any] = [:]
  )
    -> [String: Any]
  {
    var r: [String: Any] = [
      "originalTransactionId": original, "productId": product, "autoRenewProductId": product, "autoRenewStatus": 1,
      "signedDate": signed, "environment": "Sandbox",
    ]
    for (k, v) in extra { r[k] = v }
    return r
  }

  static func json(_ object: Any) -> String {
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  /// A notification's decoded payload (JSON) around signed (unsigned, hand-written) transaction and renewal info.
  static func notification(
    _ type: String, subtype: String? = nil, signed: Int64, transaction: [String: Any]? = nil,
    renewal: [String: Any]? = nil, status: Int? = nil, rawTransaction: String? = nil
  ) -> [String: Any] {
    var data: [String: Any] = ["bundleId": "com.acme", "environment": "Sandbox", "appAppleId": 1]
    if let transaction { data["signedTransactionInfo"] = SignedDataFixtures.jws(json(transaction)) }
    if let rawTransaction { data["signedTransactionInfo"] = rawTransaction }
    if let renewal { data["signedRenewalInfo"] = SignedDataFixtures.jws(json(renewal)) }
    if let status { data["status"] = status }
    var n: [String: Any] = [
      "notificationType": type, "notificationUUID": UUID().uuidString, "version": "2.0", "signedDate": signed,
      "data": data,
    ]
    if let subtype { n["subtype"] = subtype }
    return n
  }

  /// The notification as Apple sends it: `{"signedPayload": "<JWS>"}`.
  static func body(_ notification: [String: Any]) -> [UInt8] {
    Array(json(["signedPayload": SignedDataFixtures.jws(json(notification))]).utf8)
  }

  /// Files for `documents`, in order.
  static func files(_ documents: [[UInt8]]) throws -> [String] {
    try documents.enumerated().map { i, d in try InProcessRunner.temporaryFile(d, name: "doc\(i).json") }
  }

  /// A JSON run of the tool; the exit status is checked.
  static func run(_ arguments: [String], expect status: ReceiptCLI.ExitStatus = .ok) throws -> (
    json: [String: Any], stderr: String
  ) {
    let result = InProcessRunner.run(arguments + ["--format", "json"])
    #expect(result.status == status, "\(arguments): \(result.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    return (try #require(object as? [String: Any]), result.stderr)
  }

  /// `entitlements --one-customer` over `files` at `asOf`: each entitlement's status by id, and standard error.
  static func entitlements(_ files: [String], asOf: String? = nil) throws -> (states: [String: String], stderr: String)
  {
    let (json, stderr) = try run(
      ["entitlements", "--one-customer"] + (asOf.map { ["--as-of", $0] } ?? []) + files)
    var states: [String: String] = [:]
    for e in json["entitlements"] as? [[String: Any]] ?? [] {
      if let id = e["id"] as? String { states[id] = e["status"] as? String }
    }
    return (states, stderr)
  }

  /// `revenue` over `files`: the USD totals and the transaction counts.
  static func revenue(_ files: [String]) throws -> (usd: [String: Any], counts: [String: Any]) {
    let (json, _) = try run(["revenue"] + files)
    let usd = (json["currencies"] as? [[String: Any]])?.first { $0["currency"] as? String == "USD" }
    return (usd ?? [:], json["transactions"] as? [String: Any] ?? [:])
  }
}

/// revocationType and revocationPercentage decide the refund; a reversal puts the sale back.
@Suite struct RefundTruthTests {
  typealias S = NotificationSequence

  /// REFUND_PRORATED at 50% (revocationPercentage 50000) refunds half the price, and says so.
  @Test func proratedRefundRefundsTheStatedShare() throws {
    let t = S.transaction(
      id: "5001", bought: S.at(0), expires: S.at(30), signed: S.at(5), price: 10990,
      extra: [
        "revocationDate": S.at(4), "revocationReason": 0, "revocationType": "REFUND_PRORATED",
        "revocationPercentage": 50000,
      ])
    let files = try S.files([Array(S.json(t).utf8)])
    let (usd, counts) = try S.revenue(files)
    #expect(usd["gross"] as? String == "10.99")
    #expect(usd["refunds"] as? String == "5.50")
    #expect(usd["net"] as? String == "5.49")
    #expect(counts["partial_refunds"] as? Int == 1)
    let full = S.transaction(
      id: "5002", bought: S.at(0), expires: S.at(30), signed: S.at(5), price: 10990,
      extra: ["revocationDate": S.at(4), "revocationType": "REFUND_FULL"])
    #expect(try S.revenue(S.files([Array(S.json(full).utf8)])).usd["refunds"] as? String == "10.99")
  }

  /// A refund signed data states on an upgraded transaction is a refund: refunded, and booked.
  @Test func refundedUpgradedTransactionIsStillRefunded() throws {
    let t = S.transaction(
      id: "5101", bought: S.at(0), expires: S.at(30), signed: S.at(6),
      extra: ["isUpgraded": true, "revocationDate": S.at(5), "revocationReason": 1, "revocationType": "REFUND_FULL"])
    let files = try S.files([Array(S.json(t).utf8)])
    let (states, _) = try S.entitlements(files, asOf: S.asOf(6))
    #expect(states["com.acme.pro.monthly"] == "refunded")
    let (usd, counts) = try S.revenue(files)
    #expect(usd["refunds"] as? String == "9.99")
    #expect(counts["refunded"] as? Int == 1)
  }

  /// Apple's own test data: REFUND_PRORATED 50% of 10.99 on an upgraded transaction.
  @Test func appleRevocationFixture() throws {
    guard
      let bytes = SignedDataFixtures.bytes(SignedDataFixtures.appleDirectory + "signedTransactionWithRevocation.json")
    else { return }
    let files = try S.files([bytes])
    let (states, _) = try S.entitlements(files)
    #expect(states["com.example.product"] == "refunded")
    #expect(try S.revenue(files).usd["refunds"] as? String == "5.50")
    let (json, _) = try S.run(["entitlements"] + files)
    let reason = (json["entitlements"] as? [[String: Any]])?.first?["reason"] as? String
    #expect(reason?.contains("REFUND_PRORATED: revocationPercentage 50000, 50% of the price refunded") == true)
  }

  /// A REFUND then a later-signed copy without the revocation: refunded between the two, the sale stands after.
  @Test func laterCopyWithoutRevocationReversesTheRefund() throws {
    let refunded = S.transaction(
      id: "5201", bought: S.at(0), expires: S.at(30), signed: S.at(5),
      extra: ["revocationDate": S.at(4), "revocationReason": 0, "revocationType": "REFUND_FULL"])
    let restored = S.transaction(id: "5201", bought: S.at(0), expires: S.at(30), signed: S.at(10))
    let files = try S.files([
      S.body(S.notification("REFUND", signed: S.at(5), transaction: refunded, status: 5)),
      S.body(S.notification("REFUND_REVERSED", signed: S.at(10), transaction: restored, status: 1)),
    ])
    #expect(try S.entitlements(files, asOf: S.asOf(7)).states["com.acme.pro.monthly"] == "refunded")
    #expect(try S.entitlements(files, asOf: S.asOf(12)).states["com.acme.pro.monthly"] == "active")
    let (usd, counts) = try S.revenue(files)
    #expect(usd["refunds"] as? String == "0.00")
    #expect(usd["net"] as? String == "9.99")
    #expect(counts["refunds_reversed"] as? Int == 1)
    // The map step writes each document's copy alone; the reduce step gives the one-machine answer.
    var lines = ""
    for file in files.reversed() { lines += InProcessRunner.run(["revenue", "--format", "ledger", file]).stdout }
    let ledger = try InProcessRunner.temporaryFile(Array(lines.utf8), name: "ledger.ndjson")
    let (reduced, _) = try S.run(["revenue", "--from-ledger", ledger])
    let reducedUSD = (reduced["currencies"] as? [[String: Any]])?.first { $0["currency"] as? String == "USD" }
    #expect(reducedUSD?["refunds"] as? String == "0.00")
    #expect((reduced["transactions"] as? [String: Any])?["refunds_reversed"] as? Int == 1)
  }

  /// REFUND_REVERSED whose transaction still carries the revocation: reversed when the notification was signed.
  @Test func refundReversedNotificationReversesAtItsSignedDate() throws {
    let stillRevoked = S.transaction(
      id: "5301", bought: S.at(0), expires: S.at(30), signed: S.at(5),
      extra: ["revocationDate": S.at(4), "revocationType": "REFUND_FULL"])
    let files = try S.files([S.body(S.notification("REFUND_REVERSED", signed: S.at(10), transaction: stillRevoked))])
    #expect(try S.entitlements(files, asOf: S.asOf(7)).states["com.acme.pro.monthly"] == "refunded")
    #expect(try S.entitlements(files, asOf: S.asOf(11)).states["com.acme.pro.monthly"] == "active")
    #expect(try S.revenue(files).usd["refunds"] as? String == "0.00")
  }
}

/// Apple's status is never dropped; upgrades take effect at once.
@Suite struct AppleStatusTruthTests {
  typealias S = NotificationSequence

  /// A Get All Subscription Statuses item whose signed transaction cannot be read: Apple's status is shown.
  @Test func unreadableStatusItemIsShownAndWarned() throws {
    let response =
      #"{"environment":"Sandbox","bundleId":"com.acme","data":[{"subscriptionGroupIdentifier":"G1","#
      + #""lastTransactions":[{"status":1,"originalTransactionId":"9001","signedTransactionInfo":"placeholder"}]}]}"#
    let files = try S.files([Array(response.utf8)])
    let (json, stderr) = try S.run(["entitlements"] + files)
    let unread = try #require(json["apple_statuses_without_transaction"] as? [[String: Any]])
    #expect(unread.first?["original_transaction_id"] as? String == "9001")
    #expect(unread.first?["apple_status"] as? Int == 1)
    #expect(stderr.contains("9001") && stderr.contains("1 (active)"))
    let text = InProcessRunner.run(["entitlements"] + files).stdout
    #expect(!text.contains("holds no non-consumable or subscription purchase"))
    #expect(text.contains("originalTransactionId 9001 is 1 (active)"))
    #expect(
      InProcessRunner.run(["intro-eligibility"] + files).stderr.contains("originalTransactionId 9001 is 1 (active)"))
  }

  /// Apple's own sample response, whose items hold placeholders: status 1 for 3749183 is not dropped.
  @Test func appleStatusesSampleKeepsItsStatuses() throws {
    guard
      let bytes = SignedDataFixtures.bytes(
        SignedDataFixtures.appleDirectory + "getAllSubscriptionStatusesResponse.json")
    else { return }
    let (json, stderr) = try S.run(["entitlements"] + S.files([bytes]))
    let unread = json["apple_statuses_without_transaction"] as? [[String: Any]] ?? []
    #expect(
      unread.contains { $0["original_transaction_id"] as? String == "3749183" && $0["apple_status"] as? Int == 1 })
    #expect(stderr.contains("3749183"))
  }

  /// A renewal notification with data.status 1 and no signedTransactionInfo: the status is kept and warned about,
  /// and decode does not call it a notification about the app.
  @Test func activeStatusWithoutTransactionIsNotDropped() throws {
    let files = try S.files([
      S.body(
        S.notification("DID_RENEW", signed: S.at(3), renewal: S.renewal(original: "9101", signed: S.at(3)), status: 1))
    ])
    let (json, stderr) = try S.run(["entitlements"] + files)
    let unread = json["apple_statuses_without_transaction"] as? [[String: Any]] ?? []
    #expect(unread.first?["apple_status"] as? Int == 1)
    #expect(stderr.contains("9101"))
    let decoded = InProcessRunner.run(["decode"] + files).stdout
    #expect(!decoded.contains("about the app"))
    #expect(decoded.contains("signedTransactionInfo"))
    // Unreadable, with no renewal info to name the subscription: still kept.
    let unreadable = try S.files([S.body(S.notification("DID_RENEW", signed: S.at(3), status: 1, rawTransaction: "x"))])
    let (json2, stderr2) = try S.run(["entitlements"] + unreadable)
    #expect((json2["apple_statuses_without_transaction"] as? [[String: Any]])?.first?["apple_status"] as? Int == 1)
    #expect(stderr2.contains("1 (active)"))
  }

  /// DID_CHANGE_RENEWAL_PREF / UPGRADE: the old plan ends at the upgrade though its copy lacks isUpgraded; one
  /// plan of the group is active, and Apple's status is not said to differ for the old one.
  @Test func upgradeEndsTheOldPlanAtOnce() throws {
    let basic = S.transaction(
      id: "6001", product: "com.acme.basic.monthly", bought: S.at(0), expires: S.at(31), signed: S.at(0))
    let pro = S.transaction(
      id: "6002", original: "6001", product: "com.acme.pro.monthly", bought: S.at(10), expires: S.at(41),
      signed: S.at(10))
    let files = try S.files([
      Array(S.json(basic).utf8),
      S.body(
        S.notification(
          "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", signed: S.at(10), transaction: pro,
          renewal: S.renewal(original: "6001", signed: S.at(10)), status: 1)),
    ])
    let (states, stderr) = try S.entitlements(files, asOf: S.asOf(15))
    #expect(states["com.acme.basic.monthly"] == "upgraded")
    #expect(states["com.acme.pro.monthly"] == "active")
    #expect(!stderr.contains("differs") && !stderr.contains("but Apple's status"))
    // The old copy signed with isUpgraded: still no "Apple's status differs" for the old plan.
    var flagged = basic
    flagged["isUpgraded"] = true
    flagged["signedDate"] = S.at(10)
    let notified = try S.files([
      Array(S.json(flagged).utf8),
      S.body(
        S.notification(
          "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE", signed: S.at(10), transaction: pro,
          renewal: S.renewal(original: "6001", signed: S.at(10)), status: 1)),
    ])
    let flaggedRun = try S.entitlements(notified, asOf: S.asOf(15))
    #expect(flaggedRun.states["com.acme.basic.monthly"] == "upgraded")
    #expect(!flaggedRun.stderr.contains("says upgraded"), "\(flaggedRun.stderr)")
    // The timeline marks the replaced plan upgraded, as the statuses do.
    let lines = [basic, pro].map { SignedDataFixtures.jws(S.json($0)) }.joined(separator: "\n")
    let timeline = InProcessRunner.run(
      ["timeline", "--as-of", S.asOf(15), try InProcessRunner.temporaryFile(Array(lines.utf8), name: "up.jwsl")]
    ).stdout.split(separator: "\n")
    let lane = timeline.firstIndex { $0.hasPrefix("com.acme.basic.monthly") }.map { timeline[$0 + 1] }
    #expect(lane?.contains("^") == true, "\(timeline)")
    // Before the upgrade the old plan was the active one.
    #expect(try S.entitlements(files, asOf: S.asOf(5)).states["com.acme.basic.monthly"] == "active")
    // A downgrade waits for the renewal date: bought at the old expiry, it ends nothing early.
    let downgrade = S.transaction(
      id: "6003", original: "6001", product: "com.acme.lite.monthly", bought: S.at(31), expires: S.at(62),
      signed: S.at(31))
    let later = try S.files([Array(S.json(basic).utf8), Array(S.json(downgrade).utf8)])
    #expect(try S.entitlements(later, asOf: S.asOf(15)).states["com.acme.basic.monthly"] == "active")
  }
}
