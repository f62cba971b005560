import ReceiptModel

/// Maps an object key's bytes to a small integer without allocating a String per key.
///
/// Receipt objects repeat the same two dozen keys millions of times in a large
/// export, so keys are looked up by a hash of their length and first and last eight bytes
/// in an open-addressing table, then compared byte for byte.
public struct KeyMatcher: Sendable {
  private let slots: [Int]
  /// All names back to back; name `i` is `bytes[starts[i] ..< starts[i] + lengths[i]]`.
  private let bytes: [UInt8]
  private let starts: [Int]
  private let lengths: [Int]
  /// Where name `i` starts and how long it is, when it holds only printable ASCII other than quote and
  /// backslash, so that it can be matched against a key's raw bytes (`readKey`); length -1 otherwise.
  private let guessable: [(start: Int, length: Int)]
  /// Each guessable name as a member begins when written without whitespace, `,"name":`, at `guessable[i].start`
  /// plus 4 times `i` (`readMember`).
  private let members: [UInt8]
  private let mask: Int

  public init(_ keys: [String]) {
    var bytes: [UInt8] = []
    var starts: [Int] = []
    var lengths: [Int] = []
    for key in keys {
      starts.append(bytes.count)
      lengths.append(key.utf8.count)
      bytes.append(contentsOf: key.utf8)
    }
    var size = 16
    while size < keys.count * 4 { size *= 2 }
    mask = size - 1
    var table = [Int](repeating: -1, count: size)
    bytes.withUnsafeBufferPointer { all in
      for index in keys.indices {
        let name = UnsafeBufferPointer(rebasing: all[starts[index]..<(starts[index] + lengths[index])])
        var slot = Int(truncatingIfNeeded: KeyMatcher.hash(name)) & (size - 1)
        while table[slot] != -1 { slot = (slot + 1) & (size - 1) }
        table[slot] = index
      }
    }
    self.bytes = bytes
    self.starts = starts
    self.lengths = lengths
    guessable = keys.indices.map { i in
      let plain = keys[i].utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
      return (starts[i], plain ? lengths[i] : -1)
    }
    members = keys.flatMap { Array(",\"\($0)\":".utf8) }
    slots = table
  }

  @inline(__always)
  static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
    let n = key.count
    var h = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15
    guard let base = key.baseAddress else { return h }
    if n >= 8 {
      let head = UnsafeRawPointer(base).loadUnaligned(as: UInt64.self)
      let tail = UnsafeRawPointer(base + (n - 8)).loadUnaligned(as: UInt64.self)
      h = (h ^ head) &* 0x100_0000_01b3
      h = (h ^ (h >> 29) ^ tail) &* 0x9E37_79B9_7F4A_7C15
    } else {
      for b in key { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    }
    return h ^ (h >> 32)
  }

  /// The index of the key in the list given at init, or nil.
  public func index(of key: UnsafeBufferPointer<UInt8>) -> Int? {
    var slot = Int(truncatingIfNeeded: KeyMatcher.hash(key)) & mask
    return slots.withUnsafeBufferPointer { table -> Int? in
      bytes.withUnsafeBufferPointer { all -> Int? in
        while true {
          let candidate = table[slot]
          if candidate < 0 { return nil }
          if lengths[candidate] == key.count {
            guard let a = all.baseAddress, let b = key.baseAddress else { return candidate }
            if bytesEqual(a + starts[candidate], b, count: key.count) { return candidate }
          }
          slot = (slot + 1) & mask
        }
      }
    }
  }

  /// At a key's opening quote: whether the key is name `index` (any Int; out of range is no), stepping past the
  /// key when it is, without scanning it or hashing it. A guess the caller checks this way costs a compare.
  func readKey(_ index: Int, from reader: inout JSONReader) -> Bool {
    guard index >= 0, index < guessable.count else { return false }
    let (start, length) = guessable[index]
    guard length >= 0 else { return false }
    return bytes.withUnsafeBufferPointer { all in
      guard let base = all.baseAddress else { return false }
      return reader.skipKey(ifItIs: base + start, count: length)
    }
  }

  /// After an object's `{` or a member's value: whether the next member is name `index` (any Int; out of range is
  /// no) written without whitespace, `"name":` (after a value `,"name":`), stepping past its `:` when it is and
  /// giving where its key starts; nil, nothing moved, otherwise. What it steps over is exactly what `beginKey`,
  /// `readKey` and `endKey` would, at a compare for the three.
  @inline(__always)
  func readMember(_ index: Int, from reader: inout JSONReader) -> Int? {
    guard index >= 0, index < guessable.count else { return nil }
    let (start, length) = guessable[index]
    guard length >= 0 else { return nil }
    return members.withUnsafeBufferPointer { all in
      guard let base = all.baseAddress else { return nil }
      return reader.skipMember(ifItIs: base + (start &+ 4 &* index), nameCount: length)
    }
  }

  /// The index of a key read by `reader`, unescaping it first when needed.
  public func index(of key: JSONStringToken, in reader: JSONReader) -> Int? {
    if key.hasEscapes {
      var name = Array(reader.string(key).utf8)
      return name.withUnsafeMutableBufferPointer { index(of: UnsafeBufferPointer($0)) }
    }
    return reader.withBytes(key) { index(of: $0) }
  }
}
