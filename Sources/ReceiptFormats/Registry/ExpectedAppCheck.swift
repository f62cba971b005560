import ReceiptModel

/// What a signed item or a document says about the app it belongs to, in its own field names: each field the
/// kind carries, its value as written and as compared (`ProductionSandbox` is the Sandbox), and whether its
/// absence fails an expectation (Apple's verifier requires a transaction's bundleId and environment; an app's
/// Apple id is compared where present).
struct StatedApp {
  struct Field<T: Equatable> {
    /// The field as the source names it (`bundleId`, `receipt.bundle_id`, `data.environment`).
    var name: String
    /// The value as written, for the reason (quoted); nil: the compared value is shown as it is.
    var written: String?
    /// The value compared with the expected one.
    var value: T?
    /// Whether an absent value fails an expectation (else it is not checked).
    var required: Bool
  }

  var bundleID: Field<String>?
  var appAppleID: Field<Int64>?
  var environment: Field<String>?
}

extension StatedApp.Field<String> {
  /// A bundle id: its absence fails an expectation.
  static func bundleID(_ name: String, _ value: String?) -> Self {
    Self(name: name, written: value, value: value, required: true)
  }

  /// An environment as `written`, compared as `meaning`.
  static func environment(_ name: String, _ written: String?, meaning: String?, required: Bool) -> Self {
    Self(name: name, written: written, value: meaning, required: required)
  }
}

extension StatedApp.Field<Int64> {
  /// An app's Apple id: compared where present.
  static func appAppleID(_ name: String, _ value: Int64?) -> Self {
    Self(name: name, written: nil, value: value, required: false)
  }
}

/// The expected-app check (`--bundle-id`, `--app-apple-id`, `--environment`, or the catalog's `app`), written once
/// for every format: data of another app or environment fails the document's signature check, naming the field,
/// its value and the expected one, as Apple's SignedDataVerifier refuses it (INVALID_APP_IDENTIFIER,
/// INVALID_ENVIRONMENT).
enum ExpectedAppCheck {
  /// The first expectation `stated` does not meet (bundle id, then Apple id, then environment), as the failure of
  /// the item at `path`; nil when it meets them all.
  static func failure(of stated: StatedApp, expected: ExpectedApp, path: String) -> SignatureItemFailure? {
    if let want = expected.bundleID, let field = stated.bundleID,
      let reason = mismatch(field, want, shown: Excerpt.quoted)
    {
      return SignatureItemFailure(
        path: path, code: ExpectedApp.failureCodePrefix + "bundleId", certificate: nil,
        reason: "app.bundleId: " + reason)
    }
    if let want = expected.appAppleID, let field = stated.appAppleID,
      let reason = mismatch(field, want, shown: { "\($0)" })
    {
      return SignatureItemFailure(
        path: path, code: ExpectedApp.failureCodePrefix + "appAppleId", certificate: nil,
        reason: "app.appAppleId: " + reason)
    }
    if let want = expected.environment, let field = stated.environment,
      let reason = mismatch(field, want, shown: Excerpt.quoted)
    {
      return SignatureItemFailure(
        path: path, code: ExpectedApp.failureCodePrefix + "environment", certificate: nil,
        reason: "app.environment: " + reason)
    }
    return nil
  }

  /// Why `field` does not meet `want`; nil when it does, or is absent and not required.
  static func mismatch<T: Equatable>(
    _ field: StatedApp.Field<T>, _ want: ExpectedApp.Value<T>, shown: (T) -> String
  ) -> String? {
    guard let value = field.value else {
      guard field.required else { return nil }
      return "\(field.name) is absent; expected \(shown(want.value)) (\(want.origin))"
    }
    guard value != want.value else { return nil }
    let written = field.written.map { Excerpt.quoted($0) } ?? shown(value)
    return "\(field.name) \(written) is not the expected \(shown(want.value)) (\(want.origin))"
  }

  /// `check` failed by `failure`: the document is invalid, this failure first when nothing else failed.
  static func failing(_ check: inout SignatureCheck, with failure: SignatureItemFailure) {
    if check.verdict == .invalid {
      if check.failures.count < SignatureCheck.maxFailuresKept { check.failures.append(failure) }
    } else {
      check.failures.insert(failure, at: 0)
    }
    check.verdict = .invalid
    check.failureCount += 1
    check.anchor = nil
  }

