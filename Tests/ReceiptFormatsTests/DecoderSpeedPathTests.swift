import Foundation
import ReceiptCLI
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

// The decoder's internal readers (StringInterner, ValueReading) checked beside the CLI's array-piece helpers.
@testable import ReceiptFormats

/// The fast paths the decoder takes for large receipts must give the same answers as the slow ones.
@Suite struct DecoderSpeedPathTests {
  @Test func numericAndTextualTransactionIDsAreKeptApart() {
    var index = TransactionIDIndex()
    let ids = ["12", "012", "0", "00", "1000000000000000001", "99999999999999999999", "abc", "12a"]
    for (row, id) in ids.enumerated() { #expect(index.position(of: id, inserting: row) == nil, "\(id)") }
    for (row, id) in ids.enumerated() { #expect(index.position(of: id, inserting: 100) == row, "\(id)") }
    #expect(TransactionIDIndex.numericKey("012") == nil)
    #expect(TransactionIDIndex.numericKey("0") == 0)
    #expect(TransactionIDIndex.numericKey("9999999999999999999") == 9_999_999_999_999_999_999)
    #expect(TransactionIDIndex.numericKey("99999999999999999999") == nil)
  }

  @Test func theIndexGrowsPastManyRows() {
    var index = TransactionIDIndex()
    for row in 0..<10_000 { #expect(index.position(of: String(1_000_000 + row * 7), inserting: row) == nil) }
    for row in stride(from: 0, to: 10_000, by: 997) {
      #expect(index.position(of: String(1_000_000 + row * 7), inserting: -1) == row)
    }
  }

  @Test func internedStringsEqualTheirBytesEvenWhenSlotsCollide() {
    var interner = StringInterner()
    let values = (0..<500).map { "com.example.product.\($0 % 130)" }
    for v in values {
      var bytes = Array(v.utf8)
      let s = bytes.withUnsafeMutableBufferPointer { interner.string(UnsafeBufferPointer($0)) }
      #expect(s == v)
    }
  }

  /// The interner hands out a String equal to the bytes it is given, whatever they share with the values held:
  /// ids that differ only in their middle (the same length, first and last eight bytes), in one byte anywhere,
  /// in length alone (a zero byte, a prefix), short ones and empty; values past the table's largest size are
  /// still right (made, not kept). Every distinct value up to that size is kept once: a repeat makes nothing.
  @Test func internedStringsAreTheirBytesWhateverTheyShare() {
    var interner = StringInterner()
    var rng = SplitMix64(seed: 29)
    var values: [String] = (0..<400).map { "com.example.p\($0).monthly" } + ["", "a", "ab", "\u{0}", "\u{0}\u{0}"]
    let id = "3299698801272077"
    for place in 0..<id.utf8.count {
      var bytes = Array(id.utf8)
      bytes[place] = bytes[place] == 0x39 ? 0x30 : bytes[place] + 1
      values.append(String(decoding: bytes, as: UTF8.self))
    }
    values += (0..<24).map { String(id.prefix($0)) } + ["é", "e\u{301}", "\u{301}e", "日本語のid"]
    let distinct = Set(values.map { Array($0.utf8) }).count
    for round in 0..<3 {
      for v in values.shuffled(using: &rng) {
        var bytes = Array(v.utf8)
        let s = bytes.withUnsafeMutableBufferPointer { interner.string(UnsafeBufferPointer($0)) }
        #expect(Array(s.utf8) == Array(v.utf8), "\(v) in round \(round)")
      }
      #expect(interner.heldCount == distinct, "round \(round)")
    }
    // Past the largest table: every value still its bytes, the table no larger.
    for k in 0..<(StringInterner.largestSize * 2) {
      let v = "\(1_000_000_000_000_000 + k * 7919)"
      var bytes = Array(v.utf8)
      let s = bytes.withUnsafeMutableBufferPointer { interner.string(UnsafeBufferPointer($0)) }
      #expect(s == v)
    }
    #expect(interner.size == StringInterner.largestSize)
    #expect(interner.heldCount == StringInterner.largestSize / 2)
    for v in values {
      var bytes = Array(v.utf8)
      let s = bytes.withUnsafeMutableBufferPointer { interner.string(UnsafeBufferPointer($0)) }
      #expect(Array(s.utf8) == Array(v.utf8), "\(v) once full")
    }
  }

  /// The first two values are held beside the table (`StringInterner.first`, `second`), which is made at a third:
  /// for a few values at a time that share their length and ends (ids differing in their middle or one byte), short
  /// ones, empty and repeated, in random orders, each String is its bytes, each distinct value is held once, and
  /// no table is made until a third.
  @Test func theFirstValuesHeldBesideTheTableAreTheirBytes() {
    let id = "com.example.p12.monthly"
    let pool: [String] = [
      id, "com.example.p13.monthly", "com.example.p12.monthlz", "dom.example.p12.monthly", id + "x",
      String(id.dropLast()),
      "2000000000000000", "2000000000000001", "3000000000000000", "21000111", "21000112", "", "a", "\u{0}", "é",
      "e\u{301}",
    ]
    var rng = SplitMix64(seed: 7)
    for round in 0..<2_000 {
      var interner = StringInterner()
      let chosen = (0..<Int(rng.next() % 5 + 1)).map { _ in pool[Int(rng.next() % UInt64(pool.count))] }
      var seen: [[UInt8]] = []
      for _ in 0..<8 {
        let v = chosen[Int(rng.next() % UInt64(chosen.count))]
        var bytes = Array(v.utf8)
        let s = bytes.withUnsafeMutableBufferPointer { interner.string(UnsafeBufferPointer($0)) }
        #expect(Array(s.utf8) == Array(v.utf8), "\(v) in round \(round)")
        if !seen.contains(Array(v.utf8)) { seen.append(Array(v.utf8)) }
        #expect(interner.heldCount == seen.count, "round \(round)")
        #expect((interner.size == 0) == (seen.count <= 2), "round \(round)")
      }
    }
  }

  @Test func formattedDatesParseTheSameFromBytesAndStrings() {
    for text in [
      "2020-07-23 19:32:51 Etc/GMT", "2020-07-23T19:32:51.25Z", "2020-07-23T19:32:51+01:30", "2020-07-23", "2020-02-30",
      "2020-07-23 19:32:51 PST",
    ] {
      var bytes = Array(text.utf8)
      let fromBytes = bytes.withUnsafeMutableBufferPointer { Timestamp.parse(formatted: UnsafeBufferPointer($0)) }
      #expect(fromBytes == Timestamp.parse(formatted: text), "\(text)")
    }
    #expect(Timestamp.parse(formatted: "2020-07-23T19:32:51+01:30")?.iso8601 == "2020-07-23T18:02:51Z")
    #expect(Timestamp.parse(formatted: "2020-02-30") == nil)
  }
}

/// A large transaction array read on two threads gives exactly what a sequential read gives, errors and warnings included.
@Suite struct TransactionArraySplitTests {
  /// About 5 MB: over the split threshold.
  static let big = Array(SyntheticReceipts.verifyReceipt(index: 7, transactions: 6_000).utf8)

  static func both(_ bytes: [UInt8]) -> (Result<PurchaseHistory, ReceiptError>, Result<PurchaseHistory, ReceiptError>) {
    func run(_ split: Bool) -> Result<PurchaseHistory, ReceiptError> {
      do throws(ReceiptError) {
        return .success(
          try ReceiptDecoder.decode(
            bytes, source: "big.json", keepSecrets: false,
            pieces: split ? TransactionArraySplit.Pieces(helpers: ArrayPieceHelpers()) : nil))
      } catch { return .failure(error) }
    }
    return (run(true), run(false))
  }

  /// `bytes` with the last occurrence of `old` replaced, so the change lands after the split point.
  static func replacingLast(_ old: String, with new: String) -> [UInt8] {
    let text = String(decoding: big, as: UTF8.self)
    guard let range = text.range(of: old, options: .backwards) else { return big }
    return Array(text.replacingCharacters(in: range, with: new).utf8)
  }

  @Test func theSameTransactionsInTheSameOrder() throws {
    #expect(Self.big.count >= TransactionArraySplit.Sizes.standard.minimumBytes)
    let (split, sequential) = Self.both(Self.big)
    let a = try split.get()
    let b = try sequential.get()
    #expect(a.transactions.count == 6_000)
    #expect(a.transactions == b.transactions)
    #expect(a.provenance.duplicateRowsMerged == b.provenance.duplicateRowsMerged)
    // And a piece another thread parsed was really used. Whether one is depends on scheduling (on a loaded
    // machine this thread may reach every piece first), so a few reads get the chance.
    var adopted = 0
    for _ in 0..<10 where adopted == 0 {
      adopted = try JSONReader.withReader(Self.big) { reader in
        var reading = ValueReading(reader: reader, source: "big.json")
        reading.pieces = TransactionArraySplit.Pieces(helpers: ArrayPieceHelpers())
        _ = try reading.decodeDocument()
        return reading.arraysReadInPieces
      }
    }
    #expect(adopted >= 1 || Cores.available == 1)
  }

  /// `ArrayPieceHelpers` that say they have `threads` threads, fewer than claim pieces: the threads beyond the
  /// slots of kept interners start theirs afresh on every piece (the guard of `PieceWorker.parse`).
  struct FewerSlots: PieceHelpers {
    let threads: Int
    let helpers: ArrayPieceHelpers

    func withBoard<R>(
      input: UnsafeBufferPointer<UInt8>, arrayStart: Int, pieceBytes: Int,
      parse: @escaping @Sendable (PieceClaim, _ abandoned: () -> Bool) -> ParsedPiece?,
      _ body: (any PieceBoard) throws -> R
    ) throws -> R {
      try helpers.withBoard(input: input, arrayStart: arrayStart, pieceBytes: pieceBytes, parse: parse, body)
    }
  }

  /// Interners kept from piece to piece on each thread (chains of 200 ids spread over pieces of ~8 rows), or
  /// restarted on every piece where a thread has no slot, read the transactions a sequential read reads.
  @Test func internersKeptAcrossPiecesReadWhatOneThreadReads() throws {
    for seed in 0..<3 {
      let shape = ReceiptShape(
        name: "many-chains", transactions: 3_000, chains: 200 + 100 * seed, products: 5, shuffled: true,
        randomIDs: true, familySharedPercent: 25)
      let bytes = Array(shape.verifyReceipt(index: seed).utf8)
      let sequential = try ReceiptDecoder.decode(bytes, source: "shape.json", keepSecrets: false, pieces: nil)
      for helpers in [
        ArrayPieceHelpers() as any PieceHelpers,
        FewerSlots(threads: 1, helpers: ArrayPieceHelpers()),
        FewerSlots(threads: 0, helpers: ArrayPieceHelpers()),
      ] {
        let sizes = TransactionArraySplit.Sizes(minimumBytes: 0, pieceBytes: 4_096)
        let split = try ReceiptDecoder.decode(
          bytes, source: "shape.json", keepSecrets: false,
          pieces: TransactionArraySplit.Pieces(sizes: sizes, helpers: helpers))
        #expect(split.transactions.count == 3_000)
        #expect(split.transactions == sequential.transactions, "seed \(seed), \(helpers.threads) slots")
        #expect(split.warnings.map(\.message) == sequential.warnings.map(\.message))
      }
    }
  }

  @Test func anErrorAfterTheSplitPointIsTheSequentialError() {
    let broken = Self.replacingLast(#""quantity":"1""#, with: #""quantity":"x""#)
    let (split, sequential) = Self.both(broken)
    guard case .failure(let a) = split, case .failure(let b) = sequential else {
      Issue.record("both reads must fail")
      return
    }
    #expect(a.description == b.description)
    #expect(a.description.contains("latest_receipt_info[5999].quantity"))
  }

  @Test func aSyntaxErrorAfterTheSplitPointIsTheSequentialError() {
    let (split, sequential) = Self.both(Self.replacingLast(#"},{"#, with: #"},,{"#))
    guard case .failure(let a) = split, case .failure(let b) = sequential else {
      Issue.record("both reads must fail")
      return
    }
    #expect(a.description == b.description)
  }

  @Test func warningsAfterTheSplitPointNameTheirElement() throws {
    let odd = Self.replacingLast(
      #""in_app_ownership_type":"PURCHASED""#, with: #""in_app_ownership_type":"SOMETHING_NEW""#)
    let (split, sequential) = Self.both(odd)
    let a = try split.get()
    let b = try sequential.get()
    #expect(a.warnings == b.warnings)
    #expect(a.warnings.first?.path.hasPrefix("latest_receipt_info[") == true)
  }

  /// `big` with every `step`-th occurrence of `old` (counting from 1) replaced.
  static func replacingEvery(_ step: Int, _ old: String, with new: String) -> [UInt8] {
    let parts = String(decoding: big, as: UTF8.self).components(separatedBy: old)
    var out = parts[0]
    for (i, part) in parts.dropFirst().enumerated() {
      out += ((i + 1) % step == 0 ? new : old) + part
    }
    return Array(out.utf8)
  }

  @Test func theArrayIsReadInMoreThanTwoPieces() {
    // 5 MB of input: pieces start about every MiB, each at a `},{` found without a scan.
    let starts = Self.big.withUnsafeBufferPointer { buf in
      var found: [Int] = []
      var from = 0
      while let start = TransactionArraySplit.guessElementStart(in: buf, from: from) {
        found.append(start)
        from = start + TransactionArraySplit.Sizes.standard.pieceBytes
      }
      return found
    }
    #expect(starts.count >= 4)
    for start in starts { #expect(Self.big[start] == UInt8(ascii: "{") && Self.big[start - 1] == UInt8(ascii: ",")) }
  }

  @Test func anErrorInAMiddlePieceIsTheSequentialError() {
    // The 3,500th quantity: in_app holds 1,500 rows, so this is latest_receipt_info[1999], about 3 MB in.
    let broken = Self.replacingEvery(3_500, #""quantity":"1""#, with: #""quantity":"x""#)
    let (split, sequential) = Self.both(broken)
    guard case .failure(let a) = split, case .failure(let b) = sequential else {
      Issue.record("both reads must fail")
      return
    }
    #expect(a.description == b.description)
    #expect(a.description.contains("latest_receipt_info[1999].quantity"))
  }

  @Test func warningsInEveryPieceKeepTheirOrderAndIndex() throws {
    let odd = Self.replacingEvery(
      997, #""in_app_ownership_type":"PURCHASED""#, with: #""in_app_ownership_type":"SOMETHING_NEW""#)
    let (split, sequential) = Self.both(odd)
    let a = try split.get()
    let b = try sequential.get()
    #expect(a.warnings.count >= 4)
    #expect(a.warnings == b.warnings)
    #expect(a.transactions == b.transactions)
  }

  @Test func guessedStartsInsideStringsAndNestedArraysAreDropped() throws {
    // Every element holds a `},{` in a string and in a nested array of objects before its real end, so most
    // guessed starts are no element boundary.
    let tricky = Self.replacingEvery(
      1, #""subscription_group_identifier":"21000111""#,
      with: #""x":[{"a":"b"},{"c":"d"}],"subscription_group_identifier":"},{\"]}[{""#)
    let (split, sequential) = Self.both(tricky)
    let a = try split.get()
    let b = try sequential.get()
    #expect(a.transactions.count == 6_000)
    #expect(a.transactions == b.transactions)
    #expect(a.transactions.allSatisfy { $0.subscriptionGroup == #"},{"]}[{"# })
  }

  @Test func bracketsInsideStringsDoNotMoveTheSplit() throws {
    let tricky = Self.replacingLast(
      #""subscription_group_identifier":"21000111""#, with: #""subscription_group_identifier":"},{\"]}[{""#)
    let (split, sequential) = Self.both(tricky)
    let a = try split.get()
    let b = try sequential.get()
    #expect(a.transactions == b.transactions)
    #expect(a.transactions.contains { $0.subscriptionGroup == #"},{"]}[{"# })
  }

  /// Every example and peer fixture, and bench-shaped documents with odd bytes inside strings, read in tiny
  /// pieces (so guesses land inside strings, nested objects and the other array) give one thread's answer.
  @Test func tinyPiecesOnRealDocumentsGiveTheSequentialAnswer() throws {
    var documents: [[UInt8]] = [
      Array(SyntheticReceipts.verifyReceipt(index: 3, transactions: 40).utf8),
      Array(
        SyntheticReceipts.verifyReceipt(index: 4, transactions: 30).replacingOccurrences(
          of: #""21000111""#, with: #""21},{\"000111""#
        ).utf8),
    ]
    for url in TestPaths.exampleAndPeerFixtureFiles(for: "the tiny-piece comparison")
    where ["json", "ndjson"].contains(url.pathExtension) {
      documents.append(try [UInt8](Data(contentsOf: url)))
    }
    // The examples alone hold more than 20 JSON documents; the peer fixtures add more than 20 again.
    #expect(documents.count > (TestPaths.shared == nil ? 20 : 40))
    for bytes in documents {
      #expect(FuzzDriver.piecesAgainstOneThread(bytes) == [])
    }
  }
}
