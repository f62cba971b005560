import ReceiptFormats
import ReceiptModel
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
