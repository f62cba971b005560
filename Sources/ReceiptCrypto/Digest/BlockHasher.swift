/// A compression function over fixed-size blocks: the part that differs between the SHA family members.
protocol BlockCompressor: Sendable {
  /// 64 for SHA-1 and SHA-256, 128 for SHA-384 and SHA-512.
  static var blockByteCount: Int { get }
  /// 8 for SHA-1 and SHA-256, 16 for SHA-384 and SHA-512 (the message length field of the padding).
  static var lengthByteCount: Int { get }
  /// Compresses `blockCount` whole blocks starting at `blocks` into the state.
  mutating func compress(_ blocks: UnsafeRawPointer, blockCount: Int)
  /// The state as big-endian bytes, truncated to the digest's length by the caller.
  func stateBytes() -> [UInt8]
}

/// The Merkle–Damgård shell shared by the SHA family: buffers a partial block, compresses whole blocks straight
/// from the caller's memory, and pads with 0x80, zeros and the bit length.
struct BlockHasher<Compressor: BlockCompressor>: Sendable {
  private var compressor: Compressor
  private var pending: [UInt8]
  private var pendingCount = 0
  private var totalByteCount: UInt64 = 0

  init(_ compressor: Compressor) {
    self.compressor = compressor
    self.pending = [UInt8](repeating: 0, count: Compressor.blockByteCount)
  }

  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard var input = bytes.baseAddress, bytes.count > 0 else { return }
    var remaining = bytes.count
    // Wraps only past 2^64 bytes, which no input reaches; the padding then encodes the length mod 2^64 bits.
    totalByteCount &+= UInt64(truncatingIfNeeded: remaining)
    let blockByteCount = Compressor.blockByteCount
    if pendingCount > 0 {
      let take = min(blockByteCount - pendingCount, remaining)
      pending.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        (base + pendingCount).copyMemory(from: input, byteCount: take)
      }
      pendingCount += take
      input += take
      remaining -= take
      guard pendingCount == blockByteCount else { return }
      pending.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        compressor.compress(base, blockCount: 1)
      }
      pendingCount = 0
    }
    let wholeBlocks = remaining / blockByteCount
    if wholeBlocks > 0 {
      compressor.compress(input, blockCount: wholeBlocks)
      input += wholeBlocks * blockByteCount
      remaining -= wholeBlocks * blockByteCount
    }
    if remaining > 0 {
      pending.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        base.copyMemory(from: input, byteCount: remaining)
      }
      pendingCount = remaining
    }
  }

  /// Pads in the pending block itself (no padding array): 0x80, zeros until `lengthByteCount` bytes remain in a
  /// block, then the bit length, big-endian; a second block when the length no longer fits after the 0x80.
  mutating func finalize(digestByteCount: Int) -> [UInt8] {
    let blockByteCount = Compressor.blockByteCount
    let lengthOffset = blockByteCount - Compressor.lengthByteCount
    let bitLengthLow = totalByteCount &<< 3
    let bitLengthHigh = totalByteCount >> 61
    let used = pendingCount
    pending.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      base.storeBytes(of: 0x80, toByteOffset: used, as: UInt8.self)
      if used + 1 > lengthOffset {
        (base + used + 1).initializeMemory(as: UInt8.self, repeating: 0, count: blockByteCount - used - 1)
        compressor.compress(base, blockCount: 1)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: lengthOffset)
      } else {
        (base + used + 1).initializeMemory(as: UInt8.self, repeating: 0, count: lengthOffset - used - 1)
      }
      if Compressor.lengthByteCount == 16 {
        base.storeBytes(of: bitLengthHigh.bigEndian, toByteOffset: lengthOffset, as: UInt64.self)
      }
      base.storeBytes(of: bitLengthLow.bigEndian, toByteOffset: blockByteCount - 8, as: UInt64.self)
      compressor.compress(base, blockCount: 1)
    }
    pendingCount = 0
    let state = compressor.stateBytes()
    return state.count == digestByteCount ? state : Array(state.prefix(digestByteCount))
  }
}

@inline(__always)
func loadBigEndianUInt32(_ base: UnsafeRawPointer, _ offset: Int) -> UInt32 {
  UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
}

@inline(__always)
func loadBigEndianUInt64(_ base: UnsafeRawPointer, _ offset: Int) -> UInt64 {
  UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
}

func bigEndianBytes(_ words: [UInt32]) -> [UInt8] {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(words.count * 4)
  for word in words {
    bytes.append(UInt8(truncatingIfNeeded: word >> 24))
    bytes.append(UInt8(truncatingIfNeeded: word >> 16))
    bytes.append(UInt8(truncatingIfNeeded: word >> 8))
    bytes.append(UInt8(truncatingIfNeeded: word))
  }
  return bytes
}

func bigEndianBytes(_ words: [UInt64]) -> [UInt8] {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(words.count * 8)
  for word in words {
    for shift in stride(from: 56, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
    }
  }
  return bytes
}
