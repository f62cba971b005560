import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? Timestamp.epoch }

/// The paid-app terms of a catalog whose app went free at build 42 (iOS: CFBundleVersion) on 2024-03-01.
private func terms(version: String? = "42", date: String? = "2024-03-01T00:00:00Z") -> PaidAppTerms {
  PaidAppTerms(
    entitlement: "pro", beforeVersion: version.flatMap(AppVersion.init),
    versionKind: version == nil ? nil : .bundleVersion,
    beforeDate: date.map(at))
}

/// A history as an AppTransaction gives it (Apple's AppTransaction model: `originalApplicationVersion`,
/// `originalPurchaseDate`, `receiptType`), with no transactions unless given.
private func appTransaction(
  version: String?, bought: String?, receiptType: String? = "Production", platform: String? = nil,
  transactions: [PurchaseTransaction] = []
) -> PurchaseHistory {
  var history = PurchaseHistory(format: FormatIdentity(name: "signed_jws", description: "signed JWS: app transaction"))
  var info = ReceiptInfo()
  info.bundleID = "com.acme.notes"
  info.originalApplicationVersion = version
  info.originalPurchaseDate = bought.map(at)
  info.receiptType = receiptType
  info.originalPlatform = platform
  history.provenance.receipt = info
  history.environment = receiptType
  history.transactions = transactions
  return history
}

private func catalog(_ terms: PaidAppTerms, products: [CatalogProduct] = []) -> Catalog {
  var c = Catalog(products)
  c.paidApp = terms
  return c
}

private func pro(_ history: PurchaseHistory, _ terms: PaidAppTerms, at time: String, products: [CatalogProduct] = [])
  -> EntitlementResult?
{
  answerEntitlements(of: history, catalog: catalog(terms, products: products), at: at(time)).results.first {
    $0.id == "pro"
  }
}

@Suite struct AppVersionTests {
  @Test func comparesComponentsAsNumbers() throws {
    let v = { (s: String) throws -> AppVersion in try #require(AppVersion(s)) }
    #expect(try v("1.9").isEarlier(than: v("1.10")))
    #expect(try !v("1.10").isEarlier(than: v("1.9")))
    #expect(try v("37").isEarlier(than: v("42")))
    #expect(try v("9").isEarlier(than: v("10")))
    // A missing component is 0, and leading zeros do not count.
    #expect(try !v("1.0").isEarlier(than: v("1")))
    #expect(try !v("1").isEarlier(than: v("1.0.0")))
    #expect(try !v("01.2").isEarlier(than: v("1.2")))
    #expect(try v("1.2").isEarlier(than: v("1.2.1")))
    // Past any integer's range, still by value.
    #expect(try v("99999999999999999999998").isEarlier(than: v("99999999999999999999999")))
  }

  @Test func refusesWhatIsNotNumbers() {
    for text in ["", "1.", ".1", "1..2", "1.0b3", "v2", "1,2", "-1", "١٢"] {
      #expect(AppVersion(text) == nil, "\(text)")
    }
  }
}

@Suite struct PaidAppGrantTests {
  @Test func boughtBeforeTheFreeVersionIsActiveForever() throws {
    let r = try #require(pro(appTransaction(version: "37", bought: "2023-05-02T10:00:00Z"), terms(), at: "2025-01-01"))
    #expect(r.state == .active)
    #expect(r.expiresDate == nil && r.deciding == nil)
    #expect(
      r.reason
        == "The customer bought the app at version 37 (originalApplicationVersion, CFBundleVersion) on 2023-05-02T10:00:00Z (originalPurchaseDate), before version 42 went free; the catalog's paid_app grants pro, which does not expire."
    )
  }

