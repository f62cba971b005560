import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// One row of the man page's table of notification types: a hand-made sequence ending in that notification,
/// and what it leaves for access, revenue and introductory-offer eligibility.
struct NotificationTypeRow: CustomTestStringConvertible, Sendable {
  var type: String
  var subtype: String?
  /// The documents, in order: the history before, then the notification.
  var documents: @Sendable () -> [[UInt8]]
  /// The day (after 2025-01-01) asked about.
  var asOf: Int64
  /// The entitlement looked at.
  var product = "com.acme.pro.monthly"
  /// Its state then.
  var state: String
  /// Words its reason must hold, when the type gives the reason.
  var reason: String? = nil
  /// USD gross and refunds; nil when no USD revenue is booked at all.
  var gross: String?
  var refunds: String? = "0.00"
  /// Introductory-offer eligibility of `com.acme.pro.monthly`'s group; nil: unchanged, what the base
  /// subscription alone gives at the same moment.
  var intro: String? = nil

  var key: String { subtype.map { "\(type) \($0)" } ?? type }
  var testDescription: String { key }
}

enum NotificationTypeTable {
  typealias S = NotificationSequence
  static let pro = "com.acme.pro.monthly"

  /// The subscription every row starts from: bought on day 0, paid 9.99, expiring on day 30, no offer.
  static var base: [String: Any] { S.transaction(id: "7000", bought: S.at(0), expires: S.at(30), signed: S.at(0)) }
  static var baseDocument: [UInt8] { Array(S.json(base).utf8) }

  /// The base transaction signed again on `day`, with `changes`.
  static func base(signed day: Int64, _ changes: [String: Any] = [:]) -> [String: Any] {
    var t = base
    t["signedDate"] = S.at(day)
    for (k, v) in changes { t[k] = v }
    return t
  }

  /// The base, then a notification about it signed on `day` with renewal info (`renewal` fields added).
  static func aboutBase(
    _ type: String, _ subtype: String?, day: Int64, transaction: [String: Any] = [:], renewal: [String: Any] = [:],
    status: Int? = nil
  ) -> [[UInt8]] {
    [
      baseDocument,
      S.body(
        S.notification(
          type, subtype: subtype, signed: S.at(day), transaction: base(signed: day, transaction),
          renewal: S.renewal(original: "7000", signed: S.at(day), extra: renewal), status: status)),
    ]
  }

  /// The base, then a notification carrying a new transaction of the chain.
  static func newTransaction(
    _ type: String, _ subtype: String?, id: String, product: String = pro, from: Int64, to: Int64?,
    price: Int64 = 9990, extra: [String: Any] = [:], original: String = "7000"
  ) -> [[UInt8]] {
    let t = S.transaction(
      id: id, original: original, product: product, bought: S.at(from), expires: to.map { S.at($0) },
      signed: S.at(from),
      price: price, extra: extra)
    return [
      baseDocument,
      S.body(
        S.notification(
          type, subtype: subtype, signed: S.at(from), transaction: t,
          renewal: S.renewal(original: original, product: product, signed: S.at(from)), status: 1)),
    ]
  }

  /// A notification without a customer's transaction, after the base.
  static func withoutTransaction(_ payload: [String: Any]) -> [[UInt8]] {
    [baseDocument, S.body(payload)]
  }

