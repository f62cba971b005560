import ReceiptCrypto
import ReceiptModel

/// Lends a signature verifier, with what it keeps, for the length of one document. Whoever decodes documents
/// concurrently owns the lending (the command line's pipeline keeps a workspace per worker, each verifier with its
/// chain cache); a decoder only borrows one and never shares it.
public protocol SignatureVerifierLending: Sendable {
  /// Calls `body` with a workspace no other thread uses until `body` returns.
  func withWorkspace<R>(_ body: (inout SignatureWorkspace) -> R) -> R
}

/// What one worker keeps from one document to the next while checking signatures: the verifier, with its chain
/// cache, and the JWS headers it read last (`CompactJWS.HeaderMemo`). The tokens of a batch, one a line, share
/// one ~3 KB header, which is then read once a worker rather than once a line.
public struct SignatureWorkspace: Sendable {
  public var verifier: AppleSignatureVerifier
  /// The memos not lent out, the one lent last on top: a token nested in another's payload takes another.
  var headerMemos: [CompactJWS.HeaderMemo] = []
  /// At most this many memos are kept (a token, the tokens in its payload, and those in theirs).
  static let memosKept = 3

  /// The chain named last, and its certificates as the output names them: a batch's documents share one chain,
  /// whose summaries are then the same array (the chain cache's), so its names and hex fingerprints are made once.
  var lastSigners: (chain: [ReceiptCrypto.CertificateSummary], signers: [SignerCertificate])?

  public init(verifier: AppleSignatureVerifier) { self.verifier = verifier }
  public init(trust: TrustAnchors) { verifier = AppleSignatureVerifier(trust: trust) }

  /// `chain` as the output names it; the answer never depends on the memo, which is used only for an equal chain.
  mutating func signers(of chain: [ReceiptCrypto.CertificateSummary]) -> [SignerCertificate] {
    if let last = lastSigners, last.chain == chain { return last.signers }
    let signers = chain.map(JWSChecks.signer(of:))
    lastSigners = (chain, signers)
    return signers
  }

  /// This workspace, leaving an empty one in its place: moved, not copied, since a copy shares the caches' and
  /// memos' buffers and the first write to each would copy it whole.
  mutating func movedOut() -> SignatureWorkspace {
    let moved = self
    self = SignatureWorkspace(trust: verifier.trust)
    return moved
  }
}

/// How a run checks its documents: who lends the verifier, the moment for a payload with no `signedDate`, the
/// device a signed app receipt's hash is checked against, and the app the data must belong to.
public struct SignatureChecking: Sendable {
  /// Lends the verifier a document is checked with.
  public var verifiers: any SignatureVerifierLending
  /// The moment a payload without a `signedDate` is checked at (one for the whole run).
  public var now: Timestamp
  /// `--device-id`: the device every receipt's hash is checked against (it becomes `DecodeOptions.deviceID`);
  /// nil: not checked.
  public var deviceID: DeviceIdentifier?
  /// The app every document's data must belong to (`ExpectedAppCheck`); empty: not checked.
  public var expectedApp: ExpectedApp

  /// - Parameters:
  ///   - verifiers: Lends the verifier a document is checked with.
  ///   - now: The moment for payloads without a `signedDate`.
  ///   - deviceID: The device receipts' hashes are checked against; nil: not checked.
  ///   - expectedApp: The app the data must belong to; empty: not checked.
  public init(
    verifiers: any SignatureVerifierLending, now: Timestamp, deviceID: DeviceIdentifier? = nil,
    expectedApp: ExpectedApp = ExpectedApp()
  ) {
    self.verifiers = verifiers
    self.now = now
    self.deviceID = deviceID
    self.expectedApp = expectedApp
  }
}

/// The signature checks of one document: the verifier lent for it and a running tally of its signed items'
/// verdicts, in the order the items were read (a nested JWS before the one that holds it). One thread, one
/// document. The tally gives the answer `SignatureCheck.combining` gives over every item's own verdict (a test
/// holds it to that), without making a verdict, a chain summary and a message for each of 100,000 items.
final class JWSChecks {
  var workspace: SignatureWorkspace
  let now: Timestamp
  /// The app each item's payload must belong to; empty: not checked.
  let expectedApp: ExpectedApp
  private(set) var tally = Tally()

