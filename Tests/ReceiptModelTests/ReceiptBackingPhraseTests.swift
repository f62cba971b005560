import Testing

@testable import ReceiptModel

/// A backing that holds no receipt says `latest_receipt is <reason>: nothing backs this JSON`; the phrases of the
/// reasons the check gives are joined once (issue 42), and say exactly that.
@Suite struct ReceiptBackingPhraseTests {
  @Test func everyReasonSaysItsJoinedPhrase() {
    var reasons = ReceiptBacking.joinedPhrases.map(\.reason)
    reasons += ["cut", "cut short ", "Cut short", "not a receipt (something else)", "", "é", "damaged\n"]
    #expect(ReceiptBacking.joinedPhrases.count == 8)
    for reason in reasons {
      let backing = ReceiptBacking.notAReceipt(reason, detail: "byte 0: x")
      #expect(backing.summary == "latest_receipt is \(reason): nothing backs this JSON", "\(reason)")
    }
    var unnamed = ReceiptBacking.notAReceipt("cut short")
    unnamed.notAReceiptReason = nil
    #expect(unnamed.summary == "latest_receipt is not a receipt: nothing backs this JSON")
  }
}
