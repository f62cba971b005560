import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import Testing

private func at(_ text: String) -> Timestamp { Timestamp.parse(formatted: text) ?? Timestamp.epoch }

private let monthly = "com.acme.pro.monthly"
private let yearly = "com.acme.pro.yearly"
private let proCatalog = Catalog([
  CatalogProduct(productID: monthly, type: .autoRenewable, subscriptionGroup: "21000111", entitlements: ["pro"]),
  CatalogProduct(productID: yearly, type: .autoRenewable, subscriptionGroup: "21000111", entitlements: ["pro"]),
])

private func doc(_ transactions: [PurchaseTransaction], pending: [RenewalState] = []) -> PurchaseHistory {
  var d = PurchaseHistory(format: .handBuilt)
  d.transactions = transactions
  d.renewals = pending
  return d
}

private func pro(_ d: PurchaseHistory, _ time: String, catalog: Catalog = proCatalog) -> EntitlementResult? {
  entitlementStatuses(of: d, catalog: catalog, at: at(time)).first { $0.id == "pro" }
}

/// The headline case: a revoked family copy, and the customer's own later purchase.
private let familyThenOwn = doc([
  PurchaseTransaction(
    transactionID: "2200", productID: yearly, ownership: .familyShared, purchaseDate: at("2023-09-01"),
    expiresDate: at("2024-09-01"), revocation: Revocation(date: at("2024-03-01")), vocabulary: .test),
  PurchaseTransaction(
    transactionID: "3100", productID: yearly, purchaseDate: at("2024-03-02"), expiresDate: at("2025-03-02"),
    vocabulary: .test),
])

@Suite struct AccessGrantTests {
  let sub = PurchaseTransaction(
    transactionID: "1", productID: monthly, purchaseDate: at("2024-05-01"), expiresDate: at("2024-06-01"),
    vocabulary: .test)

  @Test func notYetPurchased() {
    #expect(accessGrant(of: sub, catalog: Catalog(), at: at("2024-04-30")) == .notYetPurchased(at("2024-05-01")))
  }

  @Test func autoRenewableGrantsUntilExpiryExclusive() {
    #expect(
      accessGrant(of: sub, catalog: Catalog(), at: at("2024-05-31T23:59:59Z")) == .grants(until: at("2024-06-01")))
    #expect(accessGrant(of: sub, catalog: Catalog(), at: at("2024-06-01")) == .expired(at("2024-06-01")))
  }

  @Test func cancellationCountsOnlyFromItsMoment() {
    var refunded = sub
    refunded.revocation = Revocation(date: at("2024-05-10"))
    #expect(accessGrant(of: refunded, catalog: Catalog(), at: at("2024-05-09")).grantsAccess)
    #expect(accessGrant(of: refunded, catalog: Catalog(), at: at("2024-05-10")) == .refunded(at("2024-05-10")))
    var revoked = refunded
    revoked.ownership = .familyShared
    #expect(accessGrant(of: revoked, catalog: Catalog(), at: at("2024-05-20")) == .revoked(at("2024-05-10")))
  }

  @Test func upgradedNeverGrants() {
    var t = sub
    t.isUpgraded = true
    #expect(accessGrant(of: t, catalog: Catalog(), at: at("2024-05-15")) == .upgraded)
  }

  @Test func typeUnknownWithoutCatalog() {
    let t = PurchaseTransaction(
      transactionID: "9", productID: "com.acme.lifetime", purchaseDate: at("2023-01-01"), vocabulary: .test)
    #expect(accessGrant(of: t, catalog: Catalog(), at: at("2024-01-01")) == .unknownType)
    let nonConsumable = Catalog([CatalogProduct(productID: "com.acme.lifetime", type: .nonConsumable)])
    #expect(accessGrant(of: t, catalog: nonConsumable, at: at("2024-01-01")) == .grants(until: nil))
    let consumable = Catalog([CatalogProduct(productID: "com.acme.lifetime", type: .consumable)])
    #expect(accessGrant(of: t, catalog: consumable, at: at("2024-01-01")) == .consumable)
  }

  @Test func nonRenewingUsesCatalogDuration() throws {
    let t = PurchaseTransaction(
      transactionID: "5", productID: "com.acme.pass", purchaseDate: at("2024-01-31"), vocabulary: .test)
    let noDuration = Catalog([CatalogProduct(productID: "com.acme.pass", type: .nonRenewing)])
    #expect(accessGrant(of: t, catalog: noDuration, at: at("2024-02-01")) == .unknownDuration)
    let period = try #require(ISOPeriod("P1M"))
    let withDuration = Catalog([CatalogProduct(productID: "com.acme.pass", type: .nonRenewing, duration: period)])
    #expect(accessGrant(of: t, catalog: withDuration, at: at("2024-02-28")) == .grants(until: at("2024-02-29")))
    #expect(accessGrant(of: t, catalog: withDuration, at: at("2024-02-29")) == .durationEnded(at("2024-02-29"), period))
  }

  @Test func autoRenewableInCatalogWithoutExpiresDate() {
    let t = PurchaseTransaction(
      transactionID: "7", productID: monthly, purchaseDate: at("2024-01-01"), vocabulary: .test)
    #expect(accessGrant(of: t, catalog: proCatalog, at: at("2024-01-02")) == .missingExpiresDate)
  }
}