  static let rows: [NotificationTypeRow] = [
    NotificationTypeRow(
      type: "SUBSCRIBED", subtype: "INITIAL_BUY",
      documents: {
        let trial = S.transaction(
          id: "7100", bought: S.at(0), expires: S.at(7), signed: S.at(0), price: 0,
          extra: ["offerType": 1, "offerDiscountType": "FREE_TRIAL"])
        return [
          S.body(S.notification("SUBSCRIBED", subtype: "INITIAL_BUY", signed: S.at(0), transaction: trial, status: 1))
        ]
      }, asOf: 10, state: "expired", gross: "0.00", intro: "ineligible"),
    NotificationTypeRow(
      type: "SUBSCRIBED", subtype: "RESUBSCRIBE",
      documents: { newTransaction("SUBSCRIBED", "RESUBSCRIBE", id: "7200", from: 40, to: 70) }, asOf: 45,
      state: "active", gross: "19.98", intro: "ineligible"),
    NotificationTypeRow(
      type: "DID_RENEW", documents: { newTransaction("DID_RENEW", nil, id: "7300", from: 30, to: 60) }, asOf: 35,
      state: "active", gross: "19.98", intro: "ineligible"),
    NotificationTypeRow(
      type: "DID_RENEW", subtype: "BILLING_RECOVERY",
      documents: { newTransaction("DID_RENEW", "BILLING_RECOVERY", id: "7301", from: 35, to: 65) }, asOf: 36,
      state: "active", gross: "19.98", intro: "ineligible"),
    NotificationTypeRow(
      type: "DID_CHANGE_RENEWAL_PREF", subtype: "UPGRADE",
      documents: {
        newTransaction(
          "DID_CHANGE_RENEWAL_PREF", "UPGRADE", id: "7400", product: "com.acme.pro.plus", from: 10, to: 40,
          price: 19990)
      }, asOf: 15, state: "upgraded", gross: "29.98"),
    NotificationTypeRow(
      type: "DID_CHANGE_RENEWAL_PREF", subtype: "DOWNGRADE",
      documents: {
        aboutBase("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", day: 10, renewal: ["autoRenewProductId": "com.acme.pro.lite"])
      }, asOf: 15, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "DID_CHANGE_RENEWAL_PREF",
      documents: { aboutBase("DID_CHANGE_RENEWAL_PREF", nil, day: 12) }, asOf: 15, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED",
      documents: {
        aboutBase("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", day: 10, renewal: ["autoRenewStatus": 0])
      },
      asOf: 15, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED",
      documents: { aboutBase("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", day: 10) }, asOf: 15,
      state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "OFFER_REDEEMED", subtype: "INITIAL_BUY",
      documents: {
        let coded = S.transaction(
          id: "7500", bought: S.at(0), expires: S.at(30), signed: S.at(0), price: 4990,
          extra: ["offerType": 3, "offerIdentifier": "SPRING", "offerDiscountType": "PAY_UP_FRONT"])
        return [
          S.body(
            S.notification("OFFER_REDEEMED", subtype: "INITIAL_BUY", signed: S.at(0), transaction: coded, status: 1))
        ]
      }, asOf: 35, state: "expired", gross: "4.99", intro: "eligible"),
    NotificationTypeRow(
      type: "OFFER_REDEEMED", subtype: "RESUBSCRIBE",
      documents: {
        newTransaction(
          "OFFER_REDEEMED", "RESUBSCRIBE", id: "7501", from: 40, to: 70, price: 4990, extra: ["offerType": 2])
      }, asOf: 45, state: "active", gross: "14.98", intro: "ineligible"),
    NotificationTypeRow(
      type: "OFFER_REDEEMED", subtype: "UPGRADE",
      documents: {
        newTransaction(
          "OFFER_REDEEMED", "UPGRADE", id: "7502", product: "com.acme.pro.plus", from: 10, to: 40, price: 14990,
          extra: ["offerType": 2])
      }, asOf: 15, state: "upgraded", gross: "24.98"),
    NotificationTypeRow(
      type: "OFFER_REDEEMED", subtype: "DOWNGRADE",
      documents: {
        aboutBase(
          "OFFER_REDEEMED", "DOWNGRADE", day: 10,
          renewal: ["autoRenewProductId": "com.acme.pro.lite", "offerType": 2, "offerIdentifier": "LITE"])
      }, asOf: 15, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "OFFER_REDEEMED",
      documents: { aboutBase("OFFER_REDEEMED", nil, day: 10, renewal: ["offerType": 2, "offerIdentifier": "STAY"]) },
      asOf: 15, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "DID_FAIL_TO_RENEW", documents: { aboutBase("DID_FAIL_TO_RENEW", nil, day: 30, status: 3) }, asOf: 31,
      state: "billing_retry", gross: "9.99", intro: "ineligible"),
    NotificationTypeRow(
      type: "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD",
      documents: {
        aboutBase(
          "DID_FAIL_TO_RENEW", "GRACE_PERIOD", day: 30, renewal: ["gracePeriodExpiresDate": S.at(36)], status: 4)
      }, asOf: 31, state: "grace_period", gross: "9.99", intro: "ineligible"),
    NotificationTypeRow(
      type: "GRACE_PERIOD_EXPIRED",
      documents: {
        aboutBase("GRACE_PERIOD_EXPIRED", nil, day: 36, renewal: ["gracePeriodExpiresDate": S.at(36)], status: 3)
      }, asOf: 37, state: "billing_retry", gross: "9.99", intro: "ineligible"),
    NotificationTypeRow(
      type: "EXPIRED", subtype: "VOLUNTARY",
      documents: { aboutBase("EXPIRED", "VOLUNTARY", day: 30, renewal: ["autoRenewStatus": 0], status: 2) }, asOf: 31,
      state: "expired", reason: "the customer cancelled", gross: "9.99"),
    NotificationTypeRow(
      type: "EXPIRED", subtype: "BILLING_RETRY",
      documents: { aboutBase("EXPIRED", "BILLING_RETRY", day: 90, status: 2) }, asOf: 91, state: "expired",
      reason: "billing error", gross: "9.99"),
    NotificationTypeRow(
      type: "EXPIRED", subtype: "PRICE_INCREASE",
      documents: { aboutBase("EXPIRED", "PRICE_INCREASE", day: 30, status: 2) }, asOf: 31, state: "expired",
      reason: "price increase", gross: "9.99"),
    NotificationTypeRow(
      type: "EXPIRED", subtype: "PRODUCT_NOT_FOR_SALE",
      documents: { aboutBase("EXPIRED", "PRODUCT_NOT_FOR_SALE", day: 30, status: 2) }, asOf: 31, state: "expired",
      reason: "not available", gross: "9.99"),
    NotificationTypeRow(
      type: "PRICE_INCREASE", subtype: "PENDING",
      documents: { aboutBase("PRICE_INCREASE", "PENDING", day: 10, renewal: ["priceIncreaseStatus": 0]) }, asOf: 15,
      state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "PRICE_INCREASE", subtype: "ACCEPTED",
      documents: { aboutBase("PRICE_INCREASE", "ACCEPTED", day: 10, renewal: ["priceIncreaseStatus": 1]) }, asOf: 15,
      state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "REFUND",
      documents: {
        aboutBase(
          "REFUND", nil, day: 10,
          transaction: ["revocationDate": S.at(10), "revocationReason": 0, "revocationType": "REFUND_FULL"], status: 5)
      }, asOf: 12, state: "refunded", gross: "9.99", refunds: "9.99", intro: "eligible"),
    NotificationTypeRow(
      type: "REFUND_DECLINED", documents: { aboutBase("REFUND_DECLINED", nil, day: 10) }, asOf: 12, state: "active",
      gross: "9.99"),
    NotificationTypeRow(
      type: "REFUND_REVERSED",
      documents: {
        aboutBase("REFUND", nil, day: 10, transaction: ["revocationDate": S.at(10), "revocationType": "REFUND_FULL"])
          + [
            S.body(
              S.notification(
                "REFUND_REVERSED", signed: S.at(12), transaction: base(signed: 12), status: 1))
          ]
      }, asOf: 15, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "CONSUMPTION_REQUEST",
      documents: { aboutBase("CONSUMPTION_REQUEST", nil, day: 10) }, asOf: 12, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "RENEWAL_EXTENDED",
      documents: { aboutBase("RENEWAL_EXTENDED", nil, day: 20, transaction: ["expiresDate": S.at(40)], status: 1) },
      asOf: 35, state: "active", gross: "9.99", intro: "ineligible"),
    NotificationTypeRow(
      type: "RENEWAL_EXTENSION", subtype: "SUMMARY",
      documents: {
        withoutTransaction([
          "notificationType": "RENEWAL_EXTENSION", "subtype": "SUMMARY", "notificationUUID": "u", "version": "2.0",
          "signedDate": S.at(20),
          "summary": [
            "requestIdentifier": "r", "environment": "Sandbox", "appAppleId": 1, "bundleId": "com.acme",
            "productId": pro, "storefrontCountryCodes": ["USA"], "failedCount": 0, "succeededCount": 1,
          ],
        ])
      }, asOf: 35, state: "expired", gross: "9.99"),
    NotificationTypeRow(
      type: "RENEWAL_EXTENSION", subtype: "FAILURE",
      documents: { aboutBase("RENEWAL_EXTENSION", "FAILURE", day: 20) }, asOf: 35, state: "expired", gross: "9.99"),
    NotificationTypeRow(
      // Hand-written Family Sharing fixture: a FAMILY_SHARED copy revoked from the family (FAMILY_REVOKE).
      type: "REVOKE",
      documents: {
        let shared = S.transaction(
          id: "7600", product: "com.acme.family.monthly", group: "G2", bought: S.at(0), expires: S.at(30),
          signed: S.at(10),
          extra: [
            "inAppOwnershipType": "FAMILY_SHARED", "revocationDate": S.at(10), "revocationReason": 0,
            "revocationType": "FAMILY_REVOKE",
          ])
        return [baseDocument, S.body(S.notification("REVOKE", signed: S.at(10), transaction: shared, status: 5))]
      }, asOf: 12, product: "com.acme.family.monthly", state: "revoked", gross: "9.99"),
    NotificationTypeRow(
      type: "ONE_TIME_CHARGE",
      documents: {
        let lifetime = S.transaction(
          id: "7700", product: "com.acme.lifetime", group: nil, bought: S.at(2), signed: S.at(2),
          type: "Non-Consumable",
          price: 49990)
        return [baseDocument, S.body(S.notification("ONE_TIME_CHARGE", signed: S.at(2), transaction: lifetime))]
      }, asOf: 5, product: "com.acme.lifetime", state: "active", gross: "59.98"),
    NotificationTypeRow(
      type: "TEST",
      documents: {
        withoutTransaction([
          "notificationType": "TEST", "notificationUUID": "u", "version": "2.0", "signedDate": S.at(5),
          "data": ["bundleId": "com.acme", "environment": "Sandbox"],
        ])
      }, asOf: 5, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "EXTERNAL_PURCHASE_TOKEN", subtype: "UNREPORTED", documents: { externalToken("UNREPORTED") }, asOf: 5,
      state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "EXTERNAL_PURCHASE_TOKEN", subtype: "CREATED", documents: { externalToken("CREATED") }, asOf: 5,
      state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "EXTERNAL_PURCHASE_TOKEN", subtype: "ACTIVE_TOKEN_REMINDER",
      documents: { externalToken("ACTIVE_TOKEN_REMINDER") }, asOf: 5, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "METADATA_UPDATE", documents: { aboutBase("METADATA_UPDATE", nil, day: 10) }, asOf: 12, state: "active",
      gross: "9.99"),
    NotificationTypeRow(
      type: "MIGRATION", documents: { aboutBase("MIGRATION", nil, day: 10) }, asOf: 12, state: "active", gross: "9.99"),
    NotificationTypeRow(
      type: "PRICE_CHANGE", documents: { aboutBase("PRICE_CHANGE", nil, day: 10) }, asOf: 12, state: "active",
      gross: "9.99"),
    NotificationTypeRow(
      type: "RESCIND_CONSENT",
      documents: {
        withoutTransaction([
          "notificationType": "RESCIND_CONSENT", "notificationUUID": "u", "version": "2.0", "signedDate": S.at(5),
          "appData": [
            "appAppleId": 1, "bundleId": "com.acme", "environment": "Sandbox",
            "signedAppTransactionInfo": "signed_app_transaction_info_value",
          ],
        ])
      }, asOf: 5, state: "active", gross: "9.99"),
  ]

