import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptFormats

/// A renderer writes once against `JSONOutput`; the stream writer (bytes straight to the output) is held to the
/// plain tree writer (`JSONTreeWriter`, whose `JSONValue` renders as every golden was written).
@Suite struct JSONOutputTests {
  static let texts = ["", "a", "pro.monthly", "quote \" and \\ back", "line\nbreak", "\u{1}", "caf\u{E9}", "\u{9B}"]
  static let keys: [StaticString] = ["id", "status", "purchase_date", "reason"]
  static let moments: [Timestamp?] = [
    nil, Timestamp(unchecked: 0), Timestamp(unchecked: 1_704_067_200_001), Timestamp(unchecked: -86_400_001),
  ]

  /// Writes a random value of nested containers and every kind of scalar, through both kinds of key.
  static func writeRandom<W: JSONOutput>(_ numbers: inout SplitMix64, depth: Int, to w: inout W) {
    switch numbers.below(depth > 3 ? 6 : 8) {
    case 0: w.null()
    case 1: w.bool(numbers.below(2) == 0)
    case 2: w.int(numbers.below(3) == 0 ? nil : numbers.below(2_000_000) - 1_000_000)
    case 3: w.string(numbers.below(4) == 0 ? nil : texts[numbers.below(texts.count)])
    case 4: w.date(moments[numbers.below(moments.count)])
    case 5: w.value(.number("1.50"))
    case 6:
      w.array(0..<numbers.below(4)) { w, _ in writeRandom(&numbers, depth: depth + 1, to: &w) }
    default:
      w.object { w in
        for _ in 0..<numbers.below(4) {
          if numbers.below(2) == 0 {
            w.key(keys[numbers.below(keys.count)])
          } else {
            w.key(text: texts[numbers.below(texts.count)])
          }
          writeRandom(&numbers, depth: depth + 1, to: &w)
        }
      }
    }
  }

  @Test func streamWriterWritesWhatTheTreeWriterBuilds() {
    for i in 0..<3000 {
      var numbers = SplitMix64(seed: UInt64(i))
      let tree = JSONTreeWriter.tree { w in Self.writeRandom(&numbers, depth: 0, to: &w) }
      for (pretty, indent) in [(true, 0), (true, 2), (false, 0)] {
        numbers = SplitMix64(seed: UInt64(i))
        var stream = JSONStreamWriter(pretty: pretty, indent: indent)
        Self.writeRandom(&numbers, depth: 0, to: &stream)
        #expect(
          String(decoding: stream.bytes, as: UTF8.self) == tree.rendered(pretty: pretty, indent: indent),
          "case \(i) pretty \(pretty) indent \(indent)")
      }
    }
  }

  @Test func membersWriteTheirKeyAndValue() {
    let tree = JSONTreeWriter.tree { w in
      w.object { w in
        w.member("id", "pro")
        w.member("active", bool: true)
        w.member("code", int: Int64(21))
        w.member("big", int: UInt64.max)
        w.member("none", int: Int?.none)
        w.member("as_of", date: Timestamp(unchecked: 0))
        w.member("page", object: { $0.member("partial", bool: false) })
        w.key("ids")
        w.array(strings: ["1", "2"])
      }
    }
    #expect(
      tree.rendered(pretty: false)
        == #"{"id":"pro","active":true,"code":21,"big":18446744073709551615,"none":null,"as_of":"1970-01-01T00:00:00Z","page":{"partial":false},"ids":["1","2"]}"#
    )
  }
}
