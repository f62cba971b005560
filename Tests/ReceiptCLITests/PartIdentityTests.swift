import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The `part` identity of revenue reports: a digest that adds up over disjoint transactions, and `--merge`
/// folding a shuffle's shards into one whole.
@Suite struct PartIdentityTests {
  static let options = "by=month\u{0}commission=standard\u{0}from=\u{0}to="

  static func digest(_ ids: [String], options: String = options) -> ContentDigest {
    var d = ContentDigest(options: options)
    for id in ids { d.add(transactionID: id) }
    return d
  }

  @Test func disjointShardsSumToTheWhole() {
    let whole = Self.digest(["1", "2", "3", "4", "5"])
    let (a, b) = (Self.digest(["4", "1"]), Self.digest(["5", "3", "2"]))
    #expect(a.value &+ b.value == whole.value)
    #expect(Self.digest(["5", "4", "3", "2", "1"]).value == whole.value)
    // Options and content change it.
    #expect(Self.digest(["1", "2", "3", "4", "5"], options: "by=day").value != whole.value)
    #expect(Self.digest(["1", "2", "3", "4", "6"]).value != whole.value)
    var withError = whole
    withError.add(inputError: "export.ndjson:3", message: "not JSON")
    #expect(withError.value != whole.value)
  }

  @Test func hexRoundTripsAndRejectsOtherText() {
    let d = Self.digest(["1"])
    #expect(ContentDigest.value(ofHex: d.hex) == d.value)
    for bad in ["", "123", "+00000000000000f", "ABCDEF0123456789", "00000000000000000", "0x00000000000000"] {
      #expect(ContentDigest.value(ofHex: bad) == nil, "\(bad)")
    }
  }

  @Test func mergeFoldsShardsIntoOneWholeAndRefusesAShardTwice() throws {
    let whole = Self.digest(["1", "2", "3"])
    let shards = [Self.digest(["2"]), Self.digest(["1", "3"])].map {
      RevenuePartIdentity(digest: $0.hex, grouping: "month", commission: "standard", isShard: true)
    }
    var ledger = RevenueCommand.PartLedger()
    for (i, shard) in shards.enumerated() { try ledger.admit(shard, label: "shard \(i)", warn: { _ in }) }
    let merged = try #require(ledger.identity)
    #expect(merged.digest == whole.hex)
    #expect(merged.parts == [whole.hex])
    #expect(!merged.isShard)
    #expect(throws: ReceiptError.self) { try ledger.admit(shards[0], label: "again", warn: { _ in }) }
  }

  @Test func mergeKeepsWholesApartSoAPartInsideAnEarlierMergeIsCaught() throws {
    let (jan, feb) = (Self.digest(["1"], options: "jan"), Self.digest(["2"], options: "feb"))
    let parts = [jan, feb].map { RevenuePartIdentity(digest: $0.hex, grouping: "month", commission: "none") }
    var ledger = RevenueCommand.PartLedger()
    for part in parts { try ledger.admit(part, label: part.digest, warn: { _ in }) }
    let merged = try #require(ledger.identity)
    #expect(merged.parts == [jan.hex, feb.hex])
    #expect(merged.digest == InputDigest.hex(jan.value &+ feb.value))
    var again = RevenueCommand.PartLedger()
    try again.admit(merged, label: "merged", warn: { _ in })
    #expect(throws: ReceiptError.self) { try again.admit(parts[0], label: "jan", warn: { _ in }) }
  }
}

/// Backed money (`MoneyBacking`) whatever the partitioning: the map step's ledger of a batch with verified,
/// tampered, unsigned and family lines, shuffled into shards by transaction id, each reduced and the reduces
/// merged, is one machine's report byte for byte.
@Suite struct BackedMoneyPartitionTests {
  static let batch = "examples/storekit2/revenue-backed-batch.ndjson"
  static let trust = ["--trust-root", "examples/storekit2/test-root.pem"]

  @Test(arguments: [1, 2, 3, 5])
  func shardsMergedGiveOneMachinesBytes(_ shards: Int) throws {
    let options = ["--format", "json", "--commission", "standard"]
    let one = Self.tool(["revenue", "--ndjson"] + Self.trust + options + [Self.batch])
    #expect(one.stdout.contains(#""backed_through_trust_root": {"#))
    #expect(one.stdout.contains(#""reason": "signature_invalid""#))
    let ledger = Self.tool(["revenue", "--ndjson", "--format", "ledger"] + Self.trust + [Self.batch])
    #expect(ledger.stdout.contains(#""anchor":"trust-root","ownership_signed":true"#))
    let dir = Scratch.directory.appendingPathComponent("backed-shards-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // A shuffle: each transaction's lines by a hash of its id, verdict lines anywhere; lines reversed in a shard.
    var parts = [[String]](repeating: [], count: shards)
    for (i, line) in ledger.stdout.split(separator: "\n").enumerated() {
      let id = line.split(separator: "\"")[safe: 3].map(String.init) ?? ""
      let shard = line.hasPrefix(#"{"id""#) ? Int(fnv(id) % UInt32(shards)) : i % shards
      parts[shard].insert(String(line), at: 0)
    }
    var reduced: [String] = []
    for (k, lines) in parts.enumerated() {
      let file = dir.appendingPathComponent("shard\(k).ndjson")
      try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
      let r = Self.tool(["revenue", "--from-ledger", "--format", "json", "--commission", "standard", file.path])
      let out = dir.appendingPathComponent("reduce\(k).json")
      try r.stdout.write(to: out, atomically: true, encoding: .utf8)
      reduced.append(out.path)
    }
    let merged = Self.tool(["revenue", "--merge", "--format", "json"] + reduced)
    #expect(merged.stdout == one.stdout)
  }

  /// receipt-tool in process, examples/ paths from the repository root.
  static func tool(_ arguments: [String]) -> InProcessRunner.Result {
    InProcessRunner.run(
      arguments.map { $0.hasPrefix("examples/") ? TestPaths.packageRoot.appendingPathComponent($0).path : $0 })
  }

  func fnv(_ s: String) -> UInt32 {
    var h: UInt32 = 2_166_136_261
    for b in s.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
    return h
  }
}

extension Array {
  fileprivate subscript(safe i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
