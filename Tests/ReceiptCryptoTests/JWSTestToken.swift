import Foundation
import ReceiptCrypto

/// A compact JWS split for the verifier, as the formats layer will split it (a small local reader, so the
/// crypto tests depend on nothing but ReceiptCrypto).
struct JWSTestToken {
  var signingInput: [UInt8]
  var signature: [UInt8]
  var algorithm: String?
  var x5c: [String]?
  var header: [String: Any]
  var payload: [String: Any]

  init?(_ text: String) {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let h = Self.base64URL(parts[0]), let p = Self.base64URL(parts[1]),
      let s = Self.base64URL(parts[2]),
      let header = (try? JSONSerialization.jsonObject(with: Data(h))) as? [String: Any]
    else { return nil }
    signingInput = Array("\(parts[0]).\(parts[1])".utf8)
    signature = s
    self.header = header
    payload = ((try? JSONSerialization.jsonObject(with: Data(p))) as? [String: Any]) ?? [:]
    algorithm = header["alg"] as? String
    x5c = header["x5c"] as? [String]
  }

  /// The payload's `signedDate` (ms since 1970), if any.
  var signedDate: Int64? { (payload["signedDate"] as? NSNumber)?.int64Value }

  func moment(_ fallbackNow: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) -> VerificationMoment {
    if let signedDate { return VerificationMoment(millisecondsSince1970: signedDate, source: .signedDate) }
    return VerificationMoment(millisecondsSince1970: fallbackNow, source: .now)
  }

  func verify(
    with verifier: inout AppleSignatureVerifier, at moment: VerificationMoment? = nil
  ) -> SignatureVerdict {
    verifier.verifyJWS(
      signingInput: signingInput, signature: signature, algorithm: algorithm, x5c: x5c, at: moment ?? self.moment())
  }

  static func base64URL(_ s: Substring) -> [UInt8]? {
    var t = s.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while t.count % 4 != 0 { t += "=" }
    return Data(base64Encoded: t).map { Array($0) }
  }

  static func base64URLEncode(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }
}

/// Shared data read by the crypto tests.
enum CryptoTestData {
  static func file(_ url: URL) -> [UInt8]? { (try? Data(contentsOf: url)).map { Array($0) } }

  /// A file under ../shared/reference/signatures, or nil (with a printed note) where ../shared is absent.
  static func signatures(_ path: String, _ what: String) -> [UInt8]? {
    guard let root = CryptoTestPaths.signatures else {
      CryptoTestPaths.noteSharedMissing(what)
      return nil
    }
    return file(root.appendingPathComponent(path))
  }

  /// A token under ../shared/reference/signatures/jws.
  static func token(_ name: String) -> JWSTestToken? {
    signatures("jws/\(name)", "Apple's library JWS \(name)").flatMap {
      JWSTestToken(String(decoding: $0, as: UTF8.self))
    }
  }

  /// The real Apple Notification V2 from ../shared/peer-fixtures.
  static var aporatNotification: JWSTestToken? {
    guard let root = CryptoTestPaths.signatures else {
      CryptoTestPaths.noteSharedMissing("the real Apple notification")
      return nil
    }
    let url = root.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("peer-fixtures/aporat__store-receipt-validator/test-notification-signed-payload.json")
    guard let data = try? Data(contentsOf: url),
      let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
      let payload = object["signedPayload"] as? String
    else { return nil }
    return JWSTestToken(payload)
  }

  /// A committed fixture of this test target.
  static func fixture(_ name: String) -> [UInt8]? { file(CryptoTestPaths.fixtures.appendingPathComponent(name)) }
}
