import Foundation
import ReceiptCrypto
import ReceiptFormats

/// Documents that carry the other kind's certificate chain, made from the examples' test chains (nothing here is
/// Apple's): a "receipt" whose envelope holds the StoreKit 2 examples' EC leaf and intermediate, and a JWS whose
/// x5c holds the signed app receipt's RSA leaf and intermediate. Each fails under its own policy; neither may
/// change the verdict of a genuine document checked after it by the same verifier.
package enum HostileDocuments {
  /// A genuine compact JWS signed through examples/storekit2/test-root.pem (its first line).
  package static var genuineJWS: String? {
    file("examples/storekit2/entitlements-active.jws").flatMap {
      String(decoding: $0, as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
  }

  /// A genuine app receipt signed through examples/app-receipt/test-receipt-root.pem (PKCS#7 DER).
  package static var genuineReceipt: [UInt8]? {
    file("examples/app-receipt/signed-entitlements-active.b64").flatMap { try? Base64.decode($0, rules: .text) }
  }

  /// The trust roots the genuine documents verify under: Apple's and both examples' test roots.
  package static var trust: TrustAnchors? {
    var trust = TrustAnchors.apple
    for path in ["examples/storekit2/test-root.pem", "examples/app-receipt/test-receipt-root.pem"] {
      guard let bytes = file(path), let roots = try? TrustAnchors.certificatesFromPEMOrDER(bytes) else { return nil }
      for der in roots {
        guard let added = try? trust.adding(rootDER: der) else { return nil }
        trust = added
      }
    }
    return trust
  }

  /// The JWS example's leaf and intermediate, DER, leaf first.
  package static var jwsChain: [[UInt8]]? {
    guard let jws = genuineJWS, let header = jws.split(separator: ".").first,
      let headerBytes = try? Base64.decode(Array(header.utf8), rules: .url),
      let object = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
      let x5c = object["x5c"] as? [String], x5c.count == 3
    else { return nil }
    let der = x5c.prefix(2).compactMap { Base64.decode(Array($0.utf8)) }
    return der.count == 2 ? der : nil
  }

  /// The signed receipt's leaf and intermediate, DER, leaf first (found by name, not by envelope order).
  package static var receiptChain: [[UInt8]]? {
    guard let blob = genuineReceipt, let envelope = try? PKCS7SignedData(berEncoded: blob) else { return nil }
    let certificates = envelope.certificates.compactMap { try? Certificate(derEncoded: $0) }
    guard let signer = envelope.signers.first,
      let leaf = certificates.first(where: {
        $0.serialNumber == signer.serialNumber && $0.issuer.encoded == signer.issuer
      }),
      let intermediate = certificates.first(where: { $0.subject.encoded == leaf.issuer.encoded })
    else { return nil }
    return [leaf.der, intermediate.der]
  }

  /// The signed receipt's payload (the ASN.1 SET the app receipt decoder reads).
  package static var receiptPayload: [UInt8]? {
    genuineReceipt.flatMap { try? PKCS7SignedData(berEncoded: $0) }?.content
  }

  /// A compact JWS whose header carries `chain` (leaf, intermediate; a third entry repeats the intermediate, as
  /// x5c[2] is never read) over `payload`, with `signature` (64 bytes for a well-formed ES256 one).
  package static func jws(
    carrying chain: [[UInt8]], payload: String, signature: [UInt8] = .init(repeating: 1, count: 64)
  )
    -> String
  {
    let x5c = (chain + chain.suffix(1)).map { "\"\(Base64.encode($0))\"" }.joined(separator: ",")
    let header = #"{"alg":"ES256","x5c":[\#(x5c)],"typ":"JWT"}"#
    return [Array(header.utf8), Array(payload.utf8), signature]
      .map { Base64.encode($0, alphabet: .url, padded: false) }.joined(separator: ".")
  }

  /// A PKCS#7 SignedData of `content` whose certificates are `chain` and whose one signer names the first
  /// certificate (by issuer and serial number), with an RSA SHA-256 signature of `signature`'s bytes.
  package static func receipt(
    carrying chain: [[UInt8]], content: [UInt8], signature: [UInt8] = .init(repeating: 1, count: 256)
  ) -> [UInt8] {
    let sha256: [UInt8] = [0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
    let rsa: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    let data: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x01]
    let signedData: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
    let null: [UInt8] = [0x05, 0x00]
    let one = tlv(0x02, [0x01])
    let leaf = chain.first.flatMap { try? Certificate(derEncoded: $0) }
    let signerID = tlv(0x30, (leaf?.issuer.encoded ?? tlv(0x30, [])) + tlv(0x02, leaf?.serialNumber ?? [0x01]))
    let signer = tlv(
      0x30, one + signerID + tlv(0x30, sha256 + null) + tlv(0x30, rsa + null) + tlv(0x04, signature))
    let body = tlv(
      0x30,
      one + tlv(0x31, tlv(0x30, sha256 + null)) + tlv(0x30, data + tlv(0xA0, tlv(0x04, content)))
        + tlv(0xA0, chain.flatMap { $0 }) + tlv(0x31, signer))
    return tlv(0x30, signedData + tlv(0xA0, body))
  }

  /// A DER element: tag, definite length, body.
  static func tlv(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] {
    guard body.count >= 0x80 else { return [tag, UInt8(body.count)] + body }
    var length: [UInt8] = []
    var n = body.count
    while n > 0 {
      length.insert(UInt8(n & 0xFF), at: 0)
      n >>= 8
    }
    return [tag, 0x80 | UInt8(length.count)] + length + body
  }

  static func file(_ relative: String) -> [UInt8]? {
    (try? Data(contentsOf: TestPaths.packageRoot.appendingPathComponent(relative))).map { Array($0) }
  }
}

/// Lends one verifier to every document, in order, and keeps it: the strictest case for a chain cache (every
/// document checked after every other), and a way to count its hits. One thread.
package final class OneVerifierLending: SignatureVerifierLending, @unchecked Sendable {
  package var workspace: SignatureWorkspace
  package var verifier: AppleSignatureVerifier { workspace.verifier }
  package init(_ trust: TrustAnchors) { workspace = SignatureWorkspace(trust: trust) }
  package convenience init(trust: TrustAnchors = .apple) { self.init(trust) }
  package func withWorkspace<R>(_ body: (inout SignatureWorkspace) -> R) -> R { body(&workspace) }
}
