import ReceiptFormats
import ReceiptModel
import Testing

@testable import ReceiptCLI

/// `coverage`'s fixed lists (`SignatureCheckRendering.nothingCovered`) against the lists written class by class.
@Suite struct SignatureCoverageTextTests {
  @Test func nothingCoveredIsTheListsOfACoverageOfNothing() {
    let fixed = JSONTreeWriter.tree { w in w.object { $0.fixed(SignatureCheckRendering.nothingCovered) } }
    let written = JSONTreeWriter.tree { w in
      w.object { SignatureCheckRendering.writeCovered(.none, to: &$0) }
    }
    #expect(fixed == written)
    // Every verdict that vouches for nothing, whatever its kind of signature, writes the fixed lists; the others
    // write theirs.
    for verdict in SignatureCheck.Verdict.allCases {
      for coverage in [SignatureCoverage.none, .appReceipt, .latestReceipt, .signedTransaction] {
        var check = SignatureCheck(verdict)
        check.coverage = coverage
        check.uncoveredInAnswer = [.ownership]
        for pretty in [false, true] {
          var stream = JSONStreamWriter(pretty: pretty)
          SignatureCheckRendering.writeCoverage(check, to: &stream)
          let tree = JSONTreeWriter.tree { w in
            w.object { w in
              w.member("signature", coverage.kind.rawValue)
              SignatureCheckRendering.writeCovered(check.vouched, to: &w)
              w.key("answer_uses_not_covered")
              w.array(strings: ["ownership"])
            }
          }
          #expect(String(decoding: stream.bytes, as: UTF8.self) == tree.rendered(pretty: pretty))
        }
      }
    }
  }
}
