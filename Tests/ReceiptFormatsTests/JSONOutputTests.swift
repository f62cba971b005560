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

  /// A character of every class the escaping tells apart: plain ASCII, the two escaped by name, control bytes,
  /// DEL, C1 controls (escaped, two UTF-8 bytes from 0xC2), other two-, three- and four-byte scalars.
  static let characterClasses: [[Unicode.Scalar]] = [
    Array("abcXYZ019 -_.:/@~{}[]".unicodeScalars), ["\"", "\\"], (0..<0x20).compactMap(Unicode.Scalar.init),
    ["\u{7F}"], (0x80..<0xA0).compactMap(Unicode.Scalar.init), ["\u{A0}", "\u{E9}", "\u{FF}", "\u{100}"],
    ["\u{2028}", "\u{20AC}", "\u{FEFF}", "\u{FFFD}"], ["\u{1F600}", "\u{10FFFF}"],
  ]

  /// The stream writer's string (copied, then checked a word at a time where it was copied) against the plain
  /// form, `JSONValue.string` as every golden was rendered: random texts of 0 to 80 characters, mostly plain with
  /// one character of another class here and there, so that the one to escape falls at every place of a word,
  /// the word before the end, and past the 64 bytes copied in words.
  @Test func stringsAreWrittenAsThePlainFormEscapesThem() {
    var numbers = SplitMix64(seed: 42)
    for i in 0..<20_000 {
      let s = Self.randomText(&numbers, longest: 80)
      for pretty in [false, true] {
        var stream = JSONStreamWriter(pretty: pretty, capacity: numbers.below(2) == 0 ? 1 : 4096)
        stream.beginArray()
        stream.element()
        stream.string(s)
        stream.element()
        stream.string(s)
        stream.endArray()
        let plain = JSONValue.array([.string(s), .string(s)]).rendered(pretty: pretty)
        #expect(String(decoding: stream.bytes, as: UTF8.self) == plain, "case \(i): \(s.debugDescription)")
      }
    }
  }

  /// Up to `longest` characters of the first class, with one of another class here and there.
  static func randomText(_ numbers: inout SplitMix64, longest: Int) -> String {
    var text = String.UnicodeScalarView()
    let length = numbers.below(longest + 1)
    let oddOnes = numbers.below(3)
    for _ in 0..<length {
      let kind = numbers.below(length) < oddOnes ? 1 + numbers.below(characterClasses.count - 1) : 0
      let choices = characterClasses[kind]
      text.append(choices[numbers.below(choices.count)])
    }
    return String(text)
  }

  /// A string of two parts (`string(_:_:)`, an unsigned summary) is written as their join is, whichever part
  /// needs an escape, whatever their lengths.
  @Test func stringsOfTwoPartsAreWrittenAsTheirJoin() {
    var numbers = SplitMix64(seed: 7)
    for i in 0..<10_000 {
      let first = Self.randomText(&numbers, longest: 40)
      let second = Self.randomText(&numbers, longest: 40)
      for pretty in [false, true] {
        var stream = JSONStreamWriter(pretty: pretty, capacity: numbers.below(2) == 0 ? 1 : 4096)
        stream.beginArray()
        stream.element()
        stream.string(first, second)
        stream.element()
        stream.string(first + second)
        stream.endArray()
        let joined = JSONValue.string(first + second)
        let plain = JSONValue.array([joined, joined]).rendered(pretty: pretty)
        #expect(
          String(decoding: stream.bytes, as: UTF8.self) == plain,
          "case \(i): \(first.debugDescription) \(second.debugDescription)")
        // The tree writer joins them.
        #expect(JSONTreeWriter.tree { $0.string(first, second) } == joined)
      }
    }
  }

  /// Keys are copied in words from 8 bytes on and with memcpy past 64: every length around those bounds.
  @Test func keysOfEveryLengthAreWrittenWhole() {
    let keys: [StaticString] = [
      "", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmno",
      "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0",
      "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01",
      "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz012",
    ]
    for pretty in [false, true] {
      var stream = JSONStreamWriter(pretty: pretty, capacity: 1)
      let tree = JSONTreeWriter.tree { w in
        w.object { w in for key in keys { w.member(key, bool: true) } }
      }
      stream.object { w in for key in keys { w.member(key, bool: true) } }
      #expect(String(decoding: stream.bytes, as: UTF8.self) == tree.rendered(pretty: pretty))
      #expect(keys.map { $0.utf8CodeUnitCount } == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 63, 64, 65])
    }
  }

  /// A fixed run (`JSONOutput.fixed`) is copied whole by a compact stream writer and replayed call by call by the
  /// others: each gives the text its calls give, at the start of an object or array and after other members, and
  /// the replay reads the run back to its own text.
  @Test func fixedRunsAreWrittenAsTheirCallsWrite() {
    let memberRuns: [StaticString] = [
      #""a":null"#, #""a":null,"b":true,"c":false,"d":0,"e":-12,"f":"x y","g":[],"h":{}"#,
      #""list":["ids","products"],"nested":{"n":[1,{"m":[true,null]}],"o":{"p":"q"}},"s":"""#,
      SignatureCheckJSON.nothingChecked,
    ]
    let elementRuns: [StaticString] = [#""ids""#, #"1,-2,"three",null,[],{"a":[false]},[[]]"#]
    for (runs, inObject) in [(memberRuns, true), (elementRuns, false)] {
      for run in runs {
        for before in [false, true] {
          func write<W: JSONOutput>(_ w: inout W, _ body: (inout W) -> Void) {
            if inObject {
              w.object { w in
                if before { w.member("before", int: 1) }
                body(&w)
                w.member("after", bool: true)
              }
            } else {
              // Elements of a fixed run are started by the run itself (no `element()` before it).
              w.beginArray()
              if before {
                w.element()
                w.int(1)
              }
              body(&w)
              w.endArray()
            }
          }
          let tree = JSONTreeWriter.tree { w in write(&w) { $0.fixed(run) } }
          for (pretty, indent) in [(false, 0), (true, 0), (true, 2)] {
            var stream = JSONStreamWriter(pretty: pretty, indent: indent)
            write(&stream) { $0.fixed(run) }
            #expect(
              String(decoding: stream.bytes, as: UTF8.self) == tree.rendered(pretty: pretty, indent: indent),
              "\(run) pretty \(pretty)")
          }
          let text = String(
            decoding: UnsafeBufferPointer(start: run.utf8Start, count: run.utf8CodeUnitCount), as: UTF8.self)
          let alone = JSONTreeWriter.tree { w in
            if inObject {
              w.object { $0.fixed(run) }
            } else {
              w.beginArray()
              w.fixed(run)
              w.endArray()
            }
          }
          #expect(alone.rendered(pretty: false) == (inObject ? "{\(text)}" : "[\(text)]"), "\(run)")
        }
      }
    }
  }

  /// `signature_check`'s fixed members for a verdict with nothing checked are what the members write one by one,
  /// and any one thing checked leaves the fixed text.
  @Test func nothingCheckedIsTheMembersOfAnUncheckedVerdict() {
    let unchecked = [SignatureCheck.unsigned("verifyReceipt JSON"), SignatureCheck(.notChecked, note: "why")]
    for check in unchecked {
      #expect(SignatureCheckJSON.isNothingChecked(check))
      let one = JSONTreeWriter.tree { w in w.object { SignatureCheckJSON.writeCheckedMembers(check, to: &$0) } }
      let fixed = JSONTreeWriter.tree { w in w.object { $0.fixed(SignatureCheckJSON.nothingChecked) } }
      #expect(one == fixed)
      for pretty in [false, true] {
        var stream = JSONStreamWriter(pretty: pretty)
        stream.object { SignatureCheckJSON.writeMembers(check, to: &$0) }
        let tree = JSONTreeWriter.tree { w in
          w.object { w in
            w.member("verdict", check.verdict.rawValue)
            w.member("summary", check.summary)
            SignatureCheckJSON.writeCheckedMembers(check, to: &w)
            w.member("note", check.note)
          }
        }
        #expect(String(decoding: stream.bytes, as: UTF8.self) == tree.rendered(pretty: pretty))
      }
    }
    let moment = CheckedMoment(time: Timestamp(unchecked: 0), source: "now")
    let failure = SignatureItemFailure(path: "", code: "signature.mismatch", certificate: nil, reason: "bad")
    var checked = [
      SignatureCheck.verifiedItem(chain: [], moment: moment, anchor: .apple),
      SignatureCheck.failedItem(failure, chain: [], moment: moment),
    ]
    for change in 0..<8 {
      var check = SignatureCheck.unsigned("x")
      switch change {
      case 0: check.anchor = .trustRoot
      case 1: check.moment = moment
      case 2: check.revocationChecked = true
      case 3: check.signedItems = 1
      case 4: check.verifiedItems = 1
      case 5: check.testSignedItems = 1
      case 6: check.failureCount = 1
      default: check.failures = [failure]
      }
      checked.append(check)
    }
    checked.append(
      {
        var check = SignatureCheck.unsigned("x")
        check.chain = [
          SignerCertificate(
            position: "x5c[0]", commonName: nil, organization: nil, notBefore: nil, notAfter: nil, sha256: "")
        ]
        return check
      }())
    for check in checked { #expect(!SignatureCheckJSON.isNothingChecked(check), "\(check)") }
  }
}
