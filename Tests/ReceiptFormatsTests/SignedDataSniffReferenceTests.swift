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
    guard ReferenceEscapedNames.mayHoldEscapes(bytes) else { return false }
    return ReferenceEscapedNames.anyEscapedString(in: bytes, maxLength: namesByLength.count - 1) { decoded, _ in
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
  static let purchaseInfoName = Array("\"purchase-info\"".utf8)
  static let receiptDataName = Array("\"receipt-data\"".utf8)
  static let transactionReceiptName = Array("\"transactionReceipt\"".utf8)
  var purchaseInfo = false
  var purchaseInfoColon = false
  var receiptData = false
  var transactionReceipt = false

  static func matches(_ name: [UInt8], _ w: UnsafeBufferPointer<UInt8>, at i: Int) -> Bool {
    guard w.count - i >= name.count else { return false }
    for k in 0..<name.count where w[i + k] != name[k] { return false }
    return true
  }

  init(_ window: ArraySlice<UInt8>) {
    window.withUnsafeBufferPointer { w in
      var next = QuoteScan.next(in: w, from: 0)
      while let i = next {
        next = QuoteScan.next(in: w, from: i + 1)
        guard i + 1 < w.count else { break }
        switch w[i + 1] {
        case UInt8(ascii: "p"):
          if Self.matches(Self.purchaseInfoName, w, at: i) {
            purchaseInfo = true
            let after = i + Self.purchaseInfoName.count
            if after < w.count, w[after] == UInt8(ascii: ":") { purchaseInfoColon = true }
          }
        case UInt8(ascii: "r"):
          if Self.matches(Self.receiptDataName, w, at: i) { receiptData = true }
        case UInt8(ascii: "t"):
          if Self.matches(Self.transactionReceiptName, w, at: i) { transactionReceipt = true }
        default: break
        }
      }
      guard !receiptData, !transactionReceipt, !purchaseInfo, ReferenceEscapedNames.mayHoldEscapes(w) else { return }
      _ = ReferenceEscapedNames.anyEscapedString(in: w, maxLength: Self.transactionReceiptName.count) { name, end in
        let quoted = [UInt8(ascii: "\"")] + name + [UInt8(ascii: "\"")]
        if quoted == Self.receiptDataName { receiptData = true }
        if quoted == Self.transactionReceiptName { transactionReceipt = true }
        if quoted == Self.purchaseInfoName {
          purchaseInfo = true
          if end < w.count, w[end] == UInt8(ascii: ":") { purchaseInfoColon = true }
        }
        return false
      }
    }
  }

  /// Whether `names` found what this found.
  func agrees(with names: AppReceiptInput.QuotedNames) -> Bool {
    names.purchaseInfo == purchaseInfo && names.purchaseInfoColon == purchaseInfoColon
      && names.receiptData == receiptData && names.transactionReceipt == transactionReceipt
  }
}

/// `DocumentSniff.containsKey` as it was before the registry's one walk: a needle compared at every byte, then the
/// strings holding an escape decoded.
enum ReferenceDocumentSniff {
  static func containsKey(_ prefix: ArraySlice<UInt8>, _ key: String) -> Bool {
    let prefix = Array(prefix)
    let needle = Array("\"\(key)\"".utf8)
    if prefix.count >= needle.count {
      for i in 0...(prefix.count - needle.count)
      where prefix[i] == needle[0] && prefix[i..<(i + needle.count)].elementsEqual(needle) {
        var j = i + needle.count
        while j < prefix.count, AppReceiptInput.isSpace(prefix[j]) { j += 1 }
        if j < prefix.count, prefix[j] == UInt8(ascii: ":") { return true }
      }
    }
    let name = Array(key.utf8)
    return prefix.withUnsafeBufferPointer { bytes in
      guard ReferenceEscapedNames.mayHoldEscapes(bytes) else { return false }
      return ReferenceEscapedNames.anyEscapedString(in: bytes, maxLength: name.count) { decoded, end in
        var j = end
        while j < bytes.count, AppReceiptInput.isSpace(bytes[j]) { j += 1 }
        return decoded == name && j < bytes.count && bytes[j] == UInt8(ascii: ":")
      }
    }
  }
}

