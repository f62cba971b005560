import ReceiptModel
import ReceiptRules

/// `revenue --format json`, both ways: `write` is the format, `read` reads it back for `--merge`.
public enum RevenueReportCodec {
  /// Reads an earlier `revenue --format json` output.
  /// - Parameters:
  ///   - bytes: the JSON document.
  ///   - source: its name for messages.
  /// - Returns: the report it holds.
  /// - Throws: `ReceiptError` naming the path of a value that is not what `write` writes.
  public static func read(_ bytes: [UInt8], source: String) throws(ReceiptError) -> RevenueReport {
    try readPart(bytes, source: source).report
  }

  /// Reads an earlier `revenue --format json` output, the identity it carries, if it carries one (outputs of
  /// receipt-tool before 1.1 do not), and the signature verdict of the documents it was made from:
  /// `RevenueSignatureVerdict.unknownPart` when it carries none (receipt-tool before verdicts), nil when it was
  /// made from no document (`"signature_check": null`).
  /// - Parameters:
  ///   - bytes: the JSON document.
  ///   - source: its name for messages.
  /// - Returns: the report, its `part` identity and its verdict.
  /// - Throws: `ReceiptError` naming the path of a value that is not what `write` writes.
  public static func readPart(_ bytes: [UInt8], source: String) throws(ReceiptError)
    -> (report: RevenueReport, part: RevenuePartIdentity?, verdict: RevenueVerdict?)
  {
    let root = try JSONValue.parse(bytes, source: source)
    var reading = Reading(source: source)
    try reading.schemaVersion(root)
    let report = try reading.report(root)
    var signatureCheck: RevenueVerdict? = RevenueSignatureVerdict.unknownPart
    if let check = root.member("signature_check") {
      if case .null = check {
        signatureCheck = nil
      } else {
        signatureCheck = try RevenueSignatureVerdict.read(check, reading: reading)
      }
    }
    guard let part = root.member("part") else { return (report, nil, signatureCheck) }
    let digest = try reading.string(reading.member(part, "digest", "part"), "part.digest")
    guard ContentDigest.value(ofHex: digest) != nil else {
      throw reading.fail("part.digest", "expected 16 lowercase hex digits, found \(Excerpt.quoted(digest))")
    }
    var isShard = false
    if let shard = part.member("shard") {
      guard case .bool(let b) = shard else {
        throw reading.fail("part.shard", "expected true or false, found \(shard.excerpt)")
      }
      isShard = b
    }
    let parts = try reading.array(reading.member(part, "parts", "part"), "part.parts").enumerated().map {
      (i, v) throws(ReceiptError) in try reading.string(v, "part.parts[\(i)]")
    }
    return (
      report,
      RevenuePartIdentity(
        digest: digest, grouping: try reading.string(reading.member(part, "by", "part"), "part.by"),
        commission: try reading.string(reading.member(part, "commission", "part"), "part.commission"), parts: parts,
        isShard: isShard),
      signatureCheck
    )
  }

  struct Reading {
    var source: String

    func fail(_ path: String, _ message: String) -> ReceiptError {
      .field(source: source, path: path, message: message, line: nil, column: nil)
    }

    func member(_ v: JSONValue, _ key: String, _ path: String) throws(ReceiptError) -> JSONValue {
      guard case .object = v else { throw fail(path, "expected an object, found \(v.excerpt)") }
      guard let m = v.member(key) else { throw fail(path, "missing \"\(key)\"; not a 'revenue --format json' output") }
      return m
    }

    /// Refuses what a receipt-tool of a later major schema version wrote: its members may mean other things.
    /// Outputs written before versions were named carry none.
    func schemaVersion(_ root: JSONValue) throws(ReceiptError) {
      guard let v = root.member("schema_version") else { return }
      guard case .number(let text) = v, let n = Int(text), n >= 1 else {
        throw fail("schema_version", "expected a whole number of at least 1, found \(v.excerpt)")
      }
      guard n <= OutputSchemaVersion.current else {
        throw fail(
          "schema_version",
          "\(n) is a later schema version than this receipt-tool reads (\(OutputSchemaVersion.current)); read it with the receipt-tool that wrote it, or a later one"
        )
      }
    }

    func array(_ v: JSONValue, _ path: String) throws(ReceiptError) -> [JSONValue] {
      guard case .array(let items) = v else { throw fail(path, "expected an array, found \(v.excerpt)") }
      return items
    }

