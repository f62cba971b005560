import ReceiptFormats
import ReceiptModel
import Testing

@testable import ReceiptCLI

/// `signature_check`'s fixed runs the renderer writes (`JSONOutput.fixed`) against the members written one by one:
/// `coverage`'s lists of a verdict that vouches for nothing, a backing's comparison when it compared nothing.
@Suite struct SignatureCheckFixedTextTests {
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

  @Test func noDeviceNothingCoveredIsTheLastMembersOfAnUnsignedCheck() {
    let unsigned = SignatureCheck.unsigned("verifyReceipt JSON")
    #expect(SignatureCheckRendering.isUncheckedAndUncovered(unsigned))
    let fixed = JSONTreeWriter.tree { w in w.object { $0.fixed(SignatureCheckRendering.noDeviceNothingCovered) } }
    #expect(
      fixed
        == JSONTreeWriter.tree { w in w.object { SignatureCheckRendering.writeDeviceAndCoverage(unsigned, to: &$0) } })
    var checks = [unsigned]
    for change in 0..<4 {
      var check = unsigned
      switch change {
      case 0: check.device = .notChecked
      case 1: check.coverage = .appReceipt
      case 2: check.uncoveredInAnswer = [.ownership]
      default:
        check.verdict = .verified
        check.coverage.covered = [.ids]
      }
      #expect(!SignatureCheckRendering.isUncheckedAndUncovered(check))
      checks.append(check)
    }
    // Whichever way the members are written, the check reads the same; an unsigned summary too, written in two parts.
    for check in checks {
      for pretty in [false, true] {
        var stream = JSONStreamWriter(pretty: pretty)
        SignatureCheckRendering.write(check, to: &stream)
        let tree = JSONTreeWriter.tree { w in
          w.object { w in
            SignatureCheckJSON.writeMembers(check, to: &w)
            w.key("backing")
            w.null()
            SignatureCheckRendering.writeDeviceAndCoverage(check, to: &w)
          }
        }
        #expect(String(decoding: stream.bytes, as: UTF8.self) == tree.rendered(pretty: pretty))
        #expect(tree.member("summary") == .string(check.summary))
      }
    }
  }

  @Test func nothingComparedIsTheComparisonOfABackingThatComparedNothing() {
    let fixed = JSONTreeWriter.tree { w in w.object { $0.fixed(SignatureCheckRendering.nothingCompared) } }
    let cutShort = ReceiptBacking.notAReceipt("cut short", detail: "byte 0: truncated")
    #expect(SignatureCheckRendering.isNothingCompared(cutShort))
    #expect(
      fixed == JSONTreeWriter.tree { w in w.object { SignatureCheckRendering.writeComparison(cutShort, to: &$0) } })
    let entry = ReceiptBacking.Entry(transactionID: "1", productID: "p", standing: .backed)
    var backings = [cutShort, ReceiptBacking(outcome: .backed, entries: [entry])]
    #expect(!SignatureCheckRendering.isNothingCompared(backings[1]))
    for change in 0..<3 {
      var backing = cutShort
      switch change {
      case 0: backing.receiptCreationDate = Timestamp(unchecked: 0)
      case 1: backing.sameMoment = true
      default: backing.onlyInReceipt = [ReceiptBacking.ReceiptOnly(transactionID: "2", productID: "p")]
      }
      #expect(!SignatureCheckRendering.isNothingCompared(backing))
      backings.append(backing)
    }
    // Whichever way the members are written, the backing reads the same.
    for backing in backings {
      for pretty in [false, true] {
        var stream = JSONStreamWriter(pretty: pretty)
        SignatureCheckRendering.write(backing, to: &stream)
        let tree = JSONTreeWriter.tree { w in
          w.object { w in
            w.member("outcome", backing.outcome.rawValue)
            w.member("summary", backing.summary)
            w.member("not_a_receipt_reason", backing.notAReceiptReason)
            w.member("not_a_receipt_detail", backing.notAReceiptDetail)
            SignatureCheckRendering.writeComparison(backing, to: &w)
          }
        }
        #expect(String(decoding: stream.bytes, as: UTF8.self) == tree.rendered(pretty: pretty))
      }
    }
  }
}
