import ReceiptCrypto

/// Fuzz entry for the verification state of a batch (issue 39): the input lays out a batch of genuine documents
/// (the examples' signed JWS and receipt) and hostile ones (each carrying the other kind's chain, or the input's
/// bytes in place of a certificate, a payload or a signature), in the order and on the verifiers the input picks.
/// Each genuine document must get the verdict it gets alone, and no hostile one may verify.
package enum BatchIsolationFuzzing {
  /// One document of a batch, checked by a verifier.
  enum Document {
    case jws(signingInput: [UInt8], signature: [UInt8], x5c: [String])
    case receipt([UInt8])

    func verdict(_ verifier: inout AppleSignatureVerifier) -> SignatureVerdict {
      switch self {
      case .jws(let signingInput, let signature, let x5c):
        return verifier.verifyJWS(
          signingInput: signingInput, signature: signature, algorithm: "ES256", x5c: x5c,
          at: BatchIsolationFuzzing.jwsMoment)
      case .receipt(let blob):
        return verifier.verifyPKCS7(blob, at: BatchIsolationFuzzing.receiptMoment)
      }
    }
  }

  static let jwsMoment = VerificationMoment(millisecondsSince1970: 1_718_409_600_000, source: .signedDate)
  static let receiptMoment = VerificationMoment(millisecondsSince1970: 1_718_409_600_000, source: .receiptCreationDate)

  struct Seeds {
    var trust: TrustAnchors
    var genuine: [Document]
    /// The genuine documents' verdicts, each checked alone by a fresh verifier.
    var alone: [SignatureVerdict]
    var jwsChain: [[UInt8]]
    var receiptChain: [[UInt8]]
    var payload: [UInt8]
  }

  static let seeds: Seeds? = {
    guard let trust = HostileDocuments.trust, let text = HostileDocuments.genuineJWS,
      let jws = jwsDocument(text), let receipt = HostileDocuments.genuineReceipt,
      let jwsChain = HostileDocuments.jwsChain, let receiptChain = HostileDocuments.receiptChain,
      let payload = HostileDocuments.receiptPayload
    else { return nil }
    let genuine = [jws, Document.receipt(receipt)]
    let alone = genuine.map {
      var fresh = AppleSignatureVerifier(trust: trust)
      return $0.verdict(&fresh)
    }
    return Seeds(
      trust: trust, genuine: genuine, alone: alone, jwsChain: jwsChain, receiptChain: receiptChain, payload: payload)
  }()

  /// The genuine documents' outcomes alone (both verified where the examples are present).
  package static var genuineOutcomesAlone: [SignatureVerdict.Outcome] { seeds?.alone.map(\.outcome) ?? [] }

  static func jwsDocument(_ text: String) -> Document? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, let header = try? Base64.decode(Array(parts[0].utf8), rules: .url),
      let signature = try? Base64.decode(Array(parts[2].utf8), rules: .url)
    else { return nil }
    // The x5c entries: every standard-base64 string in the header, in order.
    let x5c = String(decoding: header, as: UTF8.self).split(separator: "\"").map(String.init).filter {
      $0.count > 100 && Base64.decode($0) != nil
    }
    return .jws(signingInput: Array("\(parts[0]).\(parts[1])".utf8), signature: signature, x5c: x5c)
  }

  /// The hostile documents the input makes: `kind` picks one.
  static func hostile(_ kind: UInt8, _ bytes: [UInt8], _ seeds: Seeds) -> Document {
    let signature = Array((bytes + [UInt8](repeating: 1, count: 64)).prefix(64))
    let spliced = { (der: [UInt8]) -> [UInt8] in
      let at = Int(CryptoFuzzing.fnv(bytes) % UInt64(max(1, der.count)))
      return Array(der[..<at]) + bytes + Array(der[min(der.count, at + bytes.count)...])
    }
    switch kind % 6 {
    case 0:
      return .receipt(HostileDocuments.receipt(carrying: seeds.jwsChain, content: seeds.payload))
    case 1:
      return .jws(
        signingInput: bytes, signature: signature,
        x5c: (seeds.receiptChain + seeds.receiptChain).map { Base64.encode($0) })
    case 2:
      return .receipt(HostileDocuments.receipt(carrying: seeds.jwsChain, content: bytes, signature: bytes))
    case 3:
      return .jws(
        signingInput: bytes, signature: signature,
        x5c: [spliced(seeds.jwsChain[0]), seeds.jwsChain[1], seeds.jwsChain[1]].map { Base64.encode($0) })
    case 4:
      return .receipt(
        HostileDocuments.receipt(carrying: [seeds.receiptChain[0], spliced(seeds.receiptChain[1])], content: bytes))
    default:
      return .jws(signingInput: bytes, signature: signature, x5c: seeds.jwsChain.map { Base64.encode($0) })
    }
  }

  /// Returns the properties that failed (empty when all is well).
  @discardableResult
  package static func fuzz(_ bytes: [UInt8]) -> [String] {
    guard let seeds else { return [] }
    var problems: [String] = []
    // Two verifiers, as a pipeline's workers would have; each input byte places one document on one of them.
    var verifiers = [AppleSignatureVerifier(trust: seeds.trust), AppleSignatureVerifier(trust: seeds.trust)]
    let rest = Array(bytes.dropFirst(min(bytes.count, 16)))
    for (i, byte) in bytes.prefix(16).enumerated() {
      let worker = Int(byte >> 7)
      if byte & 0x40 != 0 {
        let which = Int(byte) % seeds.genuine.count
        let verdict = seeds.genuine[which].verdict(&verifiers[worker])
        if verdict != seeds.alone[which] {
          problems.append(
            "document \(i), genuine \(which), differs in a batch: \(verdict.outcome) alone \(seeds.alone[which].outcome)"
          )
        }
      } else {
        let verdict = hostile(byte, rest, seeds).verdict(&verifiers[worker])
        if verdict.outcome == .verified { problems.append("hostile document \(i) (kind \(byte % 6)) verified") }
        if verdict.failure?.description.contains("\n") == true { problems.append("a failure spans lines") }
      }
    }
    // Every genuine document once more, last, on each verifier.
    for worker in verifiers.indices {
      for (which, document) in seeds.genuine.enumerated()
      where document.verdict(&verifiers[worker]) != seeds.alone[which] {
        problems.append("genuine \(which) differs at the end of the batch on verifier \(worker)")
      }
    }
    return problems
  }
}
