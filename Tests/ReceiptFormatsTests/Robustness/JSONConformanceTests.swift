import Foundation
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// nst/JSONTestSuite (../shared/JSONTestSuite/test_parsing): y_ accepted, n_ rejected, i_ either way without a crash.
@Suite struct JSONTestSuiteTests {
  static var files: [URL] {
    guard let shared = TestPaths.shared else { return [] }
    let dir = shared.appendingPathComponent("JSONTestSuite/test_parsing")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted().map { dir.appendingPathComponent($0) }
  }

  @Test func everyFileGetsTheAnswerItsNameDemands() throws {
    let files = Self.files
    guard !files.isEmpty else {
      TestPaths.noteSharedMissing("the JSONTestSuite conformance test")
      return
    }
    var counts: [Character: Int] = [:]
    for url in files {
      let name = url.lastPathComponent
      let bytes = try [UInt8](Data(contentsOf: url))
      let accepted = (try? JSONValue.parse(bytes)) != nil
      guard let first = name.first else { continue }
      counts[first, default: 0] += 1
      switch first {
      case "y": #expect(accepted, "\(name) must be accepted")
      case "n": #expect(!accepted, "\(name) must be rejected")
      default: break  // i_: either answer; getting here means no crash.
      }
    }
    #expect(counts["y"] == 95 && counts["n"] == 188 && counts["i"] == 35, "\(counts)")
  }

}

/// The reader against Foundation's JSONSerialization on accept/reject, over seeded generated documents.
///
/// Known differences (excluded by `knownDifference`), all found by this test on Swift 6.3 / Linux:
/// - Foundation accepts a trailing comma (`[1,]`, `{"a":1,}`); RFC 8259 and this reader do not.
/// - Foundation accepts a complete value followed by a raw NUL byte and anything (`1<NUL>5`); this reader does not.
/// - Foundation rejects numbers past Double (`1e400`); this reader keeps numbers as text and accepts them.
/// - Foundation rejects the escape `\u0000` and lone surrogate escapes (`"\uD83D"`); this reader accepts them
///   (RFC 8259 allows both; a lone surrogate becomes U+FFFD).
@Suite struct DifferentialTests {
  /// SplitMix64: deterministic, so a failure names a seed that reproduces it.
  struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
  }

  static let strings = ["", "a", "ü", "\\n", "\\u00e9", "\\uD83D\\uDE00", "\\\"", "\\/", "😀", "tab\\t", "\\u0000"]
  static let numbers = [
    "0", "-0", "1", "-1", "12.5", "1e5", "1E-5", "-0.0e+0", "123456789012345678901234567890", "1e400", "0.1",
  ]

  static func value(_ g: inout Generator, depth: Int) -> String {
    switch g.below(depth > 4 ? 4 : 7) {
    case 0: return "\"" + g.pick(strings) + "\""
    case 1: return g.pick(numbers)
    case 2: return g.pick(["true", "false", "null"])
    case 3: return "\"" + g.pick(strings) + g.pick(strings) + "\""
    case 4, 5:
      let n = g.below(4)
      return "[" + (0..<n).map { _ in value(&g, depth: depth + 1) }.joined(separator: g.pick([",", ", ", " ,\n"])) + "]"
    default:
      let n = g.below(4)
      let members = (0..<n).map { _ in
        "\"" + g.pick(strings) + "\"" + g.pick([":", " : "]) + value(&g, depth: depth + 1)
      }
      return "{" + members.joined(separator: ",") + "}"
    }
  }

  static let junk: [[UInt8]] = [
    [0x2C], [0x3A], [0x5B], [0x5D], [0x7B], [0x7D], [0x22], [0x5C], [0x20], [0x0A], [0x00], [0x7F], [0xFF], [0xC3],
    Array("-".utf8), Array("0".utf8), Array("e".utf8), Array(".".utf8), Array("+".utf8), Array("tru".utf8),
    Array("nul".utf8),
    Array("\\u".utf8), Array("\\uD800".utf8), [0xEF, 0xBB, 0xBF], [0x09], [0x0D], Array("'".utf8), Array("NaN".utf8),
  ]

  /// Deletes, inserts, replaces or truncates at a random place.
  static func mutate(_ doc: [UInt8], _ g: inout Generator) -> [UInt8] {
    var d = doc
    for _ in 0...g.below(2) {
      let at = g.below(d.count + 1)
      switch g.below(4) {
      case 0: if at < d.count { d.remove(at: at) }
      case 1: d.insert(contentsOf: g.pick(junk), at: at)
      case 2: if at < d.count { d[at] = g.pick(junk).first ?? 0 }
      default: d = Array(d.prefix(at))
      }
    }
    return d
  }

  /// Where the two parsers are allowed to disagree, by design.
  static func knownDifference(_ doc: [UInt8], ours: JSONValue?, foundationAccepts: Bool) -> Bool {
    if let ours {
      // Foundation rejects what this reader accepts: numbers past Double (kept as text here),
      // the escape \u0000, and lone UTF-16 surrogate escapes (U+FFFD here).
      guard !foundationAccepts else { return false }
      return contains(ours) { value in
        switch value {
        case .number(let n): return Double(n).map { !$0.isFinite } ?? true
        case .string(let s): return s.unicodeScalars.contains { $0 == "\u{0}" || $0 == "\u{FFFD}" }
        default: return false
        }
      }
    }
    guard foundationAccepts else { return false }
    // Foundation accepts a trailing comma before a closing bracket.
    let squeezed = String(decoding: doc, as: UTF8.self).filter { !" \n\t\r".contains($0) }
    if squeezed.contains(",]") || squeezed.contains(",}") { return true }
    // Foundation stops at a raw NUL byte after a complete value.
    if let nul = doc.firstIndex(of: 0), (try? JSONValue.parse(Array(doc[..<nul]))) != nil { return true }
    return false
  }

  /// True when `value` or anything inside it (member keys as strings included) satisfies `test`.
  static func contains(_ value: JSONValue, _ test: (JSONValue) -> Bool) -> Bool {
    if test(value) { return true }
    switch value {
    case .array(let items): return items.contains { contains($0, test) }
    case .object(let members): return members.contains { test(.string($0.key)) || contains($0.value, test) }
    default: return false
    }
  }

  static func foundationAccepts(_ doc: [UInt8]) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(doc), options: [.fragmentsAllowed])) != nil
  }

  @Test(arguments: [1, 2, 3, 4])
  func agreesWithJSONSerialization(seed: UInt64) {
    var g = Generator(state: seed)
    var disagreements: [String] = []
    var accepted = 0
    var rejected = 0
    for _ in 0..<2_500 {
      let valid = Array(Self.value(&g, depth: 0).utf8)
      let doc = g.below(3) == 0 ? valid : Self.mutate(valid, &g)
      let tree = try? JSONValue.parse(doc)
      let ours = tree != nil
      let theirs = Self.foundationAccepts(doc)
      if ours { accepted += 1 } else { rejected += 1 }
      if ours != theirs, !Self.knownDifference(doc, ours: tree, foundationAccepts: theirs) {
        disagreements.append(
          "ours \(ours), Foundation \(theirs): \(Excerpt.quoted(String(decoding: doc, as: UTF8.self)))")
      }
    }
    #expect(
      disagreements.isEmpty, "seed \(seed): \(disagreements.count) disagreements, e.g. \(disagreements.prefix(5))")
    // Both kinds of document must be exercised, or the comparison proves nothing.
    #expect(accepted > 500 && rejected > 500, "accepted \(accepted), rejected \(rejected)")
  }
}
