import Foundation
import ReceiptModel
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Format detection decides on keys as JSON reads them: a key spelled with escapes (`"\u0073ignedPayload"`) is
/// the same key, so the document goes to the same format, and reads the same, as its plain spelling does.
@Suite struct EscapedKeyDetectionTests {
  /// `key` with its first letter, or every letter, written as a `\uXXXX` escape (upper- or lowercase hex).
  static func spellings(_ key: String) -> [String] {
    let scalars = Array(key.unicodeScalars)
    func escape(_ s: Unicode.Scalar, upper: Bool) -> String {
      let hex = String(s.value, radix: 16, uppercase: upper)
      return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
    let first = escape(scalars[0], upper: false) + String(String.UnicodeScalarView(scalars.dropFirst()))
    let all = scalars.map { escape($0, upper: true) }.joined()
    let last = String(String.UnicodeScalarView(scalars.dropLast())) + escape(scalars[scalars.count - 1], upper: true)
    return [first, all, last]
  }

  @Test func everySignedDataKeyIsFoundSpelledWithEscapes() {
    let keys = [
      "signedPayload", "signedTransactions", "signedTransactionInfo", "signedRenewalInfo", "lastTransactions",
      "notificationType", "notificationUUID", "transactionId", "originalTransactionId", "autoRenewStatus",
      "autoRenewProductId", "receiptType", "inAppOwnershipType", "signedDate", "bundleId",
    ]
    for key in keys {
      let plain = Array(#"{"\#(key)": 1}"#.utf8)
      #expect(SignedDataDecoder.looksLikeSignedData(plain), "\(key)")
      #expect(FormatRegistry.standard.format(for: plain).name == "StoreKit 2 signed data")
      for spelling in Self.spellings(key) {
        let escaped = Array(#"{"other": "a \"quoted\" \\ value", "\#(spelling)": 1}"#.utf8)
        #expect(SignedDataDecoder.looksLikeSignedData(escaped), "\(spelling)")
        #expect(FormatRegistry.standard.format(for: escaped).name == "StoreKit 2 signed data", "\(spelling)")
      }
    }
    // A string value that decodes to a key is still found (the plain pass does not look at keys alone either),
    // and escapes that decode to something else are not.
    #expect(!SignedDataDecoder.looksLikeSignedData(Array(#"{"\u0073tatus": 0, "a\nb": "\u00e9"}"#.utf8)))
    #expect(!SignedDataDecoder.looksLikeSignedData(Array(#"{"signedPayloa\u0064x": 1}"#.utf8)))
    #expect(!SignedDataDecoder.looksLikeSignedData(Array(#"{"\u00": 1, "\ud800": 2}"#.utf8)))
  }

  @Test func theAppReceiptRequestKeysAreFoundSpelledWithEscapes() {
    let base64 = "MIIT" + String(repeating: "A", count: 40)
    for key in ["receipt-data", "transactionReceipt"] {
      for spelling in Self.spellings(key) {
        let escaped = Array(#"{"\#(spelling)": "\#(base64)"}"#.utf8)
        #expect(DocumentSniff(escaped).containsKey(key), "\(spelling)")
        #expect(FormatRegistry.standard.format(for: escaped).name == "app receipt (PKCS#7)", "\(spelling)")
      }
      // Not a key: no colon after it.
      #expect(!DocumentSniff(Array(#"{"a": ["\#(Self.spellings(key)[0])"]}"#.utf8)).containsKey(key))
    }
    // A verifyReceipt key spelled with escapes keeps a body that echoes receipt-data verifyReceipt JSON.
    let echoed = Array(#"{"\u0073tatus": 0, "receipt-data": "\#(base64)"}"#.utf8)
    #expect(FormatRegistry.standard.format(for: echoed).name == "verifyReceipt JSON")
  }

  /// A real notification whose `signedPayload` key is spelled with an escape reads as the plain one does.
  @Test func anEscapedNotificationReadsAsThePlainOne() throws {
    let url = TestPaths.packageRoot.appendingPathComponent("examples/storekit2/family-revoke-notification-v2.json")
    let plain = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    let escaped = plain.replacingOccurrences(of: #""signedPayload""#, with: #""\u0073ignedPayload""#)
    #expect(escaped != plain)
    let a = try FormatRegistry.standard.decode(Array(plain.utf8), source: "t")
    let b = try FormatRegistry.standard.decode(Array(escaped.utf8), source: "t")
    #expect(b.provenance.format == a.provenance.format)
    #expect(b.transactions == a.transactions)
    #expect(!a.transactions.isEmpty)
  }
}
