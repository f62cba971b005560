import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool revenue`: the purchaser's revenue over every document read.
struct RevenueCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    name: "revenue",
    abstract: "Owner-only revenue; family-shared copies never count.",
    discussion: """
      Transactions are de-duplicated by transaction_id across in_app, latest_receipt_info and every document read. Only PURCHASED transactions (and those with no ownership field, from receipts older than Family Sharing) are revenue; FAMILY_SHARED copies are only counted in family_shared_excluded. Each is valued at its catalog price × quantity (a missing quantity counts as 1); a free trial is 0; an introductory-offer period is the catalog's intro price; without a catalog price it is listed as unpriced, never valued at 0. Receipts carry no storefront, so a product has one price: its catalog price. Currencies are never added together.

      Each currency says how much of its gross, net and proceeds is backed: counted from a document whose signature verified, at the signed transaction's own price, under the signed payload's own ownership. Catalog prices and receipts (which state no price or ownership) are never backed; the rest is listed by reason.

      --commission estimates proceeds (commission rounded half-up per transaction). Taxes and regional terms are not modelled: App Store Connect reports are the record.

      With --merge the files are earlier 'revenue --format json' outputs, which are summed; de-duplication and the commission year are per part, so split inputs by customer.
      """,
    options: [
      CommonOptions.catalog,
      OptionSpec(
        "by", value: "grouping", help: "Rows by product, purchase month or day (UTC), or one row. (default: product)",
        allowed: RevenueGrouping.allCases.map(\.rawValue)),
      OptionSpec(
        "from", value: "time",
        help:
          "Only sales, refunds and upgrades dated at or after this time (as --as-of, but not 'request': there are many receipts)."
      ),
      OptionSpec(
        "to", value: "time",
        help:
          "Only sales, refunds and upgrades dated before this time (as --as-of, but not 'request': there are many receipts)."
      ),
      OptionSpec(
        "commission", value: "plan",
        help:
          "Estimate proceeds: standard (30%, 15% after a year of paid service on a subscription), small-business (15%) or none. (default: none)",
        allowed: CommissionPlan.allCases.map(\.rawValue)),
      CommonOptions.format(RevenueReporters.names + ledgerFormats),
      OutputSchemas.option,
      OptionSpec("merge", help: "The files are earlier 'revenue --format json' outputs: sum them."),
      OptionSpec(
        "from-ledger",
        help:
          "The files are '--format ledger' lines: count each transaction once and write a partial report (JSON on one line)."
      ),
    ] + CommonOptions.reading(oneCustomer: false))

  var inputs: InputOptions
  var catalog: CatalogOptions
  var grouping: RevenueGrouping
  var range: PurchaseDateRange
  var plan: CommissionPlan
  var reporter: RevenueReporters.Reporter
  var merging: Bool
  /// `--format ledger` or `keyed-ledger`: the map step.
  var ledgerFormat: String?
  /// `--from-ledger`: the reduce step.
  var fromLedger: Bool
  /// The map step's ledger lines: one per transaction copy, plain or `id<TAB>line` for Hadoop streaming.
  static let ledgerFormats = ["ledger", "keyed-ledger"]
  /// Options given alongside `--merge`, which conflict with it.
  var givenWithMerge: [String]
  var givenWithLedger: [String]
  var givenWithFromLedger: [String]

  init(_ arguments: ParsedArguments) throws(ReceiptToolError) {
    inputs = try InputOptions(arguments, command: Self.configuration.name)
    catalog = try CatalogOptions(arguments, command: Self.configuration.name)
    grouping = arguments.value("by").flatMap(RevenueGrouping.init(rawValue:)) ?? .product
    plan = arguments.value("commission").flatMap(CommissionPlan.init(rawValue:)) ?? .none
    range = PurchaseDateRange(from: try Self.time(arguments, "from"), to: try Self.time(arguments, "to"))
    reporter = RevenueReporters.named(arguments.value("format"))
    merging = arguments.flag("merge")
    ledgerFormat = arguments.value("format").flatMap { Self.ledgerFormats.contains($0) ? $0 : nil }
    fromLedger = arguments.flag("from-ledger")
    if fromLedger { inputs.forceNDJSON = true }
    givenWithLedger = ["by", "from", "to", "commission", "merge"].filter { !arguments.all($0).isEmpty }
    givenWithFromLedger = ["catalog", "merge"].filter { !arguments.all($0).isEmpty }
    givenWithMerge = ["catalog", "by", "from", "to", "commission"].filter { !arguments.all($0).isEmpty }
  }

  func validate() throws(ReceiptToolError) {
    try inputs.validate(command: Self.configuration.name)
    if merging, let option = givenWithMerge.first {
      throw Self.usage("--\(option) cannot be used with --merge: the parts were computed with their own options.")
    }
    if ledgerFormat != nil, let option = givenWithLedger.first {
      throw Self.usage("--\(option) cannot be used with --format ledger: give it to the reduce step, --from-ledger.")
    }
    if ledgerFormat != nil, fromLedger {
      throw Self.usage("--from-ledger writes a report, not a ledger: use --format json.")
    }
    if fromLedger, let option = givenWithFromLedger.first {
      throw Self.usage("--\(option) cannot be used with --from-ledger: the ledger lines carry their prices.")
    }
    if let from = range.from, let to = range.to, !(from < to) {
      throw Self.usage(
        "--from \(from.iso8601) is not before --to \(to.iso8601): no purchase can be in that range (--to is exclusive)."
      )
    }
  }

  func run(_ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    if merging || fromLedger, !inputs.signatures.trustRoots.isEmpty {
      throw Self.usage(
        "--trust-root checks documents as they are read: give it to the map step, not to --merge or --from-ledger."
      )
    }
    if merging || fromLedger, let option = inputs.signatures.expectedApp.origins.first {
      throw Self.usage(
        "\(option) checks documents as they are read: give it to the map step, not to --merge or --from-ledger.")
    }
    if let ledgerFormat {
      return try writeLedger(context, catalog: try catalog.load(context), keyed: ledgerFormat != "ledger")
    }
    return try run(context, catalog: merging || fromLedger ? Catalog() : try catalog.load(context))
  }

  /// A document's verdict, naming what revenue reads that its signature does not cover: ownership (owner or family
  /// copy), price and currency, where the document states them.
  static func verdict(of history: PurchaseHistory) -> SignatureCheck {
    var check = history.provenance.signatureCheck
    check.uncoveredInAnswer = uncoveredFields(readBy: FieldReads.revenue, in: history)
    return check
  }

  /// The map step: each document's transactions as ledger lines, worked out from that document alone.
  func writeLedger(_ context: CommandContext, catalog: Catalog, keyed: Bool) throws(ReceiptToolError) -> ExitStatus {
    @Sendable func write(_ line: LedgerCodec.Line) -> String {
      keyed ? LedgerCodec.writeKeyed(line) : LedgerCodec.write(line)
    }
    let signatures = try inputs.signatures.checking(now: Timestamp.now(), catalog: catalog)
    var signed = SignatureReview(options: inputs.signatures, context: context)
    let outcome = DocumentRunner.aggregate(
      inputs, context: context,
      transform: { (document) throws(ReceiptError) in
        let history = try context.decode(document, keepsFieldsOnlyDecodeShows: false, signatures: signatures)
        try history.requireValidStatus(source: document.label)
        var copy = InputDigest()
        document.content.withBuffer { copy.add(buffer: $0) }
        var ledger = PurchaseLedger()
        ledger.add(history)
        var text = ""
        for record in try ledger.records(catalog: catalog, copy: copy.hex) { text += write(.record(record)) + "\n" }
        return (text, Self.verdict(of: history), document.label, copy.hex)
      },
      consume: { read in
        // The document's verdict follows its records, for the reduce step to combine as one machine does.
        let verdict = signed.add(read.1, label: read.2)
        guard !inputs.quiet else { return }
        context.stdout.write(
          read.0 + write(.verdict(LedgerVerdict(input: read.2, copy: read.3, verdict: verdict))) + "\n")
      })
    // An unreadable input travels with the ledger, so the report names it.
    for error in outcome.errors where !inputs.quiet { context.stdout.write(write(.error(error)) + "\n") }
    return outcome.firstError ?? signed.finish()
  }

  /// The command with its catalog already loaded (tests pass one built in code).
  func run(_ context: CommandContext, catalog: Catalog) throws(ReceiptToolError) -> ExitStatus {
    let made: MadeReport
    if fromLedger {
      made = try reduceLedger(context)
    } else if merging {
      made = try mergeParts(context)
    } else {
      made = try reportDocuments(context, catalog: catalog)
    }
    write(made, context)
    return made.firstError ?? made.checkStatus
  }

  /// A report and what the mode that made it knows besides.
  struct MadeReport {
    var report: RevenueReport
    /// The first input's failure, if any.
    var firstError: ExitStatus?
    /// Which part of a larger report this is (written with `--format json`).
    var part: RevenuePartIdentity?
    /// The grouping the rows are in (a merge's parts say theirs).
    var grouping: RevenueGrouping
    /// The verdict the report carries in text and JSON: the documents', the ledger's verdict lines' or the parts',
    /// combined whatever their order (`RevenueSignatureVerdict`); nil when none was read.
    var verdict: RevenueVerdict? = nil
    /// What the signature checks asked for make of them.
    var checkStatus = ExitStatus.ok
  }

  /// The reduce step (`--from-ledger`): ledger lines, each transaction counted once, into a partial report.
  func reduceLedger(_ context: CommandContext) throws(ReceiptToolError) -> MadeReport {
    var reduction = LedgerReduction()
    var verdicts = VerdictLedger(required: inputs.signatures.required, context: context)
    let outcome = DocumentRunner.aggregate(
      inputs, context: context,
      transform: { (document) throws(ReceiptError) in try LedgerCodec.read(document.bytes, source: document.label) },
      consume: { line in
        switch line {
        case .record(let r): reduction.add(r)
        case .verdict(let v): verdicts.add(v.verdict, from: v.input, key: v.input + "\u{0}" + v.copy)
        case .error(let e): reduction.add(e)
        }
      })
    var report = try lifting { () throws(ReceiptError) in
      try reduction.report(grouping: grouping, range: range, commission: plan)
    }
    report.errors += outcome.errors
    var firstError = outcome.firstError
    if firstError == nil, !report.errors.isEmpty { firstError = .dataError }
    let part = RevenuePartIdentity(
      digest: contentDigest(of: reduction.forEachTransactionID, errors: report.errors), grouping: grouping.rawValue,
      commission: plan.rawValue, isShard: true)
    return MadeReport(
      report: report, firstError: firstError, part: part, grouping: grouping, verdict: verdicts.combined,
      checkStatus: verdicts.finish())
  }

  /// `--merge`: earlier `revenue --format json` outputs summed, each part admitted once.
  func mergeParts(_ context: CommandContext) throws(ReceiptToolError) -> MadeReport {
    var merged = RevenueReport(hasProceeds: false)
    var parts = PartLedger()
    var verdicts = VerdictLedger(required: inputs.signatures.required, context: context)
    let outcome = DocumentRunner.aggregate(
      inputs, context: context,
      transform: { (document) throws(ReceiptError) in
        (try RevenueReportCodec.readPart(document.bytes, source: document.label), document.label)
      },
      consume: { (read) throws(ReceiptError) in
        let ((report, identity, verdict), label) = read
        // An empty part (a reduce that got no lines) adds nothing, so it cannot count anything twice.
        let isEmpty =
          report.currencies.isEmpty && report.counts == RevenueCounts() && report.unpriced.isEmpty
          && report.errors.isEmpty
        if !isEmpty { try parts.admit(identity, label: label, warn: context.warn) }
        try merged.merge(report)
        // Only once admitted, so a part refused adds no verdict; a part made from no document carries none.
        if let verdict { verdicts.add(verdict, from: label, key: nil) }
      })
    merged.errors += outcome.errors
    var firstError = outcome.firstError
    // Parts read back may carry errors of their own runs.
    if firstError == nil, !merged.errors.isEmpty { firstError = .dataError }
    let part = parts.identity
    let shown = part.flatMap { RevenueGrouping(rawValue: $0.grouping) } ?? grouping
    return MadeReport(
      report: merged, firstError: firstError, part: part, grouping: shown, verdict: verdicts.combined,
      checkStatus: verdicts.finish())
  }

  /// The documents themselves: every distinct transaction valued with `catalog`.
  func reportDocuments(_ context: CommandContext, catalog: Catalog) throws(ReceiptToolError) -> MadeReport {
    var ledger = PurchaseLedger()
    let signatures = try inputs.signatures.checking(now: Timestamp.now(), catalog: catalog)
    var signed = SignatureReview(options: inputs.signatures, context: context)
    let outcome = DocumentRunner.aggregate(
      inputs, context: context,
      transform: { (document) throws(ReceiptError) in
        let history = try context.decode(document, keepsFieldsOnlyDecodeShows: false, signatures: signatures)
        try history.requireValidStatus(source: document.label)
        let disagreements =
          catalogDisagreements(of: history, catalog: catalog) + NotificationEffects.unknownEventWarnings(in: history)
          + ReadingWarnings.shown(in: history) + PartialHistory.warnings(history)
        return (history, disagreements.map { "\(document.label): \($0)" }, document.label)
      },
      consume: { read in
        signed.add(Self.verdict(of: read.0), label: read.2)
        ledger.add(read.0)
        for warning in read.1 { context.warn(warning) }
      })
    let verdict = signed.reportVerdict
    let checkStatus = signed.finish()
    let read = ledger
    let errors = outcome.errors
    // Kept until the process exits, as a per-document run keeps its last output: destroying every transaction
    // of the ledger was the last thing the command did (22 M instructions for 20,000 transactions).
    defer { KeptUntilExit.lastOutput.keep(read) }
    // The digest reads the ledger as the report does (the report's errors are the inputs'), so it is taken on
    // another thread meanwhile.
    let digest = BackgroundResult { contentDigest(of: read.forEachTransactionID, errors: errors) }
    var report = try lifting { () throws(ReceiptError) in
      try Self.report(of: read, catalog: catalog, grouping: grouping, range: range, commission: plan)
    }
    report.errors = errors
    let part = RevenuePartIdentity(digest: digest.value, grouping: grouping.rawValue, commission: plan.rawValue)
    return MadeReport(
      report: report, firstError: outcome.firstError, part: part, grouping: grouping, verdict: verdict,
      checkStatus: checkStatus)
  }

  /// Warns about what the totals leave out, and writes the report in the chosen format.
  func write(_ made: MadeReport, _ context: CommandContext) {
    let report = made.report
    if report.counts.undatedExcluded > 0 {
      context.warn(
        "\(report.counts.undatedExcluded) transaction(s) have no purchase date and were left out by --from/--to")
    }
    if reporter.name == "csv", report.counts.unpriced > 0 {
      // The text format lists them in its body; a CSV consumer may read only the numbers.
      context.warn(
        "\(report.counts.unpriced) transaction(s) of \(report.unpricedProducts.count) product(s) have no catalog price"
          + " and are not in the totals; they are the rows with currency '\(RevenueCSVRenderer.unpricedCurrency)'")
    }
    guard !inputs.quiet else { return }
    if fromLedger, reporter.name == "json" {
      // One line per partial report, so that many reducers' outputs are one NDJSON stream for --merge.
      context.stdout.write(
        RevenueReportCodec.write(report, signatureCheck: made.verdict, part: made.part).rendered(pretty: false)
          + "\n")
    } else {
      let style = TextStyle(color: context.environment.useColor, width: context.environment.columns)
      // Text and JSON carry the order-independent report verdict, so that every mode gives one machine's bytes.
      switch (reporter.name, made.verdict) {
      case ("text", let verdict?):
        context.stdout.write(
          SignatureCheckRendering.line(verdict, color: style.color, width: style.width).rendered + "\n"
            + reporter.render(report, made.grouping, style, made.part, made.verdict))
      default:
        context.stdout.write(reporter.render(report, made.grouping, style, made.part, made.verdict))
      }
    }
  }

  /// The report of `ledger`, made in two parts on two cores from `minimum` transactions on (`RevenueParts`; tests
  /// lower `minimum`); the sum is the one-pass report, and when the parts give none the one pass is made, so an
  /// error is the one it meets first.
  static func report(
    of ledger: PurchaseLedger, catalog: Catalog, grouping: RevenueGrouping, range: PurchaseDateRange,
    commission: CommissionPlan, halvesFrom minimum: Int = 20_000
  ) throws(ReceiptError) -> RevenueReport {
    if ledger.distinctTransactions >= minimum,
      let sum = RevenueParts(ledger, count: 2, commission: commission)?.report(
        catalog: catalog, grouping: grouping, range: range)
    {
      return sum
    }
    return try ledger.report(catalog: catalog, grouping: grouping, range: range, commission: commission)
  }

  /// The report's digest: its distinct transactions and unreadable inputs, with the options that change the
  /// numbers. A shuffle's shards sum to the digest of the whole export on one machine. `transactionIDs` calls
  /// its argument with each distinct transaction id.
  func contentDigest(of transactionIDs: ((String) -> Void) -> Void, errors: [RevenueInputError]) -> String {
    var digest = ContentDigest(
      options: "by=\(grouping.rawValue)\u{0}commission=\(plan.rawValue)\u{0}from=\(range.from?.iso8601 ?? "")"
        + "\u{0}to=\(range.to?.iso8601 ?? "")")
    transactionIDs { digest.add(transactionID: $0) }
    for e in errors { digest.add(inputError: e.input, message: e.message) }
    return digest.hex
  }

  /// The verdicts `--from-ledger` reads from the map step's verdict lines, or `--merge` from its parts: combined
  /// whatever their order, a line read twice counted once, and with `--require-signature` each that is not
  /// verified named on standard error.
  struct VerdictLedger {
    let required: Bool
    let context: CommandContext
    private var seen: Set<String> = []
    private var failed = false
    private(set) var combined: RevenueVerdict?

    init(required: Bool, context: CommandContext) {
      self.required = required
      self.context = context
    }

    /// One document's (or part's) verdict; `key` names a ledger line, so that reading it again changes nothing.
    mutating func add(_ verdict: RevenueVerdict, from input: String, key: String?) {
      if let key, !seen.insert(key).inserted { return }
      combined = RevenueSignatureVerdict.combining([combined, verdict].compactMap { $0 })
      if required, verdict.check.verdict != .verified {
        let what = key == nil ? "the part's documents are" : "the document is"
        context.stderr.write(
          "receipt-tool: check failed: \(TerminalSafeText("\(input): --require-signature: \(what) not verified (\(verdict.summary))"))\n"
        )
        failed = true
      }
    }

    /// `checkFailed` when `--require-signature` failed, or no verdict was read (lines or parts made before
    /// verdicts, or a reduce whose shuffle sent every verdict line elsewhere).
    func finish() -> ExitStatus {
      guard required else { return .ok }
      if combined == nil {
        context.stderr.write(
          "receipt-tool: check failed: --require-signature: the input holds no document verdict to check\n")
        return .checkFailed
      }
      return failed ? .checkFailed : .ok
    }
  }

  /// The parts `--merge` has read: each counted once, all made with the same `--by` and `--commission`.
  struct PartLedger {
    private var seen: [String: String] = [:]
    private var wholes: [String] = []
    /// The sum of every part's digest: the merged report's digest, since its parts are disjoint.
    private var sum: UInt64 = 0
    private var shardSum: UInt64?
    private var first: (identity: RevenuePartIdentity, label: String)?

    mutating func admit(
      _ identity: RevenuePartIdentity?, label: String, warn: (String) -> Void
    ) throws(ReceiptError) {
      guard let identity else {
        warn(
          "\(label): the part carries no identity (an older receipt-tool made it), so it cannot be checked against being merged twice"
        )
        return
      }
      if let first {
        for (what, mine, theirs) in [
          ("--by", identity.grouping, first.identity.grouping),
          ("--commission", identity.commission, first.identity.commission),
        ] where mine != theirs {
          throw .data(
            source: nil,
            message:
              "--merge: this part was made with \(what) \(mine) and \(first.label) with \(what) \(theirs); merge parts made with the same options"
          )
        }
      } else {
        first = (identity, label)
      }
      for digest in identity.parts {
        if let earlier = seen[digest] {
          throw .data(
            source: nil,
            message:
              "--merge: this part (digest \(digest)) was already merged from \(earlier); counting it again would double its totals"
          )
        }
      }
      for digest in identity.parts { seen[digest] = label }
      // The codec read 16 hex digits.
      let value = ContentDigest.value(ofHex: identity.digest) ?? 0
      sum = sum &+ value
      if identity.isShard {
        shardSum = (shardSum ?? 0) &+ value
      } else {
        wholes += identity.parts
      }
    }

    /// The merged report's identity: the sum of its parts' digests, and the parts, where a shuffle's shards
    /// count as one whole (so the job's report names itself as one machine's report of the export does).
    var identity: RevenuePartIdentity? {
      guard let first else { return nil }
      return RevenuePartIdentity(
        digest: InputDigest.hex(sum), grouping: first.identity.grouping, commission: first.identity.commission,
        parts: wholes + (shardSum.map { [InputDigest.hex($0)] } ?? []))
    }
  }

  static func time(_ arguments: ParsedArguments, _ option: String) throws(ReceiptToolError) -> Timestamp? {
    guard let text = arguments.value(option) else { return nil }
    let choice: AsOfChoice
    do throws(ReceiptToolError) {
      choice = try AsOfChoice.parse(text, option: option, allowsRequest: false)
    } catch {
      throw usage(error.message)
    }
    switch choice {
    case .fixed(let t): return t
    case .now: return Timestamp.now()
    case .automatic, .request: return nil
    }
  }
}

/// Colour and width for text output.
struct TextStyle {
  var color: Bool
  var width: Int
}

/// `revenue`'s output formats, looked up by `--format` name, as SwiftLint looks up its reporters.
enum RevenueReporters {
  struct Reporter: Sendable {
    var name: String
    var render: @Sendable (RevenueReport, RevenueGrouping, TextStyle, RevenuePartIdentity?, RevenueVerdict?) -> String
  }

  /// In the order help lists them; the first is the default.
  static let all: [Reporter] = [
    Reporter(name: "text") { report, grouping, style, _, _ in
      RevenueTextRenderer.render(report, grouping: grouping, color: style.color, width: style.width).rendered
    },
    Reporter(name: "json") { report, _, _, part, verdict in
      RevenueReportCodec.write(report, signatureCheck: verdict, part: part).rendered() + "\n"
    },
    Reporter(name: "csv") { report, grouping, _, _, _ in RevenueCSVRenderer.render(report, grouping: grouping) },
  ]

  static var names: [String] { all.map(\.name) }

  /// The reporter for a `--format` value the parser already checked, or the default.
  static func named(_ name: String?) -> Reporter {
    all.first { $0.name == name } ?? all[0]
  }
}
