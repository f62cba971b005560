import Foundation
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Hostile and unusual inputs: each ends in a decode or a one-line positioned error, never a crash.
@Suite struct AppReceiptRobustnessTests {
  static func fixture(_ name: String) -> [UInt8]? { TestPaths.peerFixture(name) }

  static func der(_ name: String) throws -> [UInt8]? {
    guard let bytes = fixture(name) else { return nil }
    return try AppReceiptInput.recognise(bytes).der
  }

  static func expectOneLine(_ error: AppReceiptError, _ label: String) {
    #expect(!error.description.contains("\n") && !error.message.isEmpty, "\(label): \(error.description)")
    #expect(error.description.hasPrefix("byte "), "\(label): \(error.description)")
  }

  @Test func notAReceiptFailsWithOneLine() throws {
    guard let bytes = Self.fixture("IdeasOnCanvas__AppReceiptValidator/not_a_receipt") else {
      TestPaths.noteSharedMissing("not_a_receipt")
      return
    }
    #expect(AppReceiptInput.sniff(bytes) == nil)
    let error = try #require(throws: AppReceiptError.self) { try AppReceiptReader.read(bytes) }
    #expect(error.kind == .notAReceipt)
    #expect(error.description.contains("not an app receipt"), "\(error.description)")
    Self.expectOneLine(error, "not_a_receipt")
  }

  @Test(arguments: [
    "nomad__venice/receipt", "IdeasOnCanvas__AppReceiptValidator/deprecatedSinglesTypeExpiredAppleCert_receipt.b64",
    "apple__app-store-server-library-swift/legacyTransaction",
  ])
  func iOS6TransactionReceiptsAreNamed(_ name: String) throws {
    guard let bytes = Self.fixture(name) else {
      TestPaths.noteSharedMissing("iOS 6 receipts")
      return
    }
    #expect(AppReceiptInput.sniff(bytes) == .legacyTransactionReceipt)
    let error = try #require(throws: AppReceiptError.self) { try AppReceiptReader.read(bytes) }
    #expect(error.kind == .legacyTransactionReceipt)
    #expect(error.description.contains("iOS 6 transaction receipt"))
    #expect(!error.description.contains("unexpected character"))
    // Also the plist text itself, and wrapped in a request body.
    let plist = try Base64Text.decode(bytes, path: [])
    #expect(throws: AppReceiptError.self) { try AppReceiptReader.read(plist) }
    #expect((try? AppReceiptReader.read(plist)) == nil)
    do {
      _ = try AppReceiptReader.read(plist)
    } catch {
      #expect(error.kind == .legacyTransactionReceipt)
    }
    let body = Array("{\"receipt-data\": \"\(String(decoding: bytes, as: UTF8.self))\"}".utf8)
    do {
      _ = try AppReceiptReader.read(body)
      Issue.record("an iOS 6 receipt in a request body decoded")
    } catch {
      #expect(error.kind == .legacyTransactionReceipt)
    }
  }

  @Test func everyPrefixFails() throws {
    for name in [
      "Cocoanetics__Kvitto/sandboxReceipt", "apple__app-store-server-library-swift/xcode-app-receipt-with-transaction",
    ] {
      guard let der = try Self.der(name) else {
        TestPaths.noteSharedMissing("prefix test")
        return
      }
      #expect(throws: Never.self) { try AppReceiptPayloadDecoder.decode(der: der) }
      for n in 0..<der.count {
        do {
          _ = try AppReceiptPayloadDecoder.decode(der: Array(der[..<n]))
          Issue.record("\(name): prefix of \(n) bytes decoded")
        } catch {
          #expect(error.offset >= 0 && error.offset <= n, "\(name) prefix \(n): \(error.description)")
          if n % 997 == 0 { Self.expectOneLine(error, "\(name) prefix \(n)") }
        }
      }
      // Trailing bytes are refused too, not ignored.
      #expect(throws: AppReceiptError.self) { try AppReceiptPayloadDecoder.decode(der: der + [0]) }
    }
    // Prefixes of the base64 text: an error or (when the cut falls after the DER) a decode, never a crash.
    if let text = Self.fixture("tikhop__TPInAppReceipt/receipt-xcode") {
      for n in stride(from: 0, to: text.count, by: 7) { _ = try? AppReceiptReader.read(Array(text[..<n])) }
    }
  }

