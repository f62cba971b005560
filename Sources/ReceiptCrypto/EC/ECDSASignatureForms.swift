/// The two encodings of an ECDSA signature (r, s): DER `SEQUENCE { INTEGER r, INTEGER s }` (X.509, CMS) and the
/// fixed-width r‖s of IEEE P1363 (JWS ES256). Both yield big-endian magnitudes; range checks come later.
enum ECDSASignatureForms {
  /// r and s from strict DER (ASN1Reader under `.der`: definite minimal lengths, minimal positive INTEGERs,
  /// nothing after the SEQUENCE). `maximumIntegerBytes` bounds each magnitude (the order's byte length).
  static func parseDER(_ bytes: [UInt8], maximumIntegerBytes: Int) -> (r: ArraySlice<UInt8>, s: ArraySlice<UInt8>)? {
    do throws(ASN1Error) {
      var reader = ASN1Reader(bytes, rules: .der)
      let sequence = try reader.expect(ASN1Tag.sequence, "the ECDSA signature")
      try reader.expectEnd("the ECDSA signature")
      var fields = try reader.children(of: sequence)
      let r = try fields.unsignedInteger(try fields.expect(ASN1Tag.integer, "r"), "r")
      let s = try fields.unsignedInteger(try fields.expect(ASN1Tag.integer, "s"), "s")
      try fields.expectEnd("s")
      guard r.count <= maximumIntegerBytes, s.count <= maximumIntegerBytes else { return nil }
      return (r[...], s[...])
    } catch {
      return nil
    }
  }

  /// r and s from r‖s, each exactly `integerBytes` long.
  static func parseRaw(_ bytes: [UInt8], integerBytes: Int) -> (r: ArraySlice<UInt8>, s: ArraySlice<UInt8>)? {
    guard bytes.count == 2 * integerBytes else { return nil }
    return (bytes[0..<integerBytes], bytes[integerBytes...])
  }
}
