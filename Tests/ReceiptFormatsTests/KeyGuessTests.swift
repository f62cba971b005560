import Foundation
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptTestSupport
import Testing

// The key guess lives in the decoder's internal reader (ValueReading.forEachMember, KeyMatcher.readKey).
@testable import ReceiptFormats

/// verifyReceipt keys guessed from the key before and checked by a compare give what scanning and hashing every
/// key gives: the same transactions, warnings and errors, whatever order, spelling or repetition the keys have.
@Suite struct KeyGuessTests {
  /// Read with key guesses and without, the two agree.
  static func expectSameBothWays(
    _ text: String, _ note: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    expectSameWithAndWithout(\.guessesKeys, text, note, sourceLocation: sourceLocation)
  }

  static let shapes: [ReceiptShape] = [
    ReceiptShape(name: "one-chain", transactions: 60),
    ReceiptShape(
      name: "many-chains", transactions: 150, chains: 20, products: 5, shuffled: true, randomIDs: true,
      familySharedPercent: 25),
    ReceiptShape(
      name: "many-upgrades", transactions: 150, chains: 12, products: 12, shuffled: true, familySharedPercent: 25,
      upgradedPercent: 30, refundedPercent: 5, seed: 41),
  ]

  /// Every shape with three seeds, as written and with each row's keys in a shuffled order.
  @Test func shapesReadTheSameWithAndWithoutGuesses() throws {
    for base in Self.shapes {
      for offset in 0..<3 as Range<UInt64> {
        var shape = base
        shape.seed += offset
        let text = shape.verifyReceipt(index: Int(offset))
        Self.expectSameBothWays(text, "\(shape.name) seed \(shape.seed)")
        var rng = SplitMix64(seed: shape.seed)
        Self.expectSameBothWays(try Self.shufflingKeys(text, &rng), "\(shape.name) seed \(shape.seed), keys shuffled")
      }
    }
  }

  /// The text with the keys of every transaction row in a random order.
  static func shufflingKeys(_ text: String, _ rng: inout SplitMix64) throws -> String {
    guard var top = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
      let rows = top["latest_receipt_info"] as? [[String: Any]]
    else { throw CocoaError(.coderReadCorrupt) }
    var out: [String] = []
    for row in rows {
      var members = try row.map { key, value in
        "\(try Self.json(key)):\(try Self.json(value))"
      }
      members.sort()
      for i in stride(from: members.count - 1, to: 0, by: -1) {
        members.swapAt(i, Int(rng.next() % UInt64(i + 1)))
      }
      out.append("{" + members.joined(separator: ",") + "}")
    }
    top["latest_receipt_info"] = nil
    let rest = String(decoding: try JSONSerialization.data(withJSONObject: top, options: [.sortedKeys]), as: UTF8.self)
    return String(rest.dropLast()) + #","latest_receipt_info":["# + out.joined(separator: ",") + "]}"
  }

