import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// The shortcuts reading signed data takes must give what the general path gives: the JWS split from its outer
/// dots what the split that counts every dot gives, a payload read straight into the kind its place requires
/// what the general decoder gives, and a history read without stated fields what one with them gives, less them.
@Suite struct SignedReadingFastPathTests {
  static let appleHeader = #"{"alg":"ES256","x5c":["MIIBc2VydA==","MIIBaW50ZXI=","MIIBcm9vdA=="]}"#
  static let headers = [SignedDataFixtures.handWrittenHeader, appleHeader, #"{"alg":"ES256","typ":"JWT"}"#]

  /// A signed history page's transaction as the benchmark writes them, its values drawn from `random`.
  static func transactionPayload(_ random: inout SplitMix64, index: Int) -> String {
    let original = 3_000_000_000 + random.below(1_000_000) * 100
    let purchase = 1_600_000_000_000 + Int64(random.below(1_000_000_000)) * 1000
    var fields = [
      #""transactionId":"\#(original + index)""#, #""originalTransactionId":"\#(original)""#,
      #""bundleId":"com.acme.notes""#, #""productId":"com.acme.pro.\#(random.below(5))""#,
      #""purchaseDate":\#(purchase)"#, #""expiresDate":\#(purchase + 2_592_000_000)"#, #""signedDate":\#(purchase)"#,
      #""type":"Auto-Renewable Subscription""#,
      #""inAppOwnershipType":"\#(random.below(7) == 0 ? "FAMILY_SHARED" : "PURCHASED")""#,
      #""environment":"Production""#, #""storefront":"USA""#, #""price":\#(random.below(100_000))"#,
      #""currency":"USD""#, #""offerType":\#(1 + random.below(3))"#, #""appAccountToken":"a-\#(index)""#,
    ]
    // Some leave fields out, and some state one the tool does not know.
    fields = fields.filter { _ in random.below(8) != 0 }
    if random.below(5) == 0 { fields.append(#""newField\#(index)":[1,{"a":null}]"#) }
    return "{" + fields.joined(separator: ",") + "}"
  }

  /// Tokens of every kind of payload and header, with signatures of several lengths.
  static func tokens(seed: UInt64, count: Int) -> [String] {
    var random = SplitMix64(seed: seed)
    var tokens: [String] = []
    for index in 0..<count {
      let header = headers[random.below(headers.count)]
      let payload =
        random.below(4) == 0
        ? #"{"autoRenewStatus":\#(random.below(2)),"originalTransactionId":"\#(index)","signedDate":5}"#
        : transactionPayload(&random, index: index)
      let signature = Base64URL.encode((0..<[0, 1, 2, 3, 64, 64][random.below(6)]).map { UInt8($0 * 7 & 0xFF) })
      tokens.append(
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "." + signature)
    }
    return tokens
  }

  /// Each token as it is, and spoilt: a dot added, a character replaced or cut, quoted and spaced.
  static func mutations(of token: String, _ random: inout SplitMix64) -> [String] {
    let bytes = Array(token.utf8)
    var out = [token, "\"" + token + "\"", "  " + token + "\n", "." + token, token + ".", token + ".x", ""]
    for _ in 0..<12 {
      let at = random.below(bytes.count + 1)
      for b in [".", "=", "+", "!", " ", "\u{7F}"] {
        if random.below(3) != 0 { continue }
        var insert = bytes
        insert.insert(contentsOf: Array(b.utf8), at: at)
        out.append(String(decoding: insert, as: UTF8.self))
        if at < bytes.count {
          var replace = bytes
          replace[at] = b.utf8.first ?? 0
          out.append(String(decoding: replace, as: UTF8.self))
        }
      }
      out.append(String(decoding: bytes[..<at], as: UTF8.self))
    }
    // Each dot taken out, doubled, and each segment emptied, in turn.
    for (i, b) in bytes.enumerated() where b == UInt8(ascii: ".") {
      var cut = bytes
      cut.remove(at: i)
      out.append(String(decoding: cut, as: UTF8.self))
      var doubled = bytes
      doubled.insert(b, at: i)
      out.append(String(decoding: doubled, as: UTF8.self))
    }
    let segments = token.split(separator: ".", omittingEmptySubsequences: false)
    for i in segments.indices {
      var emptied = segments
      emptied[i] = ""
      out.append(emptied.joined(separator: "."))
    }
    return out
  }

  /// A split's answer and what it left in the memo, or its error.
  struct SplitOutcome: Equatable {
    var header: JWSHeader?
    var places: [Int] = []
    var payload: [UInt8] = []
    var signature: [UInt8] = []
    var memoSegment: [UInt8] = []
    var memoHeader: JWSHeader?
    var error: SignedDataError?
  }

  static func split(_ token: [UInt8], memo start: CompactJWS.HeaderMemo, counting: Bool) -> SplitOutcome {
    var memo = start
    let base = LazyPath("signedTransactions", index: 3)
    return token.withUnsafeBufferPointer { text in
      do throws(SignedDataError) {
        let split: CompactJWS.Split
        if counting {
          // The reference: the size checks both make, then every dot counted.
          let (lo, hi) = CompactJWS.trimmedRange(text)
          guard hi > lo else {
            throw SignedDataError(.segmentCount, path: base.text, detail: "empty where a compact JWS was expected")
          }
          split = try CompactJWS.splitCountingDots(text, lo: lo, hi: hi, base: base, memo: &memo)
        } else {
          split = try CompactJWS.split(text, base: base, memo: &memo)
        }
        return SplitOutcome(
          header: split.header, places: [split.lo, split.second],
          payload: Array(memo.payload[..<split.payloadCount]),
          signature: Array(memo.signature[..<split.signatureCount]),
          memoSegment: memo.segment, memoHeader: memo.header)
      } catch {
        return SplitOutcome(memoSegment: memo.segment, memoHeader: memo.header, error: error)
      }
    }
  }

  /// With no memo, with the memo holding the token's own header and with it holding another, the split from the
  /// outer dots gives the counting split's segments, header and memo, or its error, on whole and spoilt tokens.
  @Test(arguments: [1, 2, 3] as [UInt64]) func outerDotsSplitGivesTheCountingSplit(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var memos = [CompactJWS.HeaderMemo()]
    var checked = 0
    var fastSplits = 0
    for token in Self.tokens(seed: seed, count: 40) {
      for text in Self.mutations(of: token, &random) {
        let bytes = Array(text.utf8)
        for memo in memos {
          let fast = Self.split(bytes, memo: memo, counting: false)
          let counted = Self.split(bytes, memo: memo, counting: true)
          #expect(fast == counted, "\(text)")
          checked += 1
          if fast.error == nil { fastSplits += 1 }
        }
      }
      // The next token meets the memo this one leaves, and the two before.
      var memo = CompactJWS.HeaderMemo()
      _ = Array(token.utf8).withUnsafeBufferPointer { text in
        try? CompactJWS.split(text, base: LazyPath(""), memo: &memo)
      }
      memos = [CompactJWS.HeaderMemo(), memo] + memos.suffix(1)
    }
    #expect(fastSplits > 100 && checked > fastSplits, "\(fastSplits) of \(checked)")
  }

  typealias TokenOutcome<P: PlacedPayload> = Result<SignedJWS<P>, SignedDataError>

  /// A token decoded straight into `P`, and through `SignedPayload` then taken out, with what each carried.
  static func bothWays<P: PlacedPayload>(
    _ token: [UInt8], as type: P.Type, strict: Bool
  ) -> (
    typed: TokenOutcome<P>, typedCarried: [SignedDataError], general: TokenOutcome<P>, generalCarried: [SignedDataError]
  ) {
    token.withUnsafeBufferPointer { text in
      var typedCarried: [SignedDataError] = []
      var generalCarried: [SignedDataError] = []
      var memo = CompactJWS.HeaderMemo()
      let base = LazyPath("data", part: "signedTransactionInfo")
      let typed = Result { () throws(SignedDataError) -> SignedJWS<P> in
        let (jws, carried) = try CompactJWS.decode(text, as: P.self, base: base, strict: strict, memo: &memo)
        typedCarried = carried
        return jws
      }
      var other = CompactJWS.HeaderMemo()
      let general = Result { () throws(SignedDataError) -> SignedJWS<P> in
        let (jws, carried) = try CompactJWS.decode(
          text, expected: P.kind, base: base, strict: strict, memo: &other)
        generalCarried = carried
        guard let payload = P.taken(from: jws.payload) else {
          throw SignedDataError(.kindMismatch, path: base.text, detail: "expected \(P.kind.noun)")
        }
        return SignedJWS(
          header: jws.header, payload: payload, signatureByteCount: jws.signatureByteCount, source: jws.source)
      }
      return (typed, typedCarried, general, generalCarried)
    }
  }

  static let oddPayloads: [String] = [
    #"{}"#, #"[]"#, #"{"transactionId":"1","autoRenewStatus":1}"#, #"{"autoRenewStatus":1,"transactionId":"1"}"#,
    #"{"transactionId":1}"#, #"{"transactionId":"1","purchaseDate":"soon"}"#, #"{"productId":"p","#,
    #"{"transactionId":"1"} x"#, #"{"transactionId":"1","transactionId":"2"}"#, #"{"renewalDate":5}"#,
    #"{"notificationType":"TEST","data":{"signedTransactionInfo":"a.b.c","signedRenewalInfo":null}}"#,
    #"{"notificationType":"DID_RENEW","data":{"signedTransactionInfo":"\#(SignedDataFixtures.jws(#"{"transactionId":"9","productId":"p"}"#))"}}"#,
    #"{"receiptType":"Sandbox","transactionId":"1"}"#,
    "{" + (0..<300).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","transactionId":"1"}"#,
    "{" + (0..<300).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","notificationType":"TEST"}"#,
    "\u{FEFF}" + #"{"transactionId":"1"}"#,
  ]

  /// A token read straight into the kind its place requires (transaction, renewal info, notification) gives the
  /// general decoder's payload, header, carried errors, or error, strict and not: on the benchmark's payloads
  /// with three seeds, on payloads of the wrong kind, broken, with unknown keys past the limit, and spoilt tokens.
  @Test(arguments: [1, 2, 3] as [UInt64]) func placedPayloadGivesTheGeneralDecodersPayload(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    var texts = Self.tokens(seed: seed, count: 30)
    texts += Self.oddPayloads.map { SignedDataFixtures.jws($0) }
    texts += texts.prefix(8).flatMap { Self.mutations(of: $0, &random) }
    var decoded = 0
    for text in texts {
      let bytes = Array(text.utf8)
      for strict in [true, false] {
        let t = Self.bothWays(bytes, as: JWSTransactionPayload.self, strict: strict)
        #expect(t.typed == t.general && t.typedCarried == t.generalCarried, "\(text) strict \(strict)")
        if case .success = t.typed { decoded += 1 }
        let r = Self.bothWays(bytes, as: JWSRenewalInfoPayload.self, strict: strict)
        #expect(r.typed == r.general && r.typedCarried == r.generalCarried, "\(text) strict \(strict)")
        let n = Self.bothWays(bytes, as: NotificationV2Payload.self, strict: strict)
        #expect(n.typed == n.general && n.typedCarried == n.generalCarried, "\(text) strict \(strict)")
      }
    }
    #expect(decoded > 20)
  }

  /// Everything a history holds, its stated fields left out unless `keepingStatedFields`.
  static func facts(of history: PurchaseHistory, keepingStatedFields: Bool = false) -> [AnyHashable] {
    var h = history
    if !keepingStatedFields {
      for i in h.transactions.indices { h.transactions[i].statedFields = [] }
      for i in h.renewals.indices { h.renewals[i].statedFields = [] }
      h.provenance.notification?.statedFields = []
      h.provenance.receipt?.statedFields = []
      h.provenance.statedFields = []
    }
    let p = h.provenance
    return [
      h.transactions, h.renewals, h.moment, h.environment, h.warnings, p.format, p.status, p.isRetryable, p.receipt,
      p.notification, p.latestReceiptLength, p.latestReceipt, p.duplicateRowsMerged, p.signature, p.signatureCheck,
      p.carriedFields, p.statedFields,
    ]
  }

  /// Signed documents: every example and peer fixture the format takes, and history pages of generated tokens.
  static func signedDocuments() -> [(String, [UInt8])] {
    var documents: [(String, [UInt8])] = []
    for url in TestPaths.exampleAndPeerFixtureFiles(for: "the stated-fields check") {
      guard let bytes = try? [UInt8](Data(contentsOf: url)),
        SignedDataDecoder.looksLikeSignedData(bytes.prefix(8192))
      else { continue }
      documents.append((url.lastPathComponent, bytes))
    }
    for seed in [1, 2, 3] as [UInt64] {
      let list = Self.tokens(seed: seed, count: 25).map { "\"" + $0 + "\"" }.joined(separator: ",")
      let page = #"{"bundleId":"com.acme.notes","environment":"Production","signedTransactions":[\#(list)]}"#
      documents.append(("page \(seed)", Array(page.utf8)))
    }
    return documents
  }

  /// A caller that never shows stated fields (every command but `decode`) gets the same history without them,
  /// checking signatures or not, and the same failure where there is one.
  @Test func skippingStatedFieldsChangesNothingElse() throws {
    let trust = try SignatureVerdictTests.testTrust()
    var withFields = 0
    for (name, bytes) in Self.signedDocuments() {
      for checking in [false, true] {
        func decode(keeping: Bool) -> Result<PurchaseHistory, ReceiptError> {
          let signatures =
            checking
            ? SignatureChecking(
              verifiers: SignatureVerdictTests.OneVerifier(trust: trust), now: SignatureVerdictTests.now)
            : nil
          let options = DecodeOptions(keepsFieldsOnlyDecodeShows: keeping, signatures: signatures)
          return Result { () throws(ReceiptError) in
            try SignedDataFormat().decode(bytes, source: name, options: options)
          }
        }
        let full = decode(keeping: true)
        let lean = decode(keeping: false)
        #expect(full.map { Self.facts(of: $0) } == lean.map { Self.facts(of: $0) }, "\(name) checking \(checking)")
        if case .success(let h) = lean {
          #expect(Self.facts(of: h) == Self.facts(of: h, keepingStatedFields: true), "\(name)")
        }
        if case .success(let h) = full, h.transactions.contains(where: { !$0.statedFields.isEmpty }) {
          withFields += 1
        }
      }
    }
    #expect(withFields >= 6)
  }

  /// Copies of one transaction in one document are found by the collector's id index: the later-signed copy's
  /// values win, whichever comes first, and the difference is warned once per extra copy with the winner's date.
  @Test func copiesInOneDocumentMergeThroughTheIndex() throws {
    let early = SignedDataFixtures.jws(
      #"{"transactionId":"7","productId":"p","expiresDate":1700000000000,"signedDate":1690000000000}"#)
    let late = SignedDataFixtures.jws(
      #"{"transactionId":"7","productId":"p","expiresDate":1710000000000,"signedDate":1695000000000,"revocationDate":1694000000000,"revocationReason":0}"#
    )
    let other = SignedDataFixtures.jws(#"{"transactionId":"8","productId":"p","signedDate":1691000000000}"#)
    let unsigned = SignedDataFixtures.jws(#"{"transactionId":"9","productId":"p","expiresDate":1}"#)
    let unsignedToo = SignedDataFixtures.jws(#"{"transactionId":"9","productId":"p","expiresDate":2}"#)
    let said =
      "two signed copies differ in revocationDate, expiresDate; the later-signed copy (signedDate "
      + "2023-09-18T01:20:00Z) is used"
    for lines in [[early, other, late], [late, other, early], [early, late, other, late]] {
      let text = (lines + [unsigned, unsignedToo]).joined(separator: "\n")
      let h = try SignedDataFormat().decode(Array(text.utf8), source: "lines", options: DecodeOptions())
      #expect(Set(h.transactions.map(\.transactionID)) == ["7", "8", "9"] && h.transactions.count == 3)
      let seven = try #require(h.transactions.first { $0.transactionID == "7" })
      #expect(seven.expiresDate?.milliseconds == 1_710_000_000_000)
      #expect(seven.revocation?.date.milliseconds == 1_694_000_000_000)
      // Neither unsigned copy is later-signed: the first read stands.
      #expect(h.transactions.first { $0.transactionID == "9" }?.expiresDate?.milliseconds == 1)
      let sevens = h.warnings.filter { $0.path == "transactionId 7" }.map(\.message)
      // A third copy equal to the merged one differs in nothing.
      #expect(sevens == [said], "\(lines.count) lines")
      #expect(
        h.warnings.filter { $0.path == "transactionId 9" }.map(\.message) == [
          "two signed copies differ in expiresDate; the later-signed copy is used"
        ])
      #expect(h.provenance.duplicateRowsMerged == lines.count - 2 + 1)
    }
  }
}
