import Testing

@testable import ReceiptModel
@testable import ReceiptRules

/// The revenue ledger's shortcuts must give what the plain ways give: text order of numeric ids, and the id
/// index against a dictionary.
struct RevenueLedgerOrderTests {
  @Test func numericIDsSortAsTheirText() {
    let edges: [UInt64] = [
      0, 1, 9, 10, 12, 99, 100, 120, 123, 1_000_000_000_000_000, 999_999_999_999_999, (1 << 63) - 1,
      9_223_372_036_854_775_806, 922_337_203_685_477_580, 1_000_000_000_000_000_000, 99_999_999_999_999_999,
    ]
    var generator = SystemRandomNumberGenerator()
    var values = edges
    for _ in 0..<2_000 {
      let digits = Int.random(in: 1...19, using: &generator)
      var n = UInt64.random(in: 1...9, using: &generator)
      for _ in 1..<digits { n = n * 10 + UInt64.random(in: 0...9, using: &generator) }
      values.append(min(n, (1 << 63) - 1))
    }
    for x in values {
      for y in values.prefix(200) {
        #expect(
          RevenueLedger.decimalTextPrecedes(x, y) == (String(x) < String(y)), "\(x) against \(y)")
      }
    }
  }

  @Test func idIndexFindsWhatADictionaryFinds() {
    var index = TransactionIDIndex()
    var dictionary: [String: Int] = [:]
    var generator = SystemRandomNumberGenerator()
    index.reserve(10)
    for row in 0..<20_000 {
      // Numbers, repeats, leading zeros and text all share one index.
      let id =
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: String(UInt64.random(in: 0..<5_000, using: &generator))
        case 1: String(UInt64.random(in: 0..<UInt64.max, using: &generator))
        case 2: "0" + String(Int.random(in: 0..<500, using: &generator))
        default: "id-\(Int.random(in: 0..<500, using: &generator))"
        }
      let expected = dictionary[id]
      if expected == nil { dictionary[id] = row }
      #expect(index.position(of: id, inserting: row) == expected, "\(id)")
      if row % 5_000 == 0 { index.reserve(3_000) }
    }
  }
}
