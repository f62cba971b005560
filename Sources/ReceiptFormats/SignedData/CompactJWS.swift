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
    var memo = checks?.takeHeaderMemo() ?? HeaderMemo()
    defer { checks?.keep(memo) }
    return try decode(text, expected: expected, base: base, strict: strict, memo: &memo, checks: checks)
  }

  /// What the tokens of one document share: the last header read and its segment (the tokens of one response
  /// usually share their header, with Apple's a certificate chain of some 3 KB, so it is decoded once), and the
  /// buffers each token's payload and signature are decoded into, which the next token reuses.
  /// A signature check's workspace keeps them from document to document (`JWSChecks.takeHeaderMemo`).
  struct HeaderMemo: Sendable {
    var segment: [UInt8] = []
    var header: JWSHeader?
    /// The last token's decoded payload and signature, at the start of each (`Split` says how many bytes).
    var payload: [UInt8] = []
    var signature: [UInt8] = []
    /// How many tokens took the header from here rather than reading it (the tests count them).
    var reuses = 0

    /// Whether its buffers are small enough to keep for the worker's next documents: 64 KiB each.
    var isSmall: Bool {
      let most = 1 << 16
      return segment.capacity <= most && payload.capacity <= most && signature.capacity <= most
    }

    /// The header held for exactly these segment bytes.
    func header(for bytes: UnsafeBufferPointer<UInt8>) -> JWSHeader? {
      guard let header, bytes.count == segment.count else { return nil }
      let same = segment.withUnsafeBufferPointer { held in
        guard let a = held.baseAddress, let b = bytes.baseAddress else { return held.count == 0 }
        return bytesEqual(a, b, count: held.count)
      }
      return same ? header : nil
    }
  }

  /// A token split at its two dots, its header read: `text[lo..<second]` is the signing input, and the decoded
  /// payload and signature are the first `payloadCount` and `signatureCount` bytes of the memo's buffers.
  struct Split {
    var header: JWSHeader
    var lo: Int
    var second: Int
    var payloadCount: Int
    var signatureCount: Int
  }

  /// Decodes one token, its header taken from `memo` when the header segment is the one read last; with
  /// `checks`, its signature is verified once the payload has given the moment.
  static func decode(
    _ text: UnsafeBufferPointer<UInt8>, expected: SignedPayloadKind?, base: LazyPath, strict: Bool,
    memo: inout HeaderMemo, checks: JWSChecks? = nil
  ) throws(SignedDataError) -> (SignedJWS<SignedPayload>, [SignedDataError]) {
    try decode(text, base: base, memo: &memo, checks: checks) { (bytes) throws(SignedDataError) in
      try PayloadDecoding.decode(bytes, expected: expected, base: base.into("payload"), strict: strict, checks: checks)
    } facts: { payload in
      (payload.signedDate, payload.kind == .appTransaction, payload.environment)
    } app: {
      $0.statedApp
    }
  }

  /// Decodes one token whose place gives its payload's kind straight into that kind (no `SignedPayload` to copy
  /// it out of): the same answer and errors as `decode(_:expected: P.kind, ...)` and taking the payload out.
  static func decode<P: PlacedPayload>(
    _ text: UnsafeBufferPointer<UInt8>, as type: P.Type, base: LazyPath, strict: Bool, memo: inout HeaderMemo,
    checks: JWSChecks? = nil
  ) throws(SignedDataError) -> (SignedJWS<P>, [SignedDataError]) {
    try decode(text, base: base, memo: &memo, checks: checks) { (bytes) throws(SignedDataError) in
      try PayloadDecoding.decode(bytes, as: P.self, base: base.into("payload"), strict: strict, checks: checks)
    } facts: { payload in
      (payload.signedDate, false, payload.environment)
    } app: {
      $0.statedApp
    }
  }

  /// Splits a token, reads its decoded payload with `read`, and (with `checks`) verifies its signature at the
  /// moment `facts` gives: the payload's `signedDate` (an app transaction's `receiptCreationDate`), and the app
  /// `app` says it belongs to.
  @inline(__always)
  static func decode<P: Sendable & Hashable>(
    _ text: UnsafeBufferPointer<UInt8>, base: LazyPath, memo: inout HeaderMemo, checks: JWSChecks?,
    read: (UnsafeBufferPointer<UInt8>) throws(SignedDataError) -> (P, [SignedDataError]),
    facts: (P) -> (signedDate: Timestamp?, isAppTransaction: Bool, environment: Coded<AppStoreEnvironment>?),
    app: (P) -> StatedApp
  ) throws(SignedDataError) -> (SignedJWS<P>, [SignedDataError]) {
    let split = try self.split(text, base: base, memo: &memo)
    let (payload, carried) = try memo.payload.withUnsafeBufferPointer { (all) throws(SignedDataError) in
      try read(UnsafeBufferPointer(rebasing: all[..<split.payloadCount]))
    }
    let (signedDate, isAppTransaction, environment) = facts(payload)
    if let checks {
      checks.check(
        signingInput: UnsafeBufferPointer(rebasing: text[split.lo..<split.second]),
        signature: Array(memo.signature[..<split.signatureCount]), header: split.header, signedDate: signedDate,
        isAppTransaction: isAppTransaction, path: base, app: { app(payload) })
    }
    let jws = SignedJWS(
      header: split.header, payload: payload, signatureByteCount: split.signatureCount,
      source: signingSource(header: split.header, environment: environment))
    return (jws, carried)
  }

  /// Splits a token and decodes its segments into `memo`'s buffers (its header from `memo` when the same).
  ///
  /// Usually without counting every dot: the first is where the remembered header segment ends (or the first
  /// found), the second the last one, found from the end; the payload between them then decodes as base64url
  /// only when it holds no dot, so exactly two were there. Any failure is left to the counting split, which
  /// gives each malformed token its own message in its own order.
  static func split(
    _ text: UnsafeBufferPointer<UInt8>, base: LazyPath, memo: inout HeaderMemo
  ) throws(SignedDataError) -> Split {
    let (lo, hi) = trimmedRange(text)
    guard hi - lo <= maxTokenBytes else {
      throw SignedDataError(.tooLarge, path: base.text, detail: "a JWS longer than \(maxTokenBytes) bytes")
    }
    guard hi > lo else {
      throw SignedDataError(.segmentCount, path: base.text, detail: "empty where a compact JWS was expected")
    }
    if let split = splitAtOuterDots(text, lo: lo, hi: hi, memo: &memo) { return split }
    return try splitCountingDots(text, lo: lo, hi: hi, base: base, memo: &memo)
  }

  static let dot = UInt8(ascii: ".")

  /// The split of a well-formed token found from its outer dots, or nil for the counting split to decide.
  static func splitAtOuterDots(
    _ text: UnsafeBufferPointer<UInt8>, lo: Int, hi: Int, memo: inout HeaderMemo
  ) -> Split? {
    guard let start = text.baseAddress else { return nil }
    var held: JWSHeader?
    var first = lo + memo.segment.count
    if first < hi, text[first] == dot {
      held = memo.header(for: UnsafeBufferPointer(rebasing: text[lo..<first]))
    }
    if held == nil {
      first = WordScan.skip(start, from: lo, to: hi) { WordScan.equal($0, dot) }
      while first < hi, text[first] != dot { first += 1 }
      guard first < hi else { return nil }
    }
    // The last dot: whole words without one skipped (a word's flags may be too many, never too few).
    var second = -1
    var j = hi
    search: while j > first + 1 {
      if j - first > 8,
        WordScan.equal(UInt64(littleEndian: UnsafeRawPointer(start + j - 8).loadUnaligned(as: UInt64.self)), dot) == 0
      {
        j -= 8
        continue
      }
      let stop = max(first + 1, j - 8)
      while j > stop {
        j -= 1
        if text[j] == dot {
          second = j
          break search
        }
      }
    }
    guard second > first, first > lo, second - first > 1 else { return nil }
    let payloadCount = try? Base64URL.decode(
      UnsafeBufferPointer(rebasing: text[(first + 1)..<second]), into: &memo.payload)
    guard let payloadCount else { return nil }
    let signatureCount = try? Base64URL.decode(
      UnsafeBufferPointer(rebasing: text[(second + 1)..<hi]), into: &memo.signature)
    guard let signatureCount else { return nil }
    let header: JWSHeader
    if let held {
      header = held
      memo.reuses &+= 1
    } else {
      guard let headerBytes = try? Base64URL.decode(UnsafeBufferPointer(rebasing: text[lo..<first])),
        let read = try? readHeader(headerBytes, base: LazyPath(""))
      else { return nil }
      header = read
      memo.segment = Array(text[lo..<first])
      memo.header = read
    }
    return Split(
      header: header, lo: lo, second: second, payloadCount: payloadCount, signatureCount: signatureCount)
  }

  /// The split that counts every dot, so that a malformed token's message says how many segments it had and
  /// names the first segment that fails.
  static func splitCountingDots(
    _ text: UnsafeBufferPointer<UInt8>, lo: Int, hi: Int, base: LazyPath, memo: inout HeaderMemo
  ) throws(SignedDataError) -> Split {
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
    func segment(_ start: Int, _ end: Int, _ name: String, into output: inout [UInt8]) throws(SignedDataError) -> Int {
      if end == start, name != "signature" {
        throw SignedDataError(.base64url, path: base.into(name).text, detail: "empty \(name) segment")
      }
      do throws(Base64URLError) {
        return try Base64URL.decode(UnsafeBufferPointer(rebasing: text[start..<end]), into: &output)
      } catch {
        throw SignedDataError(
          .base64url, path: base.into(name).text,
          detail: "\(error.message) of the \(name) segment (character \(start - lo + error.offset + 1) of the token)")
      }
    }
    // A header held in `memo` decoded without error before, so skipping it keeps the errors' order.
    let held = memo.header(for: UnsafeBufferPointer(rebasing: text[lo..<first]))
    var headerBytes: [UInt8] = []
    let headerCount = held == nil ? try segment(lo, first, "header", into: &headerBytes) : 0
    let payloadCount = try segment(first + 1, second, "payload", into: &memo.payload)
    let signatureCount = try segment(second + 1, hi, "signature", into: &memo.signature)
    let header: JWSHeader
    if let held {
      header = held
      memo.reuses &+= 1
    } else {
      header = try readHeader(Array(headerBytes[..<headerCount]), base: base.into("header"))
      memo.segment = Array(text[lo..<first])
      memo.header = header
    }
    return Split(header: header, lo: lo, second: second, payloadCount: payloadCount, signatureCount: signatureCount)
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

  enum HeaderKey: String, SignedKeyList {
    case alg, kid, typ, x5c, crit
    static let ordered = allCases
    static let keys = SignedKeys(ordered.map(\.rawValue))
  }

  static func readHeader(_ bytes: [UInt8], base: LazyPath) throws(SignedDataError) -> JWSHeader {
    do {
      return try JSONReader.withReader(bytes, maxDepth: 16) { reader in
        var r = PayloadReading(reader: reader, base: base, strict: true)
        var h = JWSHeader()
        h.unreadKeys = try r.forEachMember(HeaderKey.keys) { r, index in
          guard let key = HeaderKey.at(index) else { return }
          switch key {
          case .alg: h.alg = try r.string()
          case .kid: h.kid = try r.string()
          case .typ: h.typ = try r.string()
          case .x5c:
            h.x5c = try r.stringArray(limit: 64)
            h.x5cCount = h.x5c?.count
          case .crit: h.crit = try r.stringArray(limit: 64)
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
