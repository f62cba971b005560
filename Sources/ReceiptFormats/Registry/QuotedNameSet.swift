import ReceiptModel

/// A few quoted names (`"signedPayload"`) to look for in a document's first bytes, spelled plainly or with escapes
/// (`"\u0073ignedPayload"`), found in one walk that stops only at quotes and backslashes (`WordScan`): format sniffs
/// run on every document the registry sees, so none compares a needle at every byte, and the registry walks a
/// document once for the names of all its formats (`QuotedNameFinds`).
///
/// A plain name (a quote, bytes without a quote, a quote) occurs at a quote exactly when the bytes up to the next
/// quote, escaped or not, are the name, so the walk compares the bytes between each two quotes with the names of
/// that length (those starting with that byte). The same walk follows the strings as JSON reads them (a backslash
/// takes the byte after it) and decodes a string holding an escape, as `EscapedNames` does, to compare it; a string
/// cut at the end is not. `ReferenceSignedDataSniff` (the tests) holds it to the former three passes.
struct QuotedNameSet: Sendable {
  /// The names without quotes, in the order given (a name's place is its id), duplicates dropped.
  let names: [[UInt8]]
  /// The ids of the names, by length.
  private let idsByLength: [[Int]]
  /// The first and the last bytes of the names of each length, as bits: eight words a length, four for the first
  /// byte and four for the last (an empty name's are the quotes either side of it). Only bytes whose first and last
  /// byte both appear there are compared with the names of their length.
  private let ends: [UInt64]
  /// The length of the shortest name (`idsByLength.count` when there is none): the bytes between most two quotes
  /// (`":"`, `","`) are shorter, and a long value longer than every name.
  private let shortest: Int

  /// - Parameter names: the names, without quotes; a name holding a quote is never found.
  init(_ names: [String]) {
    // Made once a registry: no key paths, nor init(repeating:count:) (see `Array(filling:count:)`), which cost more
    // than the rest of the set; a name is compared only with those of its length.
    var unique: [[UInt8]] = []
    unique.reserveCapacity(names.count)
    var table = [[Int]](filling: [], count: 1)
    for text in names {
      let name = Array(text.utf8)
      while table.count <= name.count { table.append([]) }
      guard !table[name.count].contains(where: { unique[$0] == name }) else { continue }
      if !name.contains(UInt8(ascii: "\"")) { table[name.count].append(unique.count) }
      unique.append(name)
    }
    var ends = [UInt64](filling: 0, count: table.count * 8)
    for ids in table {
      for id in ids {
        let name = unique[id]
        let first = name.first ?? 0x22
        let last = name.last ?? 0x22
        ends[name.count * 8 + Int(first >> 6)] |= 1 << (first & 63)
        ends[name.count * 8 + 4 + Int(last >> 6)] |= 1 << (last & 63)
      }
    }
    self.names = unique
    idsByLength = table
    self.ends = ends
    shortest = table.firstIndex { !$0.isEmpty } ?? table.count
  }

  /// Whether `"name"` occurs in `bytes` for any of the names, spelled plainly or with escapes: the walk stops at the
  /// first.
  func occurs(in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    walk(bytes) { _, _, _ in true }
  }

