import Foundation
import ReceiptCLI
import ReceiptModel
import ReceiptModelTestSupport
import Testing

@testable import ReceiptFormats

/// A verifyReceipt body lists most transactions twice (`receipt.in_app`, `latest_receipt_info`); the decoder merges
/// the copies in place (FAST-PATHS.md: duplicate rows merged in place). Its history must be the one the copying
/// merge made from the two arrays read apart: same transactions, order, warnings and duplicate count, read on one
/// thread or in pieces of any size, whichever array comes first and whatever field the copies differ in.
@Suite struct DuplicateRowMergeTests {
  static let shapes: [ReceiptShape] = [
    ReceiptShape(name: "one-chain", transactions: 60),
    ReceiptShape(
      name: "many-chains", transactions: 120, chains: 20, products: 5, shuffled: true, randomIDs: true,
      familySharedPercent: 25),
    ReceiptShape(
      name: "many-upgrades", transactions: 120, chains: 12, products: 12, shuffled: true, familySharedPercent: 25,
      upgradedPercent: 30, refundedPercent: 5, seed: 41),
    ReceiptShape(
      name: "many-products", transactions: 120, chains: 40, products: 60, shuffled: true, randomIDs: true,
      familySharedPercent: 50, upgradedPercent: 10, seed: 7),
    ReceiptShape(
      name: "family-90", transactions: 100, chains: 4, products: 5, familySharedPercent: 90, refundedPercent: 10,
      seed: 5),
  ]

