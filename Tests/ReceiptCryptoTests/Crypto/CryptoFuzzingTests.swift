import Foundation
import ReceiptCrypto
import ReceiptTestSupport
import Testing

/// The crypto fuzz properties hold on the committed chains and tokens, their truncations and byte flips, and
/// random bytes: what the fuzzer checks, replayed by `swift test`.
@Suite struct CryptoFuzzingTests {
  static let chains = TestPaths.packageRoot.appendingPathComponent("Tests/ReceiptCryptoTests/Fixtures/chains")

  static func seeds() throws -> [(String, [UInt8])] {
    let names = try FileManager.default.contentsOfDirectory(atPath: chains.path).sorted()
    return try names.map { ($0, Array(try Data(contentsOf: chains.appendingPathComponent($0)))) }
  }

  @Test func propertiesHoldOnFixturesTheirPrefixesAndFlips() throws {
    let seeds = try Self.seeds()
    #expect(seeds.count >= 20)
    for (name, bytes) in seeds where name.hasSuffix(".der") {
      #expect(CryptoFuzzing.fuzz(bytes).isEmpty, "\(name)")
      // Prefixes every 37 bytes and a flipped byte every 53: a few hundred cases, not the fuzzer's millions.
      for cut in stride(from: 0, to: bytes.count, by: 37) {
        let problems = CryptoFuzzing.fuzz(Array(bytes[..<cut]))
        #expect(problems.isEmpty, "\(name) cut at \(cut): \(problems)")
      }
      for i in stride(from: 0, to: bytes.count, by: 53) {
        var flipped = bytes
        flipped[i] ^= 0x40
        let problems = CryptoFuzzing.fuzz(flipped)
        #expect(problems.isEmpty, "\(name) byte \(i) flipped: \(problems)")
      }
    }
    for (name, bytes) in seeds where name.hasSuffix(".jws") {
      #expect(CryptoFuzzing.fuzz(bytes).isEmpty, "\(name)")
    }
  }

  @Test func propertiesHoldOnRandomBytes() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let count = Int.random(in: 0...300, using: &generator)
      var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
      // Half of them start like DER, so the reader gets past the first octet.
      if Bool.random(using: &generator), !bytes.isEmpty { bytes[0] = 0x30 }
      let problems = CryptoFuzzing.fuzz(bytes)
      #expect(problems.isEmpty, "\(bytes): \(problems)")
    }
  }

  /// The tiling check itself can fail: a gap between elements is caught.
  @Test func tilingCheckSeesAGap() throws {
    let bytes: [UInt8] = [0x30, 0x03, 0x05, 0x00, 0x00]
    let nodes = [
      ASN1Reader.Node(
        element: ASN1Element(tag: 0x30, offset: 0, contentStart: 2, contentEnd: 5, end: 5, isIndefinite: false),
        depth: 0),
      ASN1Reader.Node(
        element: ASN1Element(tag: 0x05, offset: 2, contentStart: 4, contentEnd: 4, end: 4, isIndefinite: false),
        depth: 1),
    ]
    #expect(!CryptoFuzzing.tiles(nodes, count: bytes.count))
  }
}
