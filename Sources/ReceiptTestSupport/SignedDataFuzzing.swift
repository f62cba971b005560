import ReceiptFormats
import ReceiptModel

/// Fuzz entry for base64url and JWS decoding; the libFuzzer target calls it with each input.
package enum SignedDataFuzzing {
  /// Runs `bytes` through every signed-data entry. Returns the properties that failed (empty when all is
  /// well); a crash or trap is the other kind of finding.
  @discardableResult
  package static func fuzz(_ bytes: [UInt8]) -> [String] {
    var problems: [String] = []
    // base64url: whatever decodes must re-encode to the same text (less padding): the decoder is strict.
    if let decoded = try? Base64URL.decode(bytes) {
      var unpadded = bytes
      while unpadded.last == UInt8(ascii: "=") { unpadded.removeLast() }
      if Array(Base64URL.encode(decoded).utf8) != unpadded { problems.append("base64url round trip differs") }
    }
    _ = try? CompactJWS.decode(bytes)
    for strict in [true, false] {
      do {
        _ = try SignedDataDecoder.decode(bytes, strict: strict)
      } catch {
        // Errors are one line and never quote a JWS from the input.
        if error.description.contains("\n") { problems.append("multi-line error") }
      }
    }
    _ = SignedDataDecoder.looksLikeSignedData(bytes)
    // The input as a payload and as a JWS around it: reaches the typed readers without base64 luck.
    let wrapped = Array("eyJhbGciOiJFUzI1NiJ9.\(Base64URL.encode(bytes)).AA".utf8)
    _ = try? CompactJWS.decode(wrapped)
    return problems
  }
}