  /// How each name occurs in `bytes`, from one walk to the end; nil for a set of more than `QuotedNameFinds.capacity`
  /// names (its callers walk for their own names then).
  ///
  /// Up to the first block of sixteen bytes holding a backslash, no escape can take a quote or open an escaped name,
  /// so the walk there needs only the quotes: it takes the mask of quotes of sixty-four bytes (then of sixteen) and
  /// compares the bytes between each two with the names, inline; the last bytes too, when they hold no backslash.
  /// From that block on, `walk` goes on from the place the quotes left: the last quote, and the string the last
  /// quote opened when their count is odd.
  func finds(in bytes: UnsafeBufferPointer<UInt8>) -> QuotedNameFinds? {
    guard names.count <= QuotedNameFinds.capacity else { return nil }
    var finds = QuotedNameFinds(self)
    guard let base = bytes.baseAddress else { return finds }
    let n = bytes.count
    let span = UInt(bitPattern: idsByLength.count &- shortest)
    let quotes = SIMD16<UInt8>(repeating: 0x22)
    let backslashes = SIMD16<UInt8>(repeating: 0x5C)
    // Before the first quote, far enough back that the bytes up to any quote are longer than every name.
    let none = -(1 << 40)
    var quote = none
    var count = 0
    var w = 0
    /// Compares the bytes before each quote `hits` marks (bit i: the byte at `w` + i) with the names.
    @inline(__always) func visit(_ quotesAt: UInt64) {
      var hits = quotesAt
      while hits != 0 {
        let p = w &+ hits.trailingZeroBitCount
        hits &= hits &- 1
        let length = p &- quote &- 1
        if UInt(bitPattern: length &- shortest) < span, endsMayName(base, from: quote &+ 1, to: p) {
          noteName(from: quote &+ 1, length: length, in: bytes, to: &finds)
        }
        quote = p
        count &+= 1
      }
    }
    // Sixty-four bytes to one test for a backslash and one for a quote (most windows of a long value hold neither,
    // and take no mask); the window holding the first backslash is gone through again sixteen bytes at a time, from
    // its start, so the quotes end where a backslash's block starts, as before.
    while n &- w >= 64 {
      let raw = UnsafeRawPointer(base + w)
      let b0 = raw.loadUnaligned(as: SIMD16<UInt8>.self)
      let b1 = raw.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
      let b2 = raw.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt8>.self)
      let b3 = raw.loadUnaligned(fromByteOffset: 48, as: SIMD16<UInt8>.self)
      let escapes = (b0 .== backslashes) .| (b1 .== backslashes) .| (b2 .== backslashes) .| (b3 .== backslashes)
      if WordScan.anyLane(escapes) { break }
      let q0 = b0 .== quotes
      let q1 = b1 .== quotes
      let q2 = b2 .== quotes
      let q3 = b3 .== quotes
      if WordScan.anyLane(q0 .| q1 .| q2 .| q3) {
        visit(
          WordScan.blockMask(q0) | WordScan.blockMask(q1) &<< 16 | WordScan.blockMask(q2) &<< 32
            | WordScan.blockMask(q3) &<< 48)
      }
      w &+= 64
    }
    while n &- w >= 16 {
      let block = UnsafeRawPointer(base + w).loadUnaligned(as: SIMD16<UInt8>.self)
      if WordScan.anyLane(block .== backslashes) { break }
      visit(WordScan.blockMask(block .== quotes))
      w &+= 16
    }
    guard w < n else { return finds }
    // The last bytes (fewer than sixteen): the sixteen that end the prefix, those before `w` shifted out, when they
    // hold no backslash; no byte outside the prefix is read.
    if n &- w < 16, n >= 16 {
      let block = UnsafeRawPointer(base + (n &- 16)).loadUnaligned(as: SIMD16<UInt8>.self)
      let before = UInt64(16 &- (n &- w))
      if WordScan.blockMask(block .== backslashes) &>> before == 0 {
        visit(WordScan.blockMask(block .== quotes) &>> before)
        return finds
      }
    }
    let last = quote < 0 ? -1 : quote
    let place = WalkPlace(quote: last, open: count & 1 == 1 ? last : -1, next: last &+ 1)
    _ = walk(bytes, from: w, place: place) { id, escaped, end in
      finds.note(id, escaped: escaped, followedBy: bytes, at: end)
      return false
    }
    return finds
  }

  /// Notes the name the `length` bytes from `start` are, if any, closed by the quote after them: out of the quote
  /// loop, which most strings leave on their length alone.
  @inline(never)
  private func noteName(
    from start: Int, length: Int, in bytes: UnsafeBufferPointer<UInt8>, to finds: inout QuotedNameFinds
  ) {
    guard let base = bytes.baseAddress, let id = name(UnsafeBufferPointer(start: base + start, count: length)) else {
      return
    }
    finds.note(id, escaped: false, followedBy: bytes, at: start &+ length &+ 1)
  }

  /// Where `walk` starts: the last quote before it (-1: none), the opening quote of the string it is in (-1: between
  /// strings), and the first byte not taken by an escape; a string it starts in holds no escape before it.
  struct WalkPlace {
    var quote = -1
    var open = -1
    var next = 0
  }

  /// The id of `name`, if it is one of the names (and holds no quote).
  func id(of name: [UInt8]) -> Int? {
    guard name.count < idsByLength.count else { return nil }
    guard !name.isEmpty else { return idsByLength[0].first }
    // Compared in place: each format's recognition asks for its names' facts on every document.
    return name.withUnsafeBufferPointer { $0.baseAddress.flatMap { id(of: $0, length: name.count) } }
  }

  /// The id of the name the `length` bytes at `start` are, compared with each name of that length (at most the
  /// longest name's).
  private func id(of start: UnsafePointer<UInt8>, length: Int) -> Int? {
    for id in idsByLength[length] {
      let same = names[id].withUnsafeBufferPointer { $0.baseAddress.map { bytesEqual($0, start, count: length) } }
      if same == true { return id }
    }
    return nil
  }

  /// Calls `found` with the id of each name the walk meets, whether it was spelled with escapes and the offset just
  /// past its closing quote; stops when `found` returns true, and says whether it did.
  ///
  /// The walk's place is in locals: the last quote, escaped or not; the opening quote of the string it is in (-1
  /// between strings) and whether that string holds an escape; the first byte not taken by an escape. Most bytes
  /// between two quotes are shorter or longer than every name, or start or end with a byte no name of their length
  /// starts or ends with, and are passed over on those tests. `finds(in:)` starts it where a backslash first appears.
  func walk(
    _ bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0, place: WalkPlace = WalkPlace(),
    _ found: (Int, Bool, Int) -> Bool
  ) -> Bool {
    guard let base = bytes.baseAddress, start < bytes.count else { return false }
    let n = bytes.count
    var quote = place.quote
    var open = place.open
    var escaped = false
    var next = place.next
    let span = UInt(bitPattern: idsByLength.count &- shortest)
    /// The name the bytes from the last quote to the one at `at` are, if any; `at` becomes the last quote.
    func plainNameEnds(at: Int) -> Int? {
      let last = quote
      quote = at
      let length = at &- last &- 1
      guard last >= 0, UInt(bitPattern: length &- shortest) < span else { return nil }
      return name(UnsafeBufferPointer(start: base + last + 1, count: length))
    }
    // Those an escape took are passed over.
    return WordScan.quotesAndBackslashes(base, from: start, count: n) { p in
      guard p >= next else { return false }
      switch base[p] {
      case 0x22:
        next = p &+ 1
        if let id = plainNameEnds(at: p), found(id, false, p &+ 1) { return true }
        if open < 0 {
          open = p
          escaped = false
          return false
        }
        defer { open = -1 }
        guard escaped, let id = decodedName(from: open, to: p, base) else { return false }
        return found(id, true, p &+ 1)
      case 0x5C:
        guard open >= 0 else { return false }
        // Inside a string a backslash takes the next byte: an escaped quote closes nothing, but ends a plain name.
        escaped = true
        next = p &+ 2
        guard p &+ 1 < n, base[p &+ 1] == 0x22, let id = plainNameEnds(at: p &+ 1) else { return false }
        return found(id, false, p &+ 2)
      default:
        return false
      }
    }
  }

  /// The id of the name `bytes` are, if any, given a length between the shortest and the longest name's.
  private func name(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    let length = bytes.count
    guard length > 0 else { return idsByLength[0].first }
    guard let start = bytes.baseAddress, endsMayName(start, from: 0, to: length) else { return nil }
    return id(of: start, length: length)
  }

  /// Whether the bytes from `start` to `end` (a length between the shortest and the longest name's, the quote before
  /// `start` and the one at `end` in bounds) start and end with bytes a name of their length starts and ends with.
  @inline(__always)
  private func endsMayName(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Bool {
    let first = base[start]
    let last = base[end &- 1]
    let row = (end &- start) &* 8
    return ends.withUnsafeBufferPointer { words in
      words[row &+ Int(first &>> 6)] & (1 &<< (first & 63)) != 0
        && words[row &+ 4 &+ Int(last &>> 6)] & (1 &<< (last & 63)) != 0
    }
  }

  /// The name the string from the quote at `open` to the one at `close`, holding an escape, is once decoded; a long
  /// one, or one with a broken escape, is none.
  private func decodedName(from open: Int, to close: Int, _ base: UnsafePointer<UInt8>) -> Int? {
    let longest = idsByLength.count &- 1
    let length = close &- open &- 1
    guard length <= longest &* 12,
      let decoded = EscapedNames.unescaped(UnsafeBufferPointer(start: base + open + 1, count: length)),
      decoded.count <= longest
    else { return nil }
    return id(of: decoded)
  }
}

