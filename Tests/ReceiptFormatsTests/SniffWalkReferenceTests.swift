import Foundation
import ReceiptCrypto
import ReceiptModelTestSupport
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// `QuotedNameSet.walk` written plainly (issue 42, session 19, when the walk went sixteen bytes at a time and
/// passed over most strings on their length): byte by byte, the bytes between every two quotes compared with every
/// name, the strings followed as JSON reads them and one holding an escape decoded. The tests below hold the walk to
/// it hit by hit.
struct ReferenceNameWalk {
  let names: [[UInt8]]

  /// The walk's names, from the set's own list (its ids are their places).
  init(_ set: QuotedNameSet) { names = set.names }

  /// The id of the name `bytes` are, if any (a name holding a quote is never one).
  func name(_ bytes: ArraySlice<UInt8>) -> Int? {
    names.indices.first { names[$0].elementsEqual(bytes) && !names[$0].contains(0x22) }
  }

  /// Each name met, as `QuotedNameSet.walk` passes it: its id, whether it was spelled with escapes, the offset past
  /// its closing quote; up to and with the one `stop` says to stop at.
  func hits(_ bytes: [UInt8], stop: (Int) -> Bool = { _ in false }) -> [Hit] {
    var hits: [Hit] = []
    var quote = -1
    var open = -1
    var escaped = false
    var next = 0
    func plainNameEnds(at p: Int) -> Int? {
      defer { quote = p }
      return quote >= 0 ? name(bytes[(quote + 1)..<p]) : nil
    }
    func found(_ id: Int, _ escaped: Bool, _ end: Int) -> Bool {
      hits.append(Hit(id: id, escaped: escaped, end: end))
      return stop(hits.count)
    }
    var p = 0
    while p < bytes.count {
      defer { p += 1 }
      guard p >= next else { continue }
      if bytes[p] == 0x5C {
        guard open >= 0 else { continue }
        escaped = true
        next = p + 2
        if p + 1 < bytes.count, bytes[p + 1] == 0x22, let id = plainNameEnds(at: p + 1), found(id, false, p + 2) {
          return hits
        }
      } else if bytes[p] == 0x22 {
        next = p + 1
        if let id = plainNameEnds(at: p), found(id, false, p + 1) { return hits }
        if open < 0 {
          open = p
          escaped = false
          continue
        }
        defer { open = -1 }
        // The set's longest name, one holding a quote too, bounds the strings it decodes.
        let longest = names.map(\.count).max() ?? 0
        guard escaped, p - open - 1 <= longest * 12 else { continue }
        let decoded = bytes[(open + 1)..<p].withUnsafeBufferPointer { EscapedNames.unescaped($0) }
        if let decoded, let id = name(decoded[...]), found(id, true, p + 1) { return hits }
      }
    }
    return hits
  }

  /// How each name occurs, as `QuotedNameFinds` notes the walk's hits, written plainly: for every name, whether it
  /// was met as written or escaped, directly followed by a colon, and followed by one after JSON whitespace.
  func facts(_ bytes: [UInt8]) -> [QuotedNameFinds.Facts] {
    var facts = [QuotedNameFinds.Facts](repeating: [], count: names.count)
    for hit in hits(bytes) {
      let colon = hit.end < bytes.count && bytes[hit.end] == UInt8(ascii: ":")
      let key = bytes[hit.end...].first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } == UInt8(ascii: ":")
      facts[hit.id].insert(hit.escaped ? .escaped : .plain)
      if colon { facts[hit.id].insert(hit.escaped ? .escapedThenColon : .plainThenColon) }
      if key { facts[hit.id].insert(hit.escaped ? .escapedKey : .plainKey) }
    }
    return facts
  }

  struct Hit: Equatable, CustomStringConvertible {
    let id: Int
    let escaped: Bool
    let end: Int
    var description: String { "\(id)\(escaped ? "e" : "")@\(end)" }
  }
}

/// The registry's one walk of a document's first bytes meets the names the reference walk meets, in order, and
/// stops where it stops, on every input the sniff reference tests read and on the benchmark's generated bodies.
@Suite struct SniffWalkReferenceTests {
  /// The standard registry's names, gathered as the registry gathers them.
  static let registryNames = QuotedNameSet(FormatRegistry.standard.formats.flatMap { $0.sniffNames })

  static func walked(_ set: QuotedNameSet, _ bytes: [UInt8], stopAt stop: Int? = nil) -> [ReferenceNameWalk.Hit] {
    var hits: [ReferenceNameWalk.Hit] = []
    _ = bytes.withUnsafeBufferPointer { buffer in
      set.walk(buffer) { id, escaped, end in
        hits.append(ReferenceNameWalk.Hit(id: id, escaped: escaped, end: end))
        return hits.count == stop
      }
    }
    return hits
  }