  static func externalToken(_ subtype: String) -> [[UInt8]] {
    withoutTransaction([
      "notificationType": "EXTERNAL_PURCHASE_TOKEN", "subtype": subtype, "notificationUUID": "u", "version": "2.0",
      "signedDate": S.at(5),
      "externalPurchaseToken": [
        "externalPurchaseId": "e", "tokenCreationDate": S.at(5), "appAppleId": 1, "bundleId": "com.acme",
      ],
    ])
  }

  /// The `.It` keys of the man page's notification table (`TYPE` or `TYPE SUBTYPE`).
  static func manPageKeys() throws -> [String] {
    let text = try String(contentsOf: TestPaths.manPage, encoding: .utf8)
    guard let start = text.range(of: ".Ss Notifications V2: what each type changes\n"),
      let end = text.range(of: ".El\n", range: start.upperBound..<text.endIndex)
    else { return [] }
    return text[start.upperBound..<end.lowerBound].split(separator: "\n").compactMap { line in
      guard line.hasPrefix(".It Li ") else { return nil }
      return line.dropFirst(7).replacingOccurrences(of: " Li ", with: " ").split(separator: " ").prefix(2).joined(
        separator: " ")
    }
  }
}

/// Every notificationType and subtype in Apple's documentation, each with the effect the man page gives it.
@Suite struct NotificationTypeTableTests {
  typealias S = NotificationSequence

