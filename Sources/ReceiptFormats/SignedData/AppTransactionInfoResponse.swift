import ReceiptModel

/// Get App Transaction Info (`signedAppTransactionInfo` alone) and Notifications V2 `appData` (with the app's
/// `appAppleId`, `bundleId` and `environment`, as RESCIND_CONSENT carries it): a signed app transaction.
public struct AppData: Sendable, Hashable {
  /// `appAppleId`: the app's Apple id in the App Store.
  public var appAppleId: Int64?
  /// `bundleId`: the app's bundle identifier.
  public var bundleId: String?
  /// `environment`: where the app transaction lives (Sandbox, Production, ...).
  public var environment: Coded<AppStoreEnvironment>?
  /// `signedAppTransactionInfo`: the app transaction, still signed.
  public var signedAppTransactionInfo: NestedJWS<AppTransactionPayload>?
  /// Keys present but not read, in input order.
  public var unreadKeys: [String] = []
  /// An unknown `environment`, carried through (a top-level document's; a notification's are its own).
  public var notes: [SignedDataNote] = []

  /// An empty `appData`, every field absent.
  public init() {}

  /// Whether this is `appData` rather than a Get App Transaction Info response (which holds only the JWS).
  public var namesTheApp: Bool { appAppleId != nil || bundleId != nil || environment != nil }

  static let keys = SignedKeys(["appAppleId", "bundleId", "environment", "signedAppTransactionInfo"])

  static func read(_ r: inout PayloadReading) throws -> AppData {
    var d = AppData()
    d.unreadKeys = try r.forEachMember(keys) { r, index in
      switch index {
      case 0: d.appAppleId = try r.integer()
      case 1: d.bundleId = try r.string()
      case 2: d.environment = try r.coded(AppStoreEnvironment.self)
      default: d.signedAppTransactionInfo = try PayloadDecoding.nested(&r, as: AppTransactionPayload.self)
      }
    }
    return d
  }
}

extension AppTransactionPayload: PlacedPayload {
  static var kind: SignedPayloadKind { .appTransaction }
  static func read(_ r: inout PayloadReading) throws -> Self { try PayloadDecoding.readAppTransaction(&r) }
  static func taken(from payload: SignedPayload) -> Self? {
    if case .appTransaction(let p) = payload { return p }
    return nil
  }
  /// An app transaction is signed when its receipt is created.
  var signedDate: Timestamp? { receiptCreationDate }
  /// An app transaction's environment is its `receiptType`.
  var environment: Coded<AppStoreEnvironment>? { receiptType }
}

extension SignedDataMapping.Builder {
  /// The app transaction, read as a top-level one is (the receipt's metadata).
  mutating func read(_ d: AppData, path: String) {
    unread(d.unreadKeys, path: path)
    notes(d.notes, path: path)
    if environment == nil { environment = d.environment?.raw }
    let inner = SignedDataPath.join(path, "signedAppTransactionInfo > payload")
    if let jws = d.signedAppTransactionInfo?.decoded {
      header(jws.header, jws.source)
      appTransaction(jws.payload, path: inner)
    }
    if receipt == nil, d.namesTheApp {
      var info = ReceiptInfo()
      info.bundleID = d.bundleId
      receipt = info
    }
    if keepsStatedFields, d.appAppleId != nil, var info = receipt,
      !info.statedFields.contains(where: { $0.name == "appAppleId" })
    {
      info.statedFields.add("appAppleId", number: d.appAppleId)
      receipt = info
    }
  }
}