@Suite struct EntitlementStatusTests {
  @Test func familyRevokedButOwnPurchaseKeepsAccess() throws {
    let r = try #require(pro(familyThenOwn, "2024-06-15"))
    #expect(r.state == .active)
    #expect(r.isActive)
    #expect(r.deciding?.transactionID == "3100")
    #expect(
      r.reason
        == "Family Sharing access to com.acme.pro.yearly was revoked on 2024-03-01T00:00:00Z; the customer's own purchase (transaction 3100) keeps it active until 2025-03-02T00:00:00Z."
    )
    #expect(r.considered.map(\.grant.code) == ["revoked", "grants"])
  }

  @Test func sameReceiptBeforeAndAfterRevocation() throws {
    let before = try #require(pro(familyThenOwn, "2024-02-15"))
    #expect(before.state == .active)
    #expect(before.deciding?.ownership == .familyShared)
    // Between the revocation and the own purchase nothing grants: revoked.
    let between = try #require(pro(familyThenOwn, "2024-03-01T12:00:00Z"))
    #expect(between.state == .revoked)
    #expect(!between.isActive)
    #expect(between.deciding?.transactionID == "2200")
  }

  @Test func tiePrefersPurchasedOverFamilyShared() throws {
    let d = doc([
      PurchaseTransaction(
        transactionID: "F", productID: yearly, ownership: .familyShared, purchaseDate: at("2024-01-01"),
        expiresDate: at("2025-01-01"), vocabulary: .test),
      PurchaseTransaction(
        transactionID: "P", productID: monthly, purchaseDate: at("2024-06-01"), expiresDate: at("2025-01-01"),
        vocabulary: .test),
    ])
    #expect(pro(d, "2024-06-15")?.deciding?.transactionID == "P")
  }

  @Test func longestGrantWinsAndNonExpiringFirst() throws {
    let d = doc([
      PurchaseTransaction(
        transactionID: "A", productID: monthly, purchaseDate: at("2024-06-01"), expiresDate: at("2024-07-01"),
        vocabulary: .test),
      PurchaseTransaction(
        transactionID: "B", productID: yearly, ownership: .familyShared, purchaseDate: at("2024-01-01"),
        expiresDate: at("2025-01-01"), vocabulary: .test),
    ])
    #expect(pro(d, "2024-06-15")?.deciding?.transactionID == "B")
    let lifetime = Catalog([CatalogProduct(productID: "com.acme.lifetime", type: .nonConsumable, entitlements: ["pro"])]
    )
    var catalog = proCatalog
    catalog.merge(lifetime)
    var withLifetime = d
    withLifetime.transactions.append(
      PurchaseTransaction(
        transactionID: "L", productID: "com.acme.lifetime", purchaseDate: at("2020-01-01"), vocabulary: .test))
    let r = try #require(pro(withLifetime, "2024-06-15", catalog: catalog))
    #expect(r.deciding?.transactionID == "L")
    #expect(r.expiresDate == nil)
  }

  private let failedRenewal = [
    PurchaseTransaction(
      transactionID: "1", originalTransactionID: "1", productID: monthly, purchaseDate: at("2024-05-10"),
      expiresDate: at("2024-06-10"), vocabulary: .test)
  ]

  @Test func gracePeriodEndingExactlyAtTimeIsOver() throws {
    let d = doc(
      failedRenewal,
      pending: [
        RenewalState(
          originalTransactionID: "1", expirationIntent: ExpirationIntent(code: "2"), isInBillingRetryPeriod: true,
          gracePeriodExpiresDate: at("2024-06-26T00:00:00Z"), vocabulary: .test)
      ])
    let oneSecondBefore = try #require(pro(d, "2024-06-25T23:59:59Z"))
    #expect(oneSecondBefore.state == .gracePeriod)
    #expect(oneSecondBefore.isActive)
    #expect(oneSecondBefore.gracePeriodExpiresDate == at("2024-06-26"))
    let exactly = try #require(pro(d, "2024-06-26T00:00:00Z"))
    #expect(exactly.state == .billingRetry)
    #expect(!exactly.isActive)
    #expect(exactly.reason.contains("the billing grace period ended on 2024-06-26T00:00:00Z"))
  }

  @Test func graceOverWithoutRetryIsExpired() throws {
    let d = doc(
      failedRenewal,
      pending: [
        RenewalState(
          originalTransactionID: "1", expirationIntent: ExpirationIntent(code: "2"), isInBillingRetryPeriod: false,
          gracePeriodExpiresDate: at("2024-06-26"), vocabulary: .test)
      ])
    let r = try #require(pro(d, "2024-06-26T00:00:01Z"))
    #expect(r.state == .expired)
    #expect(r.reason.contains("a billing error"))
  }

  @Test func billingRetry() throws {
    let d = doc(
      failedRenewal,
      pending: [
        RenewalState(
          originalTransactionID: "1", expirationIntent: ExpirationIntent(code: "2"), isInBillingRetryPeriod: true,
          vocabulary: .test)
      ])
    let r = try #require(pro(d, "2024-06-15"))
    #expect(r.state == .billingRetry)
    #expect(!r.isActive)
  }

  @Test func voluntaryExpiry() throws {
    let d = doc(
      failedRenewal,
      pending: [
        RenewalState(
          originalTransactionID: "1", autoRenewStatus: AutoRenewStatus(code: "0"),
          expirationIntent: ExpirationIntent(code: "1"), isInBillingRetryPeriod: false, vocabulary: .test)
      ])
    let r = try #require(pro(d, "2024-06-15"))
    #expect(r.state == .expired)
    #expect(
      r.reason
        == "com.acme.pro.monthly expired on 2024-06-10T00:00:00Z and was not renewed: the customer cancelled the subscription."
    )
  }

  @Test func upgradeToProductOutsideEntitlement() throws {
    let d = doc([
      PurchaseTransaction(
        transactionID: "1", productID: monthly, purchaseDate: at("2024-05-20"), expiresDate: at("2024-06-20"),
        isUpgraded: true, subscriptionGroup: "21000111", vocabulary: .test),
      PurchaseTransaction(
        transactionID: "2", productID: "com.acme.team.monthly", purchaseDate: at("2024-06-01"),
        expiresDate: at("2024-07-01"), subscriptionGroup: "21000111", vocabulary: .test),
    ])
    let r = try #require(pro(d, "2024-06-15"))
    #expect(r.state == .upgraded)
    #expect(r.reason.contains("upgraded to com.acme.team.monthly"))
    let team = entitlementStatuses(of: d, catalog: proCatalog, at: at("2024-06-15")).first {
      $0.id == "com.acme.team.monthly"
    }
    #expect(team?.state == .active)
  }

  @Test func refund() throws {
    let d = doc([
      PurchaseTransaction(
        transactionID: "1", productID: yearly, purchaseDate: at("2024-02-20"), expiresDate: at("2025-02-20"),
        revocation: Revocation(date: at("2024-02-27"), reason: RevocationReason(code: "1")), vocabulary: .test)
    ])
    let r = try #require(pro(d, "2024-06-15"))
    #expect(r.state == .refunded)
    #expect(r.reason.contains("refunded on 2024-02-27T00:00:00Z"))
    #expect(pro(d, "2024-02-26")?.state == .active)
  }

  @Test func preFamilySharingReceiptWithoutOwnership() throws {
    let d = doc([
      PurchaseTransaction(
        transactionID: "1", productID: yearly, ownership: .purchased, ownershipAssumed: true,
        purchaseDate: at("2019-03-15"), expiresDate: at("2020-03-15"), sources: .inApp, vocabulary: .test)
    ])
    let r = try #require(pro(d, "2019-08-01"))
    #expect(r.state == .active)
    #expect(r.reason.contains("no in_app_ownership_type"))
  }

  @Test func unknownProductWithoutCatalog() throws {
    let d = doc([
      PurchaseTransaction(
        transactionID: "1", productID: "com.acme.lifetime", purchaseDate: at("2023-01-01"), vocabulary: .test)
    ])
    let results = entitlementStatuses(of: d, catalog: Catalog(), at: at("2024-01-01"))
    #expect(results.map(\.id) == ["com.acme.lifetime"])
    #expect(results.first?.state == .unknown)
    // The rule names what is missing; only the command line names the option that supplies it
    // (ReceiptCLITests/EntitlementsCommandTests.swift).
    #expect(results.first?.missingKnowledge == .productType)
    #expect(results.first?.reason.contains("--catalog") == false)
  }

  @Test func catalogEntitlementWithoutTransactionIsNotPurchased() throws {
    let r = try #require(pro(doc([]), "2024-01-01"))
    #expect(r.state == .notPurchased)
    #expect(r.deciding == nil)
    #expect(r.reason == "The receipt holds no purchase of com.acme.pro.monthly or com.acme.pro.yearly.")
  }

  /// A purchase after the moment asked about does not exist yet: its date is not revealed either.
  @Test func purchasedAfterTimeIsNotPurchased() throws {
    let r = try #require(pro(familyThenOwn, "2023-01-01"))
    #expect(r.state == .notPurchased)
    #expect(r.considered.isEmpty)
    #expect(!r.reason.contains("2023-09-01"))
  }
}

