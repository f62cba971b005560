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
  /// What the verifiers share: a chain validated and a key precomputed once a run, not once a worker.
  let shared: PooledChainResults

  init(trust: TrustAnchors) {
    self.trust = trust
    shared = PooledChainResults(trust: trust)
  }

  func withWorkspace<R>(_ body: (inout SignatureWorkspace) -> R) -> R {
    var workspace = take()
    defer { give(workspace) }
    return body(&workspace)
  }

  private func take() -> SignatureWorkspace {
    lock.locked { idle.popLast() } ?? SignatureWorkspace(verifier: AppleSignatureVerifier(trust: trust, shared: shared))
  }

  private func give(_ workspace: SignatureWorkspace) {
    lock.locked { idle.append(workspace) }
  }
}

/// The chain results and precomputed keys a pool's verifiers share (`SharedChainResults`), behind one lock: each
/// made once, a verifier asking for one another is making waiting for it. Bounded as a verifier's own cache is.
final class PooledChainResults: SharedChainResults, @unchecked Sendable {
  private struct ChainKey: Hashable {
    var certificates: [[UInt8]]
    var policy: AppleChain.Policy
  }

  /// The anchors every result here was checked against; a verifier under others is not answered from here.
  private let anchors: [TrustAnchors.Anchor]
  private var chains: [ChainKey: ChainCache.Entry] = [:]
  private var keys: [ECPublicKey] = []
  /// What some verifier is making now.
  private var chainsBeingMade: Set<ChainKey> = []
  private var keysBeingMade: Set<ECPublicKey> = []
  private let lock = SharedLock()
  /// How many chains were validated and keys precomputed here (for tests).
  private(set) var made = (chains: 0, keys: 0)

  init(trust: TrustAnchors) { anchors = trust.anchors }

  func chainResult(
    for certificates: [[UInt8]], policy: AppleChain.Policy, trust: TrustAnchors, validate: () -> ChainCache.Entry
  ) -> ChainCache.Entry {
    guard trust.anchors == anchors else { return validate() }
    let key = ChainKey(certificates: certificates, policy: policy)
    let found: ChainCache.Entry?? = lock.locked {
      while chainsBeingMade.contains(key) { lock.wait() }
      if let entry = chains[key] { return .some(entry) }
      guard chains.count < ChainCache.defaultCapacity else { return .some(nil) }
      chainsBeingMade.insert(key)
      return nil
    }
    // Found, or full: nothing is kept.
    if let found { return found ?? validate() }
    let entry = validate()
    lock.locked {
      chainsBeingMade.remove(key)
      chains[key] = entry
      made.chains += 1
      lock.broadcast()
    }
    return entry
  }

  func precomputedKey(for key: ECPublicKey) -> ECPublicKey? {
    lock.locked {
      while keysBeingMade.contains(key) { lock.wait() }
      return keys.first { $0 == key }
    }
  }

  func precomputedKey(for key: ECPublicKey, make: () -> ECPublicKey) -> ECPublicKey {
    let found: ECPublicKey?? = lock.locked {
      while keysBeingMade.contains(key) { lock.wait() }
      if let kept = keys.first(where: { $0 == key }) { return .some(kept) }
      guard keys.count < ChainCache.precomputedKeyCapacity else { return .some(nil) }
      keysBeingMade.insert(key)
      return nil
    }
    if let found { return found ?? make() }
    let made = make()
    lock.locked {
      keysBeingMade.remove(key)
      keys.append(made)
      self.made.keys += 1
      lock.broadcast()
    }
    return made
  }
}