  @Test func boughtAtOrAfterTheFreeVersionAndDateIsNotGranted() throws {
    for version in ["42", "42.0", "43"] {
      let r = try #require(pro(appTransaction(version: version, bought: "2024-05-01"), terms(), at: "2025-01-01"))
      #expect(r.state == .notPurchased, "\(version)")
      #expect(r.reason.hasPrefix("The receipt holds no purchase of pro. The customer bought the app at version"))
      #expect(
        r.reason.hasSuffix(
          "(originalApplicationVersion, CFBundleVersion) on 2024-05-01T00:00:00Z (originalPurchaseDate), not before version 42 or before 2024-03-01T00:00:00Z, so the catalog's paid_app does not grant pro."
        ))
    }
  }

  @Test func versionsCompareByComponentNotText() throws {
    let short = PaidAppTerms(entitlement: "pro", beforeVersion: AppVersion("1.10"), versionKind: .shortVersion)
    let before = try #require(pro(appTransaction(version: "1.9", bought: "2024-05-01"), short, at: "2025-01-01"))
    #expect(before.state == .active)
    #expect(before.reason.contains("(originalApplicationVersion, CFBundleShortVersionString)"))
    let after = try #require(pro(appTransaction(version: "1.10.1", bought: "2024-05-01"), short, at: "2025-01-01"))
    #expect(after.state == .notPurchased)
  }

  @Test func theDateAloneDecides() throws {
    let dateOnly = terms(version: nil)
    let r = try #require(pro(appTransaction(version: "99", bought: "2024-02-29T23:59:59Z"), dateOnly, at: "2025-01-01"))
    #expect(r.state == .active)
    #expect(r.reason.contains("before it went free on 2024-03-01T00:00:00Z"))
    let onTheDay = try #require(pro(appTransaction(version: "1", bought: "2024-03-01"), dateOnly, at: "2025-01-01"))
    #expect(onTheDay.state == .notPurchased)
  }

  @Test func aVersionThatIsNotNumbersIsNeverGuessed() throws {
    let r = try #require(pro(appTransaction(version: "1.0b3", bought: "2024-05-01"), terms(), at: "2025-01-01"))
    #expect(r.state == .unknown)
    #expect(
      r.reason.contains("originalApplicationVersion \"1.0b3\" (CFBundleVersion) is not dot-separated whole numbers"))
    // The date still grants when it is before.
    let early = try #require(pro(appTransaction(version: "1.0b3", bought: "2023-01-01"), terms(), at: "2025-01-01"))
    #expect(early.state == .active)
  }

  /// On macOS the version is CFBundleShortVersionString, elsewhere CFBundleVersion (§2 [S3]): a catalog of the other
  /// kind is never compared; the date still decides.
  @Test func aVersionOfAnotherKindThanThePlatformsIsNeverCompared() throws {
    let onMac = try #require(
      pro(appTransaction(version: "7", bought: "2024-05-01", platform: "macOS"), terms(), at: "2025-01-01"))
    #expect(onMac.state == .unknown)
    #expect(
      onMac.reason.contains(
        "on macOS (originalPlatform) originalApplicationVersion is CFBundleShortVersionString, and the catalog's version_kind is CFBundleVersion"
      ))
    let early = try #require(
      pro(appTransaction(version: "7", bought: "2023-01-01", platform: "macOS"), terms(), at: "2025-01-01"))
    #expect(early.state == .active)
    #expect(early.reason.contains("before it went free on 2024-03-01T00:00:00Z"))
    for platform in ["iOS", "tvOS", "visionOS"] {
      let r = try #require(
        pro(appTransaction(version: "7", bought: "2024-05-01", platform: platform), terms(), at: "2025-01-01"))
      #expect(r.state == .active, "\(platform)")
    }
    let unknownPlatform = try #require(
      pro(appTransaction(version: "7", bought: "2024-05-01", platform: "carOS"), terms(), at: "2025-01-01"))
    #expect(unknownPlatform.state == .unknown)
    #expect(unknownPlatform.reason.contains("originalPlatform \"carOS\" is not a platform Apple documents"))
  }

  @Test func theSandboxVersionDecidesNothing() throws {
    for type in ["Sandbox", "Xcode"] {
      let r = try #require(
        pro(appTransaction(version: "1.0", bought: "2023-01-01", receiptType: type), terms(), at: "2025-01-01"))
      #expect(r.state == .unknown, "\(type)")
      #expect(
        r.reason.contains(
          "in \(type) (receiptType) Apple states originalApplicationVersion as \"1.0\" whatever version was bought"))
    }
    // A verifyReceipt sandbox receipt, in its own field names.
    var receipt = appTransaction(version: "1.0", bought: "2013-08-01T07:00:00Z", receiptType: "ProductionSandbox")
    receipt.provenance.format = .handBuilt
    let r = try #require(pro(receipt, terms(), at: "2025-01-01"))
    #expect(r.state == .unknown)
    #expect(r.reason.contains("in ProductionSandbox (receipt_type) Apple states original_application_version as"))
  }

  @Test func noReceiptFactsCannotDecide() throws {
    var history = PurchaseHistory(format: .handBuilt)
    history.transactions = []
    let r = try #require(pro(history, terms(), at: "2025-01-01"))
    #expect(r.state == .unknown)
    #expect(
      r.reason
        == "Whether the customer bought the app before version 42 or before 2024-03-01T00:00:00Z (the catalog's paid_app) cannot be told: the document (hand-built test history) holds no app receipt facts (original_application_version, original_purchase_date); an AppTransaction or the app receipt has them."
    )
  }

  @Test func aPurchaseAfterTheMomentIsNotKnownThen() throws {
    let history = appTransaction(version: "37", bought: "2023-05-02T10:00:00Z")
    let r = try #require(pro(history, terms(), at: "2023-05-01"))
    #expect(r.state == .notPurchased)
    #expect(r.reason.contains("after the moment asked about, so the paid-app grant of pro does not hold yet"))
    #expect(try #require(pro(history, terms(), at: "2023-05-02T10:00:00Z")).state == .active)
  }

  @Test func aProductGrantAndThePaidAppGrant() throws {
    let lifetime = CatalogProduct(productID: "com.acme.pro.lifetime", type: .nonConsumable, entitlements: ["pro"])
    let monthly = CatalogProduct(productID: "com.acme.pro.monthly", type: .autoRenewable, entitlements: ["pro"])
    let own = PurchaseTransaction(
      transactionID: "10", productID: "com.acme.pro.lifetime", purchaseDate: at("2024-06-01"), vocabulary: .test)
    let sub = PurchaseTransaction(
      transactionID: "20", productID: "com.acme.pro.monthly", purchaseDate: at("2024-12-15"),
      expiresDate: at("2025-01-15"), vocabulary: .test)
    // A product's grant that does not expire is reported, the paid-app grant beside it.
    let both = appTransaction(version: "37", bought: "2023-05-02", transactions: [own])
    let r1 = try #require(pro(both, terms(), at: "2025-01-01", products: [lifetime, monthly]))
    #expect(r1.state == .active && r1.deciding?.transactionID == "10")
    #expect(r1.reason.contains("The paid-app grant also holds: the customer bought the app at version 37"))
    // A subscription ends; the paid-app grant does not, so it decides, and the products' answer is said.
    let subscribed = appTransaction(version: "37", bought: "2023-05-02", transactions: [sub])
    let r2 = try #require(pro(subscribed, terms(), at: "2025-01-01", products: [lifetime, monthly]))
    #expect(r2.state == .active && r2.deciding == nil && r2.expiresDate == nil)
    #expect(r2.reason.contains("which does not expire. Its products alone: "))
    #expect(r2.reason.contains("keeps it active until 2025-01-15"))
    // An expired subscription, the paid-app grant undecided: unknown, not expired.
    let sandbox = appTransaction(version: "1.0", bought: "2023-05-02", receiptType: "Sandbox", transactions: [sub])
    let r3 = try #require(pro(sandbox, terms(), at: "2025-02-01", products: [lifetime, monthly]))
    #expect(r3.state == .unknown && r3.deciding?.transactionID == "20")
    #expect(r3.reason.contains("Its products alone: com.acme.pro.monthly expired on"))
    // ...and an active subscription stays active, the paid-app question said.
    let r4 = try #require(pro(sandbox, terms(), at: "2025-01-01", products: [lifetime, monthly]))
    #expect(r4.state == .active && r4.expiresDate == at("2025-01-15"))
    #expect(r4.reason.contains("cannot be told: in Sandbox"))
  }

  @Test func applesStatusIsComparedWithTheProductsAnswer() throws {
    let monthly = CatalogProduct(productID: "com.acme.pro.monthly", type: .autoRenewable, entitlements: ["pro"])
    let sub = PurchaseTransaction(
      transactionID: "20", originalTransactionID: "20", productID: "com.acme.pro.monthly",
      purchaseDate: at("2024-12-15"), expiresDate: at("2025-01-15"), vocabulary: .test)
    var renewal = RenewalState(productID: "com.acme.pro.monthly", originalTransactionID: "20", vocabulary: .test)
    renewal.storeStatus = StoreSubscriptionStatus(code: 2, asOf: at("2025-02-01"))
    for (version, state) in [("1.0", EntitlementState.unknown), ("37", .active)] {
      var history = appTransaction(
        version: version, bought: "2023-05-02", receiptType: version == "1.0" ? "Sandbox" : "Production",
        transactions: [sub])
      history.renewals = [renewal]
      let answer = answerEntitlements(of: history, catalog: catalog(terms(), products: [monthly]), at: at("2025-02-01"))
      #expect(answer.results.map(\.state) == [state])
      // Apple's "expired" is the subscription's, which the products alone decide: it agrees, no finding.
      #expect(answer.appleStatuses.map { $0?.agrees } == [true], "\(version)")
      #expect(answer.findings.isEmpty, "\(answer.findings)")
    }
  }

  @Test func thePaidAppEntitlementComesAfterTheCatalogsOwn() throws {
    let photos = CatalogProduct(productID: "com.acme.photos", type: .nonConsumable, entitlements: ["photos"])
    let other = PurchaseTransaction(
      transactionID: "30", productID: "com.acme.stickers", purchaseDate: at("2024-06-01"), vocabulary: .test)
    let history = appTransaction(version: "37", bought: "2023-05-02", transactions: [other])
    let answer = answerEntitlements(of: history, catalog: catalog(terms(), products: [photos]), at: at("2025-01-01"))
    #expect(answer.results.map(\.id) == ["photos", "pro", "com.acme.stickers"])
    #expect(answer.paidApp.map { if case .granted = $0 { true } else { false } } == true)
    // Without paid_app nothing changes.
    let plain = answerEntitlements(of: history, catalog: Catalog([photos]), at: at("2025-01-01"))
    #expect(plain.results.map(\.id) == ["photos", "com.acme.stickers"])
    #expect(plain.paidApp == nil)
  }
}
