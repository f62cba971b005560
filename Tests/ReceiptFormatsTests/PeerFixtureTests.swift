import Foundation
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Every real verifyReceipt / notification JSON in ../shared/peer-fixtures decodes with the right number
/// of transactions, counted independently here with JSONSerialization; the broken ones fail cleanly.
@Suite struct PeerFixtureTests {
  static var fixtures: [URL] {
    guard let shared = TestPaths.shared else { return [] }
    let root = shared.appendingPathComponent("peer-fixtures")
    let files =
      FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
    return files.filter { $0.pathExtension == "json" || $0.lastPathComponent == "verifyReceiptSample1.txt" }
      .sorted { $0.path < $1.path }
  }

  /// Unique transaction ids over receipt.in_app, latest_receipt_info (array or object),
  /// unified_receipt.latest_receipt_info, latest_expired_receipt_info and an iOS 6-style receipt.
  static func expectedTransactionIDs(_ object: [String: Any]) -> Set<String> {
    var ids = Set<String>()
    func add(_ any: Any?) {
      if let rows = any as? [[String: Any]] { for row in rows { add(row) } }
      if let row = any as? [String: Any], let id = row["transaction_id"] { ids.insert("\(id)") }
    }
    let receipt = object["receipt"] as? [String: Any]
    add(receipt?["in_app"])
    if receipt?["transaction_id"] != nil { add(receipt) }
    add(object["latest_receipt_info"])
    add(object["latest_expired_receipt_info"])
    add((object["unified_receipt"] as? [String: Any])?["latest_receipt_info"])
    return ids
  }

  static func isReceiptLike(_ object: [String: Any]) -> Bool {
    ["status", "receipt", "latest_receipt_info", "notification_type", "unified_receipt"].contains { object[$0] != nil }
  }

  @Test func everyReceiptFixtureDecodes() throws {
    guard TestPaths.shared != nil else {
      TestPaths.noteSharedMissing("peer fixture decoding")
      return
    }
    var checked = 0
    for url in Self.fixtures {
      let data = try Data(contentsOf: url)
      guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any], Self.isReceiptLike(object)
      else {
        continue
      }
      let doc = try ReceiptDecoder.decode(Array(data), source: url.lastPathComponent)
      let expected = Self.expectedTransactionIDs(object)
      #expect(Set(doc.transactions.map(\.transactionID)) == expected, "\(url.lastPathComponent)")
      #expect(doc.transactions.count == expected.count, "\(url.lastPathComponent)")
      checked += 1
    }
    #expect(checked >= 20, "only \(checked) receipt fixtures found")
  }

  @Test func statusMustWinOverThePresenceOfData() throws {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("the 21007 fixture")
      return
    }
    let url = shared.appendingPathComponent(
      "peer-fixtures/crashoverride777__swifty-receipt-validator/ReceiptResponseSandbox.json")
    let doc = try ReceiptDecoder.decode(Array(try Data(contentsOf: url)), source: "x")
    #expect(doc.provenance.status?.code == 21007)
    #expect(doc.provenance.status?.carriesValidReceipt == false)
  }
}