  /// Ways an `in_app` copy differs from its `latest_receipt_info` copy, one field each (the n-th row gets the
  /// n-th change, round and round); nil leaves the row as it is.
  static let changes: [@Sendable (String) -> String?] = [
    { _ in nil },
    { $0.replacing(#""quantity":"1""#, with: #""quantity":"2""#) },
    { $0.replacing(#","in_app_ownership_type":"PURCHASED""#, with: "") },
    { $0.replacing(#","in_app_ownership_type":"FAMILY_SHARED""#, with: "") },
    { $0.replacing(#""is_trial_period":"false""#, with: #""is_trial_period":"true""#) },
    { $0.replacing(#""is_in_intro_offer_period":"false""#, with: #""promotional_offer_id":"p1""#) },
    {
      $0.contains("cancellation_date_ms")
        ? nil : $0.replacing(#""quantity":"1","#, with: #""quantity":"1","cancellation_date_ms":"1600000000000","#)
    },
    { $0.replacing(#""cancellation_reason":"0""#, with: #""cancellation_reason":"1""#) },
    {
      $0.contains("is_upgraded")
        ? nil : $0.replacing(#""is_trial_period""#, with: #""is_upgraded":"true","is_trial_period""#)
    },
    { $0.replacing(#""is_upgraded":"true","#, with: "") },
    { $0.replacing(#""subscription_group_identifier":"21000111""#, with: #""subscription_group_identifier":"2""#) },
    { $0.replacing(#""web_order_line_item_id""#, with: #""web_order_line_item_idx""#) },
    { $0.replacing(#""original_transaction_id""#, with: #""original_transaction_idx""#) },
    { $0.replacing(#""purchase_date_ms":"1"#, with: #""purchase_date_ms":"2"#) },
    { $0.replacing(#""expires_date"#, with: #""expiry_date"#) },
    { $0.replacing(#""in_app_ownership_type":"PURCHASED""#, with: #""in_app_ownership_type":"SOMETHING_NEW""#) },
  ]

  /// A shape's document cut into its parts: before `in_app`'s elements, its rows, between, `latest_receipt_info`'s
  /// rows, after. The shapes write no `},{` inside a row.
  struct Parts {
    var head: String
    var inApp: [String]
    var latest: [String]
    var tail: String

    init(_ document: String) {
      let a = document.components(separatedBy: #""in_app":["#)
      let b = a[1].components(separatedBy: #"]},"latest_receipt_info":["#)
      let c = b[1].components(separatedBy: #"],"latest_receipt":"#)
      head = a[0]
      inApp = b[0].components(separatedBy: "},{")
      latest = c[0].components(separatedBy: "},{")
      tail = c[1]
    }

    static func array(_ rows: [String]) -> String { "[" + rows.joined(separator: "},{") + "]" }

    /// The whole document, `receipt` (holding `in_app`) before or after `latest_receipt_info`.
    func document(receiptFirst: Bool) -> String {
      let receipt = head + #""in_app":"# + Self.array(inApp) + "}"
      let latestMember = #""latest_receipt_info":"# + Self.array(latest)
      let split = receipt.components(separatedBy: #""receipt":"#)
      let top = split[0]
      let receiptMember = #""receipt":"# + split[1]
      let members = receiptFirst ? [receiptMember, latestMember] : [latestMember, receiptMember]
      return top + members.joined(separator: ",") + #","latest_receipt":"# + tail
    }

    /// The document with only `in_app` (in its `receipt`), or only `latest_receipt_info`.
    var inAppAlone: String { head + #""in_app":"# + Self.array(inApp) + "}}" }
    var latestAlone: String { #"{"status":0,"latest_receipt_info":"# + Self.array(latest) + "}" }
  }

  static func decode(_ text: String, pieceBytes: Int? = nil) throws(ReceiptError) -> PurchaseHistory {
    let pieces = pieceBytes.map {
      TransactionArraySplit.Pieces(
        sizes: TransactionArraySplit.Sizes(minimumBytes: 0, pieceBytes: $0), helpers: ArrayPieceHelpers())
    }
    return try ReceiptDecoder.decode(Array(text.utf8), source: "shape.json", keepSecrets: false, pieces: pieces)
  }

  /// What the copying merge makes of the two arrays read apart, in document order (the later array's copy
  /// merged into the earlier one's, `latest_receipt_info`'s values winning), with its duplicate count.
  static func expected(_ parts: Parts, receiptFirst: Bool) throws -> ([PurchaseTransaction], [DataWarning], Int) {
    let inApp = try decode(parts.inAppAlone)
    let latest = try decode(parts.latestAlone)
    let (first, second) = receiptFirst ? (inApp, latest) : (latest, inApp)
    var out = first.transactions
    var duplicates = 0
    for t in second.transactions {
      if let i = out.firstIndex(where: { $0.transactionID == t.transactionID }) {
        let otherWins = t.sources.contains(.latestReceiptInfo) && !out[i].sources.contains(.latestReceiptInfo)
        out[i] = TransactionMergingReference.copyingMerge(out[i], t, otherWins: otherWins)
        duplicates += 1
      } else {
        out.append(t)
      }
    }
    return (out, first.warnings + second.warnings, duplicates)
  }

  @Test func mergedHistoriesAreTheCopyingMergesOnEveryShapeSeedOrderAndPieceSize() throws {
    var compared = 0
    for base in Self.shapes {
      for offset in 0..<3 as Range<UInt64> {
        var shape = base
        shape.seed += offset
        var parts = Parts(shape.verifyReceipt(index: Int(offset)))
        #expect(parts.inApp.count >= 15)
        // in_app row n is the copy of latest_receipt_info row 4n; change it (the first change: none).
        for n in parts.inApp.indices {
          if let changed = Self.changes[n % Self.changes.count](parts.inApp[n]) { parts.inApp[n] = changed }
        }
        for receiptFirst in [true, false] {
          let (transactions, warnings, duplicates) = try Self.expected(parts, receiptFirst: receiptFirst)
          let document = parts.document(receiptFirst: receiptFirst)
          let bytes = document.utf8.count
          for pieceBytes in [nil, 1, 7, 64, 300, 1_000, bytes / 3, bytes] as [Int?] {
            let history = try Self.decode(document, pieceBytes: pieceBytes)
            let what = "\(shape.name) seed \(shape.seed), receipt first \(receiptFirst), pieces of \(pieceBytes ?? 0)"
            #expect(history.transactions == transactions, "\(what)")
            #expect(history.warnings == warnings, "\(what)")
            #expect(history.provenance.duplicateRowsMerged == duplicates, "\(what)")
            compared += 1
          }
        }
      }
    }
    #expect(compared == Self.shapes.count * 3 * 2 * 8)
  }

  @Test func anErrorInADuplicateRowIsTheSequentialErrorAtEveryPieceSize() throws {
    let shape = Self.shapes[1]
    var parts = Parts(shape.verifyReceipt(index: 0))
    // A bad value in the 20th latest_receipt_info row: the in_app copy of it (row 5) is already held.
    parts.latest[20] = parts.latest[20].replacing(#""quantity":"1""#, with: #""quantity":"x""#)
    for receiptFirst in [true, false] {
      let document = parts.document(receiptFirst: receiptFirst)
      var sequential: ReceiptError?
      do { _ = try Self.decode(document) } catch { sequential = error }
      #expect(sequential?.description.contains("latest_receipt_info[20].quantity") == true)
      for pieceBytes in [1, 7, 64, 300, 1_000] {
        var split: ReceiptError?
        do { _ = try Self.decode(document, pieceBytes: pieceBytes) } catch { split = error }
        #expect(split == sequential, "pieces of \(pieceBytes)")
      }
    }
  }
}
