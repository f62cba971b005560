/// A message digest computed incrementally: `update` any number of times, then `finalize` once.
public protocol HashFunction {
  /// The digest's length in bytes.
  static var digestByteCount: Int { get }
  init()
  mutating func update(_ bytes: UnsafeRawBufferPointer)
  /// The digest of everything given to `update`; the value is spent afterwards.
  mutating func finalize() -> [UInt8]
}

extension HashFunction {
  public mutating func update(_ bytes: some Sequence<UInt8>) {
    let contiguous = Array(bytes)
    contiguous.withUnsafeBytes { update($0) }
  }

  /// The digest of `bytes` in one call.
  public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
    var hasher = Self()
    hasher.update(bytes)
    return hasher.finalize()
  }
}
