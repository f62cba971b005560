import Foundation
import ReceiptModelTestSupport
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// The signed-data sniff as it was before the one pass (issue 42): a copy of the first 8 KB, one quote-to-quote pass
/// for the plain names, a pass for a backslash and, when there is one, a pass over the strings holding escapes.
/// Plain and slow on purpose; `SignedDataSniffReferenceTests` holds `SignedDataDecoder.looksLikeSignedData` to it.
enum ReferenceSignedDataSniff {
  /// The names without quotes, by length.
  static let namesByLength: [[[UInt8]]] = {
    let bytes = SignedDataDecoder.sniffKeyNames.map { Array($0.utf8) }.filter { !$0.contains(UInt8(ascii: "\"")) }
    var table = [[[UInt8]]](repeating: [], count: (bytes.map(\.count).max() ?? 0) + 1)
    for name in bytes { table[name.count].append(name) }
    return table
  }()

  static func looksLikeSignedData(_ prefix: some Collection<UInt8>) -> Bool {
    let bytes = Array(prefix.prefix(8192))
    var i = 0
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
    while i < bytes.count, SignedDataDecoder.isSpace(bytes[i]) { i += 1 }
    if i < bytes.count, bytes[i] == UInt8(ascii: "\"") { i += 1 }
    if bytes.count - i >= 3, bytes[i] == UInt8(ascii: "e"), bytes[i + 1] == UInt8(ascii: "y"),
      bytes[i + 2] == UInt8(ascii: "J")
    {
      return true
    }
    guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return false }
    return bytes.withUnsafeBufferPointer { occurs(in: $0) }
  }

  static func occurs(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    if occursPlainly(in: bytes) { return true }
    guard EscapedNames.mayHoldEscapes(bytes) else { return false }
    return EscapedNames.anyEscapedString(in: bytes, maxLength: namesByLength.count - 1) { decoded, _ in
      namesByLength[decoded.count].contains(decoded)
    }
  }

  static func occursPlainly(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress, var quote = QuoteScan.next(in: bytes, from: 0) else { return false }
    while let next = QuoteScan.next(in: bytes, from: quote &+ 1) {
      let length = next &- quote &- 1
      if length < namesByLength.count {
        let between = UnsafeBufferPointer(start: base + quote + 1, count: length)
        if namesByLength[length].contains(where: { $0.elementsEqual(between) }) { return true }
      }
      quote = next
    }
    return false
  }
}

/// The app receipt sniff as it was before it read the registry's prefix in place: on a copy, indexed from 0.
enum ReferenceAppReceiptSniff {
  static func sniff(_ bytes: [UInt8]) -> AppReceiptInput.Sniff? {
    var i = 0
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    while i < bytes.count, AppReceiptInput.isSpace(bytes[i]) { i += 1 }
    guard i < bytes.count else { return nil }
    let rest = bytes[i...]
    if rest.count >= 3, rest[i] == 0x30, (0x80...0x84).contains(rest[i + 1]) { return .der }
    let text = Array(rest.prefix(4))
    if text.count >= 3, text[0] == UInt8(ascii: "M"), text[1] == UInt8(ascii: "I"),
      (UInt8(ascii: "A")...UInt8(ascii: "P")).contains(text[2])
    {
      return .base64
    }
    if text.starts(with: Array("ewo".utf8)) { return .legacyTransactionReceipt }
    if text.first == UInt8(ascii: "{") {
      let keys = ReferenceQuotedNames(rest.prefix(1 << 16))
      if keys.purchaseInfo && !keys.purchaseInfoColon { return .legacyTransactionReceipt }
      if keys.receiptData || keys.transactionReceipt { return .json }
    }
    return nil
  }
}

/// `AppReceiptInput.QuotedNames` as it was before its one walk: `QuoteScan` from each quote to the next, then a pass
/// for a backslash.
struct ReferenceQuotedNames {
  typealias Names = AppReceiptInput.QuotedNames
  var purchaseInfo = false
  var purchaseInfoColon = false
  var receiptData = false
  var transactionReceipt = false