/// Each standard format's recognition, and the registry's choice, as they were before the one walk: each format
/// read the prefix for itself.
enum ReferenceRegistry {
  static func recognitions(_ sniff: DocumentSniff) -> [Recognition] {
    let signed: Recognition = ReferenceSignedDataSniff.looksLikeSignedData(sniff.prefix) ? .certain : .no
    var app = Recognition.no
    switch ReferenceAppReceiptSniff.sniff(Array(sniff.prefix)) {
    case .der?, .base64?, .legacyTransactionReceipt?: app = .certain
    case .json?:
      let echoes = ["notification_type", "unified_receipt", "latest_receipt_info", "status", "receipt"].contains {
        ReferenceDocumentSniff.containsKey(sniff.prefix, $0)
      }
      if !echoes,
        ["receipt-data", "transactionReceipt"].contains(where: { ReferenceDocumentSniff.containsKey(sniff.prefix, $0) })
      {
        app = .certain
      }
    case nil: break
    }
    let verifyReceipt: Recognition = sniff.firstSignificantByte == UInt8(ascii: "{") ? .possible : .no
    return [signed, app, verifyReceipt]
  }

  /// The name of the format the standard registry chose.
  static func choice(_ sniff: DocumentSniff) -> String {
    let recognitions = Self.recognitions(sniff)
    let formats = FormatRegistry.standard.formats
    if let certain = recognitions.firstIndex(of: .certain) { return formats[certain].name }
    if let possible = recognitions.firstIndex(of: .possible) { return formats[possible].name }
    return FormatRegistry.standard.fallback.name
  }
}

/// The string walk the sniffs made before `QuotedNameSet` walked once for plain and escaped names.
enum ReferenceEscapedNames {
  /// Whether the bytes hold a backslash (only then can a name be spelled with escapes).
  static func mayHoldEscapes(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    bytes.contains(0x5C)
  }

