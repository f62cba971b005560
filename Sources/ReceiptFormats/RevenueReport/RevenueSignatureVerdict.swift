import ReceiptModel

/// The signature verdict a revenue report carries (`"signature_check"`): the weakest of its documents' verdicts
/// and the sum of their receipt backings, combined so that the result does not depend on the order documents,
/// ledger lines or parts come in. One machine, `--from-ledger` over the map step's verdict lines and `--merge` of
/// parts all combine with `RevenueSignatureVerdict.combining`, so they write the same bytes.
public struct RevenueVerdict: Hashable, Sendable {
  /// The weakest verdict, without a document's own receipt backing (`backing` sums those).
  public var check: SignatureCheck
  /// The documents' `latest_receipt` backings, summed; nil when none carries one.
  public var backing: ReceiptBackingTally?

  /// - Parameters:
  ///   - check: The verdict, without a receipt backing.
  ///   - backing: The backings, summed.
  public init(check: SignatureCheck, backing: ReceiptBackingTally? = nil) {
    self.check = check
    self.backing = backing
  }

  /// One document's verdict as a report counts it: its receipt backing becomes a tally (the document's own output
  /// names the transactions), and an unsigned verdict, whose note is then the backing's phrase, leaves it to the
  /// tally.
  /// - Parameter check: The document's verdict, failures already named by document.
  public init(document check: SignatureCheck) {
    var own = check
    if let backing = check.backing {
      self.backing = ReceiptBackingTally(backing)
      if own.verdict == .unsigned { own.note = nil }
      own.backing = nil
    }
    self.check = own
  }

  /// One line a support person can read out: the verdict, then the backings' sum, then the verdict's reason.
  public var summary: String {
    let head = check.verdict.rawValue + ": "
    let own = check.summary
    let rest = own.hasPrefix(head) ? String(own.dropFirst(head.count)) : own
    return head + [backing?.summary, rest.isEmpty ? nil : rest].compactMap { $0 }.joined(separator: "; ")
  }
}

/// Combines, writes and reads the verdict a revenue report carries.
public enum RevenueSignatureVerdict {
  /// The verdict of a part that carries none (a receipt-tool before verdicts made it).
  public static let unknownPart = RevenueVerdict(
    check: SignatureCheck(.notChecked, note: "a part made by an older receipt-tool carries no signature verdict"))

  /// The weakest verdict of `verdicts`, independent of their order and of how they were grouped before: counts
  /// and backings summed, the failures kept the first `SignatureCheck.maxFailuresKept` in (path, code,
  /// certificate, reason) order, and the item that speaks (chain, moment, note) chosen by a fixed order: for
  /// `invalid`, the one whose first failure sorts first; otherwise the newest-checked.
  /// - Parameter verdicts: Each document's (or ledger line's, or part's) verdict, in any order.
  /// - Returns: The combined verdict; nil when there is none.
  public static func combining(_ verdicts: [RevenueVerdict]) -> RevenueVerdict? {
    guard let weakest = verdicts.map(\.check.verdict).min() else { return nil }
    var combined = SignatureCheck(weakest)
    var backing: ReceiptBackingTally?
    var failures: [SignatureItemFailure] = []
    var sources: Set<String> = []
    var speaker: SignatureCheck?
    for verdict in verdicts {
      let item = verdict.check
      combined.signedItems = sum(combined.signedItems, item.signedItems)
      combined.verifiedItems = sum(combined.verifiedItems, item.verifiedItems)
      combined.testSignedItems = sum(combined.testSignedItems, item.testSignedItems)
      combined.failureCount = sum(combined.failureCount, item.failureCount)
      failures += item.failures
      sources.formUnion(item.momentSources)
      if item.anchor == .trustRoot || (combined.anchor == nil && item.anchor != nil) { combined.anchor = item.anchor }
      if item.verdict == weakest, speaker.map({ speaks(item, before: $0) }) ?? true { speaker = item }
      if let tally = verdict.backing {
        var total = backing ?? ReceiptBackingTally()
        total.add(tally)
        backing = total
      }
    }
    if weakest != .verified { combined.anchor = nil }
    combined.failures = Array(failures.sorted(by: isOrdered).prefix(SignatureCheck.maxFailuresKept))
    combined.momentSources = sources.sorted()
    combined.note = speaker?.note
    combined.chain = speaker?.chain ?? []
    combined.moment = speaker?.moment
    return RevenueVerdict(check: combined, backing: backing)
  }