    func string(_ v: JSONValue, _ path: String) throws(ReceiptError) -> String {
      guard case .string(let s) = v else { throw fail(path, "expected a string, found \(v.excerpt)") }
      return s
    }

    func count(_ v: JSONValue, _ path: String) throws(ReceiptError) -> Int64 {
      guard case .number(let n) = v, let i = Int64(n), i >= 0 else {
        throw fail(path, "expected a whole number of at least 0, found \(v.excerpt)")
      }
      return i
    }

    func money(_ v: JSONValue, _ path: String, currency: String) throws(ReceiptError) -> Int64 {
      let s = try string(v, path)
      guard let m = Money(parsing: s, currency: currency) else {
        throw fail(
          path,
          "expected a \(currency) amount with \(minorDigits(ofCurrency: currency)) decimals, found \(Excerpt.quoted(s))"
        )
      }
      return m.minorUnits
    }

    /// An upgrade proration: it must say it is an estimate, so that no figure is read back as Apple's.
    func proration(_ v: JSONValue, _ path: String, currency: String, into group: inout RevenueGroup)
      throws(ReceiptError)
    {
      guard case .bool(true) = try member(v, "estimated", path) else {
        throw fail(path + ".estimated", "expected true: an upgrade proration is always an estimate")
      }
      group.upgradeProrations = try count(member(v, "units", path), path + ".units")
      group.estimatedProrationRefunds = try money(member(v, "refunds", path), path + ".refunds", currency: currency)
    }

    /// The figures of one backing class, as `RevenueReportCodec.backing` writes them.
    func figures(_ v: JSONValue, _ path: String, currency: String) throws(ReceiptError) -> BackedFigures {
      var f = BackedFigures()
      f.transactions = try count(member(v, "transactions", path), path + ".transactions")
      f.gross = try money(member(v, "gross", path), path + ".gross", currency: currency)
      f.refunds = try money(member(v, "refunds", path), path + ".refunds", currency: currency)
      f.estimatedProrationRefunds = try money(
        member(v, "estimated_proration_refunds", path), path + ".estimated_proration_refunds", currency: currency)
      if let p = v.member("proceeds") { f.proceeds = try money(p, path + ".proceeds", currency: currency) }
      let net = try money(member(v, "net", path), path + ".net", currency: currency)
      guard net == f.net else {
        throw fail(path + ".net", "is not gross less refunds and estimated proration refunds")
      }
      return f
    }

    /// A currency's commitment charges, as `RevenueReportCodec.commitments` writes them.
    func commitments(_ v: JSONValue, _ path: String, currency: String) throws(ReceiptError) -> CommitmentTotals {
      var t = CommitmentTotals()
      t.charges = try count(member(v, "charges", path), path + ".charges")
      t.chargesGross = try money(member(v, "charges_gross", path), path + ".charges_gross", currency: currency)
      t.started = try count(member(v, "started", path), path + ".started")
      t.committed = try money(member(v, "committed", path), path + ".committed", currency: currency)
      t.startedWithoutPrice = try count(
        member(v, "started_without_price", path), path + ".started_without_price")
      return t
    }

    /// A currency's backing, each reason once; `not_backed` must be the sum of its reasons.
    func backing(_ v: JSONValue, _ path: String, currency: String) throws(ReceiptError) -> BackedRevenue {
      var b = BackedRevenue()
      b.backed = try figures(member(v, "backed", path), path + ".backed", currency: currency)
      b.backedThroughTrustRoot = try figures(
        member(v, "backed_through_trust_root", path), path + ".backed_through_trust_root", currency: currency)
      let rest = try member(v, "not_backed", path)
      let restFigures = try figures(rest, path + ".not_backed", currency: currency)
      for (i, r) in try array(member(rest, "reasons", path + ".not_backed"), path + ".not_backed.reasons").enumerated()
      {
        let rp = path + ".not_backed.reasons[\(i)]"
        let name = try string(member(r, "reason", rp), rp + ".reason")
        guard let reason = NotBackedReason(rawValue: name), b.notBacked[reason] == nil else {
          throw fail(rp + ".reason", "expected a reason receipt-tool writes, once, found \(Excerpt.quoted(name))")
        }
        b.notBacked[reason] = try figures(r, rp, currency: currency)
      }
      guard b.notBackedTotal == restFigures || (b.notBacked.isEmpty && restFigures.isZero) else {
        throw fail(path + ".not_backed", "is not the sum of its reasons")
      }
      return b
    }

