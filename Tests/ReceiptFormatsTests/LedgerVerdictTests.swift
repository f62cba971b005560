import ReceiptModel
import ReceiptRules
import Testing

@testable import ReceiptFormats

/// The ledger's verdict lines and the combination of verdicts that one machine, `--from-ledger` and `--merge`
/// share: every verdict kind survives the codec, and the combination does not depend on order or grouping.
@Suite struct LedgerVerdictTests {
  static func moment(_ seconds: Int64, _ source: String = "signedDate") -> CheckedMoment {
    CheckedMoment(time: Timestamp(unchecked: seconds * 1000), source: source)
  }

  static func certificate(_ name: String) -> SignerCertificate {
    SignerCertificate(
      position: "x5c[0]", commonName: name, organization: "Org \(name)", notBefore: Timestamp(unchecked: 0),
      notAfter: Timestamp(unchecked: 4_000_000_000_000), sha256: String(repeating: name, count: 4))
  }

  /// A verifyReceipt body's verdict with its signed receipt's backing: `backed` of `entries` backed, the rest
  /// contradicted (the verdict stays the receipt's: the tally is what is combined here).
  static func backedBody(entries: Int, backed: Int, byApple: Bool = true) -> SignatureCheck {
    var check = SignatureCheck.verifiedItem(
      chain: [certificate("r")], moment: moment(100, "receipt creation date"), anchor: byApple ? .apple : .trustRoot)
    var backing = ReceiptBacking(
      outcome: backed == entries ? .backed : .contradicted,
      entries: (0..<entries).map { i in
        ReceiptBacking.Entry(
          transactionID: "\(i)", productID: "p",
          standing: i < backed
            ? .backed : .contradicted([.init(field: "product_id", json: "p", receipt: "q")]))
      })
    backing.signedByApple = byApple
    check.backing = backing
    return check
  }

  /// One document of each verdict kind, a forged one among them, failures named by document as the command does.
  static let documents: [RevenueVerdict] = {
    var forged = SignatureCheck.failedItem(
      SignatureItemFailure(
        path: "forged.jws: line 2", code: "signature.mismatch", certificate: nil, reason: "does not verify"),
      chain: [certificate("f")], moment: moment(7))
    forged.signedItems = 3
    forged.verifiedItems = 2
    var expired = SignatureCheck.failedItem(
      SignatureItemFailure(path: "a.jws", code: "chain.expired", certificate: "x5c[1]", reason: "expired"),
      chain: [certificate("e")], moment: moment(3))
    expired.note = nil
    let checks: [SignatureCheck] = [
      .verifiedItem(chain: [certificate("a")], moment: moment(5), anchor: .apple),
      .verifiedItem(chain: [certificate("b")], moment: moment(9), anchor: .trustRoot),
      .testSignedItem(chain: [certificate("x")], moment: moment(4, "now")),
      .unsigned("verifyReceipt JSON"),
      SignatureCheck(.notChecked, note: "a kind of signature not checked"),
      backedBody(entries: 9, backed: 9),
      backedBody(entries: 3, backed: 2, byApple: false),
      forged, expired,
    ]
    return checks.map(RevenueVerdict.init(document:))
  }()

  @Test func everyVerdictKindSurvivesAVerdictLine() throws {
    #expect(Set(Self.documents.map(\.check.verdict)) == Set(SignatureCheck.Verdict.allCases))
    for (i, verdict) in Self.documents.enumerated() {
      let line = LedgerCodec.Line.verdict(
        LedgerVerdict(input: "export.ndjson:\(i + 1)", copy: "c\(i)", verdict: verdict))
      let plain = LedgerCodec.write(line)
      #expect(!plain.contains("\"summary\""), "a ledger line leaves the summaries out: \(plain)")
      #expect(try LedgerCodec.read(Array(plain.utf8), source: "t") == line)
      let keyed = LedgerCodec.writeKeyed(line)
      #expect(keyed.hasPrefix("export.ndjson:\(i + 1)\t"))
      #expect(try LedgerCodec.read(Array(keyed.utf8), source: "t") == line)
    }
  }

  @Test func aReportsVerdictSurvivesTheJSONReport() throws {
    let combined = try #require(RevenueSignatureVerdict.combining(Self.documents))
    let json = RevenueReportCodec.write(RevenueReport(hasProceeds: false), signatureCheck: combined, part: nil)
    let read = try RevenueReportCodec.readPart(Array(json.rendered().utf8), source: "part.json")
    #expect(read.verdict == combined)
    // Made from no document: null, and read back as none.
    let empty = RevenueReportCodec.write(RevenueReport(hasProceeds: false), signatureCheck: nil, part: nil)
    #expect(try RevenueReportCodec.readPart(Array(empty.rendered().utf8), source: "p").verdict == nil)
  }

  @Test func aLineOfNoKnownKindIsAnErrorNamingTheLine() {
    for text in [#"{"foo":1}"#, #"[1,2]"#, #"{"signature_check":{"verdict":"maybe"},"input":"a","copy":"c"}"#] {
      do {
        _ = try LedgerCodec.read(Array(text.utf8), source: "ledger.ndjson:4")
        Issue.record("read \(text)")
      } catch {
        #expect(error.description.hasPrefix("ledger.ndjson:4"), "\(error.description)")
      }
    }
  }

