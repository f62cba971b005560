import Foundation
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptTestSupport
import Testing

// The copies' shortcut is a switch on the decoder's internal reader (ValueReading.readsCopiesOnce).
@testable import ReceiptFormats

/// A transaction object that repeats one read before in its document byte for byte is passed over and added as
/// another copy of the held transaction (`RowCopies`, issue 42): read so and with every object read, each document
/// gives the same history (transactions and their sources, merged-copy count, renewals, receipt, warnings and their
/// paths) or the same error, on the examples, fuzz regressions, golden inputs and peer fixtures, generated user
/// shapes, hand-made cases and hundreds of random edits of one copy.
@Suite struct TwiceWrittenTransactionTests {
  /// The whole history of `bytes` read with copies passed over or not, or its error; and how many were passed.
  static func read(_ bytes: [UInt8], copiesOnce: Bool, maxDepth: Int = JSONReader.defaultMaxDepth) -> (
    answer: String, passed: Int
  ) {
    var passed = 0
    do {
      let history = try JSONReader.withReader(bytes, maxDepth: maxDepth) { reader in
        var reading = ValueReading(reader: reader, source: "doc.json")
        reading.readsCopiesOnce = copiesOnce
        defer { passed = reading.copiesPassed }
        return try reading.decodeDocument()
      }
      return ("\(history)", passed)
    } catch {
      return ("error: \(error)", passed)
    }
  }

