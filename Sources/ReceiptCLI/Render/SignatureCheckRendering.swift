import ReceiptFormats
import ReceiptModel

/// A document's signature verdict as every command shows it: one line of text, one JSON object.
package enum SignatureCheckRendering {
  /// `Signature: verified: ...`, wrapped, coloured by verdict; an invalid one says the answer rests on it. A
  /// document holding a receipt adds `Device: ...` below it.
  package static func line(_ check: SignatureCheck, color: Bool, width: Int) -> TerminalText {
    var out = line(check.summary, verdict: check.verdict, caveat: caveat(check), color: color, width: width)
    if let line = uncoveredLine(check) {
      let layout = TextLayout(color: color, width: width)
      let wrapped = TerminalText(line).wrapped(indent: 2, columns: width).dropFirst(2)
      out += (color ? layout.paint(wrapped, .warn) : wrapped) + "\n"
    }
    if let device = check.device {
      let layout = TextLayout(color: color, width: width)
      let line = TerminalText("Device: \(device.summary)").wrapped(indent: 2, columns: width).dropFirst(2)
      out += (color && !device.isShownToMatch ? layout.paint(line, tone(device)) : line) + "\n"
    }
    return out
  }

  /// The same line for a report over many documents (`revenue`), with their receipt backings summed.
  package static func line(_ verdict: RevenueVerdict, color: Bool, width: Int) -> TerminalText {
    line(
      verdict.summary, verdict: verdict.check.verdict, caveat: caveat(verdict.check), color: color, width: width)
  }

  /// What an answer drawn from an invalid document rests on; nil for any other verdict.
  package static func caveat(_ check: SignatureCheck) -> String? {
    guard check.verdict == .invalid else { return nil }
    return check.failsOnlyForTheApp
      ? "this answer is drawn from data of another app or environment"
      : "this answer is drawn from data that may have been altered"
  }

  private static func line(
    _ summary: String, verdict: SignatureCheck.Verdict, caveat: String?, color: Bool, width: Int
  ) -> TerminalText {
    let layout = TextLayout(color: color, width: width)
    var text = summary
    if let caveat { text += "; \(caveat)" }
    let wrapped = TerminalText("Signature: \(text)").wrapped(indent: 2, columns: width).dropFirst(2)
    return verdict == .verified || !color ? wrapped + "\n" : layout.paint(wrapped, tone(verdict)) + "\n"
  }

  /// `Not covered by the signature: ...`, when the answer draws on fields the verdict does not vouch for.
  package static func uncoveredLine(_ check: SignatureCheck) -> String? {
    guard !check.uncoveredInAnswer.isEmpty else { return nil }
    return "Not covered by the signature: \(SignatureCoverage.phrase(check.uncoveredInAnswer)), which the answer "
      + "takes from the unsigned data alone"
  }

  /// The colour a device check is shown in.
  package static func tone(_ device: DeviceCheck) -> TextLayout.Tone {
    switch device {
    case .matches: .good
    case .mismatch: .bad
    case .notChecked, .cannotCheck, .noReceipt: .warn
    }
  }

  /// `Device` beside the verdict, for a document holding a receipt.
  package static func deviceRow(_ check: SignatureCheck, layout: TextLayout) -> (TerminalText, TerminalText)? {
    guard let device = check.device else { return nil }
    let text: TerminalText = "\(device.summary)"
    return ("Device", device.isShownToMatch ? text : layout.paint(text, tone(device)))
  }

  /// The colour a verdict is shown in.
  package static func tone(_ verdict: SignatureCheck.Verdict) -> TextLayout.Tone {
    switch verdict {
    case .verified: .good
    case .invalid: .bad
    case .testSigned, .notChecked, .unsigned: .warn
    }
  }

  /// The rows `decode` shows under its header: the verdict, the chain, and every failure kept.
  package static func rows(_ check: SignatureCheck) -> [(TerminalText, TerminalText)] {
    var rows: [(TerminalText, TerminalText)] = [("Signature", "\(check.summary)")]
    if !check.chain.isEmpty {
      let names = check.chain.map { $0.commonName ?? $0.organization ?? $0.position }
      rows.append(("Chain", "\(names.joined(separator: " < "))"))
    }
    // Items that failed alike (one chain signs a whole response) are listed on one row.
    var groups: [(reason: String, paths: [String])] = []
    for failure in check.failures.dropFirst() {
      let path = failure.path.isEmpty ? "(document)" : failure.path
      if let i = groups.firstIndex(where: { $0.reason == failure.reason }) {
        groups[i].paths.append(path)
      } else {
        groups.append((failure.reason, [path]))
      }
    }
    for group in groups {
      let reason = group.reason == check.failures.first?.reason ? "the same" : group.reason
      rows.append(("Also failed", "\(group.paths.joined(separator: ", ")): \(reason)"))
    }
    if check.failureCount > check.failures.count {
      rows.append(("Also failed", "\(check.failureCount - check.failures.count) more not listed"))
    }
    return rows
  }

  /// `"signature_check"`: the verdict, why, the chain and each failure.
  package static func json(_ check: SignatureCheck) -> JSONValue {
    JSONTreeWriter.tree { write(check, to: &$0) }
  }

  /// `"signature_check"`, written at the writer's place.
  package static func write<W: JSONOutput>(_ check: SignatureCheck, to w: inout W) {
    w.object { w in
      writeMembers(check, to: &w)
      w.key("backing")
      if let backing = check.backing { write(backing, to: &w) } else { w.null() }
      // An unsigned document's last two members: no device, a coverage of nothing, the same text every time.
      if isUncheckedAndUncovered(check) {
        w.fixed(noDeviceNothingCovered)
      } else {
        writeDeviceAndCoverage(check, to: &w)
      }
    }
  }

  /// `SignatureCheckJSON.writeMembers`, a signed verdict's summary made by `summary(of:)`.
  static func writeMembers<W: JSONOutput>(_ check: SignatureCheck, to w: inout W) {
    guard check.verdict != .unsigned else { return SignatureCheckJSON.writeMembers(check, to: &w) }
    w.member("verdict", check.verdict.rawValue)
    w.key("summary")
    w.string(summary(of: check))
    if SignatureCheckJSON.isNothingChecked(check) {
      w.fixed(SignatureCheckJSON.nothingChecked)
    } else {
      SignatureCheckJSON.writeCheckedMembers(check, to: &w)
    }
    w.member("note", check.note)
  }

  /// `check.summary` grown in one string: no array of parts to join, no interpolation (some 11,000 instructions a
  /// signed line's summary cost). `SignatureSummaryTests` holds it to `summary`.
  static func summary(of check: SignatureCheck) -> String {
    let verdict = check.verdict
    if verdict == .unsigned { return check.summary }
    var text = verdict.rawValue
    text.reserveCapacity(200)
    text += ": "
    var parts = 0
    // Each part after the first follows "; ".
    func startPart() {
      if parts > 0 { text += "; " }
      parts += 1
    }
    if let backing = check.backing {
      startPart()
      text += backing.summary
    }
    let signed = check.signedItems
    switch verdict {
    case .verified:
      startPart()
      let root = check.chain.last.map { $0.commonName ?? $0.organization ?? "a root with no name" } ?? "a root"
      if check.anchor == .trustRoot {
        text += "signed through "
        text += root
        text += ", a --trust-root (not Apple's root)"
      } else {
        text += "signed by Apple (chain to "
        text += root
        text += ")"
      }
    case .invalid:
      if let first = check.failures.first {
        startPart()
        if signed > 1 {
          text += String(check.failureCount)
          text += " of "
          text += String(signed)
          text += " signatures failed, the first at "
        }
        if !first.path.isEmpty {
          text += first.path
          text += ": "
        }
        text += first.reason
      }
    case .testSigned, .unsigned, .notChecked:
      if let note = check.note {
        startPart()
        text += note
      }
    }
    if signed > 1 {
      switch verdict {
      case .verified:
        startPart()
        text += String(signed)
        text += " signatures"
      case .testSigned:
        startPart()
        if check.verifiedItems > 0 {
          text += String(check.testSignedItems)
          text += " of "
          text += String(signed)
          text += " signatures test-signed"
        } else {
          text += String(signed)
          text += " signatures"
        }
      case .invalid, .unsigned, .notChecked: break
      }
    }
    if let moment = check.moment, verdict != .notChecked {
      startPart()
      let sources = check.momentSources
      if signed > 1, sources.count == 1, sources[0] == "signedDate" {
        text += "checked at each payload's signedDate ("
        text += verdict == .invalid ? "the first failure's " : "the newest "
        text += moment.time.iso8601
        text += ")"
      } else if sources.count > 1 {
        text += "checked at each payload's signedDate, or now where it has none ("
        text += moment.source
        text += " "
        text += moment.time.iso8601
        text += ")"
      } else {
        text += "checked at "
        text += moment.source
        text += " "
        text += moment.time.iso8601
      }
      startPart()
      text += "offline; revocation not checked"
    }
    return text
  }

  /// `device_check` and `coverage`, one by one.
  static func writeDeviceAndCoverage<W: JSONOutput>(_ check: SignatureCheck, to w: inout W) {
    w.key("device_check")
    if let device = check.device { write(device, to: &w) } else { w.null() }
    w.key("coverage")
    writeCoverage(check, to: &w)
  }

  /// Whether `check` has no device check and a coverage of no signature that vouches for nothing and that the
  /// answer does not draw on, so that its `device_check` and `coverage` are `noDeviceNothingCovered`.
  static func isUncheckedAndUncovered(_ check: SignatureCheck) -> Bool {
    check.device == nil && check.coverage.kind == .none && check.uncoveredInAnswer.isEmpty
      && check.vouched.covered.isEmpty
  }

  /// `device_check` and `coverage` of a check with no device and a coverage of nothing (`isUncheckedAndUncovered`).
  static let noDeviceNothingCovered: StaticString = """
    "device_check":null,"coverage":{"signature":"none","covered":[],"not_covered":["ids","products","dates",\
    "quantity","trial-and-intro-flags","cancellation","device-hash","app-purchase","ownership","price","currency"],\
    "answer_uses_not_covered":[]}
    """

  /// `"coverage"`: the kind of signature, the field classes the verdict vouches for and those it does not, and
  /// those of the latter the answer draws on.
  static func writeCoverage<W: JSONOutput>(_ check: SignatureCheck, to w: inout W) {
    let vouched = check.vouched
    w.object { w in
      w.member("signature", check.coverage.kind.rawValue)
      // These lists are in every answer of every document: a verdict that vouches for nothing (unsigned, invalid,
      // not checked) has them as fixed text.
      if vouched.covered.isEmpty { w.fixed(nothingCovered) } else { writeCovered(vouched, to: &w) }
      w.key("answer_uses_not_covered")
      w.array(check.uncoveredInAnswer) { w, field in w.string(field.rawValue) }
    }
  }

  /// `covered` and `not_covered` of a verdict that vouches for nothing (`writeCovered` of `.none`).
  static let nothingCovered: StaticString = """
    "covered":[],"not_covered":["ids","products","dates","quantity","trial-and-intro-flags","cancellation",\
    "device-hash","app-purchase","ownership","price","currency"]
    """

  /// `covered` and `not_covered`, each class written as it is found.
  static func writeCovered<W: JSONOutput>(_ vouched: SignatureCoverage, to w: inout W) {
    w.key("covered")
    w.array(vouched.covered) { w, field in w.string(field.rawValue) }
    w.key("not_covered")
    w.array(SignatureCoverage.FieldClass.allCases.lazy.filter { !vouched.covers($0) }) { w, field in
      w.string(field.rawValue)
    }
  }

  /// `"device_check"`: a signed app receipt's device hash against `--device-id`.
  static func write<W: JSONOutput>(_ check: DeviceCheck, to w: inout W) {
    w.object { w in
      w.member("result", check.result)
      w.member("summary", check.summary)
      switch check {
      case .notChecked: break
      case .matches(let id), .cannotCheck(let id, _), .noReceipt(let id, _): w.member("device_id", id)
      case .mismatch(let id, let receipt, let computed):
        w.member("device_id", id)
        w.member("receipt_hash", receipt)
        w.member("computed_hash", computed)
      }
    }
  }

  /// `"backing"`: how far a JSON body's signed receipt backs it, transaction by transaction.
  static func write<W: JSONOutput>(_ backing: ReceiptBacking, to w: inout W) {
    w.object { w in
      w.member("outcome", backing.outcome.rawValue)
      w.member("summary", backing.summary)
      w.member("not_a_receipt_reason", backing.notAReceiptReason)
      w.member("not_a_receipt_detail", backing.notAReceiptDetail)
      // A latest_receipt that holds no receipt has compared nothing: the same members every time.
      if isNothingCompared(backing) { w.fixed(nothingCompared) } else { writeComparison(backing, to: &w) }
    }
  }

  /// The members from `receipt_creation_date` to `only_in_receipt` of a backing that compared nothing
  /// (`isNothingCompared`).
  static let nothingCompared: StaticString = """
    "receipt_creation_date":null,"same_moment":false,"transactions":0,"backed_transactions":0,"not_backed":[],\
    "only_in_receipt":[]
    """

  /// Whether `backing` compared nothing, so that its members from `receipt_creation_date` on are `nothingCompared`.
  static func isNothingCompared(_ backing: ReceiptBacking) -> Bool {
    backing.receiptCreationDate == nil && !backing.sameMoment && backing.entries.isEmpty
      && backing.onlyInReceipt.isEmpty
  }

  /// The members from `receipt_creation_date` to `only_in_receipt`, one by one.
  static func writeComparison<W: JSONOutput>(_ backing: ReceiptBacking, to w: inout W) {
    w.member("receipt_creation_date", date: backing.receiptCreationDate)
    w.member("same_moment", bool: backing.sameMoment)
    w.member("transactions", int: backing.entries.count)
    w.member("backed_transactions", int: backing.backedCount)
    w.key("not_backed")
    w.array(backing.entries.filter { $0.standing != .backed }) { w, entry in
      w.object { w in
        w.member("transaction_id", entry.transactionID)
        w.member("product_id", entry.productID)
        switch entry.standing {
        case .backed: break
        case .contradicted(let differences):
          w.member("standing", "contradicted")
          w.key("differences")
          w.array(differences) { w, d in
            w.object { w in
              w.member("field", d.field)
              w.member("json", d.json)
              w.member("receipt", d.receipt)
            }
          }
        case .notInReceipt(let absence):
          w.member("standing", "not-in-receipt")
          w.member("reason", absence.rawValue)
        }
      }
    }
    w.key("only_in_receipt")
    w.array(backing.onlyInReceipt) { w, only in
      w.object { w in
        w.member("transaction_id", only.transactionID)
        w.member("product_id", only.productID)
      }
    }
  }
}
