import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Issue 30, "Docs that match": what the man page says the output holds is what the tool prints.
@Suite struct DocsMatchTests {
  static let manPage = TestPaths.packageRoot.appendingPathComponent("man/receipt-tool.1")

  /// The text between `.\" section: name` and `.\" end: name`.
  static func section(_ name: String) throws -> String {
    let text = try String(contentsOf: manPage, encoding: .utf8)
    let start = try #require(text.range(of: ".\\\" section: \(name)\n"))
    let end = try #require(text.range(of: ".\\\" end: \(name)\n", range: start.upperBound..<text.endIndex))
    return String(text[start.upperBound..<end.lowerBound])
  }

  /// Every key of every object in `value`, at any depth.
  static func keys(_ value: Any, into out: inout Set<String>) {
    if let object = value as? [String: Any] {
      for (k, v) in object {
        out.insert(k)
        keys(v, into: &out)
      }
    } else if let array = value as? [Any] {
      for v in array { keys(v, into: &out) }
    }
  }

  /// Whether `word` stands alone in `text` (not as part of a longer key).
  static func mentions(_ text: String, _ word: String) -> Bool {
    let isKeyCharacter = { (c: Character) in c.isLetter || c.isNumber || c == "_" }
    var search = text.startIndex..<text.endIndex
    while let r = text.range(of: word, range: search) {
      let before = r.lowerBound == text.startIndex ? nil : text[text.index(before: r.lowerBound)]
      let after = r.upperBound == text.endIndex ? nil : text[r.upperBound]
      if !(before.map(isKeyCharacter) ?? false) && !(after.map(isKeyCharacter) ?? false) { return true }
      search = r.upperBound..<text.endIndex
    }
    return false
  }

  /// Every example input, through `revenue --format json` with and without catalogs and commission, and
  /// through the ledger's reduce step: each key printed is in the man page's revenue section.
  @Test func everyRevenueJSONKeyIsInTheManPage() throws {
    let examples = TestPaths.packageRoot.appendingPathComponent("examples")
    let walker = FileManager.default.enumerator(atPath: examples.path)?.compactMap { $0 as? String } ?? []
    let inputs = walker.filter { name in
      let base = (name as NSString).lastPathComponent
      return [".json", ".jws", ".b64", ".ndjson"].contains { base.hasSuffix($0) } && !base.contains("catalog")
    }.sorted().map { examples.appendingPathComponent($0).path }
    #expect(inputs.count > 20)
    let catalogs = ["catalog.json", "revenue-catalog.json", "revenue-upgrade-catalog.json"].map {
      examples.appendingPathComponent($0).path
    }
    var printed: Set<String> = []
    for input in inputs {
      var runs: [[String]] = [["revenue", "--format", "json", input]]
      for catalog in catalogs {
        runs.append(["revenue", "--format", "json", "--catalog", catalog, "--commission", "standard", input])
      }
      for args in runs {
        let out = InProcessRunner.run(args).stdout
        if let json = try? JSONSerialization.jsonObject(with: Data(out.utf8)) { Self.keys(json, into: &printed) }
      }
    }
    // The reduce step's report, which is marked as a shard.
    let ledger = InProcessRunner.run(["revenue", "--format", "ledger", "--catalog", catalogs[1]] + inputs).stdout
    let ledgerFile = try InProcessRunner.temporaryFile(Array(ledger.utf8), name: "ledger.ndjson")
    let reduced = InProcessRunner.run(["revenue", "--from-ledger", "--format", "json", ledgerFile]).stdout
    if let json = try? JSONSerialization.jsonObject(with: Data(reduced.utf8)) { Self.keys(json, into: &printed) }

    #expect(printed.isSuperset(of: ["currencies", "transactions", "part", "shard", "priced_from_transaction"]))
    let section = try Self.section("revenue")
    for key in printed.sorted() {
      #expect(Self.mentions(section, key), "revenue --format json prints \"\(key)\", which the man page does not list")
    }
  }

  /// The man page promises a malformed JWS payload's error gives the line and column inside the payload: given
  /// in words, since they are not the file's (a JWS is one line).
  @Test func aMalformedJWSPayloadGivesItsPositionInsideThePayload() throws {
    func segment(_ text: String) -> String {
      Base64URL.encode(Array(text.utf8))
    }
    let token =
      segment(#"{"alg":"ES256","kid":"hand-written"}"#) + "."
      + segment("{\"transactionId\": \"1\",\n \"productId\": oops}") + ".c2ln"
    let file = try InProcessRunner.temporaryFile(Array((token + "\n").utf8), name: "bad.jws")
    let run = InProcessRunner.run(["decode", file])
    #expect(run.status == .dataError)
    #expect(
      run.stderr.contains("malformed JWS payload (line 2, column 15 of the decoded payload): not JSON"), "\(run.stderr)"
    )
    // Not as the file's own line and column: the file has one line.
    #expect(!run.stderr.contains("bad.jws:2:"), "\(run.stderr)")
    let section = try Self.section("decode")
    #expect(section.contains("line and column inside the payload"))
  }
}
