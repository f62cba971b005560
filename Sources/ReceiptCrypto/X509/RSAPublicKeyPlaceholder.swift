// PLACEHOLDER until branch crypto-rsa lands RSAPublicKey (contract: /work/crypto-contract.md); deleted by the
// merge that brings it. It verifies nothing: every RSA signature is refused.
public struct RSAPublicKey: Sendable, Hashable {
  public init(modulus: [UInt8], publicExponent: [UInt8]) throws(CryptoKeyError) {}
  public var modulusBitCount: Int { 0 }
  public func isValidPKCS1v15Signature(_ signature: [UInt8], digest: [UInt8], algorithm: DigestAlgorithm) -> Bool {
    false
  }
}
