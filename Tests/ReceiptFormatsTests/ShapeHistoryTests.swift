import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import Testing

/// The rule tests build a shape's history by hand (ReceiptModelTestSupport); the decoder must read the same
/// history from the shape's verifyReceipt JSON, so that those tests judge what the tool would read.
@Suite struct ShapeHistoryTests {
  @Test func theDecoderReadsTheHistoryTheRuleTestsBuild() throws {
    let shapes = [
      ReceiptShape(name: "one-chain", transactions: 40),
      ReceiptShape(
        name: "mixed", transactions: 200, chains: 12, products: 14, shuffled: true, randomIDs: true,
        familySharedPercent: 30, upgradedPercent: 25, refundedPercent: 10, seed: 41),
    ]
    for shape in shapes {
      for index in 0..<2 {
        let decoded = try FormatRegistry.standard.decode(
          Array(shape.verifyReceipt(index: index).utf8), source: shape.name)
        let built = shape.history(index: index, vocabulary: .verifyReceipt)
        #expect(decoded.transactions.count == shape.transactions, "\(shape.name)")
        #expect(decoded.transactions == built.transactions, "\(shape.name) \(index)")
      }
    }
  }
}
