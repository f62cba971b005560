import ReceiptCrypto
import ReceiptModel

/// Lends a signature verifier for the length of one document. Whoever decodes documents concurrently owns the
/// lending (the command line's pipeline keeps a verifier per worker, each with its chain cache); a decoder only
/// borrows one and never shares it.
public protocol SignatureVerifierLending: Sendable {
  /// Calls `body` with a verifier no other thread uses until `body` returns.
  func withVerifier<R>(_ body: (inout AppleSignatureVerifier) -> R) -> R
}

/// How a decode checks signatures: who lends the verifier, and the moment for a payload with no `signedDate`.
public struct SignatureChecking: Sendable {
  /// Lends the verifier a document is checked with.
  public var verifiers: any SignatureVerifierLending
  /// The moment a payload without a `signedDate` is checked at (one for the whole run).
  public var now: Timestamp

  /// - Parameters:
  ///   - verifiers: Lends the verifier a document is checked with.
  ///   - now: The moment for payloads without a `signedDate`.
  public init(verifiers: any SignatureVerifierLending, now: Timestamp) {
    self.verifiers = verifiers
    self.now = now
  }
}

/// The signature checks of one document: the verifier lent for it and each signed item's verdict, in the order
/// the items were read (a nested JWS before the one that holds it). One thread, one document.
final class JWSChecks {
  var verifier: AppleSignatureVerifier
  let now: Timestamp
  private(set) var items: [SignatureCheck] = []

  init(verifier: AppleSignatureVerifier, now: Timestamp) {
    self.verifier = verifier
    self.now = now
  }

  /// Checks one JWS at its payload's `signedDate` (an app transaction's `receiptCreationDate`), or now where it
  /// has none: `signingInput` is `header.payload` exactly as received.
  func check(
    signingInput: UnsafeBufferPointer<UInt8>, signature: [UInt8], header: JWSHeader, payload: SignedPayload,
    path: LazyPath
  ) {
    var moment = VerificationMoment(millisecondsSince1970: now.milliseconds, source: .now)
    if let signed = payload.signedDate {
      let isApp: Bool
      if case .appTransaction = payload { isApp = true } else { isApp = false }
      moment = VerificationMoment(
        millisecondsSince1970: signed.milliseconds, source: isApp ? .receiptCreationDate : .signedDate)
    }
    let verdict = verifier.verifyJWS(
      signingInput: Array(signingInput), signature: signature, algorithm: header.alg, x5c: header.x5c, at: moment)
    items.append(Self.check(of: verdict, path: path))
  }

  /// Forgets the items after the first `count` (a payload read again checks its nested JWS again).
  func forget(after count: Int) {
    if items.count > count { items.removeSubrange(count...) }
  }

  /// The document's verdict: the weakest item's.
  var documentCheck: SignatureCheck {
    SignatureCheck.combining(items, none: SignatureCheck(.notChecked, note: "no signed item could be read"))
  }

  /// The format-neutral verdict of one item.
  static func check(of verdict: SignatureVerdict, path: LazyPath) -> SignatureCheck {
    let moment = CheckedMoment(
      time: Timestamp(milliseconds: verdict.moment.millisecondsSince1970) ?? .epoch,
      source: verdict.moment.source.rawValue)
    let chain = verdict.chain.map(signer(of:))
    switch verdict.outcome {
    case .verified:
      return .verifiedItem(chain: chain, moment: moment, anchor: verdict.anchoredAtApple ? .apple : .trustRoot)
    case .testSigned:
      return .testSignedItem(chain: chain, moment: moment)
    case .failed(let failure):
      let item = SignatureItemFailure(
        path: path.text, code: failure.code.rawValue, certificate: failure.certificate,
        reason: failure.description)
      return .failedItem(item, chain: chain, moment: moment)
    }
  }

  static func signer(of c: ReceiptCrypto.CertificateSummary) -> SignerCertificate {
    SignerCertificate(
      position: c.position, commonName: c.commonName, organization: c.organization,
      notBefore: Timestamp(milliseconds: c.notBefore), notAfter: Timestamp(milliseconds: c.notAfter),
      sha256: hex(c.sha256))
  }

  static func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