    mutating func report(_ root: JSONValue) throws(ReceiptError) -> RevenueReport {
      let currencies = try array(member(root, "currencies", "$"), "currencies")
      var hasProceeds: Bool?
      var rows: [(String, RevenueGroup)] = []
      var backings: [(String, BackedRevenue?)] = []
      var commitments: [(String, CommitmentTotals)] = []
      for (i, c) in currencies.enumerated() {
        let cp = "currencies[\(i)]"
        let currency = try string(member(c, "currency", cp), cp + ".currency")
        for (j, g) in try array(member(c, "groups", cp), cp + ".groups").enumerated() {
          let gp = cp + ".groups[\(j)]"
          var group = RevenueGroup(key: try string(member(g, "key", gp), gp + ".key"))
          group.units = try count(member(g, "units", gp), gp + ".units")
          group.trials = try count(member(g, "trials", gp), gp + ".trials")
          group.refunded = try count(member(g, "refunded", gp), gp + ".refunded")
          group.gross = try money(member(g, "gross", gp), gp + ".gross", currency: currency)
          group.refunds = try money(member(g, "refunds", gp), gp + ".refunds", currency: currency)
          if let estimate = g.member("upgrade_proration") {
            try proration(estimate, gp + ".upgrade_proration", currency: currency, into: &group)
          }
          let p = g.member("proceeds")
          if let hasProceeds, hasProceeds != (p != nil) {
            throw fail(gp, "some groups have proceeds and some do not; merge parts made with the same --commission")
          }
          hasProceeds = p != nil
          if let p { group.proceeds = try money(p, gp + ".proceeds", currency: currency) }
          rows.append((currency, group))
        }
        let read = try c.member("backing").map { (b) throws(ReceiptError) in
          try backing(b, cp + ".backing", currency: currency)
        }
        backings.append((currency, read))
        if let v = c.member("commitments") {
          commitments.append((currency, try self.commitments(v, cp + ".commitments", currency: currency)))
        }
      }
      var report = RevenueReport(hasProceeds: hasProceeds ?? false)
      for (currency, group) in rows { try report.add(group, currency: currency) }
      let totals = report.currencies
      for (currency, read) in backings {
        // A part made before backing was recorded: all of its money is not known to be backed.
        var backing = BackedRevenue()
        if let read {
          // The classes split the currency's money: a part cannot claim more backed than it counted.
          let total = totals.first { $0.currency == currency }?.total
          let rest = read.notBackedTotal
          func adds(_ a: Int64, _ b: Int64, _ t: Int64?) -> Bool {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return !overflow && sum == (t ?? 0)
          }
          guard let rest,
            adds(read.backed.gross, rest.gross, total?.gross), adds(read.backed.refunds, rest.refunds, total?.refunds),
            adds(
              read.backed.estimatedProrationRefunds, rest.estimatedProrationRefunds, total?.estimatedProrationRefunds)
          else {
            throw fail(
              "currencies[\(backings.firstIndex { $0.0 == currency } ?? 0)].backing",
              "backed and not_backed do not add up to the currency's gross, refunds and estimated proration refunds")
          }
          backing = read
        } else if let total = totals.first(where: { $0.currency == currency })?.total {
          var figures = BackedFigures(proceeds: total.proceeds)
          (figures.gross, figures.refunds, figures.estimatedProrationRefunds) = (
            total.gross, total.refunds, total.estimatedProrationRefunds
          )
          backing.notBacked[.notRecorded] = figures
        }
        try report.addBacking(backing, currency: currency)
      }
      for (currency, totals) in commitments { try report.addCommitments(totals, currency: currency) }
      let t = try member(root, "transactions", "$")
      func n(_ key: String) throws(ReceiptError) -> Int {
        let v = try count(member(t, key, "transactions"), "transactions.\(key)")
        guard let i = Int(exactly: v) else { throw fail("transactions.\(key)", "too large") }
        return i
      }
      report.counts.counted = try n("counted")
      report.counts.familySharedExcluded = try n("family_shared_excluded")
      report.counts.duplicatesMerged = try n("duplicates_merged")
      report.counts.refunded = try n("refunded")
      report.counts.trials = try n("trials")
      report.counts.unpriced = try n("unpriced")
      report.counts.unrecognizedOwnershipExcluded = try n("unrecognized_ownership_excluded")
      report.counts.undatedExcluded = try n("undated_excluded")
      // Written only when not 0, by versions that estimate upgrade prorations.
      if t.member("upgrade_prorations") != nil { report.counts.upgradeProrations = try n("upgrade_prorations") }
      if t.member("upgrades_not_estimated") != nil {
        report.counts.upgradesNotEstimated = try n("upgrades_not_estimated")
      }
      // Written only when non-zero, so reports without on-device receipts keep their shape.
      if t.member("unknown_ownership_excluded") != nil {
        report.counts.unknownOwnershipExcluded = try n("unknown_ownership_excluded")
      }
      // Only written when signed data's own prices were used.
      if t.member("priced_from_transaction") != nil {
        report.counts.pricedFromTransaction = try n("priced_from_transaction")
      }
      // Only written when signed data stated a partial or a reversed refund.
      if t.member("partial_refunds") != nil { report.counts.partialRefunds = try n("partial_refunds") }
      if t.member("refunds_reversed") != nil { report.counts.refundsReversed = try n("refunds_reversed") }
      for (i, u) in try array(member(root, "unpriced", "$"), "unpriced").enumerated() {
        let up = "unpriced[\(i)]"
        try report.addUnpriced(
          productID: string(member(u, "product_id", up), up + ".product_id"),
          units: count(member(u, "units", up), up + ".units"))
      }
      for (i, e) in try array(member(root, "errors", "$"), "errors").enumerated() {
        let ep = "errors[\(i)]"
        report.errors.append(
          RevenueInputError(
            input: try string(member(e, "input", ep), ep + ".input"),
            message: try string(member(e, "message", ep), ep + ".message")))
      }
      return report
    }
  }
}

