/// Whether a document's signatures show that it came from Apple: the verdict every command prints, whatever
/// the format. A document's verdict is that of its weakest signed item.
public struct SignatureCheck: Hashable, Sendable {
  /// The verdicts, weakest first.
  public enum Verdict: String, Hashable, Sendable, Comparable, CaseIterable {
    /// A signature or certificate failed: the data may have been altered or made up.
    case invalid
    /// The file itself carries no signature (verifyReceipt JSON, a decoded payload).
    case unsigned
    /// Signed, but this kind of signature is not checked.
    case notChecked = "not-checked"
    /// Signed by a lone self-signed certificate whose key verifies: intact, but not from Apple.
    case testSigned = "test-signed"
    /// Every signature verifies through a trusted chain.
    case verified

    private var strength: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// Whether `a` is weaker than `b`.
    /// - Parameters:
    ///   - a: One verdict.
    ///   - b: The other.
    /// - Returns: True when `a` says less about the data's origin.
    public static func < (a: Verdict, b: Verdict) -> Bool { a.strength < b.strength }
  }

  /// Which root a verified chain ends at.
  public enum Anchor: String, Hashable, Sendable {
    /// A root compiled into the tool (Apple Root CA - G3).
    case apple
    /// A root named with `--trust-root`, not Apple's.
    case trustRoot = "trust-root"
  }

  /// The stored values, held in one immutable box so that a copy of a check is one retain.
  struct Fields: Hashable, Sendable {
    var verdict: Verdict
    var note: String? = nil
    var signedItems: Int
    var verifiedItems: Int
    var testSignedItems: Int
    var failures: [SignatureItemFailure]
    var failureCount: Int
    var chain: [SignerCertificate]
    var moment: CheckedMoment? = nil
    var momentSources: [String]
    var anchor: Anchor? = nil
    var revocationChecked: Bool
    var backing: ReceiptBacking? = nil
    var device: DeviceCheck? = nil
    var coverage: SignatureCoverage
    var uncoveredInAnswer: [SignatureCoverage.FieldClass]
  }

  /// Never mutated once made: a setter puts the changed values in a new box, so copies never share a change.
  final class Storage: Sendable {
    let fields: Fields
    init(_ fields: Fields) { self.fields = fields }
  }

  private var storage: Storage

  /// The verdict.
  public var verdict: Verdict {
    get { storage.fields.verdict }
    set { edit { $0.verdict = newValue } }
  }
  /// Why, for `unsigned` and `notChecked` (the failure's own line is in `failures`).
  public var note: String? {
    get { storage.fields.note }
    set { edit { $0.note = newValue } }
  }
  /// Signed items checked (each JWS; nested ones count on their own).
  public var signedItems: Int {
    get { storage.fields.signedItems }
    set { edit { $0.signedItems = newValue } }
  }
  /// Of those, how many verified (through any trusted root).
  public var verifiedItems: Int {
    get { storage.fields.verifiedItems }
    set { edit { $0.verifiedItems = newValue } }
  }
  /// Of those, how many are test-signed.
  public var testSignedItems: Int {
    get { storage.fields.testSignedItems }
    set { edit { $0.testSignedItems = newValue } }
  }
  /// The failed items, in document order, the first `maxFailuresKept` of them.
  public var failures: [SignatureItemFailure] {
    get { storage.fields.failures }
    set { edit { $0.failures = newValue } }
  }
  /// How many items failed (`failures` may hold fewer).
  public var failureCount: Int {
    get { storage.fields.failureCount }
    set { edit { $0.failureCount = newValue } }
  }
  /// The certificates, leaf first, of the item the verdict speaks for.
  public var chain: [SignerCertificate] {
    get { storage.fields.chain }
    set { edit { $0.chain = newValue } }
  }
  /// The moment the verdict's item was checked at; nil when nothing was checked.
  public var moment: CheckedMoment? {
    get { storage.fields.moment }
    set { edit { $0.moment = newValue } }
  }
  /// Whether every item was checked at its own `signedDate` (else some at `now`).
  public var momentSources: [String] {
    get { storage.fields.momentSources }
    set { edit { $0.momentSources = newValue } }
  }
  /// The root a verified chain ends at: `trustRoot` when any item needed a `--trust-root`.
  public var anchor: Anchor? {
    get { storage.fields.anchor }
    set { edit { $0.anchor = newValue } }
  }
  /// Always false: the check is offline and asks no one whether a certificate was revoked.
  public var revocationChecked: Bool {
    get { storage.fields.revocationChecked }
    set { edit { $0.revocationChecked = newValue } }
  }
  /// For a JSON body carrying its signed receipt (`latest_receipt`): how far the receipt backs the JSON.
  public var backing: ReceiptBacking? {
    get { storage.fields.backing }
    set { edit { $0.backing = newValue } }
  }
  /// For a document holding a signed app receipt (on-device, or a JSON body's `latest_receipt`): whether it was
  /// issued to the device `--device-id` names; nil when the document holds no receipt.
  public var device: DeviceCheck? {
    get { storage.fields.device }
    set { edit { $0.device = newValue } }
  }
  /// The kind of signature the document carries and the field classes it covers when it holds (`vouched`).
  public var coverage: SignatureCoverage {
    get { storage.fields.coverage }
    set { edit { $0.coverage = newValue } }
  }
  /// The field classes the answer drew from the document that its signature does not cover (the ownership type
  /// of a receipt-backed JSON): set by the command from its answer, empty for `decode`.
  public var uncoveredInAnswer: [SignatureCoverage.FieldClass] {
    get { storage.fields.uncoveredInAnswer }
    // Most answers leave it empty, as it was: no new box for the same values.
    set { if newValue != storage.fields.uncoveredInAnswer { edit { $0.uncoveredInAnswer = newValue } } }
  }

