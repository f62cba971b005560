/// Chain results across a batch, keyed by the certificates' bytes and the policy they were checked under (JWS or
/// receipt), for the trust anchors in force: a batch signed by one chain validates it once, and a chain checked
/// under one document's rules never answers for another's (a "receipt" carrying a JWS chain, rejected under the
/// receipt policy, does not make that chain rejected for the genuine JWS after it). Only time-independent results
/// are stored (the windows are checked per document). Bounded: once full, nothing more is inserted (a batch sees
/// few chains; Apple's leaves live about two years).
public struct ChainCache: Sendable {
  public static let defaultCapacity = 64

  public enum Entry: Sendable, Hashable {
    case trusted(ValidatedChain)
    /// Failed for a reason that no moment can change; the summaries of what could be read.
    case rejected(SignatureFailure, [CertificateSummary])
  }

  /// What a result was found under: the rules the chain was checked by, and its certificates (or the text they
  /// were decoded from).
  struct Key<Certificates: Hashable & Sendable>: Hashable, Sendable {
    var policy: AppleChain.Policy
    var certificates: Certificates
  }

  public let capacity: Int
  private var entries: [Key<[[UInt8]]>: Entry] = [:]
  /// The same results keyed by the base64 text they were decoded from, so a batch's repeated headers skip
  /// decoding their certificates again (a text decodes to one set of bytes, so the entry is the same).
  private var entriesByText: [Key<[String]>: Entry] = [:]
  /// The text found last and its entry: the tokens of a batch share one header, whose `x5c` strings are then the
  /// same storage, which compares at once where hashing ~3 KB of text does not.
  private var lastFoundByText: (key: Key<[String]>, entry: Entry)?
  /// The anchors every stored result was checked against; results under other anchors are forgotten.
  private var anchors: [TrustAnchors.Anchor] = []
  public private(set) var hits = 0
  public private(set) var misses = 0
  /// P-256 keys that verified one signature (`verifyingKey(_:)`), the latest last.
  private var keysSeenOnce: [ECPublicKey] = []
  /// P-256 keys that verified more than one, precomputed.
  private var precomputedKeys: [ECPublicKey] = []
  /// Precomputed keys kept: a batch is signed by one leaf or a few (Apple's live for months); 8 KiB each.
  public static let precomputedKeyCapacity = 4
  /// Keys remembered as seen once, the oldest forgotten first.
  static let keysSeenOnceCapacity = 16

  public init(capacity: Int = ChainCache.defaultCapacity) { self.capacity = max(0, capacity) }

  public var count: Int { entries.count }

  /// The stored result for these certificates (leaf first) checked under `policy` and `trust`, counting a hit or
  /// a miss.
  public mutating func lookUp(_ certificates: [[UInt8]], policy: AppleChain.Policy, trust: TrustAnchors) -> Entry? {
    forgetUnless(trust)
    if let entry = entries[Key(policy: policy, certificates: certificates)] {
      hits += 1
      return entry
    }
    misses += 1
    return nil
  }

  public mutating func store(
    _ entry: Entry, for certificates: [[UInt8]], policy: AppleChain.Policy, trust: TrustAnchors
  ) {
    forgetUnless(trust)
    guard entries.count < capacity else { return }
    entries[Key(policy: policy, certificates: certificates)] = entry
  }

  /// The stored result for certificates given as the base64 `text` they were decoded from, checked under
  /// `policy` and `trust`, counting a hit (a miss is counted by the byte lookup that follows it).
  public mutating func lookUp(text: [String], policy: AppleChain.Policy, trust: TrustAnchors) -> Entry? {
    forgetUnless(trust)
    let key = Key(policy: policy, certificates: text)
    if let last = lastFoundByText, last.key == key {
      hits += 1
      return last.entry
    }
    guard let entry = entriesByText[key] else { return nil }
    hits += 1
    lastFoundByText = (key, entry)
    return entry
  }

