/// The two encodings of an ECDSA signature (r, s): DER `SEQUENCE { INTEGER r, INTEGER s }` (X.509, CMS) and the
/// fixed-width r‖s of IEEE P1363 (JWS ES256). Both yield big-endian magnitudes; range checks come later.
enum ECDSASignatureForms {
  /// r and s from strict DER: definite minimal lengths, minimal positive INTEGERs, nothing after the SEQUENCE.
  /// `maximumIntegerBytes` bounds each magnitude (the order's byte length).
  static func parseDER(_ bytes: [UInt8], maximumIntegerBytes: Int) -> (r: ArraySlice<UInt8>, s: ArraySlice<UInt8>)? {
    var reader = StrictDERReader(bytes: bytes[...])
    guard let sequence = reader.read(tag: 0x30), reader.isAtEnd else { return nil }
    var fields = StrictDERReader(bytes: sequence)
    guard let r = fields.readPositiveInteger(maximumBytes: maximumIntegerBytes),
      let s = fields.readPositiveInteger(maximumBytes: maximumIntegerBytes),
      fields.isAtEnd
    else { return nil }
    return (r, s)
  }

  /// r and s from r‖s, each exactly `integerBytes` long.
  static func parseRaw(_ bytes: [UInt8], integerBytes: Int) -> (r: ArraySlice<UInt8>, s: ArraySlice<UInt8>)? {
    guard bytes.count == 2 * integerBytes else { return nil }
    return (bytes[0..<integerBytes], bytes[integerBytes...])
  }
}

/// Just enough DER for an ECDSA signature (short lengths and the one-byte long form), refusing anything BER allows
/// and DER does not.
private struct StrictDERReader {
  var bytes: ArraySlice<UInt8>

  var isAtEnd: Bool { bytes.isEmpty }

  /// The contents of the next element if its tag is `tag`.
  mutating func read(tag: UInt8) -> ArraySlice<UInt8>? {
    guard let first = bytes.first, first == tag else { return nil }
    var index = bytes.index(after: bytes.startIndex)
    guard index < bytes.endIndex else { return nil }
    let lengthByte = bytes[index]
    index += 1
    let length: Int
    if lengthByte < 0x80 {
      length = Int(lengthByte)
    } else if lengthByte == 0x81 {
      // Long form only where the short form cannot say it (DER minimal length); 0x80 (indefinite) and longer
      // forms are refused: no ECDSA signature here needs 256 bytes.
      guard index < bytes.endIndex, bytes[index] >= 0x80 else { return nil }
      length = Int(bytes[index])
      index += 1
    } else {
      return nil
    }
    guard bytes.endIndex - index >= length else { return nil }
    let contents = bytes[index..<(index + length)]
    bytes = bytes[(index + length)...]
    return contents
  }

  /// A non-negative minimal INTEGER's magnitude without its sign byte, at most `maximumBytes` long.
  mutating func readPositiveInteger(maximumBytes: Int) -> ArraySlice<UInt8>? {
    guard var contents = read(tag: 0x02), let first = contents.first else { return nil }
    if first & 0x80 != 0 { return nil }  // negative
    if first == 0 && contents.count > 1 {
      let second = contents[contents.startIndex + 1]
      if second & 0x80 == 0 { return nil }  // a leading zero that is not needed: not minimal
      contents = contents.dropFirst()
    }
    return contents.count <= maximumBytes ? contents : nil
  }
}
