import Foundation
import Testing

@testable import ReceiptCrypto

/// One line of Fixtures/ec-signatures.txt (made by make-ec-fixtures.sh with the OpenSSL command line).
private struct SignedFixture: Sendable, CustomStringConvertible {
  let curve: ECCurve
  let algorithm: DigestAlgorithm
  let message: String
  let publicKey: [UInt8]
  let digest: [UInt8]
  let der: [UInt8]
  let raw: [UInt8]

  var description: String { "\(curve.name) \(algorithm.name) \(message)" }

  static func load() throws -> [SignedFixture] {
    let url = CryptoTestPaths.fixtures.appendingPathComponent("ec-signatures.txt")
    let text = try String(contentsOf: url, encoding: .utf8)
    return try text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
      let f = line.split(separator: " ").map(String.init)
      let curves: [String: ECCurve] = ["P-256": .p256, "P-384": .p384]
      let hashes: [String: DigestAlgorithm] = ["sha256": .sha256, "sha384": .sha384, "sha512": .sha512]
      guard f.count == 7, let curve = curves[f[0]], let algorithm = hashes[f[1]], let key = Hex.bytes(f[3]),
        let digest = Hex.bytes(f[4]), let der = Hex.bytes(f[5]), let raw = Hex.bytes(f[6])
      else { throw FixtureError(line: String(line)) }
      return SignedFixture(
        curve: curve, algorithm: algorithm, message: f[2], publicKey: key, digest: digest, der: der, raw: raw)
    }
  }
}

private struct FixtureError: Error { let line: String }

@Suite("ECDSA public keys and signatures")
struct ECPublicKeyTests {
  @Test func openSSLSignaturesVerifyInBothForms() throws {
    let fixtures = try SignedFixture.load()
    #expect(fixtures.count >= 7)
    #expect(Set(fixtures.map(\.curve)) == [.p256, .p384])
    for fixture in fixtures {
      #expect(fixture.algorithm.digest(Array(fixture.message.utf8)) == fixture.digest, "\(fixture)")
      let plain = try ECPublicKey(curve: fixture.curve, x963Representation: fixture.publicKey)
      // The key as given and precomputed (KeyTableTests) alike.
      for key in [plain, plain.precomputed()] {
        #expect(key.isValidSignature(derEncoded: fixture.der, digest: fixture.digest), "\(fixture) DER")
        #expect(key.isValidSignature(rawRS: fixture.raw, digest: fixture.digest), "\(fixture) r‖s")
        // The forms are not interchangeable.
        #expect(!key.isValidSignature(derEncoded: fixture.raw, digest: fixture.digest))
        #expect(!key.isValidSignature(rawRS: fixture.der, digest: fixture.digest))
      }
    }
  }

  /// Byte positions to flip: both ends and every 5th in between (every byte of everything costs half a minute in
  /// a debug build).
  private func sampled(_ indices: Range<Int>) -> [Int] {
    Array(Set(Array(stride(from: indices.lowerBound, to: indices.upperBound, by: 5)) + [indices.upperBound - 1]))
      .sorted()
  }

  @Test func aFlippedByteAnywhereFails() throws {
    for fixture in try SignedFixture.load() {
      let plain = try ECPublicKey(curve: fixture.curve, x963Representation: fixture.publicKey)
      // The key as given and precomputed (KeyTableTests) alike.
      for key in [plain, plain.precomputed()] { flipSignatureAndDigestBytes(fixture, key) }
      for index in sampled(1..<fixture.publicKey.count) {
        var bytes = fixture.publicKey
        bytes[index] ^= 0x01
        // A changed coordinate is almost surely off the curve; if not, it is another key.
        if let other = try? ECPublicKey(curve: fixture.curve, x963Representation: bytes) {
          #expect(!other.isValidSignature(rawRS: fixture.raw, digest: fixture.digest), "\(fixture) key \(index)")
        }
      }
    }
  }

  private func flipSignatureAndDigestBytes(_ fixture: SignedFixture, _ key: ECPublicKey) {
    for index in sampled(fixture.raw.indices) {
      var raw = fixture.raw
      raw[index] ^= 0x01
      #expect(!key.isValidSignature(rawRS: raw, digest: fixture.digest), "\(fixture) r‖s byte \(index)")
    }
    for index in Array(0..<8) + sampled(fixture.der.indices) {
      var der = fixture.der
      der[index] ^= 0x80
      #expect(!key.isValidSignature(derEncoded: der, digest: fixture.digest), "\(fixture) DER byte \(index)")
    }
    for index in sampled(fixture.digest.indices) + [fixture.curve.byteCount - 1] where index < fixture.digest.count {
      var digest = fixture.digest
      digest[index] ^= 0x01
      // Past the order's length the digest is truncated away (SEC 1 4.1.4): those bytes do not count.
      let counted = index < fixture.curve.byteCount
      #expect(key.isValidSignature(rawRS: fixture.raw, digest: digest) == !counted, "\(fixture) digest \(index)")
    }
  }