/// What one walk of a document's first bytes found of a name set's names, and how: the registry walks a document
/// once for every format's names (`InputFormat.sniffNames`), and each format reads its own answer from this.
struct QuotedNameFinds: Sendable {
  /// The most names a set walked for a record may hold (a bit each).
  static let capacity = 64

  /// How a name occurs, spelled as written (`plain...`) or with escapes (`escaped...`): anywhere, directly followed
  /// by a colon (`"purchase-info":`), or followed by a colon after JSON whitespace (a key, `containsKey`).
  struct Facts: OptionSet, Sendable {
    let rawValue: UInt8
    static let plain = Facts(rawValue: 1)
    static let plainThenColon = Facts(rawValue: 2)
    static let plainKey = Facts(rawValue: 4)
    static let escaped = Facts(rawValue: 8)
    static let escapedThenColon = Facts(rawValue: 16)
    static let escapedKey = Facts(rawValue: 32)
  }

  /// The names walked for.
  let set: QuotedNameSet
  /// One bit a name id, for each fact in the order of `Facts`' bits.
  private var bits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

  init(_ set: QuotedNameSet) { self.set = set }

  /// Notes an occurrence of the name `id`, whose closing quote ends just before `end` in `bytes`.
  mutating func note(_ id: Int, escaped: Bool, followedBy bytes: UnsafeBufferPointer<UInt8>, at end: Int) {
    let bit: UInt64 = 1 &<< UInt64(id)
    let colon = end < bytes.count && bytes[end] == UInt8(ascii: ":")
    let key = colon || Self.colonFollows(bytes, from: end)
    if escaped {
      bits.3 |= bit
      if colon { bits.4 |= bit }
      if key { bits.5 |= bit }
    } else {
      bits.0 |= bit
      if colon { bits.1 |= bit }
      if key { bits.2 |= bit }
    }
  }

