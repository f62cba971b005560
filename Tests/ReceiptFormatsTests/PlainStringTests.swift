import Foundation
import ReceiptModel
import ReceiptModelTestSupport
import Testing

// The plain-string reads live in the decoder's internal reader (ValueReading, JSONReader+PlainStrings).
@testable import ReceiptFormats

/// Row fields of a plain shape read without scanning them (`ValueReading.plainStrings`: digit ids and
/// milliseconds, Apple's dates, `"false"`/`"true"`, `"PURCHASED"`) give what scanning each value gives: the same
/// transactions, warnings, or the same error at the same path and place, whatever the value holds.
@Suite struct PlainStringTests {
  /// Read with plain strings and without, the two agree; returns the answer.
  @discardableResult
  static func expectSameBothWays(
    _ text: String, _ note: String, sourceLocation: SourceLocation = #_sourceLocation
  ) -> String {
    expectSameWithAndWithout(\.plainStrings, text, note, sourceLocation: sourceLocation)
  }

  static let shapes: [ReceiptShape] = [
    ReceiptShape(name: "one-chain", transactions: 60),
    ReceiptShape(
      name: "many-chains", transactions: 150, chains: 20, products: 5, shuffled: true, randomIDs: true,
      familySharedPercent: 25),
    ReceiptShape(
      name: "many-upgrades", transactions: 150, chains: 12, products: 12, shuffled: true, familySharedPercent: 25,
      upgradedPercent: 30, refundedPercent: 5, seed: 41),
    ReceiptShape(
      name: "many-products", transactions: 200, chains: 40, products: 60, shuffled: true, randomIDs: true,
      familySharedPercent: 50, upgradedPercent: 10, seed: 7),
    ReceiptShape(
      name: "long-chains", transactions: 150, chains: 2, products: 5, familySharedPercent: 90, upgradedPercent: 20,
      refundedPercent: 10, seed: 5),
  ]

  /// The benchmark's shapes with three seeds each.
  @Test func shapesReadTheSameWithAndWithoutPlainStrings() throws {
    for base in Self.shapes {
      for offset in 0..<3 as Range<UInt64> {
        var shape = base
        shape.seed += offset
        let text = shape.verifyReceipt(index: Int(offset))
        let answer = Self.expectSameBothWays(text, "\(shape.name) seed \(shape.seed)")
        #expect(!answer.hasPrefix("error"), "\(shape.name) seed \(shape.seed)")
      }
    }
  }

  /// One row around `value` put in place of each plain field's own value, next to rows as Apple writes them.
  static let row =
    #"{"quantity":"1","product_id":"com.example.pro.monthly","transaction_id":"1000000000000001","#
    + #""original_transaction_id":"1000000000000000","purchase_date":"2024-01-01 00:00:00 Etc/GMT","#
    + #""purchase_date_ms":"1704067200000","original_purchase_date":"2023-12-01 00:00:00 Etc/GMT","#
    + #""original_purchase_date_ms":"1701388800000","expires_date":"2024-02-01 00:00:00 Etc/GMT","#
    + #""expires_date_ms":"1706745600000","web_order_line_item_id":"10000000000000017","#
    + #""is_trial_period":"false","is_in_intro_offer_period":"true","in_app_ownership_type":"PURCHASED"}"#

  static func document(_ second: String) -> String {
    let first = row.replacingOccurrences(of: "1000000000000001", with: "7")
    return #"{"status":0,"receipt":{"bundle_id":"a","in_app":["# + first + "]},"
      + #""latest_receipt_info":["# + [first, second].joined(separator: ",") + "]}"
  }

  /// The row with the value written for `key` replaced by `value` (written as JSON, quotes and all).
  static func replacing(_ key: String, with value: String) -> String {
    guard let keyRange = row.range(of: "\"\(key)\":") else { return row }
    let valueStart = keyRange.upperBound
    let rest = row[valueStart...]
    // Every value in `row` is a string without commas or braces.
    let valueEnd = rest.firstIndex(where: { $0 == "," || $0 == "}" }) ?? row.endIndex
    return String(row[..<valueStart]) + value + String(row[valueEnd...])
  }