  private static func sum(_ a: Int, _ b: Int) -> Int {
    let (s, overflow) = a.addingReportingOverflow(b)
    return overflow ? Int.max : s
  }

  private static func isOrdered(_ a: SignatureItemFailure, _ b: SignatureItemFailure) -> Bool {
    (a.path, a.code, a.certificate ?? "", a.reason) < (b.path, b.code, b.certificate ?? "", b.reason)
  }

  /// Whether `a` speaks for the combination rather than `b` (both of the weakest verdict): a total order on what
  /// is shown, so that ties show the same thing whichever wins.
  private static func speaks(_ a: SignatureCheck, before b: SignatureCheck) -> Bool {
    let firstA = a.failures.min(by: isOrdered)
    let firstB = b.failures.min(by: isOrdered)
    if let firstA, let firstB, firstA != firstB { return isOrdered(firstA, firstB) }
    if (firstA == nil) != (firstB == nil) { return firstA != nil }
    let timeA = a.moment?.time.milliseconds ?? Int64.min
    let timeB = b.moment?.time.milliseconds ?? Int64.min
    if timeA != timeB { return timeA > timeB }
    func key(_ c: SignatureCheck) -> String {
      c.chain.map { $0.position + "\u{0}" + $0.sha256 }.joined(separator: "\u{1}") + "\u{2}" + (c.note ?? "")
        + "\u{2}" + (c.moment?.source ?? "")
    }
    return key(a) < key(b)
  }

  /// `"signature_check"` in `revenue --format json` and in a ledger's verdict line: the members every command
  /// writes for a document, with the report's summary, the backings' sum as `backing`, and `checked_at_sources`,
  /// which a merge needs to combine the moments as one machine does.
  /// - Parameters:
  ///   - verdict: The report's (or one document's) verdict.
  ///   - summary: Whether to write the summaries (a ledger line leaves them out: they follow from the rest).
  /// - Returns: The JSON value `read` reads back.
  public static func write(_ verdict: RevenueVerdict, summary: Bool = true) -> JSONValue {
    var members = SignatureCheckJSON.members(verdict.check)
    if let i = members.firstIndex(where: { $0.key == "summary" }) {
      if summary { members[i].value = .string(verdict.summary) } else { members.remove(at: i) }
    }
    members.append(("backing", verdict.backing.map { write($0, summary: summary) } ?? .null))
    members.append(("checked_at_sources", .array(verdict.check.momentSources.map { .string($0) })))
    return .object(members)
  }

  /// `"backing"` of a report: the sums, with the outcome and phrase they come to.
  static func write(_ tally: ReceiptBackingTally, summary: Bool) -> JSONValue {
    .object(
      [("outcome", .string(tally.outcome.rawValue))] + (summary ? [("summary", .string(tally.summary))] : []) + [
        ("documents", .int(tally.documents)),
        ("not_a_receipt_documents", .int(tally.notAReceiptDocuments)),
        ("not_signed_by_apple_documents", .int(tally.notSignedByAppleDocuments)),
        ("transactions", .int(tally.transactions)),
        ("backed_transactions", .int(tally.backed)),
        ("contradicted_transactions", .int(tally.contradicted)),
        ("not_in_receipt_transactions", .int(tally.notInReceipt)),
        ("only_in_receipt_transactions", .int(tally.onlyInReceipt)),
      ])
  }

