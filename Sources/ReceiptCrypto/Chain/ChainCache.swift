/// Chain results across a batch, keyed by the certificates' bytes: a batch signed by one chain validates it
/// once. Only time-independent results are stored (the windows are checked per document). Bounded: once full,
/// nothing more is inserted (a batch sees few chains; Apple's leaves live about two years).
public struct ChainCache: Sendable {
  public static let defaultCapacity = 64

  public enum Entry: Sendable, Hashable {
    case trusted(ValidatedChain)
    /// Failed for a reason that no moment can change; the summaries of what could be read.
    case rejected(SignatureFailure, [CertificateSummary])
  }

  public let capacity: Int
  private var entries: [[[UInt8]]: Entry] = [:]
  public private(set) var hits = 0
  public private(set) var misses = 0

  public init(capacity: Int = ChainCache.defaultCapacity) { self.capacity = max(0, capacity) }

  public var count: Int { entries.count }

  /// The stored result for these certificates (leaf first), counting a hit or a miss.
  public mutating func lookUp(_ certificates: [[UInt8]]) -> Entry? {
    if let entry = entries[certificates] {
      hits += 1
      return entry
    }
    misses += 1
    return nil
  }

  public mutating func store(_ entry: Entry, for certificates: [[UInt8]]) {
    guard entries.count < capacity else { return }
    entries[certificates] = entry
  }
}
