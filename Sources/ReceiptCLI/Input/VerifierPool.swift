import ReceiptCrypto
import ReceiptFormats

/// The signature verifiers of one run, each in its workspace, lent one per document to the pipeline's workers.
///
/// A verifier caches the certificate chains it has checked, and its workspace the JWS headers read last, so a
/// batch signed with one chain verifies that chain and reads its header once per verifier, and there are never
/// more verifiers than documents decoded at once (one per worker). Concurrency lives here: a workspace is only
/// ever used by the thread that borrowed it.
final class VerifierPool: SignatureVerifierLending, @unchecked Sendable {
  private let trust: TrustAnchors
  private var idle: [SignatureWorkspace] = []
  private let lock = SharedLock()

  init(trust: TrustAnchors) {
    self.trust = trust
  }

  func withWorkspace<R>(_ body: (inout SignatureWorkspace) -> R) -> R {
    var workspace = take()
    defer { give(workspace) }
    return body(&workspace)
  }

  private func take() -> SignatureWorkspace {
    lock.locked { idle.popLast() } ?? SignatureWorkspace(trust: trust)
  }

  private func give(_ workspace: SignatureWorkspace) {
    lock.locked { idle.append(workspace) }
  }
}
