import ReceiptModel

/// The JSON catalog's `paid_app`: an entitlement for customers who bought the app before it went free, before a
/// version or a date (at least one).
public struct PaidAppTerms: Hashable, Sendable {
  /// Which of the app's versions `original_application_version` is: Apple states CFBundleVersion (the build
  /// number) on iOS and CFBundleShortVersionString on macOS (§2 [S3]).
  public enum VersionKind: String, Hashable, Sendable, CaseIterable {
    case bundleVersion = "CFBundleVersion"
    case shortVersion = "CFBundleShortVersionString"
  }

  /// The entitlement granted (`entitlement`).
  public var entitlement: String
  /// The first free version (`before_version`): a customer who bought an earlier one keeps the entitlement.
  public var beforeVersion: AppVersion?
  /// Which version `beforeVersion` and the data's version are (`version_kind`); set whenever `beforeVersion` is.
  public var versionKind: VersionKind?
  /// The moment the app went free (`before_date`): a customer who bought it earlier keeps the entitlement.
  public var beforeDate: Timestamp?

  /// - Parameters:
  ///   - entitlement: The entitlement granted.
  ///   - beforeVersion: The first free version.
  ///   - versionKind: Which version it is.
  ///   - beforeDate: The moment the app went free.
  public init(
    entitlement: String, beforeVersion: AppVersion? = nil, versionKind: VersionKind? = nil, beforeDate: Timestamp? = nil
  ) {
    self.entitlement = entitlement
    self.beforeVersion = beforeVersion
    self.versionKind = versionKind
    self.beforeDate = beforeDate
  }

  /// "version 42 or before 2024-03-01T00:00:00Z", as a reason quotes the terms after "before".
  var phrase: String {
    var parts: [String] = []
    if let v = beforeVersion { parts.append("version \(v.text)") }
    if let d = beforeDate { parts.append(d.iso8601) }
    return parts.joined(separator: " or before ")
  }
}

/// An app version as dot-separated whole numbers (`1.10`, `42`), compared component by component, a missing
/// component counting as 0 (`1.0` equals `1`); any other text is no version and compares with nothing.
public struct AppVersion: Hashable, Sendable {
  /// The version as written.
  public var text: String
  /// Each component's digits, leading zeros dropped ("" for 0), so that any length compares without overflow.
  let components: [Substring]

  /// Reads `text`; nil when a component is empty or not all ASCII digits.
  public init?(_ text: String) {
    var parts: [Substring] = []
    for part in text.split(separator: ".", omittingEmptySubsequences: false) {
      guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
        return nil
      }
      parts.append(part.drop { $0 == "0" })
    }
    self.text = text
    components = parts
  }

  /// Whether `self` is an earlier version than `other`.
  func isEarlier(than other: AppVersion) -> Bool {
    for i in 0..<max(components.count, other.components.count) {
      let a = i < components.count ? components[i] : ""
      let b = i < other.components.count ? other.components[i] : ""
      if a == b { continue }
      return a.count != b.count ? a.count < b.count : a < b
    }
    return false
  }
}

/// Whether the customer's purchase of the app grants the paid-app entitlement at a moment.
public enum PaidAppDecision: Hashable, Sendable {
  /// Bought before the app went free: the entitlement is active and does not expire.
  case granted(String)
  /// Bought when or after the app went free, or not bought by the moment asked about.
  case notGranted(String)
  /// The data cannot tell (no app receipt facts, the sandbox's fixed version, a version that is not numbers).
  case undecided(String)

  /// The sentence a support person reads out.
  public var reason: String {
    switch self {
    case .granted(let s), .notGranted(let s), .undecided(let s): s
    }
  }
}