extension RevenueReportCodec {
  /// The report as `write(_:)` writes it, then the documents' combined signature verdict, `"signature_check"`
  /// (null when no document was read), and its identity as a last member, `"part"`, for `--merge`.
  /// - Parameters:
  ///   - report: the report.
  ///   - signatureCheck: the combined verdict of what it was made from (`RevenueSignatureVerdict.combining`).
  ///   - part: what it was made from.
  /// - Returns: the JSON value `readPart` reads back.
  public static func write(_ report: RevenueReport, signatureCheck: RevenueVerdict?, part: RevenuePartIdentity?)
    -> JSONValue
  {
    guard case .object(var members) = write(report) else { return write(report) }
    members.append((key: "signature_check", value: signatureCheck.map { RevenueSignatureVerdict.write($0) } ?? .null))
    if let part { members.append((key: "part", value: part.json)) }
    return .object(members)
  }

  /// The report as JSON: amounts as decimal strings with the currency's minor digits, `proceeds` only
  /// when a commission estimate was asked for.
  /// - Parameter report: the report.
  /// - Returns: the JSON value `read` reads back.
  public static func write(_ report: RevenueReport) -> JSONValue {
    let currencies = report.currencies.map { c -> JSONValue in
      var members = amounts(c.total, currency: c.currency)
      members.insert(("currency", .string(c.currency)), at: 0)
      members.append(("backing", backing(c.backing, currency: c.currency, hasProceeds: report.hasProceeds)))
      // Only where a charge on a commitment plan was counted, so other reports keep their shape.
      if !c.commitments.isEmpty { members.append(("commitments", commitments(c.commitments, currency: c.currency))) }
      members.append(
        (
          "groups",
          .array(
            c.groups.map { g in
              .object(
                [
                  ("key", .string(g.key)), ("units", .int(g.units)), ("trials", .int(g.trials)),
                  ("refunded", .int(g.refunded)),
                ] + amounts(g, currency: c.currency))
            })
        ))
      return .object(members)
    }
    let n = report.counts
    var counts: [(key: String, value: JSONValue)] = [
      ("counted", .int(n.counted)),
      ("family_shared_excluded", .int(n.familySharedExcluded)),
      ("duplicates_merged", .int(n.duplicatesMerged)),
      ("refunded", .int(n.refunded)),
      ("trials", .int(n.trials)),
      ("unpriced", .int(n.unpriced)),
      ("unrecognized_ownership_excluded", .int(n.unrecognizedOwnershipExcluded)),
      ("undated_excluded", .int(n.undatedExcluded)),
    ]
    if n.upgradeProrations != 0 { counts.append(("upgrade_prorations", .int(n.upgradeProrations))) }
    if n.upgradesNotEstimated != 0 { counts.append(("upgrades_not_estimated", .int(n.upgradesNotEstimated))) }
    if n.unknownOwnershipExcluded > 0 {
      counts.append(("unknown_ownership_excluded", .int(n.unknownOwnershipExcluded)))
    }
    // Only when signed data's own prices were used, so other reports keep their shape.
    if n.pricedFromTransaction > 0 { counts.append(("priced_from_transaction", .int(n.pricedFromTransaction))) }
    if n.partialRefunds > 0 { counts.append(("partial_refunds", .int(n.partialRefunds))) }
    if n.refundsReversed > 0 { counts.append(("refunds_reversed", .int(n.refundsReversed))) }
    return .object([
      OutputSchemaVersion.member,
      ("currencies", .array(currencies)),
      ("transactions", .object(counts)),
      (
        "unpriced",
        .array(
          report.unpricedProducts.map { .object([("product_id", .string($0.productID)), ("units", .int($0.units))]) })
      ),
      (
        "errors",
        .array(report.errors.map { .object([("input", .string($0.input)), ("message", .string($0.message))]) })
      ),
    ])
  }

