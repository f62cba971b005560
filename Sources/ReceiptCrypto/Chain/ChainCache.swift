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
  /// The same results keyed by the base64 text they were decoded from, so a batch's repeated headers skip
  /// decoding their certificates again (a text decodes to one set of bytes, so the entry is the same).
  private var entriesByText: [[String]: Entry] = [:]
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

  /// The stored result for certificates given as the base64 `text` they were decoded from, counting a hit
  /// (a miss is counted by the byte lookup that follows it).
  public mutating func lookUp(text: [String]) -> Entry? {
    guard let entry = entriesByText[text] else { return nil }
    hits += 1
    return entry
  }

  /// Stores `entry` for the base64 `text` whose decoded bytes it was validated from.
  public mutating func store(_ entry: Entry, forText text: [String]) {
    guard entriesByText.count < capacity else { return }
    entriesByText[text] = entry
  }
}