  /// What the items so far add up to.
  struct Tally {
    var signed = 0
    var verified = 0
    var testSigned = 0
    var failed = 0
    /// The first failures, with their messages.
    var failures: [SignatureItemFailure] = []
    var weakest: SignatureCheck.Verdict?
    /// The item the verdict speaks for: the first of the weakest verdict, the newest when none failed.
    var speaker: SignatureVerdict?
    var sources: [String] = []
    var throughTrustRoot = false
    /// Every item's own verdict, kept only when asked for (tests compare the tally with them).
    var items: [SignatureCheck]?
  }

  init(
    workspace: SignatureWorkspace, now: Timestamp, expectedApp: ExpectedApp = ExpectedApp(), keepsItems: Bool = false
  ) {
    self.workspace = workspace
    self.now = now
    self.expectedApp = expectedApp
    if keepsItems { tally.items = [] }
  }

  /// Checks one JWS at its payload's `signedDate` (an app transaction's `receiptCreationDate`), or now where it
  /// has none: `signingInput` is `header.payload` exactly as received. `app` is what the payload says of its app,
  /// asked for only when an app is expected.
  func check(
    signingInput: UnsafeBufferPointer<UInt8>, signature: [UInt8], header: JWSHeader, signedDate: Timestamp?,
    isAppTransaction isApp: Bool, path: LazyPath, app: () -> StatedApp
  ) {
    var moment = VerificationMoment(millisecondsSince1970: now.milliseconds, source: .now)
    if let signed = signedDate {
      moment = VerificationMoment(
        millisecondsSince1970: signed.milliseconds, source: isApp ? .receiptCreationDate : .signedDate)
    }
    let verdict = workspace.verifier.verifyJWS(
      signingInput: UnsafeRawBufferPointer(signingInput), signature: signature, algorithm: header.alg, x5c: header.x5c,
      critical: header.crit, at: moment)
    var appFailure: SignatureItemFailure?
    if !expectedApp.isEmpty, verdict.failure == nil {
      appFailure = ExpectedAppCheck.failure(of: app(), expected: expectedApp, path: path.text)
    }
    add(verdict, path: path, appFailure: appFailure)
  }

  /// Adds one item's verdict; `appFailure` fails an item whose signature held but whose app is not the expected.
  func add(_ verdict: SignatureVerdict, path: LazyPath, appFailure: SignatureItemFailure? = nil) {
    tally.signed += 1
    let kind: SignatureCheck.Verdict
    var itemFailure: SignatureItemFailure?
    switch (verdict.outcome, appFailure) {
    case (.failed(let failure), _):
      itemFailure = Self.failure(failure, path: path)
      kind = .invalid
    case (_, let failure?):
      itemFailure = failure
      kind = .invalid
    case (.verified, nil):
      kind = .verified
      tally.verified += 1
      if !verdict.anchoredAtApple { tally.throughTrustRoot = true }
    case (.testSigned, nil):
      kind = .testSigned
      tally.testSigned += 1
    }
    if let itemFailure {
      tally.failed += 1
      if tally.failures.count < SignatureCheck.maxFailuresKept { tally.failures.append(itemFailure) }
    }
    let source = verdict.moment.source.rawValue
    if !tally.sources.contains(source) { tally.sources.append(source) }
    if let weakest = tally.weakest, weakest <= kind {
      if weakest == kind, kind != .invalid, let held = tally.speaker,
        verdict.moment.millisecondsSince1970 > held.moment.millisecondsSince1970
      {
        tally.speaker = verdict
      }
    } else {
      tally.weakest = kind
      tally.speaker = verdict
    }
    tally.items?.append(Self.check(of: verdict, path: path, appFailure: appFailure))
  }

  /// A header memo kept from this worker's earlier tokens, for a token and those after it in its document; it is
  /// the caller's until `keep` takes it back.
  func takeHeaderMemo() -> CompactJWS.HeaderMemo {
    workspace.headerMemos.popLast() ?? CompactJWS.HeaderMemo()
  }