  /// Puts the values `change` makes in a new box (the old one may be shared by a copy).
  private mutating func edit(_ change: (inout Fields) -> Void) {
    var fields = storage.fields
    change(&fields)
    storage = Storage(fields)
  }

  private init(fields: Fields) { storage = Storage(fields) }

  /// A check of signed items made from all its values at once: one box, where setting them one by one after
  /// `verifiedItem` and the like makes a box each (a signed document's verdict set eight of them).
  public init(
    verdict: Verdict, note: String?, signedItems: Int, verifiedItems: Int, testSignedItems: Int,
    failures: [SignatureItemFailure], failureCount: Int, chain: [SignerCertificate], moment: CheckedMoment?,
    momentSources: [String], anchor: Anchor?, coverage: SignatureCoverage
  ) {
    storage = Storage(
      Fields(
        verdict: verdict, note: note, signedItems: signedItems, verifiedItems: verifiedItems,
        testSignedItems: testSignedItems, failures: failures, failureCount: failureCount, chain: chain,
        moment: moment, momentSources: momentSources, anchor: anchor, revocationChecked: false, coverage: coverage,
        uncoveredInAnswer: []))
  }

  /// Whether two checks hold the same values (a copy shares its box, so it is equal without comparing).
  /// - Parameters:
  ///   - a: One check.
  ///   - b: The other.
  /// - Returns: True when every value is equal.
  public static func == (a: SignatureCheck, b: SignatureCheck) -> Bool {
    a.storage === b.storage || a.storage.fields == b.storage.fields
  }

  /// Hashes the values, as the synthesized conformance did.
  /// - Parameter hasher: The hasher.
  public func hash(into hasher: inout Hasher) { storage.fields.hash(into: &hasher) }

  /// Failures kept per document; the count is exact either way.
  public static let maxFailuresKept = 20

  /// A verdict with nothing checked.
  /// - Parameters:
  ///   - verdict: The verdict.
  ///   - note: Why, in plain words.
  public init(_ verdict: Verdict, note: String? = nil) {
    storage = Storage(Self.nothingChecked(verdict, note: note))
  }

  /// The values of a verdict with nothing checked.
  private static func nothingChecked(_ verdict: Verdict, note: String?) -> Fields {
    Fields(
      verdict: verdict, note: note, signedItems: 0, verifiedItems: 0, testSignedItems: 0, failures: [],
      failureCount: 0, chain: [], momentSources: [], revocationChecked: false, coverage: .none,
      uncoveredInAnswer: [])
  }

  /// What the verdict vouches for: the signature's coverage when it verified (or is test-signed: intact, though
  /// not Apple's), nothing otherwise.
  public var vouched: SignatureCoverage {
    verdict == .verified || verdict == .testSigned ? coverage : .none
  }

  /// The file itself carries no signature: nothing in it can show where it came from.
  /// - Parameter what: What the file is (`verifyReceipt JSON`).
  /// - Returns: The `unsigned` verdict.
  public static func unsigned(_ what: String) -> SignatureCheck {
    SignatureCheck(.unsigned, note: unsignedNote(what))
  }

  /// The unsigned verdict of a JSON body whose `latest_receipt` holds no receipt (`ReceiptBacking.notAReceipt`): its
  /// note is the backing's phrase. Made in this module, where the init is inlined rather than called and copied.
  /// - Parameters:
  ///   - reason: What `latest_receipt` held instead, in a few words.
  ///   - detail: Where reading it stopped.
  /// - Returns: The `unsigned` verdict with the not-a-receipt backing.
  public static func notAReceipt(_ reason: String, detail: String?) -> SignatureCheck {
    let backing = ReceiptBacking.notAReceipt(reason, detail: detail)
    var check = nothingChecked(.unsigned, note: backing.summary)
    check.backing = backing
    return SignatureCheck(fields: check)
  }

