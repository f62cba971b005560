import ReceiptModel

/// The fallback for a document no registered format recognises: when its first bytes look like a known
/// kind of data that is not JSON (base64 text, binary DER such as a PKCS#7 app receipt, a compact JWS),
/// the error says so, rather than reporting the first byte as a JSON syntax error ("found a number").
/// Anything else goes to `inner`, whose error says why it is not that format.
public struct UnrecognizedInput: InputFormat {
  /// The format that reads what does not look like anything else (verifyReceipt JSON).
  public var inner: any InputFormat

  /// - Parameter inner: the format that reads a document that does not look like something else.
  public init(_ inner: any InputFormat) { self.inner = inner }

  public var name: String { inner.name }

  public func recognition(of sniff: DocumentSniff) -> Recognition { inner.recognition(of: sniff) }

  public func decode(_ bytes: [UInt8], source: String, options: DecodeOptions) throws(ReceiptError) -> PurchaseHistory {
    if let looks = Self.looksLike(DocumentSniff(bytes)) {
      throw ReceiptError(
        .malformed, source: source, position: .byteOffset(0),
        message:
          "input looks like \(looks), not JSON, and no input format of this receipt-tool reads it; "
          + "give the JSON that Apple's verifyReceipt endpoint returned, a notification body or a receipt object")
    }
    return try inner.decode(bytes, source: source, options: options)
  }

  /// What the first bytes look like, when they are recognisably not JSON; nil otherwise.
  /// - Parameter sniff: the document's first bytes.
  /// - Returns: a description such as `a compact JWS (StoreKit 2 signed data)`.
  public static func looksLike(_ sniff: DocumentSniff) -> String? {
    let bytes = Array(sniff.prefix)
    guard let first = bytes.first else { return nil }
    if first == 0x30, bytes.count >= 2, bytes[1] >= 0x80 || Int(bytes[1]) + 2 <= bytes.count || bytes.count == 2 {
      // DER SEQUENCE; PKCS#7 signed-data names OID 1.2.840.113549.1.7.2 near the start.
      let signedData: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]
      let head = bytes.prefix(32)
      if head.count >= signedData.count,
        (0...(head.count - signedData.count)).contains(where: {
          head.dropFirst($0).prefix(signedData.count).elementsEqual(signedData)
        })
      {
        return "a binary PKCS#7 signed-data container (DER; an on-device app receipt)"
      }
      if bytes[1] >= 0x80 { return "binary DER (ASN.1) data" }
    }
    let text = trimmed(bytes)
    guard text.count >= 16 else { return nil }
    if isCompactJWS(text) { return "a compact JWS (StoreKit 2 signed data: header.payload.signature)" }
    if text.allSatisfy({ isBase64($0) || $0 == 0x0A || $0 == 0x0D }), !text.allSatisfy(isDigit) {
      // Base64 of a DER SEQUENCE with a long length starts "MI" (0x30 0x8…), as an app receipt does.
      let receipt = text.starts(with: Array("MI".utf8)) ? " (of binary DER data, as an app receipt is)" : ""
      return "base64 text\(receipt)"
    }
    return nil
  }

  /// Without surrounding whitespace and one pair of surrounding double quotes (a JSON string of a token).
  private static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
    var text = bytes[...]
    let space: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    while let f = text.first, space(f) { text = text.dropFirst() }
    while let l = text.last, space(l) { text = text.dropLast() }
    if text.count >= 2, text.first == 0x22, text.last == 0x22 { text = text.dropFirst().dropLast() }
    return text
  }

  /// `eyJ…` three base64url segments separated by dots (the header is a JSON object, so it starts `eyJ`).
  private static func isCompactJWS(_ text: ArraySlice<UInt8>) -> Bool {
    guard text.starts(with: Array("eyJ".utf8)) else { return false }
    let segments = text.split(separator: 0x2E, omittingEmptySubsequences: false)
    return segments.count == 3 && segments.allSatisfy { $0.allSatisfy(isBase64URL) }
  }

  private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

  private static func isAlphanumeric(_ b: UInt8) -> Bool {
    isDigit(b) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
  }

  private static func isBase64(_ b: UInt8) -> Bool { isAlphanumeric(b) || b == 0x2B || b == 0x2F || b == 0x3D }

  private static func isBase64URL(_ b: UInt8) -> Bool { isAlphanumeric(b) || b == 0x2D || b == 0x5F }
}
