/// Maps an object key's bytes to a small integer without allocating a String per key.
///
/// Receipt objects repeat the same two dozen keys millions of times in a large
/// export, so keys are looked up by an FNV-1a hash over their raw bytes in an
/// open-addressing table, then compared byte for byte.
public struct KeyMatcher: Sendable {
  private let slots: [Int]
  private let names: [[UInt8]]
  private let mask: Int

  public init(_ keys: [String]) {
    names = keys.map { Array($0.utf8) }
    var size = 16
    while size < keys.count * 4 { size *= 2 }
    mask = size - 1
    var table = [Int](repeating: -1, count: size)
    for (index, name) in names.enumerated() {
      var slot = name.withUnsafeBufferPointer { Int(truncatingIfNeeded: KeyMatcher.hash($0)) } & mask
      while table[slot] != -1 { slot = (slot + 1) & mask }
      table[slot] = index
    }
    slots = table
  }

  static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes {
      h = (h ^ UInt64(b)) &* 0x100_0000_01b3
    }
    return h
  }

  /// The index of the key in the list given at init, or nil.
  public func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var slot = Int(truncatingIfNeeded: KeyMatcher.hash(bytes)) & mask
    while true {
      let candidate = slots[slot]
      if candidate < 0 { return nil }
      if names[candidate].elementsEqual(bytes) { return candidate }
      slot = (slot + 1) & mask
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