  /// Both reads of `bytes` agree; returns how many objects were passed over as copies, and the answer.
  @discardableResult
  static func expectSame(
    _ bytes: [UInt8], _ note: @autoclosure () -> String, maxDepth: Int = JSONReader.defaultMaxDepth,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> (passed: Int, answer: String) {
    let once = read(bytes, copiesOnce: true, maxDepth: maxDepth)
    let every = read(bytes, copiesOnce: false, maxDepth: maxDepth)
    #expect(once.answer == every.answer, "\(note())", sourceLocation: sourceLocation)
    #expect(every.passed == 0, sourceLocation: sourceLocation)
    return (once.passed, once.answer)
  }

  static func expectSame(
    _ text: String, _ note: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
  ) -> (passed: Int, answer: String) {
    expectSame(Array(text.utf8), note(), sourceLocation: sourceLocation)
  }

  // MARK: Files

  @Test func examplesFuzzRegressionsGoldenInputsAndPeerFixturesReadTheSame() {
    let urls = TestPaths.corpusFiles(for: "the twice-written transaction test")
    var documents = 0
    var passed = 0
    for url in urls {
      guard let data = try? Data(contentsOf: url) else { continue }
      let bytes = Array(data)
      passed += Self.expectSame(bytes, url.path).passed
      documents += 1
      // Most examples are written indented, so that a copy in latest_receipt_info is not the bytes of its in_app
      // one: each object is read again as one line, its keys sorted.
      if let object = try? JSONSerialization.jsonObject(with: data), object is [String: Any],
        let compact = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
      {
        passed += Self.expectSame(Array(compact), "\(url.path), compact").passed
        documents += 1
      }
      let lines = bytes.split(separator: UInt8(ascii: "\n"))
      guard lines.count > 1 else { continue }
      for (n, line) in lines.prefix(200).enumerated() {
        passed += Self.expectSame(Array(line), "\(url.path):\(n + 1)").passed
        documents += 1
      }
    }
    #expect(documents > 300)
    // Most examples write an in_app row with fewer fields than its latest_receipt_info copy; two (family-trial,
    // revenue-family-member-1) write five copies whole.
    #expect(passed >= 5, "\(passed) copies passed over in \(documents) documents")
  }

  // MARK: Generated

  /// The benchmark's user shapes (issue 42) and the synthetic receipts: every copy of an `in_app` row in
  /// `latest_receipt_info` is passed over.
  @Test func userShapesAndSyntheticReceiptsReadTheSame() {
    for index in 0..<40 {
      let body = UserShapes.oneTransactionBody(index: index)
      let one = Self.expectSame(body, "one-transaction body \(index)")
      #expect(FuzzDriver.copiesAgainstEveryObject(Array(body.utf8)) == [])
      #expect(one.passed == 1, "one-transaction body \(index)")
      #expect(!one.answer.hasPrefix("error"))
      let customer = Self.expectSame(UserShapes.customerBody(index: index), "customer body \(index)")
      // The shape writes every fourth transaction in in_app too.
      let copies = (UserShapes.customerTransactions(index: index) + 3) / 4
      #expect(customer.passed == copies, "customer body \(index)")
      let synthetic = Self.expectSame(
        SyntheticReceipts.verifyReceipt(index: index, transactions: 1 + index % 9), "synthetic receipt \(index)")
      #expect(!synthetic.answer.hasPrefix("error"))
    }
    for shape in PlainStringTests.shapes {
      let text = shape.verifyReceipt(index: 1)
      let read = Self.expectSame(text, shape.name)
      #expect(read.passed > 0 && read.passed <= RowCopies.capacity, "\(shape.name)")
    }
  }

  // MARK: Hand-made

  /// A row as Apple writes it, its members in order (key and JSON value), for transaction `id`.
  static func members(_ id: Int, product: String = "com.example.pro.monthly") -> [(String, String)] {
    let purchase = 1_704_067_200_000 + Int64(id) * 86_400_000
    return [
      ("quantity", #""1""#), ("product_id", "\"\(product)\""), ("transaction_id", "\"\(1_000_000_000_000_000 + id)\""),
      ("original_transaction_id", #""1000000000000000""#), ("purchase_date", #""2024-01-01 00:00:00 Etc/GMT""#),
      ("purchase_date_ms", "\"\(purchase)\""), ("purchase_date_pst", #""2024-01-01 00:00:00 America/Los_Angeles""#),
      ("original_purchase_date", #""2023-12-01 00:00:00 Etc/GMT""#),
      ("original_purchase_date_ms", #""1701388800000""#), ("expires_date", #""2024-02-01 00:00:00 Etc/GMT""#),
      ("expires_date_ms", "\"\(purchase + 2_592_000_000)\""), ("web_order_line_item_id", "\"\(2_000_000 + id)\""),
      ("is_trial_period", #""false""#), ("is_in_intro_offer_period", #""false""#),
      ("in_app_ownership_type", #""PURCHASED""#), ("subscription_group_identifier", #""21000111""#),
    ]
  }

  static func object(_ members: [(String, String)]) -> String {
    "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
  }

  static func row(_ id: Int) -> String { object(members(id)) }

  /// A response whose `in_app` and `latest_receipt_info` hold these rows, `latest_receipt_info` first when asked.
  static func response(inApp: [String], latest: [String], latestFirst: Bool = false) -> String {
    let receipt = #""receipt":{"bundle_id":"com.example.app","in_app":["# + inApp.joined(separator: ",") + "]}"
    let info = #""latest_receipt_info":["# + latest.joined(separator: ",") + "]"
    return #"{"status":0,"# + (latestFirst ? info + "," + receipt : receipt + "," + info) + "}"
  }

  @Test func copiesArePassedOverWhereverTheyStand() {
    let rows = (1...5).map(Self.row)
    // In order, reversed, the latest first, a copy twice in one array, and a notification's unified receipt.
    #expect(Self.expectSame(Self.response(inApp: rows, latest: rows), "in order").passed == 5)
    #expect(Self.expectSame(Self.response(inApp: rows, latest: rows.reversed()), "reversed").passed == 5)
    #expect(Self.expectSame(Self.response(inApp: rows, latest: rows, latestFirst: true), "latest first").passed == 5)
    #expect(Self.expectSame(Self.response(inApp: rows + rows, latest: []), "twice in in_app").passed == 5)
    #expect(Self.expectSame(Self.response(inApp: [rows[0]], latest: rows + rows), "thrice").passed == 6)
    let notification =
      #"{"notification_type":"DID_RENEW","unified_receipt":{"status":0,"latest_receipt_info":["#
      + rows.joined(separator: ",") + #"]},"receipt":{"bundle_id":"a","in_app":["# + rows.joined(separator: ",")
      + "]}}"
    #expect(Self.expectSame(notification, "notification").passed == 5)
    // iOS 6-style: latest_receipt_info a lone object, latest_expired_receipt_info too.
    let lone =
      #"{"status":0,"receipt":{"bundle_id":"a","in_app":["# + rows[0] + #"]},"latest_receipt_info":"#
      + rows[0] + #","latest_expired_receipt_info":["# + rows[0] + "]}"
    #expect(Self.expectSame(lone, "lone object").passed == 2)
    // Whitespace between the copies does not matter; whitespace inside one does.
    let spaced = Self.response(inApp: rows, latest: rows.map { " \n" + $0 + "\t" })
    #expect(Self.expectSame(spaced, "spaced").passed == 5)
    let respaced = Self.response(
      inApp: rows, latest: rows.map { $0.replacingOccurrences(of: #"":"1","#, with: #"": "1","#) })
    #expect(Self.expectSame(respaced, "respaced").passed == 0)
  }

  /// A copy one byte different from the object read before, at any place (a digit another digit, a letter another
  /// letter, a space an underscore, anything else a space), or longer or shorter by a member at its end, is read
  /// again.
  @Test func aCopyDifferingAnywhereIsReadAgain() {
    let first = Self.row(1)
    let bytes = Array(first.utf8)
    var errors = 0
    for p in bytes.indices {
      var copy = bytes
      let b = copy[p]
      copy[p] =
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "8"), UInt8(ascii: "a")...UInt8(ascii: "y"): b + 1
        case UInt8(ascii: "9"): UInt8(ascii: "0")
        case UInt8(ascii: " "): UInt8(ascii: "_")
        default: UInt8(ascii: " ")
        }
      let document = Self.response(inApp: [first], latest: [String(decoding: copy, as: UTF8.self)])
      let read = Self.expectSame(document, "byte \(p) of \(first)")
      #expect(read.passed == 0, "byte \(p)")
      if read.answer.hasPrefix("error") { errors += 1 }
    }
    #expect(errors > 20 && errors < bytes.count / 2, "\(errors) of \(bytes.count)")
    let longer = String(first.dropLast()) + #","unread":"x"}"#
    #expect(Self.expectSame(Self.response(inApp: [first], latest: [longer]), "longer").passed == 0)
    let shorter = first.replacingOccurrences(of: #","subscription_group_identifier":"21000111""#, with: "")
    #expect(Self.expectSame(Self.response(inApp: [first], latest: [shorter]), "shorter").passed == 0)
    #expect(Self.expectSame(Self.response(inApp: [shorter], latest: [first]), "shorter first").passed == 0)
  }

  /// A copy whose reading said something with its path (a warning) is read again, so the warning names both
  /// places; an object shorter than the fingerprint's window is read again; a held transaction another copy was
  /// merged into is not the remembered object's alone, so its copy is read again.
  @Test func copiesWhoseReadingSaysMoreAreReadAgain() {
    let odd = Self.object(
      Self.members(1).map { $0.0 == "in_app_ownership_type" ? ($0.0, #""SOMETHING_NEW""#) : $0 })
    let both = Self.object(
      Self.members(2).map { $0.0 == "is_trial_period" || $0.0 == "is_in_intro_offer_period" ? ($0.0, #""true""#) : $0 })
    let warned = Self.expectSame(Self.response(inApp: [odd, both], latest: [odd, both]), "warned")
    #expect(warned.passed == 0)
    #expect(warned.answer.contains("latest_receipt_info[0].in_app_ownership_type"))
    #expect(warned.answer.contains("receipt.in_app[0].in_app_ownership_type"))
    let short = #"{"transaction_id":"9","product_id":"p"}"#
    #expect(Self.expectSame(Self.response(inApp: [short], latest: [short]), "short").passed == 0)
    // in_app: two copies of one transaction that differ (the second has a cancellation); latest: the first again.
    var cancelled = Self.members(3)
    cancelled.append(("cancellation_date_ms", #""1704500000000""#))
    let first = Self.row(3)
    let merged = Self.expectSame(
      Self.response(inApp: [first, Self.object(cancelled)], latest: [first, Self.row(4)]), "merged")
    #expect(merged.passed == 0)
    #expect(merged.answer.contains("duplicateRowsMerged: 2"))
    // The other way: the differing copy is read after the remembered one's copy passed over; then the first again.
    let after = Self.expectSame(
      Self.response(inApp: [first], latest: [first, Self.object(cancelled), first]), "merged after")
    #expect(after.passed == 1)
    // An iOS 6-style receipt that is itself a copy of an in_app transaction, merged after in_app is read.
    let legacy =
      #"{"status":0,"receipt":{"bundle_id":"a","in_app":["# + first + #"],"transaction_id":"1000000000000003","#
      + #""product_id":"com.example.pro.monthly","quantity":"2"},"latest_receipt_info":["# + first + "]}"
    #expect(Self.expectSame(legacy, "legacy receipt").passed == 0)
  }

  /// A copy read deeper than the object it repeats could pass the reader's nesting limit, and is read again.
  @Test func aCopyDeeperThanItsObjectIsReadAgain() {
    let nested = String(repeating: "[", count: 6) + String(repeating: "]", count: 6)
    let deep = Self.object(Self.members(1) + [("unread", nested)])
    // latest_receipt_info first (depth 2), then receipt.in_app (depth 3).
    let text = Self.response(inApp: [deep], latest: [deep], latestFirst: true)
    var errors = 0
    for maxDepth in 8...12 {
      let read = Self.expectSame(Array(text.utf8), "max depth \(maxDepth)", maxDepth: maxDepth)
      if read.answer.hasPrefix("error") { errors += 1 } else { #expect(read.passed == 0) }
    }
    // 8 is too shallow for either copy, 9 for the in_app one alone.
    #expect(errors == 2)
    // The other way round the copy is shallower, and passed over.
    let shallower = Self.response(inApp: [deep], latest: [deep])
    #expect(Self.expectSame(Array(shallower.utf8), "shallower", maxDepth: 10).passed == 1)
    // Far from the limit, an object half as deep as it is long would pass it no more than this one, so its deeper
    // copy is passed over.
    #expect(Self.expectSame(Array(text.utf8), "far from the limit").passed == 1)
  }

  /// Sixty-four objects are remembered at most; more pass the rest to the plain read.
  @Test func atMostCapacityObjectsAreRemembered() {
    let rows = (1...100).map(Self.row)
    let read = Self.expectSame(Self.response(inApp: rows, latest: rows), "100 rows")
    #expect(read.passed == RowCopies.capacity)
    #expect(!read.answer.hasPrefix("error"))
  }

  // MARK: Random edits

  /// One copy edited at random: a byte changed, a member added, removed or moved, a character escaped, whitespace
  /// put in; the documents that remain the same in some copy pass them over, the others read them again.
  @Test func randomEditsOfOneCopyReadTheSame() {
    var rng = SplitMix64(seed: 4242)
    var passedSome = 0
    var readAgain = 0
    var errors = 0
    let bytesToPut: [UInt8] = Array(#"0123456789abz"\{}[],: "#.utf8) + [0x0A, 0xC3, 0x7F]
    for trial in 0..<600 {
      let count = 1 + rng.below(4)
      let ids = Array((0..<6).shuffled(using: &rng).prefix(count))
      var inApp = ids.map { Self.members($0) }
      var latest = ids.shuffled(using: &rng).map { Self.members($0) }
      let editLatest = rng.percent(70)
      let which = rng.below(count)
      var members = editLatest ? latest[which] : inApp[which]
      var text: String?
      switch rng.below(7) {
      case 0:
        members.insert(("extra_\(rng.below(3))", #""x""#), at: rng.below(members.count + 1))
      case 1:
        members.remove(at: rng.below(members.count))
      case 2:
        let i = rng.below(members.count - 1)
        members.swapAt(i, i + 1)
      case 3:
        // A value's character written as an escape.
        let i = rng.below(members.count)
        var value = Array(members[i].1)
        if value.count > 2 {
          let c = 1 + rng.below(value.count - 2)
          let hex = String(value[c].asciiValue ?? 0x30, radix: 16)
          value.replaceSubrange(c...c, with: Array("\\u00" + (hex.count < 2 ? "0" + hex : hex)))
          members[i].1 = String(value)
        }
      case 4:
        members[rng.below(members.count)].1 = ["null", #""""#, "1", "true", "{}", #""\/""#][rng.below(6)]
      default:
        // A byte of the written object changed, or whitespace put in.
        var bytes = Array(Self.object(members).utf8)
        let at = rng.below(bytes.count)
        if rng.percent(50) {
          bytes[at] = bytesToPut[rng.below(bytesToPut.count)]
        } else {
          bytes.insert([0x20, 0x0A, 0x09][rng.below(3)], at: at)
        }
        text = String(decoding: bytes, as: UTF8.self)
      }
      let edited = text ?? Self.object(members)
      if editLatest { latest[which] = [] } else { inApp[which] = [] }
      func written(_ rows: [[(String, String)]], editedAt: Int?) -> [String] {
        rows.indices.map { $0 == editedAt ? edited : Self.object(rows[$0]) }
      }
      let document = Self.response(
        inApp: written(inApp, editedAt: editLatest ? nil : which),
        latest: written(latest, editedAt: editLatest ? which : nil), latestFirst: rng.percent(20))
      let read = Self.expectSame(document, "trial \(trial): \(document)")
      // The fuzzer's property says so too.
      #expect(FuzzDriver.copiesAgainstEveryObject(Array(document.utf8)) == [], "trial \(trial)")
      if read.answer.hasPrefix("error") {
        errors += 1
      } else if read.passed > 0 {
        passedSome += 1
      }
      if read.passed < count { readAgain += 1 }
    }
    // Both "the same" and "almost the same" are met often, and some edits break the document.
    #expect(passedSome > 200 && readAgain > 200 && errors > 20, "\(passedSome) \(readAgain) \(errors)")
  }
}
