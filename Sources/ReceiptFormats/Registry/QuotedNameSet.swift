/// A few quoted names (`"signedPayload"`) to look for in a document's first bytes, found in one pass that
/// stops only at quotes: format sniffs run on every document the registry sees, so none compares a needle at
/// every byte.
///
/// A quoted name (a quote, bytes without a quote, a quote) occurs at a quote exactly when the bytes up to the
/// next quote are the name, so the pass goes from quote to quote (eight bytes at a time between them) and
/// compares only the names of that length.
struct QuotedNameSet: Sendable {
  /// The names without quotes, by length.
  private let namesByLength: [[[UInt8]]]

  /// - Parameter names: the names, without quotes; a name holding a quote is never found.
  init(_ names: [String]) {
    let bytes = names.map { Array($0.utf8) }.filter { !$0.contains(UInt8(ascii: "\"")) }
    var table = [[[UInt8]]](repeating: [], count: (bytes.map(\.count).max() ?? 0) + 1)
    for name in bytes { table[name.count].append(name) }
    namesByLength = table
  }

  /// Whether `"name"` occurs in `bytes` for any of the names, spelled plainly or with escapes (`"\u0073igned..."`).
  func occurs(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    if occursPlainly(in: bytes) { return true }
    guard EscapedNames.mayHoldEscapes(bytes) else { return false }
    return EscapedNames.anyEscapedString(in: bytes, maxLength: namesByLength.count - 1) { decoded, _ in
      namesByLength[decoded.count].contains(decoded)
    }
  }

  /// Whether `"name"` occurs as written, without escapes: the fast path.
  func occursPlainly(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress, var quote = QuoteScan.next(in: bytes, from: 0) else { return false }
    while let next = QuoteScan.next(in: bytes, from: quote &+ 1) {
      let length = next &- quote &- 1
      if length < namesByLength.count {
        let between = UnsafeBufferPointer(start: base + quote + 1, count: length)
        if namesByLength[length].contains(where: { $0.elementsEqual(between) }) { return true }
      }
      quote = next
    }
    return false
  }

  /// Whether `"name"` occurs in `bytes` for any of the names.
  func occurs(in bytes: some Collection<UInt8>) -> Bool {
    if let found = bytes.withContiguousStorageIfAvailable({ occurs(in: $0) }) { return found }
    return Array(bytes).withUnsafeBufferPointer { occurs(in: $0) }
  }
}

/// Finds double quotes eight bytes at a time.
enum QuoteScan {
  /// The offset of the first `"` at or after `start`, if any.
  @inline(__always)
  static func next(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard let base = bytes.baseAddress, start >= 0 else { return nil }
    let n = bytes.count
    var i = WordScan.skip(base, from: start, to: n) { WordScan.equal($0, 0x22) }
    while i < n {
      if base[i] == UInt8(ascii: "\"") { return i }
      i &+= 1
    }
    return nil
  }
}
