/// SHA-256 of JWS signing inputs (`header.payload`), resuming from a remembered state where an input starts with the
/// remembered bytes. The tokens of a batch carry one header, whose `x5c` makes it about 3 KB of the ~4 KB each
/// token hashes; SHA-256 reads its input in 64-byte blocks, so the state after a header's whole blocks serves every
/// input that starts with those bytes, whatever follows. Only the rest is hashed per token.
///
/// The answer never depends on the memo: the state is reused only after the input's first bytes are compared with
/// the remembered ones, all of them, and it is the state those bytes give. `SigningInputDigestTests` holds it to
/// `DigestAlgorithm.sha256.digest` of the whole input.
struct SigningInputDigest: Sendable {
  /// The remembered prefix: a whole number of blocks, at least one.
  private var prefix: [UInt8] = []
  /// SHA-256 after `prefix`.
  private var state = SHA256()

  /// How many inputs started with the remembered prefix (for tests).
  private(set) var resumed = 0

  /// SHA-256 of `input`; remembers the whole blocks of its first segment (up to the first dot) when the input
  /// does not start with the prefix remembered before.
  mutating func digest(_ input: UnsafeRawBufferPointer) -> [UInt8] {
    if !prefix.isEmpty, input.count >= prefix.count, startsWithPrefix(input) {
      resumed += 1
      var hasher = state
      hasher.update(UnsafeRawBufferPointer(rebasing: input[prefix.count...]))
      return hasher.finalize()
    }
    let segment = input.firstIndex(of: UInt8(ascii: ".")) ?? input.count
    let blocks = segment / SHA256Compressor.blockByteCount * SHA256Compressor.blockByteCount
    var hasher = SHA256()
    hasher.update(UnsafeRawBufferPointer(rebasing: input[..<blocks]))
    if blocks > 0 {
      prefix = Array(input[..<blocks])
      state = hasher
    }
    hasher.update(UnsafeRawBufferPointer(rebasing: input[blocks...]))
    return hasher.finalize()
  }

  /// Whether `input` starts with `prefix`, compared eight bytes at a time (the prefix is whole blocks).
  private func startsWithPrefix(_ input: UnsafeRawBufferPointer) -> Bool {
    prefix.withUnsafeBytes { remembered in
      guard let a = remembered.baseAddress, let b = input.baseAddress else { return false }
      var i = 0
      while i < remembered.count {
        guard a.loadUnaligned(fromByteOffset: i, as: UInt64.self) == b.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        else { return false }
        i &+= 8
      }
      return true
    }
  }
}
