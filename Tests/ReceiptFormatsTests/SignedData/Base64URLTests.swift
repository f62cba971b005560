import Foundation
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

@Suite struct Base64URLTests {
  func decode(_ text: String) throws(Base64URLError) -> [UInt8] { try Base64URL.decode(Array(text.utf8)) }

  func failure(_ text: String) -> Base64URLError? {
    do {
      _ = try decode(text)
      return nil
    } catch {
      return error
    }
  }

  /// RFC 4648 §10 test vectors, with and without padding.
  @Test func rfc4648Vectors() throws {
    let vectors = [
      ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
      ("foobar", "Zm9vYmFy"),
    ]
    for (plain, encoded) in vectors {
      #expect(try decode(encoded) == Array(plain.utf8))
      let padded = encoded + String(repeating: "=", count: (4 - encoded.count % 4) % 4)
      #expect(try decode(padded) == Array(plain.utf8))
      #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
    }
  }

  /// The url-safe alphabet: bytes FB FF BF are `-_-_` in base64url (`+/+/` in standard base64).
  @Test func urlSafeAlphabet() throws {
    #expect(try decode("-_-_") == [0xFB, 0xFF, 0xBF])
    let e = failure("+/+/")
    #expect(e?.reason == .invalidCharacter(UInt8(ascii: "+")))
    #expect(e?.offset == 0)
    #expect(e?.message.contains("standard base64") == true)
  }

  @Test func errorsGiveTheOffset() {
    #expect(failure("Zm9vY*Fy") == Base64URLError(reason: .invalidCharacter(UInt8(ascii: "*")), offset: 5))
    #expect(failure("Zm9vYmFy Zm8")?.offset == 8)
    #expect(failure("Zm9vY")?.reason == .impossibleLength)
    #expect(failure("Zg=")?.reason == .misplacedPadding)
    #expect(failure("Zg===")?.reason == .misplacedPadding)
    #expect(failure("Zm=v")?.reason == .misplacedPadding)
    #expect(failure("Zm=v")?.offset == 2)
    // "Zh" carries bits past the single byte it encodes: no encoder writes it.
    #expect(failure("Zh")?.reason == .nonZeroTrailingBits)
    #expect(failure("Zm9=")?.reason == .nonZeroTrailingBits)
    #expect(failure("\u{0}AAA")?.message == "invalid base64url character byte 0x00 at offset 0")
  }

  /// Agrees with Foundation's decoder on random data (translated to the standard alphabet).
  @Test func agreesWithFoundation() throws {
    var generator = SystemRandomNumberGenerator()
    for length in 0..<200 {
      let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let standard = Data(bytes).base64EncodedString()
      let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
      #expect(try decode(url) == bytes)
      #expect(Base64URL.encode(bytes) == url)
    }
  }

  @Test func boundedLength() {
    let text = [UInt8](repeating: UInt8(ascii: "A"), count: 40)
    do {
      _ = try text.withUnsafeBufferPointer { b throws(Base64URLError) in try Base64URL.decode(b, limit: 32) }
      Issue.record("no error")
    } catch {
      #expect(error.reason == .tooLong(limit: 32))
    }
  }
}