  /// The note of `unsigned(_:)`.
  static func unsignedNote(_ what: String) -> String { "\(what) carries no signature" }

  /// One signed item that verified.
  /// - Parameters:
  ///   - chain: Its certificates, leaf first.
  ///   - moment: The moment it was checked at.
  ///   - anchor: The root it ends at.
  /// - Returns: The `verified` verdict of one item.
  public static func verifiedItem(chain: [SignerCertificate], moment: CheckedMoment, anchor: Anchor) -> SignatureCheck {
    var check = nothingChecked(.verified, note: nil)
    check.signedItems = 1
    check.verifiedItems = 1
    check.chain = chain
    check.moment = moment
    check.momentSources = [moment.source]
    check.anchor = anchor
    return SignatureCheck(fields: check)
  }

  /// One signed item signed by a lone self-signed certificate (Xcode StoreKit testing).
  /// - Parameters:
  ///   - chain: Its certificate.
  ///   - moment: The moment it was checked at.
  /// - Returns: The `test-signed` verdict of one item.
  public static func testSignedItem(chain: [SignerCertificate], moment: CheckedMoment) -> SignatureCheck {
    var check = nothingChecked(.testSigned, note: "signed by Xcode StoreKit testing, not by Apple")
    check.signedItems = 1
    check.testSignedItems = 1
    check.chain = chain
    check.moment = moment
    check.momentSources = [moment.source]
    return SignatureCheck(fields: check)
  }

  /// One signed item that failed.
  /// - Parameters:
  ///   - failure: Which certificate or signature failed, and why.
  ///   - chain: Its certificates as far as they were read.
  ///   - moment: The moment it was checked at.
  /// - Returns: The `invalid` verdict of one item.
  public static func failedItem(_ failure: SignatureItemFailure, chain: [SignerCertificate], moment: CheckedMoment)
    -> SignatureCheck
  {
    var check = nothingChecked(.invalid, note: nil)
    check.signedItems = 1
    check.failures = [failure]
    check.failureCount = 1
    check.chain = chain
    check.moment = moment
    check.momentSources = [moment.source]
    return SignatureCheck(fields: check)
  }

  /// The verdict of a document made of `items`: the weakest verdict, with the counts of all and the chain and
  /// moment of the first item of that verdict (the newest-checked one when all verified).
  /// - Parameters:
  ///   - items: Each signed item's verdict, in document order.
  ///   - none: The verdict when there is no item.
  /// - Returns: The document's verdict.
  public static func combining(_ items: [SignatureCheck], none: SignatureCheck) -> SignatureCheck {
    guard let weakest = items.map(\.verdict).min() else { return none }
    var combined = nothingChecked(weakest, note: nil)
    var speaker: SignatureCheck?
    combined.coverage = items.first?.coverage ?? .none
    for item in items {
      combined.coverage = combined.coverage.intersection(item.coverage)
      for field in item.uncoveredInAnswer where !combined.uncoveredInAnswer.contains(field) {
        combined.uncoveredInAnswer.append(field)
      }
      combined.signedItems += item.signedItems
      combined.verifiedItems += item.verifiedItems
      combined.testSignedItems += item.testSignedItems
      combined.failureCount += item.failureCount
      for failure in item.failures where combined.failures.count < maxFailuresKept {
        combined.failures.append(failure)
      }
      for source in item.momentSources where !combined.momentSources.contains(source) {
        combined.momentSources.append(source)
      }
      if item.anchor == .trustRoot || (combined.anchor == nil && item.anchor != nil) { combined.anchor = item.anchor }
      guard item.verdict == weakest else { continue }
      if let held = speaker {
        // Of items that did not fail, the newest-checked speaks (its chain is the one in use now).
        if weakest != .invalid, let a = item.moment, let b = held.moment, a.time > b.time { speaker = item }
      } else {
        speaker = item
      }
    }
    if weakest != .verified { combined.anchor = nil }
    combined.note = speaker?.note
    combined.backing = speaker?.backing
    combined.device = DeviceCheck.weakest(items.map(\.device))
    combined.chain = speaker?.chain ?? []
    combined.moment = speaker?.moment
    combined.uncoveredInAnswer.sort()
    return SignatureCheck(fields: combined)
  }

  /// What an unsigned verdict's `summary` puts before its note (a writer can write the two without joining them).
  public static let unsignedSummaryPrefix = "unsigned: "