  /// Reads back what `write` wrote (the summaries, which follow from the rest, are not read).
  /// - Parameters:
  ///   - value: The `"signature_check"` member.
  ///   - reading: The part's or line's reader, which names it in messages.
  /// - Returns: The verdict.
  /// - Throws: `ReceiptError` naming the path of a value that is not what `write` writes.
  static func read(_ value: JSONValue, reading: RevenueReportCodec.Reading) throws(ReceiptError) -> RevenueVerdict {
    let p = "signature_check"
    func optionalString(_ key: String) throws(ReceiptError) -> String? {
      let v = try reading.member(value, key, p)
      if case .null = v { return nil }
      return try reading.string(v, "\(p).\(key)")
    }
    func time(_ text: String?, _ path: String) throws(ReceiptError) -> Timestamp? {
      guard let text else { return nil }
      guard let t = Timestamp.parse(formatted: text) else {
        throw reading.fail(path, "expected an ISO 8601 time, found \(Excerpt.quoted(text))")
      }
      return t
    }
    func count(_ key: String) throws(ReceiptError) -> Int {
      let n = try reading.count(reading.member(value, key, p), "\(p).\(key)")
      guard let i = Int(exactly: n) else { throw reading.fail("\(p).\(key)", "too large") }
      return i
    }
    let verdictText = try reading.string(reading.member(value, "verdict", p), "\(p).verdict")
    guard let verdict = SignatureCheck.Verdict(rawValue: verdictText) else {
      throw reading.fail(
        "\(p).verdict",
        "expected one of \(SignatureCheck.Verdict.allCases.map(\.rawValue).joined(separator: ", ")), found \(Excerpt.quoted(verdictText))"
      )
    }
    var check = SignatureCheck(verdict, note: try optionalString("note"))
    if let anchor = try optionalString("anchor") {
      guard let a = SignatureCheck.Anchor(rawValue: anchor) else {
        throw reading.fail("\(p).anchor", "expected apple or trust-root, found \(Excerpt.quoted(anchor))")
      }
      check.anchor = a
    }
    if let t = try time(optionalString("checked_at"), "\(p).checked_at") {
      check.moment = CheckedMoment(time: t, source: try optionalString("checked_at_source") ?? "")
    }
    check.signedItems = try count("signed_items")
    check.verifiedItems = try count("verified_items")
    check.testSignedItems = try count("test_signed_items")
    check.failureCount = try count("failed_items")
    for (i, c) in try reading.array(reading.member(value, "chain", p), "\(p).chain").enumerated() {
      let cp = "\(p).chain[\(i)]"
      func field(_ key: String) throws(ReceiptError) -> String? {
        let v = try reading.member(c, key, cp)
        if case .null = v { return nil }
        return try reading.string(v, "\(cp).\(key)")
      }
      check.chain.append(
        SignerCertificate(
          position: try field("position") ?? "", commonName: try field("common_name"),
          organization: try field("organization"), notBefore: try time(field("not_before"), "\(cp).not_before"),
          notAfter: try time(field("not_after"), "\(cp).not_after"), sha256: try field("sha256") ?? ""))
    }
    let failures = try reading.array(reading.member(value, "failures", p), "\(p).failures")
    guard failures.count <= SignatureCheck.maxFailuresKept else {
      throw reading.fail(
        "\(p).failures", "more than \(SignatureCheck.maxFailuresKept) failures; 'revenue' writes at most that many")
    }
    for (i, f) in failures.enumerated() {
      let fp = "\(p).failures[\(i)]"
      let certificate = try reading.member(f, "certificate", fp)
      check.failures.append(
        SignatureItemFailure(
          path: try reading.string(reading.member(f, "path", fp), "\(fp).path"),
          code: try reading.string(reading.member(f, "code", fp), "\(fp).code"),
          certificate: certificate == .null ? nil : try reading.string(certificate, "\(fp).certificate"),
          reason: try reading.string(reading.member(f, "reason", fp), "\(fp).reason")))
    }
    for (i, s) in try reading.array(reading.member(value, "checked_at_sources", p), "\(p).checked_at_sources")
      .enumerated()
    {
      check.momentSources.append(try reading.string(s, "\(p).checked_at_sources[\(i)]"))
    }
    let backing = try reading.member(value, "backing", p)
    if case .null = backing { return RevenueVerdict(check: check) }
    func tallied(_ key: String) throws(ReceiptError) -> Int {
      let n = try reading.count(reading.member(backing, key, "\(p).backing"), "\(p).backing.\(key)")
      guard let i = Int(exactly: n) else { throw reading.fail("\(p).backing.\(key)", "too large") }
      return i
    }
    var tally = ReceiptBackingTally()
    tally.documents = try tallied("documents")
    tally.notAReceiptDocuments = try tallied("not_a_receipt_documents")
    tally.notSignedByAppleDocuments = try tallied("not_signed_by_apple_documents")
    tally.transactions = try tallied("transactions")
    tally.backed = try tallied("backed_transactions")
    tally.contradicted = try tallied("contradicted_transactions")
    tally.notInReceipt = try tallied("not_in_receipt_transactions")
    tally.onlyInReceipt = try tallied("only_in_receipt_transactions")
    // The counts are of one another: a part whose counts disagree was not written by `write`.
    guard tally.notAReceiptDocuments <= tally.documents,
      tally.notSignedByAppleDocuments <= tally.documents - tally.notAReceiptDocuments
    else {
      throw reading.fail("\(p).backing", "more documents without a receipt or not signed by Apple than documents")
    }
    let standings = [tally.backed, tally.contradicted, tally.notInReceipt].reduce(0 as Int?) { sum, n in
      sum.flatMap { s in
        let (t, overflow) = s.addingReportingOverflow(n)
        return overflow ? nil : t
      }
    }
    guard standings == tally.transactions else {
      throw reading.fail(
        "\(p).backing", "backed, contradicted and not-in-receipt transactions do not add up to transactions")
    }
    return RevenueVerdict(check: check, backing: tally)
  }
}

