import ReceiptCrypto
import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `--trust-root`, `--require-signature`, `--device-id`, `--bundle-id`, `--app-apple-id`, `--environment` and
/// `--skip-signature-check`: which roots a signature may end at, whether an unverified document fails the run,
/// which device a signed app receipt must have been issued to, which app the data must belong to, and whether
/// signatures are checked at all.
struct SignatureOptions {
  static let trustRoot = OptionSpec(
    "trust-root", value: "file",
    help:
      "Also accept signatures whose chain ends at this root certificate (DER or PEM): an Xcode StoreKit certificate or a test CA. Answers verified this way say so. Repeatable.",
    repeatable: true)

  static let requireSignature = OptionSpec(
    "require-signature",
    help:
      "Exit 1 unless every document's signatures verify (through Apple's root or a --trust-root), the answer draws on no field they do not cover (a receipt holds no ownership, price or currency), and, with --device-id, every app receipt was issued to that device; each document that does not is named on standard error with the reason."
  )

  static let deviceID = OptionSpec(
    "device-id", value: "id",
    help:
      "Check that each app receipt (on-device, or a JSON body's latest_receipt) was issued to this device: its identifierForVendor UUID (iOS) or its GUID, the MAC address in hex (macOS). Without it the device hash is reported as not checked."
  )

  static let bundleID = OptionSpec(
    "bundle-id", value: "id",
    help:
      "Check that the data belongs to this app, as Apple's SignedDataVerifier does: each signed transaction's, notification's and app transaction's bundleId, an app receipt's bundle id and a verifyReceipt body's receipt.bundle_id. Data of another app fails the signature check. (default: the catalog's app.bundle_id)"
  )

  static let appAppleID = OptionSpec(
    "app-apple-id", value: "number",
    help:
      "Check that the data belongs to the app with this Apple id, where it states one (notifications, app transactions). (default: the catalog's app.app_apple_id)"
  )

  static let environment = OptionSpec(
    "environment", value: "name",
    help:
      "Check that the data comes from this environment: Production, Sandbox, Xcode or LocalTesting (each signed item's environment, an app receipt's receipt type where it has one, a verifyReceipt body's environment). (default: the catalog's app.environment)",
    allowed: ExpectedApp.environments)

  static let skipSignatureCheck = OptionSpec(
    "skip-signature-check",
    help:
      "Read signed data without checking its signatures, for data whose origin is already known: every document's verdict is not-checked. Not with --require-signature, --trust-root, --device-id, --bundle-id, --app-apple-id or --environment."
  )

  /// The root certificates' files, as given.
  var trustRoots: [InputPath]
  /// `--require-signature`.
  var required: Bool
  /// `--device-id`; nil: receipts' device hashes are not checked.
  var deviceID: DeviceIdentifier?
  /// `--skip-signature-check`.
  var skipped: Bool
  /// `--bundle-id`, `--app-apple-id`, `--environment`: the app the data must belong to, over the catalog's.
  var expectedApp = ExpectedApp()

  init(_ arguments: ParsedArguments, command: String) throws(ReceiptToolError) {
    trustRoots = arguments.allPaths("trust-root")
    required = arguments.flag("require-signature")
    skipped = arguments.flag("skip-signature-check")
    // Asking for a check and for none at once is a mistake, not a choice between them.
    // --device-id is a check too: the receipt it reads is the one whose signature would be skipped.
    let checks =
      [
        required ? "--require-signature" : nil, trustRoots.isEmpty ? nil : "--trust-root",
        arguments.value("device-id") == nil ? nil : "--device-id",
      ] + ["bundle-id", "app-apple-id", "environment"].map { arguments.value($0) == nil ? nil : "--\($0)" }
    if skipped, let asked = checks.compactMap({ $0 }).first {
      throw .usage("'--skip-signature-check' cannot be used with '\(asked)'.", command: command)
    }
    if arguments.all("trust-root").contains("") {
      throw .usage(
        "The value '' is invalid for '--trust-root <file>'. Please provide a certificate file.", command: command)
    }
    if let text = arguments.value("device-id") {
      guard let id = DeviceIdentifier(text) else {
        throw .usage(
          "The value '\(text)' is invalid for '--device-id <id>'. Please provide a UUID (identifierForVendor) or hex bytes (a macOS GUID such as 00:1c:42:00:00:08).",
          command: command)
      }
      deviceID = id
    }
    expectedApp = try Self.expectedApp(arguments, command: command)
  }

  /// `--bundle-id`, `--app-apple-id` and `--environment`, each said to come from its option.
  static func expectedApp(_ arguments: ParsedArguments, command: String) throws(ReceiptToolError) -> ExpectedApp {
    var app = ExpectedApp()
    if let id = arguments.value("bundle-id") {
      guard !id.isEmpty else {
        throw .usage(
          "The value '' is invalid for '--bundle-id <id>'. Please provide a bundle identifier.", command: command)
      }
      app.bundleID = .init(id, origin: "--bundle-id")
    }
    if let text = arguments.value("app-apple-id") {
      guard let id = Int64(text), id > 0 else {
        throw .usage(
          "The value '\(text)' is invalid for '--app-apple-id <number>'. Please provide the app's Apple id, a positive whole number.",
          command: command)
      }
      app.appAppleID = .init(id, origin: "--app-apple-id")
    }
    if let name = arguments.value("environment"), let environment = ExpectedApp.environment(named: name) {
      app.environment = .init(environment, origin: "--environment")
    }
    return app
  }

