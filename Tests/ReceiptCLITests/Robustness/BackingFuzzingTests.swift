import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

/// Issue 28's backing path under the fuzz property (`BackingFuzzing`): seeds that reach each mutation of the
/// receipt and each edit of the transactions, the inputs kept from fuzzing runs, and proof that the property
/// notices a comparison that does not add up.
@Suite struct BackingFuzzingTests {
  /// First byte: the receipt's mutation (0 overwrite, 1 splice, 2 cut short, 3 none; odd also names another
  /// device); the rest: one edit per transaction row.
  static let seeds: [[UInt8]] = [
    [3], [3, 0, 0, 0, 0, 0, 0], [3, 1, 2, 3, 4, 5, 6, 7, 8], [7, 9, 10, 11, 12, 13, 14, 15, 16],
    [0, 0x12, 0x34, 0xFF, 0x00, 0x10, 0x00], [1] + Array("MIIUVwYJKoZIhvcNAQcC".utf8), [2, 40, 41],
    Array("{\"latest_receipt\": \"XXXX\"}".utf8), [],
    // Issue 39, the receipt left alone: the trial row dropped from both arrays, every trial flag flipped, every
    // ownership flipped, a row copied under a new id.
    [3, 4, 0, 0, 4, 0, 0], [3, 9, 9, 9, 9, 9, 9], [3, 10, 10, 10, 10, 10, 10], [3, 0, 0, 5, 0, 0, 5],
  ]

  @Test(arguments: seeds)
  func seedsHoldTheProperty(_ bytes: [UInt8]) {
    #expect(BackingFuzzing.fuzz(bytes).isEmpty, "\(bytes)")
  }

  /// Inputs kept from fuzzing runs: `backing-*` in Tests/Fuzz/Regressions (all files also replay through every
  /// command in FuzzRegressionTests).
  @Test func keptInputsReplay() throws {
    let directory = TestPaths.packageRoot.appendingPathComponent("Tests/Fuzz/Regressions")
    let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter {
      $0.hasPrefix("backing-")
    }
    #expect(files.count >= 2)
    for file in files {
      let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
      #expect(BackingFuzzing.fuzz(bytes).isEmpty, "\(file)")
    }
  }

  /// The examples are there in the repository, so the property runs rather than returning early.
  @Test func thePropertyHasItsBase() {
    #expect(BackingFuzzing.base != nil)
    #expect(BackingFuzzing.base?.transactions.count == 3)
  }

  /// Issue 39's property fails on answers drawn from other rows than the signed ones: a row dropped and not taken
  /// back from the receipt, or a trial flag cleared.
  @Test func thePropertyNoticesAnswersNotFromTheSignedRows() throws {
    let signed = try #require(BackingFuzzing.base?.transactions)
    var history = PurchaseHistory(format: VerifyReceiptFormats.response)
    history.transactions = signed
    #expect(BackingFuzzing.answeredFromSignedRows(history, signed: signed, what: "test").isEmpty)
    history.transactions = Array(signed.dropFirst())
    #expect(BackingFuzzing.answeredFromSignedRows(history, signed: signed, what: "test").count == 2)
    history.transactions = signed
    history.transactions[0].offer = nil
    #expect(!BackingFuzzing.answeredFromSignedRows(history, signed: signed, what: "test").isEmpty)
  }

  /// The consistency check fails on a backing whose outcome does not follow from its standings.
  @Test func thePropertyNoticesABackingThatDoesNotAddUp() {
    var json = PurchaseHistory(format: VerifyReceiptFormats.response)
    json.transactions = [
      PurchaseTransaction(transactionID: "a", originalTransactionID: "a", productID: "p", vocabulary: .test)
    ]
    let wrong = ReceiptBacking(
      outcome: .backed,
      entries: [.init(transactionID: "a", productID: "p", standing: .notInReceipt(.unexplained))])
    #expect(!BackingFuzzing.backingProperties(wrong, json: json, what: "test").isEmpty)
    var signed = PurchaseHistory(format: VerifyReceiptFormats.response)
    signed.transactions = json.transactions
    #expect(BackingFuzzing.backingProperties(receiptBacking(of: json, by: signed), json: json, what: "test").isEmpty)
  }
}