/// Decides the paid-app grant at `time` from the app's original purchase: granted when the customer bought the app
/// before `terms.beforeVersion` (`original_application_version` < it) or before `terms.beforeDate`
/// (`original_purchase_date` < it), as known at `time` (an original purchase after `time` is not known then).
/// In Apple's test environments neither decides (§2 [S3][S40], §9.2): the version is always "1.0", and the date a
/// test value (verifyReceipt's sandbox receipts state 2013-08-01, Xcode year 1), so the answer there is undecided.
/// - Parameters:
///   - terms: the catalog's `paid_app`.
///   - history: the document: its app receipt facts (`provenance.receipt`) and environment.
///   - time: the moment asked about.
/// - Returns: the decision, with its reason in the data's own field names.
public func paidAppDecision(_ terms: PaidAppTerms, history: PurchaseHistory, at time: Timestamp) -> PaidAppDecision {
  let intro = "Whether the customer bought the app before \(terms.phrase) (the catalog's paid_app) cannot be told"
  let names = AppFieldNames(history.provenance.format)
  guard let receipt = history.provenance.receipt,
    receipt.originalApplicationVersion != nil || receipt.originalPurchaseDate != nil
  else {
    return .undecided(
      "\(intro): the document (\(history.provenance.format.description)) holds no app receipt facts (\(names.version), \(names.date)); an AppTransaction or the app receipt has them."
    )
  }
  let stated = receipt.receiptType.map { ($0, names.receiptType) } ?? history.environment.map { ($0, "environment") }
  if let (environment, field) = stated, isTestEnvironment(environment) {
    return .undecided(
      "\(intro): in \(environment) (\(field)) Apple states \(names.version) as \"1.0\" whatever version was bought, and \(names.date) is a test value, so neither tells."
    )
  }
  let bought = receipt.originalPurchaseDate
  let when = bought.map { " on \($0.iso8601) (\(names.date))" } ?? ""
  if let bought, bought > time {
    return .notGranted(
      "The customer bought the app on \(bought.iso8601) (\(names.date)), after the moment asked about, so the paid-app grant of \(terms.entitlement) does not hold yet."
    )
  }
  var unknown: [String] = []
  var boughtAt = ""
  if let before = terms.beforeVersion, let kind = terms.versionKind {
    if let platform = receipt.originalPlatform, let mismatch = versionKindMismatch(platform, kind, names.version) {
      unknown.append(mismatch)
    } else if let stated = receipt.originalApplicationVersion {
      if let version = AppVersion(stated) {
        if version.isEarlier(than: before) {
          return .granted(
            "The customer bought the app at version \(stated) (\(names.version), \(kind.rawValue))\(when), before version \(before.text) went free; the catalog's paid_app grants \(terms.entitlement), which does not expire."
          )
        }
        boughtAt = " at version \(stated) (\(names.version), \(kind.rawValue))"
      } else {
        unknown.append(
          "\(names.version) \(Excerpt.quoted(stated)) (\(kind.rawValue)) is not dot-separated whole numbers, so it cannot be compared with version \(before.text)"
        )
      }
    } else {
      unknown.append("the data states no \(names.version) to compare with version \(before.text)")
    }
  }
  if let before = terms.beforeDate {
    if let bought {
      if bought < before {
        return .granted(
          "The customer bought the app on \(bought.iso8601) (\(names.date)), before it went free on \(before.iso8601); the catalog's paid_app grants \(terms.entitlement), which does not expire."
        )
      }
    } else {
      unknown.append("the data states no \(names.date) to compare with \(before.iso8601)")
    }
  }
  guard unknown.isEmpty else { return .undecided(intro + ": " + unknown.joined(separator: "; ") + ".") }
  return .notGranted(
    "The customer bought the app\(boughtAt)\(when), not before \(terms.phrase), so the catalog's paid_app does not grant \(terms.entitlement)."
  )
}