  /// A document-level check (an app receipt, a verifyReceipt body): `check` failed when `stated` does not meet
  /// `expected`.
  static func apply(_ expected: ExpectedApp, to check: inout SignatureCheck, stated: () -> StatedApp) {
    guard !expected.isEmpty, let failure = failure(of: stated(), expected: expected, path: "") else { return }
    failing(&check, with: failure)
  }

  /// `Production` for a v1 notification's `PROD`; other environments as written.
  static func environmentMeaning(_ written: String?) -> String? {
    written == "PROD" ? "Production" : written
  }
}

// What each kind of data states about its app, in its own field names.

extension JWSTransactionPayload {
  var statedApp: StatedApp {
    StatedApp(
      bundleID: .bundleID("bundleId", bundleId),
      environment: .environment("environment", environment?.raw, meaning: environment?.raw, required: true))
  }
}

extension JWSRenewalInfoPayload {
  /// Apple checks renewal info by its environment alone (it carries no bundle id).
  var statedApp: StatedApp {
    StatedApp(environment: .environment("environment", environment?.raw, meaning: environment?.raw, required: true))
  }
}

extension AppTransactionPayload {
  var statedApp: StatedApp {
    StatedApp(
      bundleID: .bundleID("bundleId", bundleId), appAppleID: .appAppleID("appAppleId", appAppleId),
      environment: .environment("receiptType", receiptType?.raw, meaning: receiptType?.raw, required: true))
  }
}

extension NotificationV2Payload {
  /// The app of `data`, else `summary`, else `externalPurchaseToken` (whose environment its id's `SANDBOX`
  /// prefix gives), as Apple's verifier reads a notification.
  var statedApp: StatedApp {
    if let data {
      return StatedApp(
        bundleID: .bundleID("data.bundleId", data.bundleId),
        appAppleID: .appAppleID("data.appAppleId", data.appAppleId),
        environment: .environment(
          "data.environment", data.environment?.raw, meaning: data.environment?.raw, required: true))
    }
    if let summary {
      return StatedApp(
        bundleID: .bundleID("summary.bundleId", summary.bundleId),
        appAppleID: .appAppleID("summary.appAppleId", summary.appAppleId),
        environment: .environment(
          "summary.environment", summary.environment?.raw, meaning: summary.environment?.raw, required: true))
    }
    if let token = externalPurchaseToken {
      let sandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") == true
      return StatedApp(
        bundleID: .bundleID("externalPurchaseToken.bundleId", token.bundleId),
        appAppleID: .appAppleID("externalPurchaseToken.appAppleId", token.appAppleId),
        environment: .environment(
          "externalPurchaseToken.externalPurchaseId", sandbox ? "SANDBOX..." : token.externalPurchaseId,
          meaning: sandbox ? "Sandbox" : "Production", required: true))
    }
    return StatedApp(
      bundleID: .bundleID("data.bundleId", nil),
      environment: .environment(
        "data.environment", nil, meaning: nil, required: true))
  }
}

extension SignedPayload {
  var statedApp: StatedApp {
    switch self {
    case .transaction(let p): p.statedApp
    case .renewalInfo(let p): p.statedApp
    case .appTransaction(let p): p.statedApp
    case .notification(let p): p.statedApp
    }
  }
}

extension AppReceiptPayload {
  /// The receipt's bundle id (type 2), and its environment where its receipt type (type 0) says.
  var statedApp: StatedApp {
    StatedApp(
      bundleID: .bundleID("bundle id (type 2)", bundleID),
      environment: .environment(
        "receipt type (type 0)", receiptType, meaning: AppReceiptHistory.environment(of: receiptType),
        required: false))
  }
}

extension PurchaseHistory {
  /// A verifyReceipt body's `receipt.bundle_id` (a v1 notification's `bid`) and `environment`.
  var statedApp: StatedApp {
    let notification = provenance.notification
    let bundle =
      provenance.receipt?.bundleID != nil || notification?.bundleID == nil
      ? StatedApp.Field.bundleID("receipt.bundle_id", provenance.receipt?.bundleID)
      : StatedApp.Field.bundleID("bid", notification?.bundleID)
    let written = environment ?? notification?.environment
    return StatedApp(
      bundleID: bundle,
      environment: .environment(
        "environment", written, meaning: ExpectedAppCheck.environmentMeaning(written), required: false))
  }
}