  @Test(arguments: NotificationTypeTable.rows)
  func rowHasItsEffect(_ row: NotificationTypeRow) throws {
    let files = try S.files(row.documents())
    let asOf = S.asOf(row.asOf)
    let (json, _) = try S.run(["entitlements", "--one-customer", "--as-of", asOf] + files)
    let entitlement = (json["entitlements"] as? [[String: Any]])?.first { $0["id"] as? String == row.product }
    #expect(entitlement?["status"] as? String == row.state, "\(row.key): access")
    if let words = row.reason {
      #expect((entitlement?["reason"] as? String)?.contains(words) == true, "\(row.key): reason")
    }
    let (revenue, _) = try S.run(["revenue"] + files)
    let usd = (revenue["currencies"] as? [[String: Any]])?.first { $0["currency"] as? String == "USD" }
    #expect(usd?["gross"] as? String == row.gross, "\(row.key): gross")
    #expect(usd?["refunds"] as? String == row.refunds, "\(row.key): refunds")
    let expected =
      try row.intro ?? introStatus([InProcessRunner.temporaryFile(NotificationTypeTable.baseDocument)], asOf)
    let got = try introStatus(files, asOf)
    #expect(
      got == expected,
      "\(row.key): intro eligibility \(String(describing: got)) expected \(String(describing: expected))")
  }

  func introStatus(_ files: [String], _ asOf: String) throws -> String? {
    let (intro, _) = try S.run(["intro-eligibility", "--one-customer", "--as-of", asOf] + files)
    let products = intro["products"] as? [[String: Any]] ?? []
    return products.first { $0["product_id"] as? String == NotificationTypeTable.pro }?["status"] as? String
  }

  /// The man page's table lists every type and subtype the tool knows, and every listed row is tested here.
  @Test func manPageTableMatchesTheRows() throws {
    let keys = try NotificationTypeTable.manPageKeys()
    #expect(Set(keys) == Set(NotificationTypeTable.rows.map(\.key)))
    let text = keys.joined(separator: " ")
    for type in NotificationTypeV2.allCases {
      #expect(keys.contains { $0 == type.rawValue || $0.hasPrefix(type.rawValue + " ") }, "\(type.rawValue)")
    }
    for subtype in NotificationSubtype.allCases {
      #expect(text.contains(" " + subtype.rawValue), "\(subtype.rawValue)")
    }
    // Every pair is Apple's: a row may not name a type or subtype Apple does not document.
    for row in NotificationTypeTable.rows {
      #expect(NotificationTypeV2(rawValue: row.type) != nil, "\(row.key): type")
      if let subtype = row.subtype { #expect(NotificationSubtype(rawValue: subtype) != nil, "\(row.key): subtype") }
    }
  }

  /// A type or subtype the tool does not know is carried, named in a warning, and its transaction still counts.
  @Test func unknownTypeIsCarriedAndNamed() throws {
    let t = S.transaction(id: "7800", bought: S.at(0), expires: S.at(30), signed: S.at(1))
    let files = try S.files([
      S.body(S.notification("SOMETHING_NEW", subtype: "ALSO_NEW", signed: S.at(1), transaction: t, status: 1))
    ])
    let decoded = InProcessRunner.run(["decode"] + files)
    #expect(decoded.stdout.contains("SOMETHING_NEW") && decoded.stdout.contains("ALSO_NEW"))
    let entitlements = InProcessRunner.run(["entitlements", "--as-of", S.asOf(5)] + files)
    #expect(entitlements.stderr.contains("SOMETHING_NEW"), "\(entitlements.stderr)")
    #expect(entitlements.stdout.contains("active"))
    let revenue = InProcessRunner.run(["revenue"] + files)
    #expect(revenue.stderr.contains("SOMETHING_NEW") && revenue.stdout.contains("9.99"), "\(revenue.stderr)")
    #expect(InProcessRunner.run(["intro-eligibility"] + files).stderr.contains("ALSO_NEW"))
  }
}
