import Testing
@testable import ReceiptKit

/// The fast paths the decoder takes for large receipts must give the same answers as the slow ones.
@Suite struct DecoderSpeedPathTests {
  @Test func numericAndTextualTransactionIDsAreKeptApart() {
    var index = TransactionIDIndex()
    let ids = ["12", "012", "0", "00", "1000000000000000001", "99999999999999999999", "abc", "12a"]
    for (row, id) in ids.enumerated() { #expect(index.position(of: id, inserting: row) == nil, "\(id)") }
    for (row, id) in ids.enumerated() { #expect(index.position(of: id, inserting: 100) == row, "\(id)") }
    #expect(TransactionIDIndex.numericKey("012") == nil)
    #expect(TransactionIDIndex.numericKey("0") == 0)
    #expect(TransactionIDIndex.numericKey("9999999999999999999") == 9_999_999_999_999_999_999)
    #expect(TransactionIDIndex.numericKey("99999999999999999999") == nil)
  }

  @Test func theIndexGrowsPastManyRows() {
    var index = TransactionIDIndex()
    for row in 0..<10_000 { #expect(index.position(of: String(1_000_000 + row * 7), inserting: row) == nil) }
    for row in stride(from: 0, to: 10_000, by: 997) { #expect(index.position(of: String(1_000_000 + row * 7), inserting: -1) == row) }
  }

  @Test func internedStringsEqualTheirBytesEvenWhenSlotsCollide() {
    var interner = StringInterner()
    let values = (0..<500).map { "com.example.product.\($0 % 130)" }
    for v in values {
      var bytes = Array(v.utf8)
      let s = bytes.withUnsafeMutableBufferPointer { interner.string(UnsafeBufferPointer($0)) }
      #expect(s == v)
    }
  }

  @Test func formattedDatesParseTheSameFromBytesAndStrings() {
    for text in ["2020-07-23 19:32:51 Etc/GMT", "2020-07-23T19:32:51.25Z", "2020-07-23T19:32:51+01:30", "2020-07-23", "2020-02-30", "2020-07-23 19:32:51 PST"] {
      var bytes = Array(text.utf8)
      let fromBytes = bytes.withUnsafeMutableBufferPointer { Timestamp.parse(formatted: UnsafeBufferPointer($0)) }
      #expect(fromBytes == Timestamp.parse(formatted: text), "\(text)")
    }
    #expect(Timestamp.parse(formatted: "2020-07-23T19:32:51+01:30")?.iso8601 == "2020-07-23T18:02:51Z")
    #expect(Timestamp.parse(formatted: "2020-02-30") == nil)
  }
}