  @Test func backingCountsThatDoNotAddUpAreAnError() throws {
    let body = try #require(Self.documents.first { $0.backing?.transactions == 9 })
    let line = LedgerCodec.write(.verdict(LedgerVerdict(input: "a.json", copy: "c", verdict: body)))
    #expect(line.contains(#""backed_transactions":9"#))
    let edited = line.replacingOccurrences(of: #""backed_transactions":9"#, with: #""backed_transactions":8"#)
    do {
      _ = try LedgerCodec.read(Array(edited.utf8), source: "ledger.ndjson:2")
      Issue.record("read \(edited)")
    } catch {
      #expect(error.description.contains("do not add up"), "\(error.description)")
      #expect(error.description.hasPrefix("ledger.ndjson:2"), "\(error.description)")
    }
  }

  @Test func combiningDoesNotDependOnOrderOrGrouping() throws {
    let forward = try #require(RevenueSignatureVerdict.combining(Self.documents))
    #expect(forward.check.verdict == .invalid)
    // The forged document's failure and the expired one's, in path order; the first speaks.
    #expect(forward.check.failures.map(\.path) == ["a.jws", "forged.jws: line 2"])
    #expect(forward.check.failureCount == 2)
    #expect(forward.check.signedItems == 9)
    #expect(forward.check.chain.first?.commonName == "e")
    #expect(forward.check.anchor == nil)
    #expect(forward.check.momentSources == ["now", "receipt creation date", "signedDate"])
    var rotated = Self.documents
    for _ in Self.documents.indices {
      rotated.append(rotated.removeFirst())
      #expect(RevenueSignatureVerdict.combining(rotated) == forward)
      #expect(RevenueSignatureVerdict.combining(rotated.reversed()) == forward)
      // Folded one at a time, as one machine does, and in uneven groups, as parts are.
      let folded = rotated.reduce(nil as RevenueVerdict?) {
        RevenueSignatureVerdict.combining([$0, $1].compactMap { $0 })
      }
      #expect(folded == forward)
      let groups = [Array(rotated.prefix(2)), Array(rotated.dropFirst(2).prefix(4)), Array(rotated.dropFirst(6))]
      #expect(
        RevenueSignatureVerdict.combining(groups.compactMap(RevenueSignatureVerdict.combining).reversed()) == forward)
    }
    #expect(RevenueSignatureVerdict.combining([]) == nil)
  }

  @Test func theWeakestVerdictWinsAndVerifiedKeepsItsAnchor() throws {
    let kinds = Self.documents.filter { $0.check.verdict != .invalid && $0.backing == nil }
    for kind in SignatureCheck.Verdict.allCases where kind != .invalid {
      let stronger = kinds.filter { $0.check.verdict >= kind }
      let combined = try #require(RevenueSignatureVerdict.combining(stronger))
      #expect(combined.check.verdict == kind)
      #expect(combined.summary.hasPrefix("\(kind.rawValue): "))
    }
    let verified = try #require(RevenueSignatureVerdict.combining(kinds.filter { $0.check.verdict == .verified }))
    // One item needed a --trust-root; the newest-checked speaks.
    #expect(verified.check.anchor == .trustRoot)
    #expect(verified.check.chain.first?.commonName == "b")
    #expect(verified.check.signedItems == 2)
  }

  @Test func receiptBackingsAreSummed() throws {
    let bodies = Self.documents.filter { $0.backing != nil }
    #expect(bodies.count == 2)
    #expect(bodies[0].summary.contains("backed by Apple's signature: 9 of 9 transactions"), "\(bodies[0].summary)")
    let combined = try #require(RevenueSignatureVerdict.combining(bodies))
    let tally = try #require(combined.backing)
    #expect(tally.documents == 2)
    #expect(tally.transactions == 12)
    #expect(tally.backed == 11)
    #expect(tally.contradicted == 1)
    #expect(tally.notSignedByAppleDocuments == 1)
    #expect(tally.outcome == .contradicted)
    #expect(
      tally.summary
        == "contradicted by the receipts' signatures (not all Apple's): 11 of 12 transactions in 2 documents; "
        + "1 contradicts the signed receipt")
    var notAReceipt = SignatureCheck.unsigned("verifyReceipt JSON")
    notAReceipt.backing = .notAReceipt("not a receipt (a placeholder)")
    notAReceipt.note = notAReceipt.backing?.summary
    let placeholder = RevenueVerdict(document: notAReceipt)
    #expect(placeholder.summary == "unsigned: latest_receipt is not a receipt: nothing backs this JSON")
    let both = try #require(RevenueSignatureVerdict.combining([placeholder, bodies[0]]))
    #expect(both.backing?.outcome == .backed)
    #expect(both.backing?.summary.hasSuffix("1 document's latest_receipt is not a receipt") == true)
  }
}
