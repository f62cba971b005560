import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

@Suite struct JSONReaderTests {
  func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

  func syntaxError(_ text: String) -> JSONSyntaxError? {
    do {
      _ = try parse(text)
      return nil
    } catch let e as JSONSyntaxError {
      return e
    } catch {
      return nil
    }
  }

  @Test func parsesEveryKind() throws {
    let v = try parse(#"{"a": [1, -2.5e3, true, false, null, "x\n\u00e9\ud83d\ude00"], "b": {}}"#)
    #expect(
      v.member("a") == .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null, .string("x\né😀")]))
    #expect(v.member("b") == .object([]))
  }

  @Test func keepsIntegersAsWritten() throws {
    // Ids and millisecond timestamps past 2^53 must not lose digits.
    let v = try parse(#"[9007199254740993, 18446744073709551616]"#)
    #expect(v == .array([.number("9007199254740993"), .number("18446744073709551616")]))
  }

  @Test func reportsLineAndColumn() throws {
    let e = try #require(syntaxError("{\n  \"a\": 1,\n  \"b\": tru\n}"))
    #expect(e.line == 3)
    #expect(e.column == 8)
    #expect(e.message == "invalid literal; expected true, false or null")
  }

  @Test func columnsCountCharactersNotBytes() throws {
    let e = try #require(syntaxError("[\"é\", x]"))
    #expect(e.line == 1)
    #expect(e.column == 7)
  }

  @Test(arguments: [
    "[1,]", "{\"a\":1,}", "[01]", "[1.]", "[.5]", "[\"a\\x\"]", "[\"\u{01}\"]", "{\"a\" 1}", "[1 2]", "", "  ", "[",
    "{\"a\":1} x", "[-]", "[1e]", "[\"\\u12\"]", "[NaN]", "['a']",
  ])
  func rejects(_ text: String) {
    #expect(syntaxError(text) != nil, "accepted \(text.debugDescription)")
  }

  @Test func depthLimitIsCheckedBeforeDescending() throws {
    let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
    #expect(throws: Never.self) { try parse(ok) }
    let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
    let e = try #require(syntaxError(deep))
    #expect(e.message == "nesting deeper than 512 levels")
    #expect(e.offset == 512)
    // Far deeper input ends with the same clean error, not a stack overflow.
    #expect(syntaxError(String(repeating: "[", count: 100_000)) != nil)
  }

  @Test func duplicateKeysAreKeptAndLastWinsOnLookup() throws {
    let v = try parse(#"{"a": 1, "a": 2}"#)
    guard case .object(let members) = v else {
      Issue.record("not an object")
      return
    }
    #expect(members.count == 2)
    #expect(v.member("a") == .number("2"))
  }

  @Test func skipsUTF8ByteOrderMarkAndRejectsUTF16() throws {
    #expect(try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .object([]))
    #expect(throws: JSONSyntaxError.self) { try JSONValue.parse([0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00]) }
  }

  @Test func rejectsInvalidUTF8InStrings() {
    for bytes: [UInt8] in [
      [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF5, 0x80, 0x80, 0x80, 0x22],
      [0x22, 0xE2, 0x82, 0x22],
    ] {
      #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(bytes) }
    }
  }

  @Test func loneSurrogateEscapesBecomeReplacementCharacter() throws {
    #expect(try parse(#"["\ud800x"]"#) == .array([.string("\u{FFFD}x")]))
  }

  @Test func writerRoundTripsStrings() throws {
    let original = JSONValue.object([("k\"ey", .string("line\nbreak\u{01}é")), ("n", .number("12"))])
    #expect(try JSONValue.parse(Array(original.rendered().utf8)) == original)
    #expect(try JSONValue.parse(Array(original.rendered(pretty: false).utf8)) == original)
  }

  @Test func keyMatcherFindsEveryKeyAndNothingElse() {
    let names = ["transaction_id", "product_id", "expires_date_ms", "a", ""]
    let matcher = KeyMatcher(names)
    for (i, name) in names.enumerated() {
      let bytes = Array(name.utf8)
      #expect(bytes.withUnsafeBufferPointer { matcher.index(of: $0) } == i)
    }
    let other = Array("transaction_ids".utf8)
    #expect(other.withUnsafeBufferPointer { matcher.index(of: $0) } == nil)
  }

  /// The writer's string escapes, eight bytes at a time, against a byte-at-a-time reference: every byte that needs
  /// an escape, at every place around the eight-byte steps, among plain ASCII and other UTF-8.
  @Test func writtenStringsEscapeAsByteByByte() {
    func reference(_ s: String) -> [UInt8] {
      var out: [UInt8] = [0x22]
      let bytes = Array(s.utf8)
      var i = 0
      while i < bytes.count {
        let b = bytes[i]
        switch b {
        case 0x22: out += Array("\\\"".utf8)
        case 0x5C: out += Array("\\\\".utf8)
        case 0x0A: out += Array("\\n".utf8)
        case 0x0D: out += Array("\\r".utf8)
        case 0x09: out += Array("\\t".utf8)
        case 0x00..<0x20, 0x7F:
          let hex = String(b, radix: 16)
          out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
        case 0xC2 where i + 1 < bytes.count && (0x80...0x9F).contains(bytes[i + 1]):
          out += Array(("\\u00" + String(bytes[i + 1], radix: 16)).utf8)
          i += 1
        default: out.append(b)
        }
        i += 1
      }
      return out + [0x22]
    }
    var generator = SystemRandomNumberGenerator()
    let pieces = [
      "a", "Z", "0", " ", "\"", "\\", "\n", "\t", "\u{1}", "\u{1F}", "\u{7F}", "\u{80}", "\u{9B}", "\u{A0}", "\u{E9}",
      "\u{20AC}", "\u{1F600}", "~",
    ]
    for _ in 0..<3000 {
      let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
        pieces.randomElement(using: &generator) ?? "a"
      }.joined()
      var out: [UInt8] = []
      JSONValue.writeString(text, to: &out)
      #expect(out == reference(text), "\(Array(text.unicodeScalars))")
    }
  }
}
