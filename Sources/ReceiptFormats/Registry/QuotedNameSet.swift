/// A few quoted names (`"signedPayload"`) to look for in a document's first bytes, spelled plainly or with escapes
/// (`"\u0073ignedPayload"`), found in one pass that stops only at quotes and backslashes: format sniffs run on
/// every document the registry sees, so none compares a needle at every byte, and none reads the bytes twice.
///
/// A plain name (a quote, bytes without a quote, a quote) occurs at a quote exactly when the bytes up to the next
/// quote, escaped or not, are the name, so the pass compares the bytes between each two quotes with the names of
/// that length (those starting with that byte). The same pass follows the strings as JSON reads them (a backslash
/// takes the byte after it) and decodes a string holding an escape, as `EscapedNames` does, to compare it; a string
/// cut at the end is not. `ReferenceSignedDataSniff` (the tests) holds it to the former three passes.
struct QuotedNameSet: Sendable {
  /// The names without quotes, by length.
  private let namesByLength: [[[UInt8]]]
  /// The ASCII first bytes of the names of each length, as bits: two words a length. A string starting with
  /// another byte is compared with every name of its length.
  private let firstBytes: [UInt64]

  /// - Parameter names: the names, without quotes; a name holding a quote is never found.
  init(_ names: [String]) {
    let bytes = names.map { Array($0.utf8) }.filter { !$0.contains(UInt8(ascii: "\"")) }
    var table = [[[UInt8]]](repeating: [], count: (bytes.map(\.count).max() ?? 0) + 1)
    var firsts = [UInt64](repeating: 0, count: table.count * 2)
    for name in bytes {
      table[name.count].append(name)
      if let first = name.first, first < 0x80 { firsts[name.count * 2 + Int(first >> 6)] |= 1 << (first & 63) }
    }
    namesByLength = table
    firstBytes = firsts
  }

  /// Whether `"name"` occurs in `bytes` for any of the names, spelled plainly or with escapes.
  func occurs(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return false }
    let n = bytes.count
    var walk = Walk()
    // Every quote and backslash of a word in turn, from the word's flags; those an escape took are passed over.
    var w = 0
    while n &- w >= 8 {
      var hits = UInt64(littleEndian: UnsafeRawPointer(base + w).loadUnaligned(as: UInt64.self))
      hits = WordScan.equal(hits, 0x22) | WordScan.equal(hits, 0x5C)
      while hits != 0 {
        let p = w &+ (hits.trailingZeroBitCount &>> 3)
        hits &= hits &- 1
        if p >= walk.next, walk.visit(p, base, n, self) { return true }
      }
      w &+= 8
    }
    while w < n {
      if w >= walk.next, walk.visit(w, base, n, self) { return true }
      w &+= 1
    }
    return false
  }

  /// Where the pass is: the last quote, escaped or not; the opening quote of the string it is in (-1 between
  /// strings) and whether that string holds an escape; the first byte not taken by an escape.
  private struct Walk {
    var quote = -1
    var open = -1
    var escaped = false
    var next = 0

    /// Looks at the byte at `p`, which a word's flags marked (it may be neither a quote nor a backslash).
    mutating func visit(_ p: Int, _ base: UnsafePointer<UInt8>, _ n: Int, _ names: QuotedNameSet) -> Bool {
      switch base[p] {
      case 0x5C:
        guard open >= 0 else { return false }
        // Inside a string a backslash takes the next byte: an escaped quote closes nothing, but ends a plain name.
        escaped = true
        next = p &+ 2
        return p &+ 1 < n && base[p &+ 1] == 0x22 && plainNameEnds(at: p &+ 1, base, names)
      case 0x22:
        next = p &+ 1
        if plainNameEnds(at: p, base, names) { return true }
        if open < 0 {
          open = p
          escaped = false
          return false
        }
        defer { open = -1 }
        return escaped && names.decodedName(from: open, to: p, base)
      default:
        return false
      }
    }

    /// Whether the bytes from the last quote to the one at `at` are a name; `at` becomes the last quote.
    mutating func plainNameEnds(at: Int, _ base: UnsafePointer<UInt8>, _ names: QuotedNameSet) -> Bool {
      defer { quote = at }
      guard quote >= 0 else { return false }
      return names.isName(UnsafeBufferPointer(start: base + quote + 1, count: at &- quote &- 1))
    }
  }

  /// Whether `bytes` are one of the names.
  private func isName(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    let length = bytes.count
    guard length < namesByLength.count else { return false }
    if let first = bytes.first {
      guard first >= 0x80 || firstBytes[length &* 2 &+ Int(first &>> 6)] & (1 &<< (first & 63)) != 0 else {
        return false
      }
    }
    return namesByLength[length].contains(where: { $0.elementsEqual(bytes) })
  }

  /// Whether the string from the quote at `open` to the one at `close`, holding an escape, is a name once decoded;
  /// a long one, or one with a broken escape, is not.
  private func decodedName(from open: Int, to close: Int, _ base: UnsafePointer<UInt8>) -> Bool {
    let longest = namesByLength.count &- 1
    let length = close &- open &- 1
    guard length <= longest &* 12,
      let decoded = EscapedNames.unescaped(UnsafeBufferPointer(start: base + open + 1, count: length)),
      decoded.count <= longest
    else { return false }
    return namesByLength[decoded.count].contains(decoded)
  }
}