  init() {
    trustRoots = []
    required = false
    skipped = false
  }

  /// The `check` a run reports when it reads no document at all.
  var checkName: String? { required ? "--require-signature" : nil }

  /// Reads the trust roots and makes the run's verifiers. A file that cannot be opened is exit 66; one that holds
  /// no certificate, or one the verifier refuses, is exit 65.
  /// - Parameters:
  ///   - now: The moment a payload without a `signedDate` is checked at.
  ///   - catalog: The catalog, whose `app` holds where no option states the app.
  /// - Returns: What every decode of this run checks signatures with; nil with `--skip-signature-check`.
  /// - Throws: `ReceiptToolError` for a root file that cannot be read or holds no usable certificate.
  func checking(now: Timestamp, catalog: Catalog) throws(ReceiptToolError) -> SignatureChecking? {
    guard !skipped else { return nil }
    var trust = TrustAnchors.apple
    for path in trustRoots {
      let bytes: [UInt8]
      do throws(ReceiptToolError) {
        bytes = try FileInput.readAll(path: path)
      } catch {
        guard case .input(var e) = error else { throw error }
        e.message += " (named by --trust-root)"
        throw .input(e)
      }
      let source = "--trust-root \(path.display)"
      do throws(SignatureFailure) {
        for der in try TrustAnchors.certificatesFromPEMOrDER(bytes) { trust = try trust.adding(rootDER: der) }
      } catch {
        throw .input(ReceiptError(.malformed, source: source, message: "not a usable root certificate: \(error)"))
      }
    }
    return SignatureChecking(
      verifiers: VerifierPool(trust: trust), now: now, deviceID: deviceID,
      expectedApp: expectedApp.over(catalog.expectedApp))
  }

  /// What a document's verdict adds to a command's output: a warning when an answer rests on an invalid
  /// signature or on a receipt issued to another device, and with `--require-signature` a failed check when the
  /// document is not verified, when the answer relies on fields its signature does not cover (`uncoveredInAnswer`),
  /// or its receipt is not shown to be issued to the `--device-id` device (a genuine receipt copied from another
  /// device is still not this customer's).
  func review(_ check: SignatureCheck) -> (warnings: [String], failedChecks: [String]) {
    var warnings: [String] = []
    var failed: [String] = []
    if check.verdict == .invalid {
      warnings.append(
        "signature \(check.summary); "
          + (check.failsOnlyForTheApp
            ? "the data is not the expected app's" : "the answer is drawn from data that may have been altered"))
    }
    if let device = check.device, case .mismatch = device {
      warnings.append("device: \(device.summary)")
    }
    if required, check.verdict != .verified {
      failed.append("--require-signature: the document is not verified (\(check.summary))")
    }
    if required, check.verdict == .verified, !check.uncoveredInAnswer.isEmpty {
      let fields = SignatureCoverage.phrase(check.uncoveredInAnswer)
      failed.append("--require-signature: the answer relies on \(fields), which the signature does not cover")
    }
    if required, let device = check.device, !device.isShownToMatch {
      failed.append("--require-signature: the receipt is not shown to be issued to this device (\(device.summary))")
    }
    return (warnings, failed)
  }
}

/// The signature verdicts of an aggregating command's documents, read in input order on one thread: each
/// document's warning and failed check is written as it comes, and the verdicts combine into the answer's.
struct SignatureReview {
  let options: SignatureOptions
  let context: CommandContext
  private var documents = 0
  private var failed = false
  /// The documents' verdicts so far, combined whatever their order (`RevenueSignatureVerdict`), so that a
  /// report split over machines carries the same verdict; nil when no document was read.
  private(set) var reportVerdict: RevenueVerdict?

  init(options: SignatureOptions, context: CommandContext) {
    self.options = options
    self.context = context
  }

  /// One document's verdict.
  /// - Returns: The document's verdict as the report counts it, its failures named by `label`.
  @discardableResult
  mutating func add(_ check: SignatureCheck, label: String) -> RevenueVerdict {
    let (warnings, failedChecks) = options.review(check)
    for warning in warnings { context.warn("\(label): \(warning)") }
    for failure in failedChecks {
      context.stderr.write("receipt-tool: check failed: \(TerminalSafeText("\(label): \(failure)"))\n")
      failed = true
    }
    // The combined verdict names the document a failure is in.
    var named = check
    for i in named.failures.indices {
      named.failures[i].path = named.failures[i].path.isEmpty ? label : "\(label): \(named.failures[i].path)"
    }
    let verdict = RevenueVerdict(document: named)
    documents += 1
    // Folded as it comes (the combination does not depend on grouping), so memory stays one verdict.
    reportVerdict = RevenueSignatureVerdict.combining([reportVerdict, verdict].compactMap { $0 })
    return verdict
  }

  /// `checkFailed` when `--require-signature` failed for a document, or there was none to check.
  func finish() -> ExitStatus {
    if options.required, documents == 0 {
      context.stderr.write("receipt-tool: check failed: --require-signature: the input holds no document to check\n")
      return .checkFailed
    }
    return failed ? .checkFailed : .ok
  }
}