  /// Dates garbage, escaped, in other zones and spellings, disagreeing with their `_ms` twin, without a twin,
  /// cut short or run on; millisecond values and ids with leading zeros, too long, escaped, as numbers, empty;
  /// flags and ownership in other spellings: each read both ways, errors included.
  @Test func oddValuesReadTheSameWithAndWithoutPlainStrings() {
    let dateKeys = ["purchase_date", "original_purchase_date", "expires_date"]
    let dates = [
      #""2024-01-01 00:00:00 Etc/GMT""#, #""2024-01-01 00:00:00 Etc\/GMT""#, #""\u0032024-01-01 00:00:00 Etc/GMT""#,
      #""2024-01-01 00:00:00 Etc/UTC""#, #""2024-01-01T00:00:00Z""#, #""2024-01-01 00:00:00 Etc/GMT ""#,
      #""2024-01-01 00:00:00 Etc/GM""#, #""2024-01-01 00:00:00 America/Los_Angeles""#,
      #""2024-13-01 00:00:00 Etc/GMT""#,
      #""2023-02-29 00:00:00 Etc/GMT""#, #""2024-02-29 00:00:00 Etc/GMT""#, #""2024-01-01 24:00:00 Etc/GMT""#,
      #""1969-12-31 23:59:59 Etc/GMT""#, #""2031-05-06 07:08:09 Etc/GMT""#, #""garbage""#, #""""#, "null",
      "1704067200000", #""1704067200000""#, #""2024-01-01 00:00:00 Etc/GMT"x"#, #" "2024-01-01 00:00:00 Etc/GMT""#,
      #""2024-01-01 00:00:00 Etc"GMT""#, #""2024-01-01 00:00:00 Etc\GMT""#, "true",
    ]
    let millis = [
      #""1704067200000""#, #""01704067200000""#, #""170406720000000000""#, #""99999999999999999""#, #""0""#,
      #""-1""#, #""17040672000a0""#, #""1704067200000 ""#, #""170406720\u00300""#, #""""#, "1704067200000", "null",
      #""1704067200000"x"#, #""253402300800000""#,
    ]
    let ids = [
      #""1000000000000001""#, #""0001""#, #""0""#, "\"" + String(repeating: "9", count: 64) + "\"",
      "\"" + String(repeating: "9", count: 65) + "\"", #""12\u00334""#, #""12a""#, #""""#, "123", "1.5", "null",
      #""-12""#, #""12"x"#,
    ]
    let flags = [
      #""false""#, #""true""#, #""False""#, #""0""#, #""1""#, #""fals\u0065""#, "true", "0", #""""#, "null",
      #""false "x"#, #""falsey""#,
    ]
    let ownerships = [#""PURCHASED""#, #""FAMILY_SHARED""#, #""PURCHASEDX""#, #""PURCHASE\u0044""#, #""""#, "null"]
    // `quantity` read where it stands when it is 1 to 18 digits within 1...1,000,000: at and past each end, leading
    // zeros, signs, escaped, spaced, a number, too long for the plain read, empty.
    let quantities = [
      #""1""#, #""2""#, #""0""#, #""1000000""#, #""1000001""#, #""01""#, #""-1""#, #""+1""#, #""\u0031""#,
      #"" 1""#, #""1 ""#, "1", "0", #""""#, "null", #""1"x"#, "\"" + String(repeating: "9", count: 18) + "\"",
      "\"" + String(repeating: "0", count: 18) + "1\"", #""1e3""#, #""1.0""#,
    ]
    var cases: [(String, String)] = []
    for key in dateKeys { cases += dates.map { (key, $0) } }
    for key in ["purchase_date_ms", "original_purchase_date_ms", "expires_date_ms"] {
      cases += millis.map { (key, $0) }
    }
    for key in ["transaction_id", "original_transaction_id", "web_order_line_item_id"] {
      cases += ids.map { (key, $0) }
    }
    for key in ["is_trial_period", "is_in_intro_offer_period"] { cases += flags.map { (key, $0) } }
    cases += ownerships.map { ("in_app_ownership_type", $0) }
    cases += quantities.map { ("quantity", $0) }
    // Apple's Pacific dates, skipped at once when plain text of their length: as written, one byte longer and
    // shorter, escaped, with a control character, DEL, non-ASCII text, a quote or a backslash at either end, cut off.
    let pacific = "2024-01-01 00:00:00 America/Los_Angeles"
    var pacificValues = [
      "\"\(pacific)\"", "\"\(pacific)x\"", "\"\(pacific.dropLast())\"", "\"\(pacific.dropLast())\\\"\"", "null",
    ]
    pacificValues += [
      "\"\\u0032\(pacific.dropFirst())\"", "\"\u{01}\(pacific.dropFirst())\"", "\"\u{7F}\(pacific.dropFirst())\"",
    ]
    pacificValues += [
      "\"\(pacific.dropLast(2))\u{E9}\"", "\"\(pacific.dropLast())\"x\"", "\"\\\"\(pacific.dropFirst(2))\"",
      "\"\(pacific)",
    ]
    pacificValues += ["\"\(pacific.prefix(31))\u{0A}\(pacific.dropFirst(32))\"", "\"\(pacific)\"\"", "7", "{}"]
    var errors = 0
    for value in pacificValues {
      let row = Self.row.replacingOccurrences(
        of: #""purchase_date_ms""#, with: #""purchase_date_pst":"# + value + #","purchase_date_ms""#)
      if Self.expectSameBothWays(Self.document(row), "purchase_date_pst: \(value)").hasPrefix("error") { errors += 1 }
    }
    for (key, value) in cases {
      let answer = Self.expectSameBothWays(Self.document(Self.replacing(key, with: value)), "\(key): \(value)")
      if answer.hasPrefix("error") { errors += 1 }
    }
    // Some of them are errors (their messages, paths and places compared), most are not.
    #expect(errors > 20 && errors < cases.count / 2, "\(errors) of \(cases.count)")
    // A twin's absence leaves the formatted date to stand; the document cut short after a date or inside one.
    Self.expectSameBothWays(
      Self.document(Self.row.replacingOccurrences(of: #""purchase_date_ms":"1704067200000","#, with: "")), "no twin")
    let whole = Self.document(Self.row)
    for cut in [#""purchase_date":"2024-01-01 00:00:00 Etc/GMT""#, #""purchase_date":"2024-01-01 00:00:00 Etc/GM"#] {
      guard let range = whole.range(of: cut, options: .backwards) else { continue }
      Self.expectSameBothWays(String(whole[..<range.upperBound]), "cut after \(cut)")
    }
    for cut in [#""transaction_id":"10000000000"#, #""expires_date_ms":"170674560000"#, #""is_trial_period":"fal"#] {
      guard let range = whole.range(of: cut, options: .backwards) else { continue }
      Self.expectSameBothWays(String(whole[..<range.upperBound]), "cut after \(cut)")
    }
  }

  /// A status written as a JSON number is read where it stands when it is an integer of up to 18 digits within
  /// range (`ValueReading.integer`): at and past each end of the range, signs, fractions, exponents, leading zeros,
  /// long, as text, at the top level and in `unified_receipt`, cut short: each read both ways, errors included.
  @Test func numberStatusesReadTheSameWithAndWithoutPlainStrings() {
    let statuses = [
      "0", "21007", "-0", "-1", "1", "2147483647", "2147483648", "9223372036854775807", "9223372036854775808",
      "999999999999999999", "1000000000000000000", "99999999999999999999", "0.0", "1.5", "1e3", "1E3", "-", "00", "01",
      "0x1", "+1", #""0""#, #""21007""#, "true", "null", "[]",
    ]
    var errors = 0
    var read = 0
    for status in statuses {
      for text in [
        #"{"status":"# + status + #","receipt":{"bundle_id":"a"}}"#,
        #"{"status": "# + status + #" ,"environment":"Production"}"#,
        #"{"notification_type":"DID_RENEW","unified_receipt":{"status":"# + status + "}}",
        #"{"status":"# + status,
      ] {
        let answer = Self.expectSameBothWays(text, "status \(status) in \(text)")
        if answer.hasPrefix("error") { errors += 1 } else { read += 1 }
      }
    }
    #expect(errors > 20 && read > 20, "\(errors) errors, \(read) read")
  }

  /// The reader's plain reads themselves: they take exactly a plain value and its closing quote, and move nothing
  /// when they refuse, so the scan reads the value as if they had not looked.
  @Test func plainReadsTakeExactlyThePlainValue() throws {
    func withReader<R>(_ text: String, _ body: (inout JSONReader) throws -> R) throws -> R {
      try JSONReader.withReader(Array(text.utf8)) { reader in try body(&reader) }
    }
    // Digits: 1 to `limit` of them then a quote.
    for (text, limit, expected) in [
      (#""123""#, 3, "123"), (#""123""#, 2, nil), (#""""#, 5, nil), (#""12a""#, 5, nil), (#""12\u0033""#, 5, nil),
      (#" "42""#, 5, "42"), (#""12"#, 5, nil), ("12", 5, nil),
    ] as [(String, Int, String?)] {
      try withReader(text) { reader in
        let token = reader.plainDigitString(limit: limit)
        #expect(token.map { reader.string($0) } == expected, "\(text)")
        if let token {
          reader.step(past: token)
          #expect(reader.offset == text.utf8.count, "\(text)")
        }
      }
    }
    // Dates: Apple's spelling only, the reader past the closing quote; refused, nothing moved.
    for text in [
      #""2024-01-01 00:00:00 Etc/GMT""#, #""2024-01-01 00:00:00 Etc/GMTx"#, #""2024-01-01 00:00:00 Etc\/GMT""#,
      #""2024-01-01T00:00:00Z""#, #""2024-01-01 00:00:00 Etc/GMT"#,
    ] {
      try withReader(text) { reader in
        let at = reader.offset
        let date = reader.appleDateString()
        let accepted = text == #""2024-01-01 00:00:00 Etc/GMT""#
        #expect((date != nil) == accepted, "\(text)")
        #expect(date == (accepted ? Timestamp.parse(formatted: "2024-01-01 00:00:00 Etc/GMT") : nil), "\(text)")
        #expect(reader.offset == (accepted ? text.utf8.count : at), "\(text)")
      }
    }
    // Plain text of a given length: exactly that long, printable ASCII, no quote or backslash.
    for (text, accepted) in [
      (#""abcdefghij""#, true), (#""abcdefghi""#, false), (#""abcdefghijk""#, false), (#""abcde"ghij""#, false),
      (#""abcdefghi""#, false), ("\"abcdefgh\u{7F}j\"", false), ("\"ab\u{09}defghij\"", false),
      (#""abcdefghij"#, false),
      ("\"abcdefgh\u{E9}\"", false), (#"  "abcdefghij""#, true),
    ] {
      try withReader(text) { reader in
        let skipped = reader.skipPlainString(length: 10)
        #expect(skipped == accepted, "\(text)")
        if accepted { #expect(reader.offset == text.utf8.count, "\(text)") }
      }
    }
    let eight = try withReader(#""abcdefgh""#) { reader in reader.skipPlainString(length: 8) }
    let seven = try withReader(#""abcdefg""#) { reader in reader.skipPlainString(length: 7) }
    #expect(eight && !seven, "eight bytes or more only")
    // Literals: whole, quotes included.
    for (text, accepted) in [(#""false""#, true), (#""fals""#, false), (#""false"#, false), (#"false"#, false)] {
      try withReader(text) { reader in
        #expect(reader.plainString("\"false\"") == accepted, "\(text)")
        #expect(reader.offset == (accepted ? text.utf8.count : 0), "\(text)")
      }
    }
  }
}
