import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptTestSupport
import Testing

/// `PurchaseTableBuilder` against `ReferencePurchaseTable` on every history a real input decodes to: each example,
/// each peer fixture (where ../shared is present), each fuzz regression, and each line of the NDJSON ones.
@Suite struct TableFromEveryInputTests {
  /// Every history the files decode to: the whole file, or each line of one that is not one document.
  static func histories() -> [(name: String, history: PurchaseHistory)] {
    var files = TestPaths.exampleAndPeerFixtureFiles(for: "TableFromEveryInputTests")
    let regressions = TestPaths.packageRoot.appendingPathComponent("Tests/Fuzz/Regressions")
    let found = FileManager.default.enumerator(at: regressions, includingPropertiesForKeys: nil)
    while let url = found?.nextObject() as? URL { files.append(url) }
    var out: [(String, PurchaseHistory)] = []
    for url in files {
      guard let data = try? Data(contentsOf: url), !data.isEmpty else { continue }
      let bytes = [UInt8](data)
      if let history = try? FormatRegistry.standard.decode(bytes, source: url.lastPathComponent) {
        out.append((url.lastPathComponent, history))
        continue
      }
      for (n, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
        guard let history = try? FormatRegistry.standard.decode(Array(line), source: url.lastPathComponent)
        else { continue }
        out.append(("\(url.lastPathComponent) line \(n + 1)", history))
      }
    }
    return out
  }

  @Test func theBuilderMakesTheReferenceTableOfEveryInput() {
    let histories = Self.histories()
    var rows = 0
    for (name, history) in histories {
      #expect(PurchaseTable(history) == ReferencePurchaseTable.table(history), "\(name)")
      rows += history.transactions.count
    }
    // The examples alone decode to 78 histories of 151 rows.
    #expect(histories.count >= 70 && rows >= 140, "\(histories.count) histories, \(rows) rows")
  }
}