@Suite struct EntitlementMappingTests {
  @Test func withoutCatalogEachProductIsItsOwnEntitlement() {
    let defs = entitlementDefinitions(for: PurchaseTable(familyThenOwn), catalog: Catalog(), at: at("2030-01-01"))
    #expect(defs == [EntitlementDefinition(id: yearly, productIDs: [yearly])])
  }

  @Test func catalogNamesGroupProductsAndSkipConsumables() {
    var catalog = proCatalog
    catalog.add(CatalogProduct(productID: "com.acme.coins", type: .consumable, entitlements: ["coins"]))
    let d = doc([
      PurchaseTransaction(
        transactionID: "1", productID: "com.acme.coins", purchaseDate: at("2024-01-01"), vocabulary: .test)
    ])
    #expect(
      entitlementDefinitions(for: PurchaseTable(d), catalog: catalog, at: at("2030-01-01")) == [
        EntitlementDefinition(id: "pro", productIDs: [monthly, yearly])
      ])
  }

  /// A product the catalog does not list is its own entitlement after the catalog's, or joins the catalog's
  /// entitlement of its name.
  @Test func anUnlistedProductJoinsTheEntitlementOfItsName() {
    let d = doc([
      PurchaseTransaction(transactionID: "1", productID: "pro", purchaseDate: at("2024-01-01"), vocabulary: .test),
      PurchaseTransaction(transactionID: "2", productID: "extra", purchaseDate: at("2024-01-02"), vocabulary: .test),
    ])
    #expect(
      entitlementDefinitions(for: PurchaseTable(d), catalog: proCatalog, at: at("2030-01-01")) == [
        EntitlementDefinition(id: "pro", productIDs: [monthly, yearly, "pro"]),
        EntitlementDefinition(id: "extra", productIDs: ["extra"]),
      ])
  }
}