  init(_ window: ArraySlice<UInt8>) {
    window.withUnsafeBufferPointer { w in
      var next = QuoteScan.next(in: w, from: 0)
      while let i = next {
        next = QuoteScan.next(in: w, from: i + 1)
        guard i + 1 < w.count else { break }
        switch w[i + 1] {
        case UInt8(ascii: "p"):
          if Names.matches(Names.purchaseInfoName, w, at: i) {
            purchaseInfo = true
            let after = i + Names.purchaseInfoName.count
            if after < w.count, w[after] == UInt8(ascii: ":") { purchaseInfoColon = true }
          }
        case UInt8(ascii: "r"):
          if Names.matches(Names.receiptDataName, w, at: i) { receiptData = true }
        case UInt8(ascii: "t"):
          if Names.matches(Names.transactionReceiptName, w, at: i) { transactionReceipt = true }
        default: break
        }
      }
      guard !receiptData, !transactionReceipt, !purchaseInfo, EscapedNames.mayHoldEscapes(w) else { return }
      _ = EscapedNames.anyEscapedString(in: w, maxLength: Names.transactionReceiptName.count) { name, end in
        let quoted = [UInt8(ascii: "\"")] + name + [UInt8(ascii: "\"")]
        if quoted == Names.receiptDataName { receiptData = true }
        if quoted == Names.transactionReceiptName { transactionReceipt = true }
        if quoted == Names.purchaseInfoName {
          purchaseInfo = true
          if end < w.count, w[end] == UInt8(ascii: ":") { purchaseInfoColon = true }
        }
        return false
      }
    }
  }

  /// Whether `names` found what this found.
  func agrees(with names: Names) -> Bool {
    names.purchaseInfo == purchaseInfo && names.purchaseInfoColon == purchaseInfoColon
      && names.receiptData == receiptData && names.transactionReceipt == transactionReceipt
  }
}

/// The one-pass sniff answers as the reference does on every document: the repository's, ../shared's, hand-made
/// ones and random ones built from the names, their escaped spellings, quotes and backslashes, cut at every
/// length around the 4 KB the registry looks at and the 8 KB `looksLikeSignedData` reads.
@Suite struct SignedDataSniffReferenceTests {
  /// The answers compared, and how many were true: a comparison that only ever says no proves little.
  struct Tally {
    var compared = 0
    var signed = 0
    /// Signed data found only through a name spelled with escapes.
    var byEscapes = 0
    /// Documents the app receipt sniff gave a form.
    var appReceipts = 0
  }