/// The members of a `"signature_check"` object that every command writes, in order (the receipt backing, which
/// only a document has, is added by the renderer).
public enum SignatureCheckJSON {
  /// - Parameter check: A verdict.
  /// - Returns: Its members, `verdict` first, `note` last.
  public static func members(_ check: SignatureCheck) -> [(key: String, value: JSONValue)] {
    guard case .object(let members) = JSONTreeWriter.tree({ w in w.object { writeMembers(check, to: &$0) } })
    else { return [] }
    return members
  }

  /// Writes the members into the object being written (inlinable, so that a renderer's writer is specialised).
  @inlinable public static func writeMembers<W: JSONOutput>(_ check: SignatureCheck, to w: inout W) {
    w.member("verdict", check.verdict.rawValue)
    w.key("summary")
    // An unsigned summary is its note after a prefix: written as the two, not joined first.
    if check.verdict == .unsigned {
      w.string(SignatureCheck.unsignedSummaryPrefix, check.note ?? "")
    } else {
      w.string(check.summary)
    }
    // An unsigned document's members between (nothing checked): the same text every time.
    if isNothingChecked(check) { w.fixed(nothingChecked) } else { writeCheckedMembers(check, to: &w) }
    w.member("note", check.note)
  }

  /// The members from `anchor` to `failures`, as a document with nothing checked has them (`isNothingChecked`).
  @inlinable public static var nothingChecked: StaticString {
    """
    "anchor":null,"checked_at":null,"checked_at_source":null,"revocation_checked":false,"signed_items":0,\
    "verified_items":0,"test_signed_items":0,"failed_items":0,"chain":[],"failures":[]
    """
  }

  /// Whether `check` has nothing checked, so that its members from `anchor` to `failures` are `nothingChecked`.
  @inlinable public static func isNothingChecked(_ check: SignatureCheck) -> Bool {
    check.anchor == nil && check.moment == nil && !check.revocationChecked && check.signedItems == 0
      && check.verifiedItems == 0 && check.testSignedItems == 0 && check.failureCount == 0 && check.chain.isEmpty
      && check.failures.isEmpty
  }

  /// The members from `anchor` to `failures`, one by one.
  @inlinable public static func writeCheckedMembers<W: JSONOutput>(_ check: SignatureCheck, to w: inout W) {
    w.member("anchor", check.anchor?.rawValue)
    w.member("checked_at", date: check.moment?.time)
    w.member("checked_at_source", check.moment?.source)
    w.member("revocation_checked", bool: check.revocationChecked)
    w.member("signed_items", int: check.signedItems)
    w.member("verified_items", int: check.verifiedItems)
    w.member("test_signed_items", int: check.testSignedItems)
    w.member("failed_items", int: check.failureCount)
    w.key("chain")
    w.array(check.chain) { w, c in
      w.object { w in
        w.member("position", c.position)
        w.member("common_name", c.commonName)
        w.member("organization", c.organization)
        w.member("not_before", date: c.notBefore)
        w.member("not_after", date: c.notAfter)
        w.member("sha256", c.sha256)
      }
    }
    w.key("failures")
    w.array(check.failures) { w, f in
      w.object { w in
        w.member("path", f.path)
        w.member("code", f.code)
        w.member("certificate", f.certificate)
        w.member("reason", f.reason)
      }
    }
  }
}