  /// A colon after JSON whitespace from `start`.
  static func colonFollows(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
    var j = start
    while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x0A || bytes[j] == 0x0D || bytes[j] == 0x09 { j &+= 1 }
    return j < bytes.count && bytes[j] == UInt8(ascii: ":")
  }

  /// How `name` occurs (empty when it does not); nil when it is not one of the names walked for.
  func facts(of name: [UInt8]) -> Facts? {
    guard let id = set.id(of: name) else { return nil }
    let shift = UInt64(id)
    var raw = UInt8(truncatingIfNeeded: bits.0 >> shift & 1)
    raw |= UInt8(truncatingIfNeeded: bits.1 >> shift & 1) << 1
    raw |= UInt8(truncatingIfNeeded: bits.2 >> shift & 1) << 2
    raw |= UInt8(truncatingIfNeeded: bits.3 >> shift & 1) << 3
    raw |= UInt8(truncatingIfNeeded: bits.4 >> shift & 1) << 4
    raw |= UInt8(truncatingIfNeeded: bits.5 >> shift & 1) << 5
    return Facts(rawValue: raw)
  }

  /// Whether any of `names` occurs, in either spelling, looking only at the names found.
  func anyOccurs(of names: QuotedNameSet) -> Bool {
    var found = bits.0 | bits.3
    while found != 0 {
      let id = found.trailingZeroBitCount
      found &= found &- 1
      if names.id(of: set.names[id]) != nil { return true }
    }
    return false
  }
}