  /// Compares the sniff with the reference on `document` as the registry sees it and as callers of
  /// `looksLikeSignedData` pass it (an array, a slice not at index 0, a collection without contiguous storage).
  static func expectSame(
    _ document: [UInt8], _ note: @autoclosure () -> String, _ tally: inout Tally,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let expected = ReferenceSignedDataSniff.looksLikeSignedData(document)
    #expect(SignedDataDecoder.looksLikeSignedData(document) == expected, "\(note())", sourceLocation: sourceLocation)
    let sniff = DocumentSniff(document)
    let expectedByRegistry = ReferenceSignedDataSniff.looksLikeSignedData(sniff.prefix)
    #expect(
      (SignedDataFormat().recognition(of: sniff) == .certain) == expectedByRegistry, "registry: \(note())",
      sourceLocation: sourceLocation)
    // The app receipt sniff, which reads the same prefix in place, from a slice not at index 0 too.
    let expectedSniff = ReferenceAppReceiptSniff.sniff(Array(sniff.prefix))
    #expect(
      AppReceiptInput.sniff(sniff.prefix) == expectedSniff, "app receipt: \(note())", sourceLocation: sourceLocation)
    let shifted = [UInt8](repeating: 0x30, count: 5) + document.prefix(DocumentSniff.length)
    #expect(
      AppReceiptInput.sniff(shifted[5...])
        == ReferenceAppReceiptSniff.sniff(Array(document.prefix(DocumentSniff.length))),
      "app receipt at 5: \(note())", sourceLocation: sourceLocation)
    if expectedSniff != nil { tally.appReceipts += 1 }
    // Its names in the document's first 64 KB, as the sniff's window holds them.
    let window = document.prefix(1 << 16)
    #expect(
      ReferenceQuotedNames(window).agrees(with: AppReceiptInput.QuotedNames(window)), "app receipt names: \(note())",
      sourceLocation: sourceLocation)
    tally.compared += 2
    if expected { tally.signed += 1 }
    if expected, !Array(document.prefix(8192)).withUnsafeBufferPointer(ReferenceSignedDataSniff.occursPlainly) {
      tally.byEscapes += 1
    }
    if expectedByRegistry { tally.signed += 1 }
  }

  static func expectSameAtCuts(_ document: [UInt8], _ note: String, _ tally: inout Tally) {
    expectSame(document, note, &tally)
    for limit in [DocumentSniff.length, DocumentSniff.length + 3, 8192] {
      for cut in (limit - 24)...(limit + 24) where cut < document.count {
        expectSame(Array(document[..<cut]), "\(note) cut at \(cut)", &tally)
      }
    }
  }

  /// Every file under `directory`, recursively.
  static func files(under directory: URL) -> [URL] {
    let all = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    return (all?.compactMap { $0 as? URL } ?? []).filter {
      (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }
    .sorted { $0.path < $1.path }
  }

  /// A file as one document and, when it holds several lines, each line as a batch reads it.
  static func expectSameForFile(_ url: URL, _ tally: inout Tally) {
    guard let data = try? Data(contentsOf: url) else { return }
    let bytes = Array(data)
    expectSameAtCuts(bytes, url.path, &tally)
    let lines = bytes.split(separator: UInt8(ascii: "\n"))
    guard lines.count > 1 else { return }
    for (n, line) in lines.prefix(200).enumerated() { expectSame(Array(line), "\(url.path):\(n + 1)", &tally) }
    expectSame(Array(bytes.dropFirst(7)), "\(url.path) from byte 7", &tally)
  }

  @Test func examplesFuzzSeedsAndPeerFixturesSniffAsTheReference() {
    var tally = Tally()
    let root = TestPaths.packageRoot
    var urls = TestPaths.exampleAndPeerFixtureFiles(for: "the signed-data sniff reference test")
    urls += Self.files(under: root.appendingPathComponent("Tests/Fuzz"))
    for url in urls { Self.expectSameForFile(url, &tally) }
    #expect(tally.compared > 1_000)
    #expect(tally.signed > 100, "\(tally)")
    #expect(tally.appReceipts > 20, "\(tally)")
  }

  @Test func goldenInputsSniffAsTheReference() throws {
    var tally = Tally()
    let root = TestPaths.packageRoot
    var inputs = Set<String>()
    for folder in Self.files(under: root.appendingPathComponent("Tests/CLITests")) {
      switch folder.lastPathComponent {
      case "stdin": inputs.insert(folder.path)
      case "cmd":
        // Each argument that names a file in the repository is an input.
        let words = try String(contentsOf: folder, encoding: .utf8).split(whereSeparator: { $0 == " " || $0 == "\n" })
        for word in words {
          let path = root.appendingPathComponent(String(word)).path
          var isDirectory: ObjCBool = false
          if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
            inputs.insert(path)
          }
        }
      default: continue
      }
    }
    for path in inputs.sorted() { Self.expectSameForFile(URL(fileURLWithPath: path), &tally) }
    #expect(inputs.count > 50)
    #expect(tally.signed > 50, "\(tally)")
  }

  /// Made here, so that the property holds with ../shared absent: each shape the passes treat in their own way.
  @Test func handMadeDocumentsSniffAsTheReference() {
    var tally = Tally()
    let documents = [
      #"{"signedPayload": "x"}"#, #"{"\u0073ignedPayload": "x"}"#, #"{"status": 0, "latest_receipt": "a\/b"}"#,
      // Between a closing and an opening quote: the plain pass compares it, the string walk does not.
      #"{"a"signedDate"b": 1}"#, #"{"a" bundleId "b"}"#,
      // After an escaped quote: a plain name to the next quote, inside one string for the string walk.
      #"{"x\"signedDate": 1}"#, #"{"\"bundleId\"": 1}"#, #"{"x\\"signedDate": 1}"#,
      // A string cut at the end: the string walk stops there, the plain pass goes on.
      #"{"a": "b\"signedDate""#, #"{"a": "\u0062undleId"#, #"{"a": "x\"#, #"{"a\"#,
      // Escapes that decode to a name, to something else, or break.
      #"{"\u0062\u0075\u006E\u0064\u006C\u0065\u0049\u0064": 1}"#, #"{"bundle\u0049d": 1}"#,
      #"{"bundle\u0049dx": 1}"#, #"{"\u00": 1, "\ud800": 2, "\x": 3}"#, #"{"\ud83d\ude00bundleId": 1}"#,
      #"{"bundle\/Id": 1, "bundleId\/": 2}"#, #"{"\/": "\"\\\/\b\f\n\r\t"}"#,
      // JWS, bare or quoted, a BOM, whitespace, not an object.
      "eyJhbGciOi", "\"eyJhbGciOi\"", "\u{FEFF} \n\t\"eyJ", "\u{FEFF}{\"bundleId\":1}", "  \"{\"bundleId\":1}",
      "[\"bundleId\"]", "\"bundleId\"", "", "{", "\"", "\\", "ey", "\"ey", "{\"", "{\"bundleId",
      // What the app receipt sniff tells apart: base64 and DER starts, iOS 6 receipts, request bodies.
      "MIIT", "MII", "MIQ", "MI", " \n\u{FEFF}MIIT", "\u{FEFF}MIIT", "\u{FEFF} MIIT", "ewoJInNpZ25hdHVyZSI",
      "\u{FEFF}ewo", "ew",
      #"{"purchase-info" = "ewo";}"#, #"{"purchase-info": 1}"#, #"{"receipt-data": "MIIT"}"#,
      #"{"transactionReceipt": "MIIT"}"#, #"{"receipt-\u0064ata": "MIIT"}"#, #"{"status": 0, "receipt-data": "x"}"#,
    ]
    for document in documents { Self.expectSameAtCuts(Array(document.utf8), document, &tally) }
    // DER: a SEQUENCE of indefinite or long-form length, and bytes that only start like one.
    for second in [0x80, 0x82, 0x84, 0x85, 0x30] as [UInt8] {
      Self.expectSameAtCuts([0x30, second, 0x06, 0x09], "DER 30 \(second)", &tally)
      Self.expectSameAtCuts([0xEF, 0xBB, 0xBF, 0x30, second, 0x06], "DER 30 \(second) after a BOM", &tally)
    }
    #expect(tally.appReceipts > 12, "\(tally)")
    // Every name, plain and in each escaped spelling, at every offset around the 4 KB and 8 KB limits.
    for name in SignedDataDecoder.sniffKeyNames {
      for spelling in [name] + EscapedKeyDetectionTests.spellings(name) {
        let key = Array("\"\(spelling)\":1}".utf8)
        for limit in [DocumentSniff.length, 8192] {
          for end in (limit - 2)...(limit + key.count + 2) {
            let filler = [UInt8(ascii: "{")] + [UInt8](repeating: UInt8(ascii: "a"), count: max(0, end - key.count - 1))
            Self.expectSame(filler + key, "\(spelling) ending at \(end)", &tally)
          }
        }
      }
    }
    #expect(tally.signed > 1_000, "\(tally)")
    #expect(tally.byEscapes > 100, "\(tally)")
  }

  /// Documents built at random from the pieces the passes tell apart, as long as 9 KB, cut around the limits.
  @Test func randomDocumentsSniffAsTheReference() {
    var tally = Tally()
    var random = SplitMix64(seed: 42)
    let names = SignedDataDecoder.sniffKeyNames
    var pieces: [String] = [
      "\"", "\"", "\"", "\\", "\\\"", "\\\\", "\\/", "\\u", "\\u00", "\\ud83d", "\\ude00", ":", " ", "\n", "\t", "{",
      "}", "[", ",", "a", "x", "0", "eyJ", "\u{FEFF}", "é", "status", "latest_receipt", "receipt-data",
      "\"receipt-data\":", "\"purchase-info\"", "\"purchase-info\":", "\"transactionReceipt\"", "ewo", "MII",
    ]
    // Names already between quotes, for half the documents: the others find one only where the pieces meet.
    var quoted: [String] = []
    for name in names.prefix(6) {
      let spellings = EscapedKeyDetectionTests.spellings(name) + [name.replacingOccurrences(of: "e", with: "\\u0065")]
      pieces += [name, String(name.dropLast()), name + "s"] + spellings
      quoted += ([name] + spellings).map { "\"\($0)\":" }
    }
    for name in names.dropFirst(6) {
      pieces.append(name)
      quoted.append("\"\(name)\"")
    }
    let withQuoted = pieces + quoted
    for round in 0..<1_500 {
      let pieces = round % 2 == 0 ? pieces : withQuoted
      var document: [UInt8] = []
      switch random.next() % 4 {
      case 0: document = Array(" \n".utf8)
      case 1: document = [0xEF, 0xBB, 0xBF]
      default: break
      }
      document += Array((random.next() % 8 == 0 ? "\"{" : "{").utf8)
      // Long runs without a quote move the pieces to every place around the limits.
      let target = Int(random.next() % 9_000)
      while document.count < target {
        if random.next() % 5 == 0 {
          let run = Int(random.next() % 700)
          let byte = random.next() % 2 == 0 ? UInt8(ascii: "A") : UInt8(ascii: "/")
          document += [UInt8](repeating: byte, count: run)
        }
        document += Array(pieces[Int(random.next() % UInt64(pieces.count))].utf8)
      }
      Self.expectSame(document, "random document \(round)", &tally)
      for _ in 0..<3 where !document.isEmpty {
        let cut = Int(random.next() % UInt64(document.count))
        Self.expectSame(Array(document[..<cut]), "random document \(round) cut at \(cut)", &tally)
      }
      if round % 10 == 0 { Self.expectSameAtCuts(document, "random document \(round)", &tally) }
    }
    #expect(tally.signed > 1_000, "\(tally)")
    #expect(tally.byEscapes > 100, "\(tally)")
    #expect(tally.compared - tally.signed > 1_000, "\(tally)")
  }

  /// `looksLikeSignedData` answers the same for a slice not at index 0 and for a collection without contiguous
  /// storage, as callers outside the registry may pass.
  @Test func everyKindOfCollectionSniffsAsTheReference() {
    for text in [#"{"bundleId":1}"#, #"{"bundle\u0049d":1}"#, #"{"status":0}"#, "\"eyJ"] {
      let padded = Array(("xxxx" + text).utf8)
      let slice = padded[4...]
      let lazy = slice.lazy.map { $0 }
      let expected = ReferenceSignedDataSniff.looksLikeSignedData(slice)
      #expect(SignedDataDecoder.looksLikeSignedData(slice) == expected, "\(text)")
      #expect(SignedDataDecoder.looksLikeSignedData(lazy) == expected, "\(text)")
      #expect(expected == (text != #"{"status":0}"#), "\(text)")
    }
  }
}

/// Finds double quotes eight bytes at a time: the scan the sniffs restarted after every quote before their one walk.
enum QuoteScan {
  /// The offset of the first `"` at or after `start`, if any.
  @inline(__always)
  static func next(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = bytes.baseAddress, start >= 0 else { return nil }
    let n = bytes.count
    var i = WordScan.skip(base, from: start, to: n) { WordScan.equal($0, 0x22) }
    while i < n {
      if base[i] == UInt8(ascii: "\"") { return i }
      i &+= 1
    }
    return nil
  }
}