/// Why `originalPlatform` (AppStore.Platform: iOS, macOS, tvOS, visionOS) keeps the version from being compared
/// with the catalog's: on macOS the original
/// application version is CFBundleShortVersionString, on Apple's other platforms CFBundleVersion (§2 [S3]), so a
/// catalog of the other kind compares two different numbers; a platform Apple does not document leaves the kind
/// unknown. nil when the two agree. A receipt states no platform: there the catalog's `version_kind` is taken.
func versionKindMismatch(_ platform: String, _ kind: PaidAppTerms.VersionKind, _ versionField: String) -> String? {
  let stated: PaidAppTerms.VersionKind
  switch platform {
  case "macOS": stated = .shortVersion
  case "iOS", "tvOS", "visionOS": stated = .bundleVersion
  default:
    return
      "originalPlatform \(Excerpt.quoted(platform)) is not a platform Apple documents, so which version \(versionField) is cannot be told"
  }
  guard stated != kind else { return nil }
  return
    "on \(platform) (originalPlatform) \(versionField) is \(stated.rawValue), and the catalog's version_kind is \(kind.rawValue), so the two cannot be compared"
}

/// Apple's test environments (`Sandbox`, `ProductionSandbox`, `ProductionVPPSandbox`, `Xcode`, `LocalTesting`),
/// where `original_application_version` is always "1.0".
func isTestEnvironment(_ environment: String) -> Bool {
  let name = environment.lowercased()
  return name.hasSuffix("sandbox") || name == "xcode" || name == "localtesting"
}

/// The app receipt fields as the document names them: an AppTransaction (signed data) in camelCase, a receipt in
/// snake_case.
struct AppFieldNames {
  var version = "original_application_version"
  var date = "original_purchase_date"
  var receiptType = "receipt_type"

  init(_ format: FormatIdentity) {
    let receipts: Set<String> = ["app_receipt", "verify_receipt_response", "receipt", "hand_built"]
    guard !receipts.contains(format.name), !format.name.hasPrefix("notification_v1") else { return }
    (version, date, receiptType) = ("originalApplicationVersion", "originalPurchaseDate", "receiptType")
  }
}

/// The entitlement results with the paid-app decision joined to the result of its entitlement. A grant that does
/// not expire wins over any product's status but a product's own grant that does not expire either, which is
/// reported first (it names a transaction) with the paid-app grant beside it. An undecided paid-app grant leaves a
/// product's grant active and makes any other status unknown. The result's `finding` stays what its products
/// decided; its state and reason say the whole answer.
/// - Parameters:
///   - decision: the paid-app decision.
///   - terms: the catalog's `paid_app`.
///   - results: each entitlement's status from its products.
///   - table: the customer's purchases.
///   - catalog: the catalog, whose named entitlements come first.
///   - time: the moment asked about.
/// - Returns: the results, the paid-app entitlement's among them (after the catalog's products' entitlements
///   when no product gives it).
func joiningPaidApp(
  _ decision: PaidAppDecision, terms: PaidAppTerms, to results: [EntitlementResult], table: PurchaseTable,
  catalog: Catalog, at time: Timestamp
) -> [EntitlementResult] {
  var results = results
  let index: Int
  if let found = results.firstIndex(where: { $0.id == terms.entitlement }) {
    index = found
  } else {
    let named = Set(catalog.allProducts.flatMap(\.entitlements))
    index = results.firstIndex { !named.contains($0.id) } ?? results.count
    let none = EntitlementDefinition(id: terms.entitlement, productIDs: [])
    results.insert(entitlementStatus(none, table: table, catalog: catalog, at: time), at: index)
  }
  var r = results[index]
  let products = r.finding == .noPurchase ? nil : r.reason
  switch decision {
  case .granted(let why) where r.state == .active && r.expiresDate == nil:
    r.reason += " The paid-app grant also holds: " + lowercasedFirst(why)
  case .granted(let why):
    (r.state, r.decidingRow, r.expiresDate, r.gracePeriodExpiresDate) = (.active, nil, nil, nil)
    r.reason = why + (products.map { " Its products alone: " + lowercasedFirst($0) } ?? "")
  case .undecided(let why) where r.isActive:
    r.reason += " " + why
  case .undecided(let why):
    r.state = .unknown
    r.reason = why + (products.map { " Its products alone: " + lowercasedFirst($0) } ?? "")
  case .notGranted(let why):
    r.reason += " " + why
  }
  results[index] = r
  return results
}

/// A sentence continued after a colon.
private func lowercasedFirst(_ sentence: String) -> String { sentence.prefix(1).lowercased() + sentence.dropFirst() }