  @Test func bitFlipsNeverCrash() throws {
    for name in [
      "RevenueCat__purchases-ios/base64encodedreceiptsample1.txt", "Cocoanetics__Kvitto/storeKitTestReceipt",
    ] {
      guard let der = try Self.der(name) else {
        TestPaths.noteSharedMissing("bit flips")
        return
      }
      var state: UInt64 = 0x9E37_79B9_7F4A_7C15
      var outcomes = (decoded: 0, failed: 0)
      for _ in 0..<300 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        var mutated = der
        let index = Int((state >> 33) % UInt64(der.count))
        mutated[index] ^= UInt8(1 << ((state >> 20) % 8))
        do {
          _ = try AppReceiptPayloadDecoder.decode(der: mutated)
          outcomes.decoded += 1
        } catch {
          Self.expectOneLine(error, "\(name) flip at \(index)")
          outcomes.failed += 1
        }
      }
      #expect(outcomes.decoded + outcomes.failed == 300)
      #expect(outcomes.failed > 0, "\(name): no flip was noticed")
    }
  }

  /// A bad date names its full path, and the offset points at the value's OCTET STRING in the input,
  /// also through the BER constructed OCTET STRING of Xcode receipts.
  @Test(arguments: [
    ("Cocoanetics__Kvitto/sandboxReceipt", "2015-05-23T12:18:02Z"),
    ("apple__app-store-server-library-swift/xcode-app-receipt-with-transaction", "2023-10-19T01:45:36Z"),
  ])
  func badDateNamesThePath(_ name: String, _ date: String) throws {
    guard var der = try Self.der(name) else {
      TestPaths.noteSharedMissing("bad date")
      return
    }
    let needle = Array(date.utf8)
    let at = try #require(
      (0...(der.count - needle.count)).first { der[$0..<($0 + needle.count)].elementsEqual(needle) })
    der[at + 5] = UInt8(ascii: "1")
    der[at + 6] = UInt8(ascii: "3")  // month 13
    let error = try #require(throws: AppReceiptError.self) { try AppReceiptPayloadDecoder.decode(der: der) }
    #expect(error.kind == .badValue)
    #expect(error.path.prefix(3) == ["content", "SET", "attribute 17"], "\(error.description)")
    #expect(error.path.count == 5 && error.path[3].hasPrefix("in-app ") && error.path[4] == "type 1704")
    #expect(error.description.contains("(content > SET > attribute 17 > in-app "))
    #expect(error.description.contains("-13-"))
    #expect(der[error.offset] == DERTag.octetString, "\(error.description)")
    #expect(error.offset < at && at - error.offset <= 4)
  }

  @Test func emptyDateMeansAbsentAndXcodeHasNoOriginalTransaction() throws {
    guard let payload = try Self.der("Cocoanetics__Kvitto/storeKitTestReceipt").map(AppReceiptPayloadDecoder.decode)
    else {
      TestPaths.noteSharedMissing("storeKitTestReceipt")
      return
    }
    #expect(payload.transactionDate == nil)  // type 8 holds "" in Xcode receipts
    #expect(payload.originalAppVersion == nil)
    #expect(payload.inAppPurchases.first?.originalTransactionID == nil)
    #expect(payload.inAppPurchases.first?.webOrderLineItemID == nil)
  }

  @Test func inputForms() throws {
    guard let text = Self.fixture("tikhop__TPInAppReceipt/receipt-xcode") else {
      TestPaths.noteSharedMissing("input forms")
      return
    }
    let expected = try AppReceiptReader.read(text).payload
    let oneLine = String(decoding: text, as: UTF8.self).filter { !$0.isWhitespace }
    // Line breaks every 64 and 76 characters, CRLF, and surrounding blanks.
    for (width, newline) in [(64, "\n"), (76, "\r\n")] {
      var wrapped = "  "
      for (i, c) in oneLine.enumerated() {
        if i > 0, i % width == 0 { wrapped += newline }
        wrapped.append(c)
      }
      wrapped += "\n\n"
      let document = try AppReceiptReader.read(Array(wrapped.utf8))
      #expect(document.form == .base64 && document.payload == expected)
    }
    #expect(AppReceiptInput.sniff(Array(oneLine.utf8)) == .base64)

    let request = "{\"receipt-data\":\"\(oneLine)\",\"password\":\"s3cr3t-shared\",\"exclude-old-transactions\":true}"
    #expect(AppReceiptInput.sniff(Array(request.utf8)) == .json)
    let document = try AppReceiptReader.read(Array(request.utf8))
    #expect(document.form == .verifyReceiptRequest(passwordPresent: true, excludeOldTransactions: true))
    #expect(document.payload == expected)
    #expect(!String(describing: document).contains("s3cr3t"))

    let bare = try AppReceiptReader.read(Array("{\"receipt-data\":\"\(oneLine)\"}".utf8))
    #expect(bare.form == .verifyReceiptRequest(passwordPresent: false, excludeOldTransactions: nil))

    let der = try Base64Text.decode(text, path: [])
    #expect(AppReceiptInput.sniff(der) == .der)
    #expect(try AppReceiptReader.read(der).form == .der)
  }

  @Test(arguments: [
    ("", AppReceiptError.Kind.notAReceipt),
    ("   \n", .notAReceipt),
    ("{\"status\": 0}", .notAReceipt),
    ("{\"receipt-data\": 12}", .badValue),
    ("{\"receipt-data\": \"MIIB!x\"}", .malformed),
    ("{\"receipt-data\": \"MIIB\", \"exclude-old-transactions\": \"yes\"}", .badValue),
    ("MIIBx", .malformed),
    ("MII=B", .malformed),
    ("\u{1}\u{2}", .notAReceipt),
    ("[1, 2]", .notAReceipt),
    ("{not json", .notAReceipt),
  ])
  func badInputsFailWithTheirKind(_ text: String, _ kind: AppReceiptError.Kind) throws {
    let error = try #require(throws: AppReceiptError.self) { try AppReceiptReader.read(Array(text.utf8)) }
    #expect(error.kind == kind, "\(text): \(error.description)")
    Self.expectOneLine(error, text)
  }

  @Test func hostileStructures() throws {
    // Indefinite lengths nested past the limit.
    let deep = Array(repeating: [UInt8]([0x30, 0x80]), count: 5000).flatMap { $0 }
    let error = try #require(throws: AppReceiptError.self) { try AppReceiptPayloadDecoder.decode(der: deep) }
    #expect(error.message.contains("nesting") || error.message.contains("truncated"), "\(error.description)")
    // A length that claims more than remains, a five-octet length, a high tag number, a primitive indefinite.
    for bytes: [UInt8] in [
      [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF], [0x30, 0x85, 1, 1, 1, 1, 1], [0x3F, 0x01, 0x00], [0x04, 0x80],
    ] {
      let e = try #require(throws: AppReceiptError.self) { try AppReceiptPayloadDecoder.decode(der: bytes) }
      Self.expectOneLine(e, "\(bytes)")
    }
    // The payload must be definite DER: an indefinite SET inside the content is refused.
    var reader = DERReader([0x31, 0x80, 0x00, 0x00])
    #expect(throws: AppReceiptError.self) { _ = try reader.next() }
    var allowed = DERReader([0x31, 0x80, 0x02, 0x01, 0x05, 0x00, 0x00])
    let element = try #require(try allowed.next(allowIndefinite: true))
    #expect(element.contentStart == 2 && element.contentEnd == 5 && element.end == 7 && allowed.isAtEnd)
  }

  @Test func integersAreBoundedAndSigned() throws {
    func value(_ bytes: [UInt8]) throws -> Int64 {
      var r = DERReader(bytes)
      let e = try #require(try r.next())
      return try r.integer(e)
    }
    #expect(try value([0x02, 0x01, 0x7F]) == 127)
    #expect(try value([0x02, 0x02, 0x00, 0x80]) == 128)
    #expect(try value([0x02, 0x01, 0xFF]) == -1)
    #expect(try value([0x02, 0x09, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == Int64.max)
    #expect(throws: AppReceiptError.self) { try value([0x02, 0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]) }
    #expect(throws: AppReceiptError.self) { try value([0x02, 0x00]) }
  }

  /// The 105 KB receipt (187 purchases) decodes quickly; the figure is printed for the report.
  @Test func largeReceiptIsFast() throws {
    guard let bytes = Self.fixture("tikhop__TPInAppReceipt/receipt-sandbox-legacy") else {
      TestPaths.noteSharedMissing("large receipt timing")
      return
    }
    let clock = ContinuousClock()
    var best = Duration.seconds(100)
    for _ in 0..<5 {
      let start = clock.now
      let document = try AppReceiptReader.read(bytes)
      best = min(best, clock.now - start)
      #expect(document.payload.inAppPurchases.count == 187)
    }
    print("app receipt: 105 KB base64, 187 purchases, best of 5: \(best)")
    #expect(best < .seconds(1))
  }

  /// The fuzz entry point holds its properties on every fixture, its DER, its payload and truncations.
  @Test func fuzzPropertiesHoldOnFixtures() throws {
    let names = [
      "RevenueCat__purchases-ios/base64encodedreceiptsample1.txt", "Cocoanetics__Kvitto/storeKitTestReceipt",
      "nomad__venice/receipt", "IdeasOnCanvas__AppReceiptValidator/not_a_receipt",
      "imdhemy__laravel-in-app-purchases/iOS-receipt.json",
    ]
    for name in names {
      guard let bytes = Self.fixture(name) else {
        TestPaths.noteSharedMissing("fuzz properties")
        return
      }
      #expect(AppReceiptFuzzing.fuzz(bytes).isEmpty, "\(name)")
      if let der = try? AppReceiptInput.recognise(bytes).der {
        #expect(AppReceiptFuzzing.fuzz(der).isEmpty, "\(name) DER")
        #expect(AppReceiptFuzzing.fuzz(Array(der.prefix(der.count / 2))).isEmpty, "\(name) half")
        let envelope = try PKCS7Envelope.read(der)
        #expect(AppReceiptFuzzing.fuzz(envelope.content).isEmpty, "\(name) payload")
      }
    }
  }

  /// Inputs kept from fuzzing runs: `app-receipt-*` in Tests/Fuzz/Regressions.
  @Test func fuzzRegressionsReplay() throws {
    let directory = TestPaths.packageRoot.appendingPathComponent("Tests/Fuzz/Regressions")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    for file in files where file.hasPrefix("app-receipt-") {
      let bytes = Array(try Data(contentsOf: directory.appendingPathComponent(file)))
      #expect(AppReceiptFuzzing.fuzz(bytes).isEmpty, "\(file)")
    }
  }
}