  /// Keeps `memo` for the next token, if it is small (a hostile 1 MB token leaves no 1 MB buffer behind).
  func keep(_ memo: CompactJWS.HeaderMemo) {
    guard workspace.headerMemos.count < SignatureWorkspace.memosKept, memo.isSmall else { return }
    workspace.headerMemos.append(memo)
  }

  /// Forgets what was checked since `mark` (a payload read again checks its nested JWS again).
  func forget(since mark: Tally) { tally = mark }

  /// The document's verdict: the weakest item's, its signature's coverage `coverage`. Made in one box, the
  /// speaker's certificates named once for a run of documents sharing a chain (`SignatureWorkspace.signers(of:)`);
  /// `documentCheckByEdits` is the reference.
  func documentCheck(coverage: SignatureCoverage) -> SignatureCheck {
    guard let weakest = tally.weakest, let speaker = tally.speaker else {
      var check = SignatureCheck(.notChecked, note: "no signed item could be read")
      check.coverage = coverage
      return check
    }
    var note: String?
    if case .testSigned = speaker.outcome { note = Self.check(of: speaker, path: LazyPath("")).note }
    let moment = CheckedMoment(
      time: Timestamp(milliseconds: speaker.moment.millisecondsSince1970) ?? .epoch,
      source: speaker.moment.source.rawValue)
    return SignatureCheck(
      verdict: weakest, note: note, signedItems: tally.signed, verifiedItems: tally.verified,
      testSignedItems: tally.testSigned, failures: tally.failures, failureCount: tally.failed,
      chain: workspace.signers(of: speaker.chain), moment: moment, momentSources: tally.sources,
      anchor: weakest == .verified ? (tally.throughTrustRoot ? .trustRoot : .apple) : nil, coverage: coverage)
  }

  /// The document's verdict with no coverage (`documentCheck(coverage:)`).
  var documentCheck: SignatureCheck { documentCheck(coverage: .none) }

  /// The document's verdict as it was made before: the speaker's own verdict, then each tallied value set on it.
  var documentCheckByEdits: SignatureCheck {
    guard let weakest = tally.weakest, let speaker = tally.speaker else {
      return SignatureCheck(.notChecked, note: "no signed item could be read")
    }
    var check = Self.check(of: speaker, path: LazyPath(""))
    check.verdict = weakest
    check.signedItems = tally.signed
    check.verifiedItems = tally.verified
    check.testSignedItems = tally.testSigned
    check.failureCount = tally.failed
    check.failures = tally.failures
    check.momentSources = tally.sources
    check.anchor = weakest == .verified ? (tally.throughTrustRoot ? .trustRoot : .apple) : nil
    return check
  }

  static func failure(_ failure: SignatureFailure, path: LazyPath) -> SignatureItemFailure {
    SignatureItemFailure(
      path: path.text, code: failure.code.rawValue, certificate: failure.certificate, reason: failure.description)
  }

  /// The format-neutral verdict of one item, failed by `appFailure` when its signature held.
  static func check(of verdict: SignatureVerdict, path: LazyPath, appFailure: SignatureItemFailure? = nil)
    -> SignatureCheck
  {
    let moment = CheckedMoment(
      time: Timestamp(milliseconds: verdict.moment.millisecondsSince1970) ?? .epoch,
      source: verdict.moment.source.rawValue)
    let chain = verdict.chain.map(signer(of:))
    if let appFailure, verdict.failure == nil {
      return .failedItem(appFailure, chain: chain, moment: moment)
    }
    switch verdict.outcome {
    case .verified:
      return .verifiedItem(chain: chain, moment: moment, anchor: verdict.anchoredAtApple ? .apple : .trustRoot)
    case .testSigned:
      return .testSignedItem(chain: chain, moment: moment)
    case .failed(let failure):
      return .failedItem(Self.failure(failure, path: path), chain: chain, moment: moment)
    }
  }

  static func signer(of c: ReceiptCrypto.CertificateSummary) -> SignerCertificate {
    SignerCertificate(
      position: c.position, commonName: c.commonName, organization: c.organization,
      notBefore: Timestamp(milliseconds: c.notBefore), notAfter: Timestamp(milliseconds: c.notAfter),
      sha256: lowercaseHex(c.sha256))
  }
}