  /// Calls `body` with each string in `bytes` (from a quote to the quote that closes it) that holds an escape,
  /// decoded, and the offset just past its closing quote; stops when `body` returns true, and says whether it did.
  /// Strings longer than `maxLength` decoded bytes, or with a broken escape, are skipped.
  static func anyEscapedString(
    in bytes: UnsafeBufferPointer<UInt8>, maxLength: Int, _ body: ([UInt8], Int) -> Bool
  ) -> Bool {
    var i = 0
    let n = bytes.count
    while i < n {
      guard bytes[i] == UInt8(ascii: "\"") else {
        i += 1
        continue
      }
      var j = i + 1
      var escaped = false
      while j < n, bytes[j] != UInt8(ascii: "\"") {
        if bytes[j] == 0x5C {
          escaped = true
          j += 1
        }
        j += 1
      }
      guard j < n else { return false }
      if escaped, j - i - 1 <= maxLength * 12,
        let decoded = EscapedNames.unescaped(UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j])),
        decoded.count <= maxLength,
        body(decoded, j + 1)
      {
        return true
      }
      i = j + 1
    }
    return false
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
    /// JSON objects the registry gave the app receipt format (request bodies).
    var requestBodies = 0
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
    // Each format's recognition from the registry's one walk, and on its own, and the format the registry chose.
    let expectedRecognitions = ReferenceRegistry.recognitions(sniff)
    let walked = FormatRegistry.standard.withNames(sniff)
    for (format, expected) in zip(FormatRegistry.standard.formats, expectedRecognitions) {
      #expect(format.recognition(of: walked) == expected, "\(format.name): \(note())", sourceLocation: sourceLocation)
      #expect(
        format.recognition(of: sniff) == expected, "\(format.name) alone: \(note())", sourceLocation: sourceLocation)
    }
    #expect(walked.names != nil || sniff.firstSignificantByte != UInt8(ascii: "{"), "the standard registry's names fit")
    let chosen = FormatRegistry.standard.format(for: document).name
    #expect(chosen == ReferenceRegistry.choice(sniff), "chosen: \(note())", sourceLocation: sourceLocation)
    // The same from a sniff that borrows the document's bytes (`decode(contentsOf:)`, no copy of its first bytes).
    document.withUnsafeBufferPointer { buffer in
      let borrowed = DocumentSniff(borrowingPrefixOf: buffer)
      #expect(
        Array(borrowed.prefix) == Array(sniff.prefix), "borrowed prefix: \(note())", sourceLocation: sourceLocation)
      #expect(borrowed.firstSignificantByte == sniff.firstSignificantByte, "borrowed: \(note())")
      let walkedInPlace = FormatRegistry.standard.withNames(borrowed)
      for (format, expected) in zip(FormatRegistry.standard.formats, expectedRecognitions) {
        #expect(
          format.recognition(of: walkedInPlace) == expected, "\(format.name) borrowed: \(note())",
          sourceLocation: sourceLocation)
        #expect(
          format.recognition(of: borrowed) == expected, "\(format.name) borrowed alone: \(note())",
          sourceLocation: sourceLocation)
      }
      #expect(
        FormatRegistry.standard.format(forDocumentAt: buffer).name == chosen, "chosen in place: \(note())",
        sourceLocation: sourceLocation)
      for key in ["receipt-data", "transactionReceipt", "status", "purchase-info"] {
        #expect(
          borrowed.containsKey(key) == ReferenceDocumentSniff.containsKey(sniff.prefix, key),
          "\(key) borrowed: \(note())", sourceLocation: sourceLocation)
      }
    }
    if chosen == "app receipt (PKCS#7)", sniff.firstSignificantByte == UInt8(ascii: "{") { tally.requestBodies += 1 }
    for key in ["receipt-data", "transactionReceipt", "status", "purchase-info"] {
      #expect(
        sniff.containsKey(key) == ReferenceDocumentSniff.containsKey(sniff.prefix, key), "\(key): \(note())",
        sourceLocation: sourceLocation)
    }
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
    let urls = TestPaths.corpusFiles(for: "the signed-data sniff reference test", goldenInputs: false)
    for url in urls { Self.expectSameForFile(url, &tally) }
    #expect(tally.compared > 1_000)
    #expect(tally.signed > 100, "\(tally)")
    #expect(tally.appReceipts > 20, "\(tally)")
  }

  @Test func goldenInputsSniffAsTheReference() throws {
    var tally = Tally()
    let root = TestPaths.packageRoot
    var inputs = Set<String>()
    for folder in TestPaths.regularFiles(under: root.appendingPathComponent("Tests/CLITests")) {
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
      // The app receipt's names: plain ones decide before escaped ones, a colon directly after or past whitespace.
      #"{"purchase-info" = "x"; "purchase-\u0069nfo": 1}"#, #"{"purchase-\u0069nfo" = "x"; "receipt-data": 1}"#,
      #"{"purchase-\u0069nfo": 1, "receipt-data": 1}"#, #"{"receipt-data" : "MIIT"}"#, #"{"receipt-data"x: 1}"#,
      #"{"a": "receipt-data"}"#, #"{"status" :0, "transactionReceipt": "MIIT"}"#,
      #"{"\u0073tatus": 0, "receipt-data": 1}"#,
      #"{"receipt-data": 1, "password": "s", "exclude-old-transactions": true}"#,
      "\u{FEFF}\u{FEFF}{\"receipt-data\": \"MIIT\"}", "\u{FEFF} \u{FEFF}{\"receipt-data\": 1}",
      "\"{\"receipt-data\": 1}", " \n{\"transactionReceipt\"\t:\"MIIT\"}",
    ]
    for document in documents { Self.expectSameAtCuts(Array(document.utf8), document, &tally) }
    // DER: a SEQUENCE of indefinite or long-form length, and bytes that only start like one.
    for second in [0x80, 0x82, 0x84, 0x85, 0x30] as [UInt8] {
      Self.expectSameAtCuts([0x30, second, 0x06, 0x09], "DER 30 \(second)", &tally)
      Self.expectSameAtCuts([0xEF, 0xBB, 0xBF, 0x30, second, 0x06], "DER 30 \(second) after a BOM", &tally)
    }
    #expect(tally.appReceipts > 12, "\(tally)")
    #expect(tally.requestBodies > 6, "\(tally)")
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
    // The app receipt format's names and the verifyReceipt keys it defers to, as keys (a colon, after whitespace
    // or not) and as names, plain and escaped; JWS and base64 text.
    for name in AppReceiptInput.QuotedNames.names + AppReceiptFormat.verifyReceiptKeys {
      let spellings = [name] + EscapedKeyDetectionTests.spellings(name)
      pieces += spellings
      quoted += spellings.flatMap { ["\"\($0)\":", "\"\($0)\" \n:", "\"\($0)\""] }
    }
    pieces += ["eyJhbGciOi", "MIIT", "+/AB", "=="]
    let withQuoted = pieces + quoted
    for round in 0..<1_500 {
      let pieces = round % 2 == 0 ? pieces : withQuoted
      var document: [UInt8] = []
      switch random.next() % 4 {
      case 0: document = Array(" \n".utf8)
      case 1: document = [0xEF, 0xBB, 0xBF]
      default: break
      }
      // Mostly an object; a quoted one, base64, JWS, a second byte order mark or an array now and then.
      let starts = ["\"{", "\"{", "MIIT", "eyJ", "\u{FEFF}{", "[", " \"eyJ"]
      document += Array((random.next() % 4 == 0 ? starts[Int(random.next() % 7)] : "{").utf8)
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
    #expect(tally.requestBodies > 100, "\(tally)")
    #expect(tally.appReceipts > 200, "\(tally)")
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