  /// Compares every hit of the whole document and of its sniff's prefix, stopping at the first and at a middle hit
  /// too; and the registry's finds with the reference's notes. Returns how many hits there were.
  @discardableResult
  static func expectSameHits(
    _ document: [UInt8], _ note: @autoclosure () -> String, set: QuotedNameSet = registryNames,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> Int {
    let reference = ReferenceNameWalk(set)
    var count = 0
    for bytes in [document, Array(DocumentSniff(document).prefix)] {
      let expected = reference.hits(bytes)
      #expect(walked(set, bytes) == expected, "\(note())", sourceLocation: sourceLocation)
      // The registry's finds: the quotes alone up to the first block holding a backslash, then the walk.
      if let finds = bytes.withUnsafeBufferPointer({ set.finds(in: $0) }) {
        let facts = set.names.map { finds.facts(of: $0) ?? [] }
        #expect(facts == reference.facts(bytes), "\(note()): finds", sourceLocation: sourceLocation)
      }
      for stop in Set([1, max(1, expected.count / 2)]) where stop <= expected.count {
        #expect(
          walked(set, bytes, stopAt: stop) == reference.hits(bytes) { $0 == stop }, "\(note()) stopping at \(stop)",
          sourceLocation: sourceLocation)
      }
      count += expected.count
    }
    return count
  }

  @Test func examplesFuzzSeedsGoldenInputsAndPeerFixturesWalkAsTheReference() throws {
    let urls = TestPaths.corpusFiles(for: "the sniff walk reference test")
    var hits = 0
    var documents = 0
    for url in urls {
      guard let data = try? Data(contentsOf: url) else { continue }
      let bytes = Array(data)
      hits += Self.expectSameHits(bytes, url.path)
      for (n, line) in bytes.split(separator: UInt8(ascii: "\n")).prefix(200).enumerated() {
        hits += Self.expectSameHits(Array(line), "\(url.path):\(n + 1)")
      }
      documents += 1
    }
    #expect(documents > 300)
    #expect(hits > 1_000)
  }

  /// Made here, so that the property holds with ../shared absent: the benchmark's bodies (`UserShapes`), the
  /// synthetic receipts, and the hand-made and random documents of the sniff reference tests' pieces.
  @Test func generatedDocumentsWalkAsTheReference() {
    var hits = 0
    var tally = SignedDataSniffReferenceTests.Tally()
    for index in 0..<60 {
      let one = Array(UserShapes.oneTransactionBody(index: index).utf8)
      let customer = Array(UserShapes.customerBody(index: index).utf8)
      hits += Self.expectSameHits(one, "one-transaction body \(index)")
      hits += Self.expectSameHits(customer, "customer body \(index)")
      // Each format's recognition and the registry's choice, against the former passes.
      SignedDataSniffReferenceTests.expectSame(one, "one-transaction body \(index)", &tally)
      SignedDataSniffReferenceTests.expectSame(customer, "customer body \(index)", &tally)
      for cut in stride(from: 1, to: one.count, by: 97) {
        hits += Self.expectSameHits(Array(one[..<cut]), "one-transaction body \(index) cut at \(cut)")
      }
    }
    for index in 0..<20 {
      let body = Array(SyntheticReceipts.verifyReceipt(index: index, transactions: index % 7).utf8)
      hits += Self.expectSameHits(body, "synthetic receipt \(index)")
      SignedDataSniffReferenceTests.expectSame(body, "synthetic receipt \(index)", &tally)
    }
    #expect(hits > 500)
    #expect(tally.compared >= 280)
  }