  /// Stores `entry` for the base64 `text` whose decoded bytes it was validated from under `policy` and `trust`.
  public mutating func store(_ entry: Entry, forText text: [String], policy: AppleChain.Policy, trust: TrustAnchors) {
    forgetUnless(trust)
    guard entriesByText.count < capacity else { return }
    entriesByText[Key(policy: policy, certificates: text)] = entry
    lastFoundByText = nil
  }

  /// The key to check a document's ES256 signature with: `key` itself the first time, then its precomputed form
  /// (`ECPublicKey.precomputed()`: 1.2 M instructions once, then 374,000 a verification instead of 925,000), so a
  /// batch of one-off keys builds nothing. P-256 only (ES256's curve; chains' P-384 keys verify once, when the
  /// chain is cached). At most `precomputedKeyCapacity` are kept (32 KiB); once full, other keys verify as they
  /// come. A precomputed key gives the same answers as the key; the table depends on the key alone.
  ///
  /// With `shared`, a key another verifier of the run precomputed is taken from it at once, and one precomputed
  /// here is made there (or taken from it) for the others.
  public mutating func verifyingKey(_ key: ECPublicKey, shared: (any SharedChainResults)? = nil) -> ECPublicKey {
    guard key.curve == .p256 else { return key }
    if let kept = precomputedKeys.first(where: { $0 == key }) { return kept }
    let seen = keysSeenOnce.firstIndex(of: key)
    if seen == nil, precomputedKeys.count < Self.precomputedKeyCapacity, let made = shared?.precomputedKey(for: key) {
      precomputedKeys.append(made)
      return made
    }
    guard let seen else {
      if keysSeenOnce.count == Self.keysSeenOnceCapacity { keysSeenOnce.removeFirst() }
      keysSeenOnce.append(key)
      return key
    }
    guard precomputedKeys.count < Self.precomputedKeyCapacity else { return key }
    keysSeenOnce.remove(at: seen)
    let precomputed = shared?.precomputedKey(for: key) { key.precomputed() } ?? key.precomputed()
    precomputedKeys.append(precomputed)
    return precomputed
  }

  /// How many keys `verifyingKey(_:)` holds precomputed.
  var precomputedKeyCount: Int { precomputedKeys.count }

  /// Empties the cache when its results were checked against anchors other than `trust`'s (an array compares
  /// its own storage first, so the usual case, one verifier's anchors, costs nothing).
  private mutating func forgetUnless(_ trust: TrustAnchors) {
    guard trust.anchors != anchors else { return }
    entries = [:]
    entriesByText = [:]
    lastFoundByText = nil
    anchors = trust.anchors
  }
}

/// What the verifiers of one run share: the chains one of them validated and the keys one precomputed, so that a run
/// of several workers validates a chain and builds a key's tables once, not once a worker (some 3 million and
/// 1.2 million instructions each). Whoever runs the workers implements it (the command line's `VerifierPool`,
/// behind a lock); a verifier asks it only where its own cache misses. Every answer is the one the verifier would
/// have made itself: a result is kept by its certificates' bytes, its policy and its trust anchors, a key by its
/// bytes.
public protocol SharedChainResults: Sendable {
  /// The result for `certificates` (leaf first) under `policy` and `trust`: the one another verifier made, or
  /// `validate()`'s, kept for the others. Asked while another validates the same chain, it may wait for that one.
  func chainResult(
    for certificates: [[UInt8]], policy: AppleChain.Policy, trust: TrustAnchors, validate: () -> ChainCache.Entry
  ) -> ChainCache.Entry
  /// `key`'s precomputed form another verifier made, if one did.
  func precomputedKey(for key: ECPublicKey) -> ECPublicKey?
  /// `key`'s precomputed form: the one another verifier made, or `make()`'s, kept for the others.
  func precomputedKey(for key: ECPublicKey, make: () -> ECPublicKey) -> ECPublicKey
}
