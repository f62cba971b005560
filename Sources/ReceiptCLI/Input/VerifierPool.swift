import ReceiptCrypto
import ReceiptFormats

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The signature verifiers of one run, lent one per document to the pipeline's workers.
///
/// A verifier caches the certificate chains it has checked, so a batch signed with one chain verifies that chain
/// once per verifier, and there are never more verifiers than documents decoded at once (one per worker).
/// Concurrency lives here: a verifier is only ever used by the thread that borrowed it.
final class VerifierPool: SignatureVerifierLending, @unchecked Sendable {
  private let trust: TrustAnchors
  private var idle: [AppleSignatureVerifier] = []
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  init(trust: TrustAnchors) {
    self.trust = trust
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func withVerifier<R>(_ body: (inout AppleSignatureVerifier) -> R) -> R {
    var verifier = take()
    defer { give(verifier) }
    return body(&verifier)
  }

  private func take() -> AppleSignatureVerifier {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return idle.popLast() ?? AppleSignatureVerifier(trust: trust)
  }

  private func give(_ verifier: AppleSignatureVerifier) {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    idle.append(verifier)
  }
}