  static func json(_ value: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]), as: UTF8.self)
  }

  /// Rows whose keys differ from a guess by one byte, are escaped, repeated, longer or shorter, or cut off.
  @Test func oddKeysReadTheSameWithAndWithoutGuesses() {
    let row =
      #"{"quantity":"1","product_id":"com.example.pro.monthly","transaction_id":"1000000000000000","#
      + #""original_transaction_id":"1000000000000000","purchase_date":"2024-01-01 00:00:00 Etc/GMT","#
      + #""purchase_date_ms":"1704067200000","purchase_date_pst":"2024-01-01 00:00:00 America/Los_Angeles","#
      + #""expires_date_ms":"1706659200000","in_app_ownership_type":"PURCHASED"}"#
    func document(_ second: String) -> String {
      let first = row.replacingOccurrences(of: "1000000000000000", with: "7")
      return #"{"status":0,"receipt":{"bundle_id":"a","in_app":[]},"latest_receipt_info":["#
        + [first, row, second].joined(separator: ",") + "]}"
    }
    let variants: [(String, String)] = [
      ("as written", row),
      ("escaped key", row.replacingOccurrences(of: #""product_id""#, with: #""product\u005fid""#)),
      ("escaped repeat", String(row.dropLast()) + #","product\u005fid":"x"}"#),
      ("repeated key", String(row.dropLast()) + #","quantity":"2"}"#),
      ("repeated skipped key", String(row.dropLast()) + #","purchase_date_pst":"x"}"#),
      ("longer key", row.replacingOccurrences(of: #""product_id""#, with: #""product_idx""#)),
      ("shorter key", row.replacingOccurrences(of: #""product_id""#, with: #""product_i""#)),
      ("key one byte off", row.replacingOccurrences(of: #""transaction_id""#, with: #""transaction_ie""#)),
      ("no colon", row.replacingOccurrences(of: #""product_id":"#, with: #""product_id" "#)),
      ("spaces around the colon", row.replacingOccurrences(of: #""product_id":"#, with: "\"product_id\" \n :\t")),
      ("non-ASCII key", row.replacingOccurrences(of: #""quantity""#, with: "\"quäntity\"")),
      ("key with a quote", row.replacingOccurrences(of: #""quantity""#, with: #""quan\"tity""#)),
      ("cut in a key", String(row.prefix(40))),
      ("empty key", String(row.dropLast()) + #","":"1"}"#),
      ("no product", row.replacingOccurrences(of: #""product_id""#, with: #""product_ids""#)),
    ]
    for (note, second) in variants {
      Self.expectSameBothWays(document(second), note)
      // A document's first row is guessed from Apple's order (`appleRowOrder`), before any row is read.
      Self.expectSameBothWays(#"{"status":0,"latest_receipt_info":["# + second + "]}", "\(note), first row")
    }
    // Receipt keys, top-level keys and pending renewals go through the same member loop.
    Self.expectSameBothWays(#"{"status":0,"status":1}"#, "repeated top-level key")
    Self.expectSameBothWays(#"{"status":0,"receipt":{"bundle_id":"a","bundle_id":"b"}}"#, "repeated receipt key")
    Self.expectSameBothWays(
      #"{"status":0,"pending_renewal_info":[{"product_id":"a"},{"product_id":"a","product_id":"b"}]}"#,
      "repeated renewal key")
  }

  /// A document's top level and its `receipt` object are guessed from Apple's order before anything is read
  /// (`appleTopOrder`, `appleReceiptOrder`): in that order, in the order receipt-tool's own bodies use, shuffled,
  /// with keys receipt-tool does not read among them, repeated, as a bare receipt or a notification, and cut off,
  /// they read as with every key scanned.
  @Test func topLevelAndReceiptKeysReadTheSameWithAndWithoutGuesses() {
    let row = #"{"quantity":"1","product_id":"p","transaction_id":"1","purchase_date_ms":"1704067200000"}"#
    let apple: [(String, String)] = [
      ("receipt_type", #""Production""#), ("adam_id", "0"), ("bundle_id", #""com.example.app""#),
      ("application_version", #""42""#), ("receipt_creation_date", #""2024-01-01 00:00:00 Etc/GMT""#),
      ("receipt_creation_date_ms", #""1704067200000""#),
      ("receipt_creation_date_pst", #""2023-12-31 16:00:00 America/Los_Angeles""#),
      ("request_date", #""2024-01-02 00:00:00 Etc/GMT""#), ("request_date_ms", #""1704153600000""#),
      ("original_purchase_date", #""2013-08-01 07:00:00 Etc/GMT""#), ("original_purchase_date_ms", #""1375340400000""#),
      ("original_application_version", #""1.0""#), ("in_app", "[\(row)]"),
    ]
    let ownOrder = [
      "receipt_type", "bundle_id", "application_version", "original_application_version", "request_date_ms",
      "request_date", "in_app",
    ]
    func object(_ members: [(String, String)]) -> String {
      "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
    func document(_ receipt: [(String, String)], top: [String] = []) -> String {
      let members: [(String, String)] = [
        ("status", "0"), ("environment", #""Production""#), ("receipt", object(receipt)),
        ("latest_receipt_info", "[\(row)]"), ("latest_receipt", #""MIIT""#),
        ("pending_renewal_info", #"[{"product_id":"p","auto_renew_status":"1"}]"#),
      ]
      let ordered = top.isEmpty ? members : top.compactMap { name in members.first { $0.0 == name } }
      return object(ordered)
    }
    let own = ownOrder.compactMap { name in apple.first { $0.0 == name } }
    var documents: [(String, String)] = [
      ("Apple's order", document(apple)),
      ("receipt-tool's own order", document(own)),
      (
        "status last",
        document(
          apple,
          top: [
            "environment", "receipt", "latest_receipt_info", "latest_receipt",
            "pending_renewal_info", "status",
          ])
      ),
      ("a repeated receipt key", document(apple + [("bundle_id", #""b""#)])),
      ("a repeated top-level key", String(document(own).dropLast()) + #","environment":"Sandbox"}"#),
      ("a bare receipt", object(apple)),
      (
        "a notification",
        object([
          ("notification_type", #""DID_RENEW""#), ("environment", #""PROD""#), ("bid", #""com.example.app""#),
          ("unified_receipt", object([("status", "0"), ("latest_receipt_info", "[\(row)]")])),
        ])
      ),
    ]
    var rng = SplitMix64(seed: 42)
    for round in 0..<20 {
      documents.append(("receipt keys shuffled \(round)", document(apple.shuffled(using: &rng))))
      documents.append(
        (
          "top-level keys shuffled \(round)",
          document(
            own,
            top: [
              "status", "environment", "receipt", "latest_receipt_info", "latest_receipt", "pending_renewal_info",
            ].shuffled(using: &rng))
        ))
    }
    for (note, text) in documents {
      Self.expectSameBothWays(text, note)
      for cut in stride(from: 1, to: text.utf8.count, by: 37) {
        Self.expectSameBothWays(String(decoding: text.utf8.prefix(cut), as: UTF8.self), "\(note), cut at \(cut)")
      }
    }
  }

  /// Every example and peer fixture in verifyReceipt's format.
  @Test func examplesReadTheSameWithAndWithoutGuesses() throws {
    var read = 0
    for url in TestPaths.exampleAndPeerFixtureFiles(for: "the key-guess comparison") where url.pathExtension == "json" {
      let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
      guard text.contains("\"status\"") || text.contains("\"in_app\"") else { continue }
      Self.expectSameBothWays(text, url.lastPathComponent)
      read += 1
    }
    #expect(read > 5)
  }

  /// `in_app_ownership_type` compared in place reads as its text did: Apple's two values (escaped or not), and
  /// anything else kept as received with a warning.
  @Test func ownershipComparedInPlaceReadsAsItsText() throws {
    let cases: [(String, Ownership, Bool, Bool)] = [
      (#""PURCHASED""#, .purchased, false, false),
      (#""FAMILY_SHARED""#, .familyShared, false, false),
      (#""PURCHASE\u0044""#, .purchased, false, false),
      (#""FAMILY\u005fSHARED""#, .familyShared, false, false),
      (#""""#, .purchased, true, false),
      ("null", .purchased, true, false),
      (#""FAMILY""#, .unrecognized("FAMILY"), false, true),
      (#""purchased""#, .unrecognized("purchased"), false, true),
      ("5", .unrecognized("5"), false, true),
    ]
    for (value, ownership, assumed, warned) in cases {
      let text =
        #"{"status":0,"latest_receipt_info":[{"transaction_id":"1","product_id":"p","in_app_ownership_type":"#
        + value + "}]}"
      let history = try JSONReader.withReader(Array(text.utf8)) { reader in
        var reading = ValueReading(reader: reader, source: "doc.json")
        return try reading.decodeDocument()
      }
      #expect(history.transactions.first?.ownership == ownership, "\(value)")
      #expect(history.transactions.first?.ownershipAssumed == assumed, "\(value)")
      #expect(history.warnings.contains { $0.path == "latest_receipt_info[0].in_app_ownership_type" } == warned)
    }
  }

  /// The guess itself (`KeyMatcher.readKey`): at a key that is the guessed name it steps past the key, so that the
  /// `:` and the value read as after a scanned key; at any other key (another name, one byte off, longer, shorter,
  /// escaped, cut off), for a name out of range or one holding a quote, it answers no and moves nothing. So the
  /// guesses the tests above compare are taken where they should be, not all missed.
  @Test func readKeyStepsOverExactlyTheGuessedName() throws {
    let names = ["transaction_id", "product_id", "expires_date_ms", "a", "purchase_date_pst", "quantity", "q\"uote"]
    let matcher = KeyMatcher(names)
    /// Whether `guess` is read at the key written `key`, and then the member's value (nil on a miss).
    func attempt(_ key: String, _ guess: Int) throws -> (hit: Bool, value: JSONValue?) {
      try JSONReader.withReader(Array("{\(key):7}".utf8)) { reader in
        try reader.beginObject()
        guard try reader.beginKey() else { return (false, nil) }
        let at = reader.offset
        guard matcher.readKey(guess, from: &reader) else {
          #expect(reader.offset == at, "a miss moves nothing: \(key) as \(guess)")
          return (false, nil)
        }
        try reader.endKey()
        return (true, try reader.readValue())
      }
    }
    for (i, name) in names.enumerated() {
      let written = String(
        decoding: try JSONSerialization.data(withJSONObject: name, options: [.fragmentsAllowed]), as: UTF8.self)
      let guessable = !name.contains("\"")
      let exact = try attempt(written, i)
      #expect(exact.hit == guessable, "\(name)")
      if guessable { #expect(exact.value == .number("7"), "\(name)") }
      for j in [-1, names.count, 63, 255] + names.indices.filter({ $0 != i }) {
        #expect(try !attempt(written, j).hit, "\(name) as \(j)")
      }
      guard guessable else { continue }
      let bytes = Array(name.utf8)
      var changed = bytes
      changed[changed.count - 1] ^= 0x01
      let escaped = "\\u00" + String(bytes[0], radix: 16) + String(decoding: bytes.dropFirst(), as: UTF8.self)
      let misses =
        [
          String(decoding: changed, as: UTF8.self), name + "x", String(name.dropLast()), escaped,
        ].map { "\"\($0)\"" } + ["\"" + name]
      for miss in misses {
        #expect(try !attempt(miss, i).hit, "\(miss) as \(name)")
      }
    }
  }

  /// The guess with its comma and colon (`KeyMatcher.readMember`, the usual case): after `{` or after a value, at a
  /// member whose key is the guessed name written with no whitespace, it steps past the `:` (the value then reads
  /// as after `beginKey`, the key and `endKey`) and gives where the key's quote is; at anything else (whitespace
  /// anywhere, another name, one byte off, longer, shorter, escaped, no colon, the object's end, cut off) and for
  /// a name out of range or holding a quote it answers nil and moves nothing, so the general path reads it.
  @Test func readMemberStepsOverExactlyTheGuessedMember() throws {
    let names = ["transaction_id", "product_id", "expires_date_ms", "a", "purchase_date_pst", "quantity", "q\"uote"]
    let matcher = KeyMatcher(names)
    /// Whether `guess` is read at the second member of `{"x":1<between>7}`, or at the first of `{<between>7}`, and
    /// then where the key was said to start and the member's value (nil on a miss).
    func attempt(_ between: String, _ guess: Int, first: Bool) throws -> (at: Int?, value: JSONValue?) {
      let text = first ? "{\(between)7}" : "{\"x\":1\(between)7}"
      return try JSONReader.withReader(Array(text.utf8)) { reader in
        try reader.beginObject()
        if !first {
          guard try reader.beginKey() else { return (nil, nil) }
          _ = try reader.scanString()
          try reader.endKey()
          _ = try reader.readValue()
        }
        let before = reader.offset
        guard let at = matcher.readMember(guess, from: &reader) else {
          #expect(reader.offset == before, "a miss moves nothing: \(between) as \(guess)")
          return (nil, nil)
        }
        return (at, try reader.readValue())
      }
    }
    for first in [true, false] {
      let comma = first ? "" : ","
      let quoteAt = first ? 1 : 7
      for (i, name) in names.enumerated() {
        let written = String(
          decoding: try JSONSerialization.data(withJSONObject: name, options: [.fragmentsAllowed]), as: UTF8.self)
        let guessable = !name.contains("\"")
        let exact = try attempt(comma + written + ":", i, first: first)
        #expect((exact.at != nil) == guessable, "\(name)")
        if guessable {
          #expect(exact.at == quoteAt, "\(name)")
          #expect(exact.value == .number("7"), "\(name)")
        }
        for j in [-1, names.count, 63, 255] + names.indices.filter({ $0 != i }) {
          #expect(try attempt(comma + written + ":", j, first: first).at == nil, "\(name) as \(j)")
        }
        guard guessable else { continue }
        let bytes = Array(name.utf8)
        var changed = bytes
        changed[changed.count - 1] ^= 0x01
        let escaped = "\\u00" + String(bytes[0], radix: 16) + String(decoding: bytes.dropFirst(), as: UTF8.self)
        let misses =
          [String(decoding: changed, as: UTF8.self), name + "x", String(name.dropLast()), escaped].map {
            comma + "\"\($0)\":"
          } + [
            comma + " " + written + ":", comma + written + " :", comma + written + "\n:", comma + written,
            comma + written + ";", " " + comma + written + ":", comma + "\t" + written + ":",
          ]
        for miss in misses {
          #expect(try attempt(miss, i, first: first).at == nil, "\(miss) as \(name)")
        }
        // Cut off inside the member: nothing to step over.
        let cut = Array(("{" + written + ":").utf8.dropLast())
        #expect(
          try JSONReader.withReader(cut) { reader in
            try reader.beginObject()
            return matcher.readMember(i, from: &reader)
          } == nil, "\(name) cut off")
        // A comma where a first member stands, or none before a later one, is refused too.
        #expect(try attempt((first ? "," : "") + written + ":", i, first: first).at == nil, "\(name) comma")
      }
    }
  }
}
