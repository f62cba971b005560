import ReceiptCrypto
import ReceiptFormats

/// The signature verifiers of one run, lent one per document to the pipeline's workers.
///
/// A verifier caches the certificate chains it has checked, so a batch signed with one chain verifies that chain
/// once per verifier, and there are never more verifiers than documents decoded at once (one per worker).
/// Concurrency lives here: a verifier is only ever used by the thread that borrowed it.
final class VerifierPool: SignatureVerifierLending, @unchecked Sendable {
  private let trust: TrustAnchors
  private var idle: [AppleSignatureVerifier] = []
  private let lock = SharedLock()

  init(trust: TrustAnchors) {
    self.trust = trust
  }

  func withVerifier<R>(_ body: (inout AppleSignatureVerifier) -> R) -> R {
    var verifier = take()
    defer { give(verifier) }
    return body(&verifier)
  }

  private func take() -> AppleSignatureVerifier {
    lock.locked { idle.popLast() } ?? AppleSignatureVerifier(trust: trust)
  }

  private func give(_ verifier: AppleSignatureVerifier) {
    lock.locked { idle.append(verifier) }
  }
}
