import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `receipt-tool timeline`: a customer's purchase history on a time axis, with each entitlement's status.
struct TimelineCommand: ParsableCommand {
  /// `--format`: the chart in the terminal, as a self-contained page, or as the picture alone.
  enum Format: String, CaseIterable {
    case text, html, svg
  }

  static let configuration = CommandConfiguration(
    name: "timeline",
    abstract: "Draw a receipt's history on a time axis, one lane per entitlement, with each status and reason.",
    discussion: """
      Each transaction is a bar from its purchase to its expiry, marked for ownership (= owned, ~ family-shared, ? unknown), free trial (t) or intro offer (i), the gap before a renewal (.), a refund or revocation (X at its date), an upgrade (^), the grace period (g) and billing retry (r) from the renewal info, and no expiry (>); | is the evaluation moment. Under the chart go each lane's status and reason, as 'entitlements' gives them. Without a catalog every product is its own lane.

      Text fits $COLUMNS; below 60 columns it becomes a list. Colour only on a terminal, never with $NO_COLOR. html is one self-contained page (inline SVG and CSS, no script, no network) with one section per document, a data table and the input's provenance; svg is the chart alone (several documents are stacked in one picture).
      """,
    options: [
      CommonOptions.format(Format.allCases.map(\.rawValue)),
      CommonOptions.catalog,
      CommonOptions.asOf,
    ] + CommonOptions.reading(oneCustomer: false))

  var inputs: InputOptions
  var format: Format
  var catalog: CatalogOptions
  var asOf: AsOfChoice

  init(_ arguments: ParsedArguments) throws(ReceiptToolError) {
    inputs = try InputOptions(arguments, command: Self.configuration.name)
    format = arguments.value("format").flatMap(Format.init(rawValue:)) ?? .text
    catalog = try CatalogOptions(arguments, command: Self.configuration.name)
    asOf = try AsOfChoice(arguments, command: Self.configuration.name)
  }

  func run(_ context: CommandContext) throws(ReceiptToolError) -> ExitStatus {
    let catalog = try self.catalog.load(context)
    let now = Timestamp.now()
    let signatures = try inputs.signatures.checking(now: now, catalog: catalog)
    let chart = { (input: InputDocument) throws(ReceiptError) -> TimelineChart in
      try Self.chart(input, context: context, catalog: catalog, asOf: asOf, now: now, signatures: signatures)
    }
    let review = inputs.signatures.review
    switch format {
    case .text:
      let (color, width) = (context.environment.useColor, context.environment.columns)
      return DocumentRunner.run(
        inputs, format: .text, context: context, check: inputs.signatures.checkName
      ) { (input) throws(ReceiptError) in
        let chart = try chart(input)
        let reviewed = chart.provenance.signature.map(review)
        return DocumentOutput(
          text: TimelineTextRenderer.terminalText(chart, width: width, color: color), json: .null,
          failedChecks: reviewed?.failedChecks ?? [], warnings: reviewed?.warnings ?? [])
      }
    case .html, .svg:
      // One page for every document: collected in input order and written once at the end, so a
      // document that fails never leaves half a page behind.
      var charts: [TimelineChart] = []
      var checkFailed = false
      let (firstError, _) = DocumentRunner.aggregate(inputs, context: context, transform: chart) { chart in
        charts.append(chart)
        guard let reviewed = chart.provenance.signature.map(review) else { return }
        for warning in reviewed.warnings { context.warn("\(chart.title): \(warning)") }
        for check in reviewed.failedChecks {
          context.stderr.write("receipt-tool: check failed: \(TerminalSafeText("\(chart.title): \(check)"))\n")
          checkFailed = true
        }
      }
      if !inputs.quiet, !charts.isEmpty {
        context.stdout.write(
          format == .html
            ? TimelineHTMLRenderer.render(charts, pageTitle: Self.pageTitle(charts))
            : Self.svg(charts))
      }
      if inputs.signatures.required, charts.isEmpty, firstError == nil {
        context.stderr.write("receipt-tool: check failed: --require-signature: the input holds no document to check\n")
        checkFailed = true
      }
      return firstError ?? (checkFailed ? .checkFailed : .ok)
    }
  }

  /// One document's chart, evaluated as `entitlements` evaluates it.
  static func chart(
    _ input: InputDocument, context: CommandContext, catalog: Catalog, asOf: AsOfChoice, now: Timestamp,
    signatures: SignatureChecking?
  ) throws(ReceiptError) -> TimelineChart {
    let history = try context.decode(input, keepsFieldsOnlyDecodeShows: false, signatures: signatures)
    try history.requireValidStatus(source: input.label)
    let evaluation = try asOf.resolve(moment: history.moment, now: now)
    let results = entitlementStatuses(of: history, catalog: catalog, at: evaluation.time).map(
      CommandLineHints.adding(to:))
    return TimelineChartBuilding.chart(
      history: history, results: results, catalog: catalog, evaluation: evaluation, label: input.label)
  }

  /// "Entitlement timeline: file.json" for one document, "Entitlement timelines (3 documents)" for several.
  static func pageTitle(_ charts: [TimelineChart]) -> String {
    guard charts.count == 1, let only = charts.first else {
      return "Entitlement timelines (\(charts.count) documents)"
    }
    return "Entitlement timeline: " + only.title
  }

  /// The chart alone; several documents stacked in one picture.
  static func svg(_ charts: [TimelineChart]) -> String {
    let width = TimelineHTMLRenderer.chartWidth
    guard charts.count == 1, let only = charts.first else {
      return TimelineSVGRenderer.render(charts, width: width, pageTitle: pageTitle(charts))
    }
    return TimelineSVGRenderer.render(only, width: width, idPrefix: "timeline")
  }
}
