import Foundation
import ReceiptCrypto
import Testing

/// Chains made by Fixtures/make-chains.sh (committed; always run): one good chain under a test root, and
/// forgeries that each break one rule. Each must fail with its own code and certificate.
@Suite struct ForgedChainTests {
  static func token(_ name: String) throws -> JWSTestToken {
    let bytes = try #require(CryptoTestData.fixture("chains/\(name).jws"), "chains/\(name).jws")
    return try #require(JWSTestToken(String(decoding: bytes, as: UTF8.self)), "\(name)")
  }

  static func certificate(_ name: String) throws -> [UInt8] {
    try #require(CryptoTestData.fixture("chains/\(name).der"), "chains/\(name).der")
  }

  /// Apple's roots plus the test roots.
  static func testTrust() throws -> TrustAnchors {
    try TrustAnchors.apple.adding(rootDER: try certificate("root")).adding(rootDER: try certificate("rootpathlen0"))
  }

  static func verdict(_ name: String, trust: TrustAnchors? = nil) throws -> SignatureVerdict {
    var verifier = AppleSignatureVerifier(trust: try trust ?? testTrust())
    let token = try token(name)
    #expect(token.signedDate == 1_767_225_600_000)
    return token.verify(with: &verifier)
  }

  @Test func goodChainVerifiesOnlyUnderItsRoot() throws {
    let good = try Self.verdict("good")
    #expect(good.outcome == .verified, "\(good.failure?.description ?? "")")
    #expect(!good.anchoredAtApple)
    #expect(
      good.chain.map(\.commonName) == [
        "receipt-tool Test Signing", "receipt-tool Test Intermediate", "receipt-tool Test Root",
      ])
    let untrusted = try Self.verdict("good", trust: .apple)
    #expect(untrusted.failure == SignatureFailure(.untrustedRoot, certificate: "x5c[1]", ""))
    // x5c[2] is never trusted or even read: garbage there changes nothing.
    #expect(try Self.verdict("good-garbage-root").outcome == .verified)
  }

  @Test(
    arguments: [
      ("no-leaf-marker", SignatureFailure.Code.marker, "x5c[0]"),
      ("no-intermediate-marker", .marker, "x5c[1]"),
      ("intermediate-not-ca", .notCA, "x5c[1]"),
      ("expired-leaf", .expired, "x5c[0]"),
      ("critical-extension", .criticalExtension, "x5c[0]"),
      ("look-alike-g3", .untrustedRoot, "x5c[1]"),
      ("root-path-length", .pathLength, "root"),
      ("intermediate-without-certsign", .keyUsage, "x5c[1]"),
      ("leaf-p384", .unsupportedKey, "x5c[0]"),
      ("leaf-signed-by-another-key", .badSignature, "x5c[0]"),
      ("four-certificates", .jwsX5C, nil),
      ("two-certificates", .jwsX5C, nil),
      ("alg-none", .jwsAlgorithm, nil),
      ("alg-hs256", .jwsAlgorithm, nil),
    ] as [(String, SignatureFailure.Code, String?)])
  func forgeryFailsWithItsCode(_ name: String, _ code: SignatureFailure.Code, _ position: String?) throws {
    let verdict = try Self.verdict(name)
    let failure = try #require(verdict.failure, "\(name) verified")
    #expect(failure.code == code && failure.certificate == position, "\(name): \(failure)")
    #expect(!failure.description.contains("\n"))
    #expect(failure.description.hasPrefix(code.rawValue))
  }

  @Test func lookAlikeRootHasTheSameNameBytesAsG3() throws {
    let fake = try Certificate(derEncoded: try Self.certificate("fakeg3"))
    let g3 = try #require(TrustAnchors.apple.anchors.first?.certificate)
    #expect(fake.subject.encoded == g3.subject.encoded)
    #expect(fake.publicKey != g3.publicKey)
    // Even given as x5c[2] with the pinned root alone, it is refused; and trusting it explicitly would work.
    let refused = try Self.verdict("look-alike-g3", trust: .apple)
    #expect(refused.failure?.code == .untrustedRoot)
    #expect(refused.failure?.description.contains("look-alike") == true)
    let trusted = try Self.verdict(
      "look-alike-g3", trust: try TrustAnchors.apple.adding(rootDER: try Self.certificate("fakeg3")))
    #expect(trusted.outcome == .verified && !trusted.anchoredAtApple)
  }

  @Test func renamingPositionsRenamesTheSummaries() throws {
    let leaf = PositionedCertificate("x5c[0]", try Certificate(derEncoded: try Self.certificate("leaf")))
    let intermediate = PositionedCertificate("x5c[1]", try Certificate(derEncoded: try Self.certificate("inter")))
    let result = AppleChain.validate(
      leaf: leaf, intermediate: intermediate, anchors: try Self.testTrust(), policy: .jws)
    guard case .success(var chain) = result else {
      Issue.record("\(result)")
      return
    }
    #expect(chain.summaries.map(\.position) == ["x5c[0]", "x5c[1]", "root"])
    let hashes = chain.summaries.map(\.sha256)
    chain.certificates[0].position = "certificates[2]"
    #expect(chain.summaries.map(\.position) == ["certificates[2]", "x5c[1]", "root"])
    #expect(chain.summaries.map(\.sha256) == hashes)
    chain.certificates.removeLast()
    #expect(chain.summaries.count == 2)
  }

  @Test func expiredLeafIsValidInsideItsOwnWindow() throws {
    var verifier = AppleSignatureVerifier(trust: try Self.testTrust())
    let token = try Self.token("expired-leaf")
    let leaf = try Certificate(derEncoded: try Self.certificate("leafexpired"))
    let inside = token.verify(
      with: &verifier, at: VerificationMoment(millisecondsSince1970: leaf.notAfter, source: .now))
    #expect(inside.outcome == .verified)
    #expect(token.verify(with: &verifier).failure?.code == .expired)
    #expect(verifier.cacheMisses == 1 && verifier.cacheHits == 1)
  }

  /// The cache keyed by the header's x5c text (the fast path) gives the verdict a fresh verifier gives (the slow
  /// path), for trusted and rejected chains, at every moment, with good and broken signatures.
  @Test func chainFoundByItsTextGivesTheFreshVerdict() throws {
    let trust = try Self.testTrust()
    var warm = AppleSignatureVerifier(trust: trust)
    let leaf = try Certificate(derEncoded: try Self.certificate("leafexpired"))
    let moments = [
      VerificationMoment(millisecondsSince1970: 1_767_225_600_000, source: .signedDate),
      VerificationMoment(millisecondsSince1970: leaf.notAfter + 1, source: .now),
      VerificationMoment(millisecondsSince1970: 0, source: .now),
    ]
    var checked = 0
    for name in ["good", "expired-leaf", "no-leaf-marker", "leaf-signed-by-another-key"] {
      let token = try Self.token(name)
      var broken = token
      broken.signature[0] ^= 0x01
      var seen = false
      for candidate in [token, broken] {
        for moment in moments {
          var fresh = AppleSignatureVerifier(trust: trust)
          let slow = candidate.verify(with: &fresh, at: moment)
          #expect(fresh.cacheHits == 0)
          let hitsBefore = warm.cacheHits
          let fast = candidate.verify(with: &warm, at: moment)
          #expect(fast == slow, "\(name) at \(moment.millisecondsSince1970)")
          if seen { #expect(warm.cacheHits == hitsBefore + 1, "\(name): served from the cache") }
          seen = true
          checked += 1
        }
      }
    }
    // One validation per distinct chain: the time and the signature were checked every time.
    #expect(warm.cacheMisses == 4)
    #expect(checked == 24)
  }

  @Test func loneSelfSignedCertificateIsTestSigned() throws {
    var verifier = AppleSignatureVerifier()
    let token = try Self.token("lone")
    let verdict = token.verify(with: &verifier)
    #expect(verdict.outcome == .testSigned)
    #expect(verdict.chain.first?.commonName == "receipt-tool Test Lone Signer")
    // A lone certificate that is not self-issued is not a test signature.
    var other = token
    other.x5c = [Base64.encodeForTests(try Self.certificate("leaf"))]
    #expect(other.verify(with: &verifier).failure?.code == .jwsX5C)
  }

  /// Every byte of the signing input and of the signature, changed, fails the signature check.
  @Test func flippedByteAnywhereFails() throws {
    let token = try Self.token("good")
    var verifier = AppleSignatureVerifier(trust: try Self.testTrust())
    #expect(token.verify(with: &verifier).outcome == .verified)
    let dot = try #require(token.signingInput.firstIndex(of: UInt8(ascii: ".")))
    // Header and payload as received (base64url text): another character at every payload position and at the
    // header's start, end and every 29th position between (the middle is the x5c text; a debug-build ECDSA
    // verification per position would take a minute).
    let header = 0..<dot
    let positions = token.signingInput.indices.filter {
      $0 != dot && (!header.contains($0) || $0 < 64 || $0 >= dot - 64 || $0 % 29 == 0)
    }
    #expect(positions.count > token.signingInput.count - dot)
    for i in positions {
      var forged = token
      forged.signingInput[i] = forged.signingInput[i] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
      let verdict = forged.verify(with: &verifier)
      #expect(verdict.failure?.code == .signatureMismatch, "byte \(i)")
    }
    for i in token.signature.indices {
      var forged = token
      forged.signature[i] ^= 0x01
      #expect(forged.verify(with: &verifier).failure?.code == .signatureMismatch, "signature byte \(i)")
    }
    var short = token
    short.signature.removeLast()
    #expect(short.verify(with: &verifier).failure?.code == .signatureEncoding)
    // One chain validation for all of them.
    #expect(verifier.cacheMisses == 1)
  }

  @Test func trailingBytesAndNonMinimalLengthsInACertificateFail() throws {
    let leaf = try Self.certificate("leaf")
    #expect(throws: SignatureFailure(.derMalformed, "")) { try Certificate(derEncoded: leaf + [0x00]) }
    // The outer SEQUENCE's two-octet length written with three octets.
    #expect(leaf[1] == 0x82)
    let longer = [leaf[0], 0x83, 0x00] + leaf[2...]
    #expect(throws: SignatureFailure(.derMalformed, "")) { try Certificate(derEncoded: Array(longer)) }
    // Carried in x5c: the failure names the certificate.
    var token = try Self.token("good")
    token.x5c?[0] = Base64.encodeForTests(leaf + [0x00])
    var verifier = AppleSignatureVerifier(trust: try Self.testTrust())
    #expect(token.verify(with: &verifier).failure == SignatureFailure(.derMalformed, certificate: "x5c[0]", ""))
    token.x5c?[1] = "not base64!"
    #expect(token.verify(with: &verifier).failure == SignatureFailure(.jwsBase64, certificate: "x5c[1]", ""))
  }

  /// Byte patches that keep the DER well formed but break a certificate rule.
  @Test func patchedCertificatesBreakTheirRule() throws {
    let leaf = try Self.certificate("leaf")
    let sha256 = OID.ecdsaWithSHA256.contentOctets
    // The last AlgorithmIdentifier is the outer one: made ecdsa-with-SHA384, the inner one still says SHA-256.
    let outer = try #require(Self.lastRange(of: sha256, in: leaf))
    var mismatched = leaf
    mismatched[outer.upperBound - 1] = 0x03
    #expect(throws: SignatureFailure(.algorithmMismatch, "")) { try Certificate(derEncoded: mismatched) }
    // notBefore 2025-06-01 made 2029-06-01, after notAfter 2027-06-01.
    let notBefore = try #require(Self.lastRange(of: Array("250601000000Z".utf8), in: leaf))
    var inverted = leaf
    inverted[notBefore.lowerBound + 1] = UInt8(ascii: "9")
    #expect(throws: SignatureFailure(.certificateValidity, "")) { try Certificate(derEncoded: inverted) }
    // A version 4.
    var version = leaf
    #expect(Array(version[8...12]) == [0xA0, 0x03, 0x02, 0x01, 0x02])
    version[12] = 0x03
    #expect(throws: SignatureFailure(.derMalformed, "")) { try Certificate(derEncoded: version) }
  }

  static func lastRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
    guard needle.count <= haystack.count else { return nil }
    for start in stride(from: haystack.count - needle.count, through: 0, by: -1)
    where haystack[start..<(start + needle.count)].elementsEqual(needle) {
      return start..<(start + needle.count)
    }
    return nil
  }

  @Test func everyFixtureCertificateTruncatedNeverParses() throws {
    var certificates: [(String, [UInt8])] = []
    for name in ["root", "inter", "leaf", "fakeg3", "lone", "leafcritical"] {
      certificates.append((name, try Self.certificate(name)))
    }
    certificates.append(("Apple Root CA - G3", AppleRoots.appleRootCAG3))
    certificates.append(("Apple Root CA", AppleRoots.appleIncRoot))
    for (name, der) in certificates {
      #expect((try? Certificate(derEncoded: der)) != nil, "\(name)")
      for cut in 0..<der.count {
        do {
          _ = try Certificate(derEncoded: Array(der[..<cut]))
          Issue.record("\(name) cut at \(cut) parsed")
        } catch {
          #expect(error.code == .derMalformed, "\(name) cut at \(cut): \(error)")
          #expect(!error.description.contains("\n"))
        }
      }
    }
  }

  @Test func pemAndDERTrustRootsLoad() throws {
    let der = try Self.certificate("root")
    #expect(try TrustAnchors.certificatesFromPEMOrDER(der) == [der])
    let body = Base64.encodeForTests(der)
    var lines: [String] = []
    var rest = Substring(body)
    while !rest.isEmpty {
      lines.append(String(rest.prefix(64)))
      rest = rest.dropFirst(64)
    }
    let pem = "-----BEGIN CERTIFICATE-----\n\(lines.joined(separator: "\n"))\n-----END CERTIFICATE-----\n"
    #expect(try TrustAnchors.certificatesFromPEMOrDER(Array((pem + pem).utf8)) == [der, der])
    #expect(throws: SignatureFailure.self) { try TrustAnchors.certificatesFromPEMOrDER(Array("hello".utf8)) }
    #expect(throws: SignatureFailure.self) { try TrustAnchors.apple.adding(rootDER: [0x30, 0x00]) }
  }
}

extension Base64 {
  /// Standard base64 with padding, for building test tokens.
  static func encodeForTests(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}