  /// Names between strings, after escaped quotes, escaped and broken, cut at the end, at every offset around a
  /// block of sixteen; and random documents of every format's names in each spelling.
  @Test func handMadeAndRandomDocumentsWalkAsTheReference() {
    var hits = 0
    let pieces: [String] = [
      #"{"signedPayload": "x"}"#, #"{"\u0073ignedPayload": "x"}"#, #"{"a"signedDate"b": 1}"#,
      #"{"x\"signedDate": 1}"#, #"{"\"bundleId\"": 1}"#, #"{"x\\"signedDate": 1}"#, #"{"a": "b\"signedDate""#,
      #"{"bundle\u0049d": 1}"#, #"{"\u00": 1, "\ud800": 2, "\x": 3}"#, #"{"receipt-data" : "MIIT"}"#,
      #"{"purchase-info" = "x"; "purchase-\u0069nfo": 1}"#, #"{"status":0,"receipt":{},"latest_receipt_info":[]}"#,
      #"{"":1,"a":"","\"":"\\"}"#,
      // Strings open across a block boundary, an escape in a later block: the quotes' place, then the walk's.
      #"{"xxxxxxxxxxxxxxxxxxxxxxxxx": "\u0073ignedPayload", "\u0073tatus": 1, "signedDate": 2}"#,
      #"{"status": "abcdefghijklmnopqrstuvwxyz0123456789\"", "receipt": "\u0073ignedDate"}"#,
      #"{"receipt":{"bundle_id":"x"},"latest_receipt":"MIIUFAYJKoZIhvcNAQcCoIIUBTCCFAECAQEx","signedDate":1}"#,
      #"{"receipt-data": "MIIT", "a": "\/", "transactionReceipt": "x", "purchase-info":"y"}"#,
    ]
    for piece in pieces {
      for shift in 0..<40 {
        let document = Array((String(repeating: " ", count: shift) + piece).utf8)
        hits += Self.expectSameHits(document, "\(piece) after \(shift)")
      }
    }
    var random = SplitMix64(seed: 1_942)
    let names = FormatRegistry.standard.formats.flatMap { $0.sniffNames }
    var words = ["\"", "\"", "\"", "\\", "\\\"", "\\\\", "\\u0073", "\\u00", ":", " ", ",", "{", "}", "x", "é"]
    for name in names {
      words += [name, "\"\(name)\":", "\"\(name)\""] + EscapedKeyDetectionTests.spellings(name).prefix(2)
    }
    for round in 0..<800 {
      var document = Array("{".utf8)
      let target = Int(random.next() % 600)
      while document.count < target {
        if random.next() % 6 == 0 { document += [UInt8](repeating: UInt8(ascii: "A"), count: Int(random.next() % 40)) }
        document += Array(words[Int(random.next() % UInt64(words.count))].utf8)
      }
      hits += Self.expectSameHits(document, "random document \(round)")
    }
    // A set of a few names, as a format asked alone walks with; and one with no name.
    for set in [
      QuotedNameSet(["status"]), QuotedNameSet(["ab", "abc", "\"q"]), QuotedNameSet([]), QuotedNameSet(["", "ab"]),
    ] {
      for piece in pieces + [#"{"ab":"abc","status":1}"#] {
        hits += Self.expectSameHits(Array(piece.utf8), "\(set.names.count) names: \(piece)", set: set)
      }
    }
    #expect(hits > 2_000)
  }

  /// The quotes up to the first block holding a backslash go sixty-four bytes at a time, then sixteen: a document of
  /// names, keys and values, with one escape at every offset across several windows, and cut at every length, walks
  /// as the reference.
  @Test func oneEscapeAtEveryOffsetWalksAsTheReference() {
    let names = FormatRegistry.standard.formats.flatMap { $0.sniffNames }
    var plain = Array("{".utf8)
    var k = 0
    while plain.count < 300 {
      plain += Array("\"\(names[k % names.count])\": \"\(names[(k &* 7 &+ 3) % names.count])\", ".utf8)
      k += 1
    }
    var hits = 0
    for at in 1..<plain.count {
      for escape in [#"\""#, #"\u0073"#, #"\\"#] {
        var document = plain
        document.insert(contentsOf: Array(escape.utf8), at: at)
        hits += Self.expectSameHits(document, "\(escape) at \(at)")
      }
    }
    for cut in 0...plain.count { hits += Self.expectSameHits(Array(plain[..<cut]), "cut at \(cut)") }
    #expect(hits > 10_000)
  }

  /// Windows of sixty-four bytes holding no quote (most of a long value: base64, a date) are passed over on one test,
  /// and the last bytes are read from the sixteen that end the prefix: a value of every length up to 200 between
  /// names, spelled plainly and escaped, or a string left open at the end, walks as the reference.
  @Test func longValuesOfEveryLengthWalkAsTheReference() {
    var hits = 0
    for length in 0..<200 {
      let value = Array(String(String(repeating: "MIIU", count: length / 4 + 1).prefix(length)).utf8)
      for tail in [#"signedDate":1}"#, #"\u0073tatus":1,"receipt":2}"#, #"status""#, #"x"#] {
        let document = Array(#"{"latest_receipt":""#.utf8) + value + Array(#"",""#.utf8) + Array(tail.utf8)
        hits += Self.expectSameHits(document, "a value of \(length) bytes, then \(tail)")
      }
    }
    #expect(hits > 500)
  }
}
