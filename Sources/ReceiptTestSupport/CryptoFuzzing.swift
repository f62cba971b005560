import ReceiptCrypto

/// Fuzz entry for ReceiptCrypto's DER reader, X.509 parser, base64, trust-root loader and the JWS verifier's
/// header path (alg, x5c). Returns the properties that failed (empty when all is well); a trap is the other kind
/// of finding.
package enum CryptoFuzzing {
  @discardableResult
  package static func fuzz(_ bytes: [UInt8]) -> [String] {
    var problems: [String] = []
    problems += derProperties(bytes)

    // X.509: never a trap; a failure is one line; whatever parses is DER all the way through and parses again
    // the same.
    do {
      let certificate = try Certificate(derEncoded: bytes)
      if (try? ASN1Reader.nodes(bytes, rules: .der)) == nil { problems.append("a certificate that is not DER parsed") }
      if (try? Certificate(derEncoded: certificate.der)) != certificate {
        problems.append("certificate reparse differs")
      }
    } catch {
      if error.description.contains("\n") { problems.append("multi-line certificate failure") }
    }
    // The input spliced into a real certificate (Apple Root CA - G3) at a place the input picks.
    let root = AppleRoots.appleRootCAG3
    let at = Int(fnv(bytes) % UInt64(root.count))
    let spliced = Array(root[..<at]) + bytes + Array(root[min(root.count, at + bytes.count)...])
    if let parsed = try? Certificate(derEncoded: spliced), parsed.der != root,
      parsed.isSigned(by: TrustAnchors.apple.anchors[0].certificate.publicKey)
    {
      problems.append("a spliced certificate verifies under G3")
    }

    // base64: whatever decodes re-encodes to the same text (the decoder is strict).
    if let decoded = Base64.decode(bytes), Array(Base64.encode(decoded).utf8) != bytes {
      problems.append("base64 round trip differs")
    }
    _ = try? TrustAnchors.certificatesFromPEMOrDER(bytes)
    _ = try? TrustAnchors.apple.adding(rootDER: bytes)

    // OIDs: a strict parse survives a round trip through its dotted text.
    if bytes.count <= 64, let oid = OID(contentOctets: bytes), OID(oid.description) != oid {
      problems.append("OID dotted text round trip differs")
    }

    problems += verifierProperties(bytes, spliced: spliced)
    return problems
  }

  /// Whatever a rule set accepts tiles the input exactly, and DER acceptance implies the same nodes under BER.
  static func derProperties(_ bytes: [UInt8]) -> [String] {
    var problems: [String] = []
    for rules in [ASN1Rules.der, .berEnvelope] {
      do {
        let nodes = try ASN1Reader.nodes(bytes, rules: rules)
        if !tiles(nodes, count: bytes.count) { problems.append("nodes do not tile the input (\(rules))") }
        if rules == .der, (try? ASN1Reader.nodes(bytes, rules: .berEnvelope)) != nodes {
          problems.append("DER nodes differ under BER")
        }
      } catch {
        if error.description.contains("\n") { problems.append("multi-line DER failure") }
      }
    }
    return problems
  }

  /// Top-level elements follow one another from 0 to `count`; each constructed node's children fill its content.
  package static func tiles(_ nodes: [ASN1Reader.Node], count: Int) -> Bool {
    var p = 0
    for node in nodes where node.depth == 0 {
      guard node.element.offset == p else { return false }
      p = node.element.end
    }
    guard p == count else { return false }
    for (i, node) in nodes.enumerated() where node.element.isConstructed {
      var q = node.element.contentStart
      for child in nodes[(i + 1)...].prefix(while: { $0.depth > node.depth }) where child.depth == node.depth + 1 {
        guard child.element.offset == q else { return false }
        q = child.element.end
      }
      guard q == node.element.contentEnd else { return false }
    }
    return true
  }

  /// Random and spliced inputs as header values, certificates and signatures: never `.verified` or
  /// `.testSigned`, every failure one line and free of the input's bytes beyond a short quoted alg.
  static func verifierProperties(_ bytes: [UInt8], spliced: [UInt8]) -> [String] {
    var problems: [String] = []
    var verifier = AppleSignatureVerifier()
    let moment = VerificationMoment(millisecondsSince1970: 1_700_000_000_000, source: .now)
    let signature = Array((bytes + [UInt8](repeating: 1, count: 64)).prefix(64))
    let text = String(decoding: bytes, as: UTF8.self)
    let asCertificate = Base64.encode(bytes)
    let root = Base64.encode(AppleRoots.appleRootCAG3)
    let splicedText = Base64.encode(spliced)
    let cases: [(String?, [String]?)] = [
      ("ES256", [asCertificate, asCertificate, asCertificate]), ("ES256", [asCertificate]),
      ("ES256", [splicedText, root, root]), ("ES256", [root, splicedText, root]), ("ES256", [splicedText]),
      (text, [root, root, root]), ("ES256", text.split(separator: ",").map(String.init)), (nil, nil),
    ]
    for (algorithm, x5c) in cases {
      let verdict = verifier.verifyJWS(
        signingInput: bytes, signature: signature, algorithm: algorithm, x5c: x5c, at: moment)
      switch verdict.outcome {
      case .verified, .testSigned: problems.append("random bytes were \(verdict.outcome)")
      case .failed(let failure):
        if failure.description.contains("\n") || failure.description.contains("\r") {
          problems.append("multi-line verdict failure")
        }
      }
    }
    return problems
  }

  static func fnv(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
    return hash
  }
}
