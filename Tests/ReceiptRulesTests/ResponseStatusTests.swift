import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptRules

/// A response that says it does not hold what was asked for (Look Up Order ID's status 1) is no history to answer
/// from: every command's answer fails on it, rather than answering from an empty history.
@Suite struct ResponseStatusTests {
  func history(_ status: ResponseStatus?) -> PurchaseHistory {
    var h = PurchaseHistory(format: .handBuilt)
    h.provenance.responseStatus = status
    return h
  }

  @Test func anInvalidResponseStatusFailsWithItsMeaning() throws {
    let invalid = ResponseStatus(field: "status", code: 1, meaning: "The order id is invalid.", isValid: false)
    let error = #expect(throws: ReceiptError.self) { try history(invalid).requireValidStatus(source: "order.json") }
    #expect(error?.kind == .unusable)
    #expect(error?.message.contains("status 1: The order id is invalid.") == true)
  }

  @Test func aValidOrAbsentResponseStatusPasses() throws {
    try history(ResponseStatus(field: "status", code: 0, meaning: "The order id is valid.", isValid: true))
      .requireValidStatus(source: "order.json")
    try history(nil).requireValidStatus(source: "order.json")
  }
}