  /// A currency's charges on commitment plans (`CommitmentTotals`).
  static func commitments(_ t: CommitmentTotals, currency: String) -> JSONValue {
    func money(_ v: Int64) -> JSONValue { .string(Money(minorUnits: v, currency: currency).text) }
    return .object([
      ("charges", .int(t.charges)), ("charges_gross", money(t.chargesGross)), ("started", .int(t.started)),
      ("committed", money(t.committed)), ("started_without_price", .int(t.startedWithoutPrice)),
    ])
  }

  /// A currency's money by backing class (`moneyBacking`): `backed`, the part of it `backed_through_trust_root`,
  /// and `not_backed` with each reason's share.
  static func backing(_ b: BackedRevenue, currency: String, hasProceeds: Bool) -> JSONValue {
    func figures(_ f: BackedFigures) -> [(key: String, value: JSONValue)] {
      func money(_ v: Int64) -> JSONValue { .string(Money(minorUnits: v, currency: currency).text) }
      var out: [(key: String, value: JSONValue)] = [
        ("transactions", .int(f.transactions)), ("gross", money(f.gross)), ("refunds", money(f.refunds)),
        ("estimated_proration_refunds", money(f.estimatedProrationRefunds)), ("net", money(f.net)),
      ]
      if hasProceeds { out.append(("proceeds", money(f.proceeds ?? 0))) }
      return out
    }
    var rest = figures(b.notBackedTotal ?? BackedFigures())
    rest.append(
      (
        "reasons",
        .array(
          b.reasons.map { r in
            .object(
              [("reason", .string(r.reason.rawValue)), ("explanation", .string(r.reason.explanation))]
                + figures(r.figures))
          })
      ))
    return .object([
      ("backed", .object(figures(b.backed))),
      ("backed_through_trust_root", .object(figures(b.backedThroughTrustRoot))),
      ("not_backed", .object(rest)),
    ])
  }

  /// How an upgrade proration was arrived at, written beside every one.
  public static let prorationBasis = "upgrade proration, estimated from dates"

  static func amounts(_ g: RevenueGroup, currency: String) -> [(String, JSONValue)] {
    func money(_ v: Int64) -> JSONValue { .string(Money(minorUnits: v, currency: currency).text) }
    var out: [(String, JSONValue)] = [("gross", money(g.gross)), ("refunds", money(g.refunds))]
    if g.hasEstimate {
      out.append(
        (
          "upgrade_proration",
          .object([
            ("units", .int(g.upgradeProrations)), ("refunds", money(g.estimatedProrationRefunds)),
            ("estimated", .bool(true)), ("basis", .string(prorationBasis)),
          ])
        ))
    }
    out.append(("net", money(g.net)))
    if let p = g.proceeds { out.append(("proceeds", money(p))) }
    return out
  }
}

extension RevenueReportCodec {

}