  /// One line a support person can read out (`verified: ...`, `invalid: ...`).
  public var summary: String {
    // Unsigned says its note alone (a JSON body's, or its backing's phrase, so the backing does not speak again):
    // every unsigned document asks for it, so it is joined without an array of parts.
    if verdict == .unsigned { return Self.unsignedSummaryPrefix + (note ?? "") }
    var parts: [String] = []
    // The backing speaks first.
    if let backing { parts.append(backing.summary) }
    switch verdict {
    case .verified:
      let root = chain.last.map { $0.commonName ?? $0.organization ?? "a root with no name" } ?? "a root"
      parts.append(
        anchor == .trustRoot
          ? "signed through \(root), a --trust-root (not Apple's root)" : "signed by Apple (chain to \(root))")
    case .invalid:
      if let first = failures.first {
        let place = first.path.isEmpty ? "" : "\(first.path): "
        parts.append(
          signedItems > 1
            ? "\(failureCount) of \(signedItems) signatures failed, the first at \(place)\(first.reason)"
            : place + first.reason)
      }
    case .testSigned, .unsigned, .notChecked:
      if let note { parts.append(note) }
    }
    if signedItems > 1 {
      switch verdict {
      case .invalid: break
      case .verified: parts.append("\(signedItems) signatures")
      case .testSigned:
        parts.append(
          verifiedItems > 0
            ? "\(testSignedItems) of \(signedItems) signatures test-signed" : "\(signedItems) signatures")
      case .unsigned, .notChecked: break
      }
    }
    if let moment, verdict != .notChecked {
      parts.append(momentPhrase(moment))
      parts.append("offline; revocation not checked")
    }
    return "\(verdict.rawValue): " + parts.joined(separator: "; ")
  }

  private func momentPhrase(_ moment: CheckedMoment) -> String {
    if signedItems > 1, momentSources == ["signedDate"] {
      return "checked at each payload's signedDate (\(verdict == .invalid ? "the first failure's" : "the newest") "
        + "\(moment.time.iso8601))"
    }
    if momentSources.count > 1 {
      return "checked at each payload's signedDate, or now where it has none (\(moment.source) \(moment.time.iso8601))"
    }
    return "checked at \(moment.source) \(moment.time.iso8601)"
  }
}

/// The moment a certificate chain was checked at, and where it came from.
public struct CheckedMoment: Hashable, Sendable {
  /// The moment.
  public var time: Timestamp
  /// `signedDate`, `receipt creation date` or `now`.
  public var source: String

  /// - Parameters:
  ///   - time: The moment.
  ///   - source: Where it came from.
  public init(time: Timestamp, source: String) {
    self.time = time
    self.source = source
  }
}

/// A certificate of a checked chain, as the output names it.
public struct SignerCertificate: Hashable, Sendable {
  /// Where it was: `x5c[0]`, or the root's place.
  public var position: String
  /// The subject's common name.
  public var commonName: String?
  /// The subject's organisation.
  public var organization: String?
  /// The start of its validity.
  public var notBefore: Timestamp?
  /// The end of its validity.
  public var notAfter: Timestamp?
  /// SHA-256 of its DER bytes, in lowercase hex.
  public var sha256: String

  /// - Parameters:
  ///   - position: Where it was.
  ///   - commonName: The subject's common name.
  ///   - organization: The subject's organisation.
  ///   - notBefore: The start of its validity.
  ///   - notAfter: The end of its validity.
  ///   - sha256: SHA-256 of its DER bytes, lowercase hex.
  public init(
    position: String, commonName: String?, organization: String?, notBefore: Timestamp?, notAfter: Timestamp?,
    sha256: String
  ) {
    self.position = position
    self.commonName = commonName
    self.organization = organization
    self.notBefore = notBefore
    self.notAfter = notAfter
    self.sha256 = sha256
  }
}

/// One signed item whose signature or chain failed.
public struct SignatureItemFailure: Hashable, Sendable {
  /// Where the item is in the document (`signedTransactions[2]`, `line 4`); empty for the document itself.
  public var path: String
  /// A stable machine code (`signature.mismatch`, `chain.expired`).
  public var code: String
  /// The certificate that failed (`x5c[1]`), when one did.
  public var certificate: String?
  /// One line: which certificate or signature failed, and why.
  public var reason: String

  /// - Parameters:
  ///   - path: Where the item is in the document.
  ///   - code: A stable machine code.
  ///   - certificate: The certificate that failed, if one did.
  ///   - reason: One line saying what failed and why.
  public init(path: String, code: String, certificate: String?, reason: String) {
    self.path = path
    self.code = code
    self.certificate = certificate
    self.reason = reason
  }
}
