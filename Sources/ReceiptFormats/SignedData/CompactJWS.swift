import ReceiptModel

/// JWS Compact Serialization (RFC 7515 §7.1): `header.payload.signature`, each base64url.
///
/// The signature is decoded, and verified when the caller passes the document's `JWSChecks`.
public enum CompactJWS {
  /// Longest token accepted; Apple's are about 4 KB, so this only stops absurd inputs early.
  public static let maxTokenBytes = 1 << 20

  /// Decodes one token. `text` may carry surrounding whitespace and one pair of double quotes.
  /// `expected` is the kind the token's place requires (nil: recognised from the payload's fields).
  /// `path` prefixes every message; the token itself is never quoted.
  public static func decode(
    _ text: [UInt8], expected: SignedPayloadKind? = nil, path: String = "", strict: Bool = true
  ) throws(SignedDataError) -> SignedJWS<SignedPayload> {
    try decode(text, expected: expected, base: path, strict: strict).0
  }

  static func decode(
    _ text: [UInt8], expected: SignedPayloadKind?, base: String, strict: Bool, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> (SignedJWS<SignedPayload>, [SignedDataError]) {
    try text.withUnsafeBufferPointer { all throws(SignedDataError) in
      try decode(all, expected: expected, base: LazyPath(base), strict: strict, checks: checks)
    }
  }

  /// Decodes the token in `text` (a slice of a larger document read in place, or a whole string).
  static func decode(
    _ text: UnsafeBufferPointer<UInt8>, expected: SignedPayloadKind?, base: LazyPath, strict: Bool,
    checks: JWSChecks? = nil
  ) throws(SignedDataError) -> (SignedJWS<SignedPayload>, [SignedDataError]) {
    var memo = HeaderMemo()
    return try decode(text, expected: expected, base: base, strict: strict, memo: &memo, checks: checks)
  }

  /// The last header read and its segment: the tokens of one response usually share their header
  /// (with Apple's, a certificate chain of some 3 KB), so it is decoded once.
  struct HeaderMemo {
    var segment: [UInt8] = []
    var header: JWSHeader?

    /// The header held for exactly these segment bytes.
    func header(for bytes: UnsafeBufferPointer<UInt8>) -> JWSHeader? {
      guard let header, bytes.count == segment.count else { return nil }
      let same = segment.withUnsafeBufferPointer { held in
        guard let a = held.baseAddress, let b = bytes.baseAddress else { return held.count == 0 }
        var i = 0
        while held.count &- i >= 8 {
          let x = UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self)
          if x != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) { return false }
          i &+= 8
        }
        while i < held.count {
          if a[i] != b[i] { return false }
          i &+= 1
        }
        return true
      }
      return same ? header : nil
    }
  }

  /// Decodes one token, its header taken from `memo` when the header segment is the one read last; with
  /// `checks`, its signature is verified once the payload has given the moment.
  static func decode(
    _ text: UnsafeBufferPointer<UInt8>, expected: SignedPayloadKind?, base: LazyPath, strict: Bool,
    memo: inout HeaderMemo, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> (SignedJWS<SignedPayload>, [SignedDataError]) {
    let (lo, hi) = trimmedRange(text)
    guard hi - lo <= maxTokenBytes else {
      throw SignedDataError(.tooLarge, path: base.text, detail: "a JWS longer than \(maxTokenBytes) bytes")
    }
    guard hi > lo else {
      throw SignedDataError(.segmentCount, path: base.text, detail: "empty where a compact JWS was expected")
    }
    // Dots split the segments; count them all so the message can say how many there were.
    var first = -1
    var second = -1
    var dotCount = 0
    var i = lo
    while i < hi {
      // Eight bytes at a time while none is a dot.
      if let start = text.baseAddress {
        i = WordScan.skip(start, from: i, to: hi) { WordScan.equal($0, 0x2E) }
        guard i < hi else { break }
      }
      if text[i] == UInt8(ascii: ".") {
        if dotCount > 3 { break }
        if dotCount == 0 { first = i } else if dotCount == 1 { second = i }
        dotCount += 1
      }
      i += 1
    }
    guard dotCount == 2 else {
      let count = dotCount > 3 ? "5 or more" : "\(dotCount + 1)"
      let plural = dotCount == 0 ? "" : "s"
      throw SignedDataError(
        .segmentCount, path: base.text,
        detail: "not a compact JWS: \(count) segment\(plural) separated by '.', expected 3 (header.payload.signature)")
    }
    func segment(_ start: Int, _ end: Int, _ name: String) throws(SignedDataError) -> [UInt8] {
      if end == start, name != "signature" {
        throw SignedDataError(.base64url, path: base.into(name).text, detail: "empty \(name) segment")
      }
      do throws(Base64URLError) {
        return try Base64URL.decode(UnsafeBufferPointer(rebasing: text[start..<end]))
      } catch {
        throw SignedDataError(
          .base64url, path: base.into(name).text,
          detail: "\(error.message) of the \(name) segment (character \(start - lo + error.offset + 1) of the token)")
      }
    }
    // A header held in `memo` decoded without error before, so skipping it keeps the errors' order.
    let held = memo.header(for: UnsafeBufferPointer(rebasing: text[lo..<first]))
    let headerBytes = held == nil ? try segment(lo, first, "header") : []
    let payloadBytes = try segment(first + 1, second, "payload")
    let signatureBytes = try segment(second + 1, hi, "signature")
    let header: JWSHeader
    if let held {
      header = held
    } else {
      header = try readHeader(headerBytes, base: base.into("header"))
      memo = HeaderMemo(segment: Array(text[lo..<first]), header: header)
    }
    let (payload, carried) = try PayloadDecoding.decode(
      payloadBytes, expected: expected, base: base.into("payload"), strict: strict, checks: checks)
    checks?.check(
      signingInput: UnsafeBufferPointer(rebasing: text[lo..<second]), signature: signatureBytes, header: header,
      payload: payload, path: base)
    let jws = SignedJWS(
      header: header, payload: payload, signatureByteCount: signatureBytes.count,
      source: signingSource(header: header, environment: payload.environment))
    return (jws, carried)
  }

  /// Xcode and LocalTesting are told apart by the payload's environment (Xcode's key id also says it);
  /// make-jws.py marks its output with `kid` "hand-written".
  static func signingSource(header: JWSHeader, environment: Coded<AppStoreEnvironment>?) -> SigningSource {
    if header.kid == "hand-written" { return .handWritten }
    if environment?.known == .xcode || header.kid == "Apple_Xcode_Key" { return .xcode }
    if environment?.known == .localTesting { return .localTesting }
    return .appStoreClaimed
  }

  /// The range of `text` without surrounding whitespace and one pair of surrounding double quotes.
  static func trimmedRange(_ text: UnsafeBufferPointer<UInt8>) -> (Int, Int) {
    var lo = 0
    var hi = text.count
    func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    while lo < hi, isSpace(text[lo]) { lo += 1 }
    while hi > lo, isSpace(text[hi - 1]) { hi -= 1 }
    if hi - lo >= 2, text[lo] == UInt8(ascii: "\""), text[hi - 1] == UInt8(ascii: "\"") {
      lo += 1
      hi -= 1
      while lo < hi, isSpace(text[lo]) { lo += 1 }
      while hi > lo, isSpace(text[hi - 1]) { hi -= 1 }
    }
    return (lo, hi)
  }

  private enum HeaderKey: Int, CaseIterable {
    case alg, kid, typ, x5c
    static let keys = SignedKeys(allCases.map { "\($0)" })
  }

  static func readHeader(_ bytes: [UInt8], base: LazyPath) throws(SignedDataError) -> JWSHeader {
    do {
      return try JSONReader.withReader(bytes, maxDepth: 16) { reader in
        var r = PayloadReading(reader: reader, base: base, strict: true)
        var h = JWSHeader()
        h.unreadKeys = try r.forEachMember(HeaderKey.keys) { r, index in
          guard let key = HeaderKey(rawValue: index) else { return }
          switch key {
          case .alg: h.alg = try r.string()
          case .kid: h.kid = try r.string()
          case .typ: h.typ = try r.string()
          case .x5c:
            h.x5c = try r.stringArray(limit: 64)
            h.x5cCount = h.x5c?.count
          }
        }
        try r.reader.finish()
        return h
      }
    } catch let e as SignedDataError {
      throw SignedDataError(.header, path: e.path, detail: e.detail, line: e.line, column: e.column)
    } catch let e as JSONSyntaxError {
      throw SignedDataError(.header, path: base.text, detail: "not JSON: \(e.message)", line: e.line, column: e.column)
    } catch {
      throw SignedDataError(.header, path: base.text, detail: "\(error)")
    }
  }
}
