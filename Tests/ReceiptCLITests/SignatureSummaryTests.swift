import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptCLI

/// A verdict's summary grown in one string (`SignatureCheckRendering.summary(of:)`, what the JSON answer writes) is
/// `SignatureCheck.summary`, for every verdict, count, anchor, chain, failure, moment and backing.
@Suite struct SignatureSummaryTests {
  static func randomCheck(_ random: inout SplitMix64) -> SignatureCheck {
    let verdict = SignatureCheck.Verdict.allCases[random.below(SignatureCheck.Verdict.allCases.count)]
    let names: [String?] = [nil, "Apple Root CA - G3", "receipt-tool Examples Test Root", "é \"quoted\"", ""]
    var chain: [SignerCertificate] = []
    for i in 0..<random.below(4) {
      chain.append(
        SignerCertificate(
          position: i == 2 ? "root" : "x5c[\(i)]", commonName: names[random.below(names.count)],
          organization: names[random.below(names.count)], notBefore: nil, notAfter: nil, sha256: "00"))
    }
    var failures: [SignatureItemFailure] = []
    for i in 0..<random.below(3) {
      failures.append(
        SignatureItemFailure(
          path: ["", "line \(i + 1)", "signedTransactions[\(i)]"][random.below(3)], code: "signature.mismatch",
          certificate: nil, reason: ["the ES256 signature does not verify", "", "x5c[1] expired"][random.below(3)]))
    }
    let signed = [0, 1, 1, 2, 3, 20][random.below(6)]
    let sources = [[], ["signedDate"], ["now"], ["signedDate", "now"], ["receiptCreationDate"]][random.below(5)]
    let moment: CheckedMoment? =
      random.below(4) == 0
      ? nil
      : CheckedMoment(
        time: Timestamp(milliseconds: Int64(random.below(4_000_000_000)) * 1000) ?? .epoch,
        source: ["signedDate", "now", "receiptCreationDate"][random.below(3)])
    let anchors: [SignatureCheck.Anchor?] = [nil, .apple, .trustRoot]
    var check = SignatureCheck(
      verdict: verdict, note: [nil, "signed by Xcode StoreKit testing, not by Apple", "a note"][random.below(3)],
      signedItems: signed, verifiedItems: random.below(signed + 1), testSignedItems: random.below(signed + 1),
      failures: failures, failureCount: failures.count + random.below(3), chain: chain, moment: moment,
      momentSources: sources, anchor: anchors[random.below(3)],
      coverage: random.below(2) == 0 ? .none : .signedTransaction)
    if random.below(5) == 0 {
      check.backing = ReceiptBacking.notAReceipt("not base64", detail: random.below(2) == 0 ? nil : "at 3")
    }
    return check
  }

  @Test func summaryIsTheChecksSummary() {
    var random = SplitMix64(seed: 2222)
    for i in 0..<20_000 {
      let check = Self.randomCheck(&random)
      #expect(SignatureCheckRendering.summary(of: check) == check.summary, "case \(i)")
    }
  }

  /// The members written with it are those `SignatureCheckJSON.writeMembers` writes.
  @Test func membersAreTheSharedWritersMembers() {
    var random = SplitMix64(seed: 22)
    for i in 0..<2_000 {
      let check = Self.randomCheck(&random)
      let fast = JSONTreeWriter.tree { w in w.object { SignatureCheckRendering.writeMembers(check, to: &$0) } }
      let shared = JSONTreeWriter.tree { w in w.object { SignatureCheckJSON.writeMembers(check, to: &$0) } }
      #expect(fast == shared, "case \(i)")
    }
  }
}
