/// The digests a signature may name, chosen from a signature's algorithm identifier.
public enum DigestAlgorithm: Sendable, Hashable, CaseIterable {
  case sha1, sha256, sha384, sha512

  public var digestByteCount: Int {
    switch self {
    case .sha1: InsecureSHA1.digestByteCount
    case .sha256: SHA256.digestByteCount
    case .sha384: SHA384.digestByteCount
    case .sha512: SHA512.digestByteCount
    }
  }

  /// The name as FIPS 180-4 writes it, for messages: "SHA-256".
  public var name: String {
    switch self {
    case .sha1: "SHA-1"
    case .sha256: "SHA-256"
    case .sha384: "SHA-384"
    case .sha512: "SHA-512"
    }
  }

  public func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    switch self {
    case .sha1: Self.run(InsecureSHA1.self, bytes)
    case .sha256: Self.run(SHA256.self, bytes)
    case .sha384: Self.run(SHA384.self, bytes)
    case .sha512: Self.run(SHA512.self, bytes)
    }
  }

  public func digest(_ bytes: [UInt8]) -> [UInt8] {
    bytes.withUnsafeBytes { digest($0) }
  }

  private static func run<H: HashFunction>(_: H.Type, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
    var hasher = H()
    hasher.update(bytes)
    return hasher.finalize()
  }
}
