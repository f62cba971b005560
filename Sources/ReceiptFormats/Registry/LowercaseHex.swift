/// Bytes as lowercase hex, two digits each (`0a1b`): app receipt attributes, device hashes and certificate
/// fingerprints are all shown this way.
/// - Parameter bytes: The bytes.
/// - Returns: The hex text.
package func lowercaseHex(_ bytes: [UInt8]) -> String {
  // Written as UTF-8 into the string's storage: every carried value of every purchase comes through here.
  let (count, overflow) = bytes.count.multipliedReportingOverflow(by: 2)
  guard !overflow, count > 0 else { return "" }
  return String(unsafeUninitializedCapacity: count) { out in
    var i = 0
    for b in bytes {
      out[i] = hexDigit(b >> 4)
      out[i + 1] = hexDigit(b & 0x0F)
      i += 2
    }
    return i
  }
}

/// The lowercase ASCII digit of a nibble.
@inline(__always)
private func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
