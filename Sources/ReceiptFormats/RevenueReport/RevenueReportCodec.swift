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

    mutating func report(_ root: JSONValue) throws(ReceiptError) -> RevenueReport {
      let currencies = try array(member(root, "currencies", "$"), "currencies")
      var hasProceeds: Bool?
      var rows: [(String, RevenueGroup)] = []
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
      }
      var report = RevenueReport(hasProceeds: hasProceeds ?? false)
      for (currency, group) in rows { try report.add(group, currency: currency) }
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