  @Test func malformedKeysAreRefusedWithTheReason() throws {
    for curve in ECCurve.allCases {
      let size = curve.byteCount
      let generator = curve == .p256 ? P256.generator.x963Representation : P384.generator.x963Representation
      #expect((try? ECPublicKey(curve: curve, x963Representation: generator)) != nil)
      let other: ECCurve = curve == .p256 ? .p384 : .p256
      #expect(
        throws: CryptoKeyError.wrongPointLength(curve: other, expected: 1 + 2 * other.byteCount, actual: 1 + 2 * size)
      ) {
        try ECPublicKey(curve: other, x963Representation: generator)
      }
      #expect(throws: CryptoKeyError.unsupportedPointEncoding(firstByte: nil)) {
        try ECPublicKey(curve: curve, x963Representation: [])
      }
      #expect(throws: CryptoKeyError.unsupportedPointEncoding(firstByte: 0x00)) {
        try ECPublicKey(curve: curve, x963Representation: [0x00])  // the identity
      }
      #expect(throws: CryptoKeyError.unsupportedPointEncoding(firstByte: 0x02)) {
        try ECPublicKey(curve: curve, x963Representation: [0x02] + generator[1...size])  // compressed
      }
      var offCurve = generator
      offCurve[offCurve.count - 1] ^= 0x01
      #expect(throws: CryptoKeyError.pointNotOnCurve(curve: curve)) {
        try ECPublicKey(curve: curve, x963Representation: offCurve)
      }
      // x = p: out of range, even though p ≡ 0 would otherwise be a field element.
      let p = curve == .p256 ? P256.Field.modulusArray : P384.Field.modulusArray
      let pBytes = p.reversed().flatMap { limb in
        stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: limb >> $0) }
      }
      #expect(throws: CryptoKeyError.coordinateOutOfRange(curve: curve)) {
        try ECPublicKey(curve: curve, x963Representation: [0x04] + pBytes + generator[(1 + size)...])
      }
      #expect(throws: CryptoKeyError.coordinateOutOfRange(curve: curve)) {
        try ECPublicKey(curve: curve, x963Representation: [0x04] + generator[1...size] + pBytes)
      }
      #expect(!CryptoKeyError.pointNotOnCurve(curve: curve).description.contains("\n"))
    }
  }

  @Test func keysCompareByCurveAndBytes() throws {
    let g = P256.generator.x963Representation
    let a = try ECPublicKey(curve: .p256, x963Representation: g)
    let b = try ECPublicKey(curve: .p256, x963Representation: g)
    #expect(a == b && a.hashValue == b.hashValue)
    #expect(a != (try ECPublicKey(curve: .p256, x963Representation: P256.generatorTable[1].x963Representation)))
  }

  @Test func rAndSOutsideOneToNMinusOneAreRefused() throws {
    for fixture in try SignedFixture.load() {
      let key = try ECPublicKey(curve: fixture.curve, x963Representation: fixture.publicKey)
      let size = fixture.curve.byteCount
      let r = Array(fixture.raw[..<size])
      let s = Array(fixture.raw[size...])
      let n = fixture.curve == .p256 ? P256.Order.modulusArray : P384.Order.modulusArray
      let nBytes = n.reversed().flatMap { limb in
        stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: limb >> $0) }
      }
      let zero = [UInt8](repeating: 0, count: size)
      for (badR, badS) in [(zero, s), (r, zero), (nBytes, s), (r, nBytes)] {
        #expect(!key.isValidSignature(rawRS: badR + badS, digest: fixture.digest))
        #expect(!key.isValidSignature(derEncoded: der(badR, badS), digest: fixture.digest))
      }
      // s + n ≡ s mod n, but out of range: here as r‖s it does not fit; in DER it is one byte longer.
      let sPlusN = SchoolbookInteger.add(bigEndianLimbs(s), n)
      #expect(!key.isValidSignature(derEncoded: der(r, bytes(sPlusN)), digest: fixture.digest))
      #expect(!key.isValidSignature(rawRS: Array(fixture.raw.dropLast()), digest: fixture.digest), "short r‖s")
      #expect(!key.isValidSignature(rawRS: fixture.raw + [0], digest: fixture.digest), "long r‖s")
    }
  }

  @Test func derMustBeStrict() throws {
    for fixture in try SignedFixture.load() {
      let key = try ECPublicKey(curve: fixture.curve, x963Representation: fixture.publicKey)
      let size = fixture.curve.byteCount
      let r = Array(fixture.raw[..<size])
      let s = Array(fixture.raw[size...])
      let valid = der(r, s)
      #expect(valid == fixture.der, "the test's encoder agrees with OpenSSL's")
      #expect(key.isValidSignature(derEncoded: valid, digest: fixture.digest))
      var variants: [(String, [UInt8])] = [
        ("trailing byte", valid + [0]),
        ("SET instead of SEQUENCE", [0x31] + valid.dropFirst()),
        ("BIT STRING r", Array(valid.prefix(2)) + [0x03] + valid.dropFirst(3)),
        ("truncated", Array(valid.dropLast())),
        ("long-form length where short fits", [0x30, 0x81] + valid.dropFirst()),
        ("indefinite length", [0x30, 0x80] + valid.dropFirst(2) + [0, 0]),
        ("extra leading zero on r", der([0] + signed(minimal(r)), minimal(s), keepLeadingZero: true)),
      ]
      if minimal(r).first.map({ $0 >= 0x80 }) == true {
        variants.append(("r without its sign byte (negative)", derRaw(minimal(r), signed(minimal(s)))))
      }
      for (name, bytes) in variants {
        #expect(!key.isValidSignature(derEncoded: bytes, digest: fixture.digest), "\(fixture): \(name)")
      }
    }
  }

  @Test func arbitraryBytesNeverVerifyAndNeverTrap() throws {
    var random = SplitMix64(state: 31)
    for fixture in try SignedFixture.load() {
      let key = try ECPublicKey(curve: fixture.curve, x963Representation: fixture.publicKey)
      for length in 0..<fixture.der.count {
        #expect(!key.isValidSignature(derEncoded: Array(fixture.der.prefix(length)), digest: fixture.digest))
      }
      for _ in 0..<40 {
        let noise = (0..<Int(random.next() % 120)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(!key.isValidSignature(derEncoded: noise, digest: fixture.digest))
        #expect(!key.isValidSignature(derEncoded: [0x30, UInt8(noise.count & 0x7f)] + noise, digest: fixture.digest))
        #expect(!key.isValidSignature(rawRS: noise, digest: fixture.digest))
        // Random points: refused with one of the reasons (almost surely off the curve), never a trap.
        let point = [0x04] + (0..<(2 * fixture.curve.byteCount)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(throws: CryptoKeyError.self) { try ECPublicKey(curve: fixture.curve, x963Representation: point) }
      }
      for _ in 0..<3 {
        let noise = (0..<(2 * fixture.curve.byteCount)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(!key.isValidSignature(rawRS: noise, digest: fixture.digest), "random r‖s of the right length")
      }
      // Digests of any length are accepted as input; only the right one verifies.
      for length in [0, 1, 20, fixture.curve.byteCount - 1] where length < fixture.digest.count {
        #expect(!key.isValidSignature(rawRS: fixture.raw, digest: Array(fixture.digest.prefix(length))))
      }
    }
  }

  // MARK: helpers (a DER encoder of (r, s) for building variants)

  private func minimal(_ magnitude: [UInt8]) -> [UInt8] {
    let trimmed = Array(magnitude.drop { $0 == 0 })
    return trimmed.isEmpty ? [0] : trimmed
  }

  private func signed(_ magnitude: [UInt8]) -> [UInt8] {
    magnitude.first.map { $0 >= 0x80 } == true ? [0] + magnitude : magnitude
  }

  private func der(_ r: [UInt8], _ s: [UInt8], keepLeadingZero: Bool = false) -> [UInt8] {
    derRaw(keepLeadingZero ? r : signed(minimal(r)), signed(minimal(s)))
  }

  private func derRaw(_ r: [UInt8], _ s: [UInt8]) -> [UInt8] {
    let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
    return body.count < 0x80 ? [0x30, UInt8(body.count)] + body : [0x30, 0x81, UInt8(body.count)] + body
  }

  private func bigEndianLimbs(_ bytes: [UInt8]) -> [UInt64] {
    stride(from: bytes.count, to: 0, by: -8).map { end in
      bytes[max(0, end - 8)..<end].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
  }

  private func bytes(_ limbs: [UInt64]) -> [UInt8] {
    minimal(
      limbs.reversed().flatMap { limb in
        stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: limb >> $0) }
      })
  }
}
