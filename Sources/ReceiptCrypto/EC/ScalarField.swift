/// Integers modulo the group order n: ECDSA's r, s, the digest e and the multipliers u1, u2.
extension FieldElement {
  /// Limbs of a big-endian integer of at most `M.byteCount` bytes (shorter inputs are left-padded with zeros).
  static func limbs(bigEndianUpTo bytes: ArraySlice<UInt8>) -> M.Limbs? {
    guard bytes.count <= M.byteCount else { return nil }
    var result = M.zeroLimbs
    withMutableLimbs(&result, count: M.limbCount) { r in
      // From the last byte up, so shorter inputs are left-padded without a padded copy (no allocation).
      var index = bytes.endIndex
      var bit = 0
      while index > bytes.startIndex {
        index -= 1
        r[bit / 64] |= UInt64(bytes[index]) << UInt64(bit % 64)
        bit += 8
      }
    }
    return result
  }

  /// An integer in [1, m−1] from big-endian bytes (leading zeros allowed, at most `M.byteCount` bytes), in
  /// canonical (not Montgomery) form; nil when zero, too long or not below m. ECDSA's range check on r and s.
  static func nonzeroCanonicalLimbs(bigEndian bytes: ArraySlice<UInt8>) -> M.Limbs? {
    guard let value = limbs(bigEndianUpTo: bytes) else { return nil }
    let inRange = withLimbs(value, count: M.limbCount) { v in
      withLimbs(M.modulus, count: M.limbCount) { m in
        !LimbArithmetic.isZero(v, M.limbCount) && LimbArithmetic.isLess(v, m, M.limbCount)
      }
    }
    return inRange ? value : nil
  }

  /// The digest as an integer mod n (SEC 1 4.1.4 step 5): its leftmost bitlen(n) bits, reduced once.
  /// bitlen(n) is a whole number of bytes for P-256 and P-384, and n > 2^(bitlen−1), so one subtraction reduces.
  static func canonicalLimbs(truncatingDigest digest: [UInt8]) -> M.Limbs {
    let leftmost = digest.prefix(M.byteCount)
    var value = limbs(bigEndianUpTo: leftmost) ?? M.zeroLimbs
    withMutableLimbs(&value, count: M.limbCount) { v in
      withLimbs(M.modulus, count: M.limbCount) { m in
        if !LimbArithmetic.isLess(v, m, M.limbCount) { LimbArithmetic.subtract(v, v, m, M.limbCount) }
      }
    }
    return value
  }
}
