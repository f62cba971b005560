import ReceiptModel

/// What a partial revenue report was made from, written beside it so `revenue --merge` can refuse to count
/// a part twice or to add parts made with different options.
///
/// `digest` is a `ContentDigest`: it names the distinct transactions a report read (and the inputs it could
/// not read), with the options that change the numbers, so the same export gives the same digest on one
/// machine and summed from a shuffle's shards. `parts` lists the digests of every part a report was merged
/// from (just its own for a report made from receipts), so a merged report merged again with one of its
/// parts is caught too.
public struct RevenuePartIdentity: Hashable, Sendable {
  /// 16 hex digits.
  public var digest: String
  /// `--by` the part was made with.
  public var grouping: String
  /// `--commission` the part was made with.
  public var commission: String
  /// The digests of the parts this report sums.
  public var parts: [String]
  /// A reduce partition of a shuffle by transaction id (`revenue --from-ledger`): no other shard holds its
  /// transactions, so merged shards are one whole, named by the sum of their digests.
  public var isShard: Bool

  /// - Parameters:
  ///   - digest: the report's own digest.
  ///   - grouping: its `--by`.
  ///   - commission: its `--commission`.
  ///   - parts: the digests it sums; `[digest]` when empty.
  ///   - isShard: whether it is one reduce partition's report.
  public init(digest: String, grouping: String, commission: String, parts: [String] = [], isShard: Bool = false) {
    self.digest = digest
    self.grouping = grouping
    self.commission = commission
    self.parts = parts.isEmpty ? [digest] : parts
    self.isShard = isShard
  }

  /// `"part"` in `revenue --format json`.
  public var json: JSONValue {
    var members: [(key: String, value: JSONValue)] = [
      ("digest", .string(digest)), ("by", .string(grouping)), ("commission", .string(commission)),
      ("parts", .array(parts.map { .string($0) })),
    ]
    if isShard { members.append(("shard", .bool(true))) }
    return .object(members)
  }
}

/// A digest of what a revenue report counts that adds up: the wrapping sum of one FNV-1a digest per
/// distinct transaction id and per unreadable input, each mixed with the options that change the numbers.
/// Reports of disjoint sets of transactions (the partitions of a shuffle by transaction id) sum to the digest
/// of their union, whatever order the transactions came in.
public struct ContentDigest: Sendable {
  /// The sum so far.
  public private(set) var value: UInt64 = 0
  private let options: InputDigest

  /// - Parameter options: the options that change the numbers (`--by`, `--commission`, `--from`, `--to`),
  ///   as one text.
  public init(options: String) {
    var digest = InputDigest()
    digest.add(options)
    self.options = digest
  }

  /// A digest read back from a report (`hex` of an earlier one); nil when it is not 16 hex digits.
  public static func value(ofHex hex: String) -> UInt64? {
    let isHex = hex.utf8.count == 16 && hex.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    return isHex ? UInt64(hex, radix: 16) : nil
  }

  /// Adds a distinct transaction.
  public mutating func add(transactionID: String) { add(tagged: 0x74, transactionID) }

  /// Adds an input that could not be read.
  public mutating func add(inputError input: String, message: String) {
    add(tagged: 0x65, input + "\u{0}" + message)
  }

  private mutating func add(tagged tag: UInt8, _ text: String) {
    var digest = options
    digest.add(CollectionOfOne(tag), count: 1)
    digest.add(text)
    value = value &+ digest.value
  }

  /// 16 lowercase hex digits.
  public var hex: String { InputDigest.hex(value) }
}

/// A 64-bit FNV-1a digest: enough to tell accidental repeats of the same inputs apart, with no dependency.
public struct InputDigest: Sendable {
  /// The digest so far.
  public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

  /// The digest of nothing (FNV-1a's offset basis).
  public init() {}

  /// Adds `bytes`, preceded by their length so that the boundaries between pieces count.
  public mutating func add(_ bytes: some Sequence<UInt8>, count: Int) {
    for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
    for b in bytes { mix(b) }
  }

  /// Adds `buffer` (a mapped document read in place), preceded by its length; the same digest as
  /// `add(_:count:)` on the same bytes, without copying them or iterating through a generic sequence.
  public mutating func add(buffer: UnsafeBufferPointer<UInt8>) {
    for shift in stride(from: 0, to: 64, by: 8) {
      mix(UInt8(truncatingIfNeeded: UInt64(buffer.count) >> UInt64(shift)))
    }
    var v = value
    for b in buffer { v = (v ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
    value = v
  }

  /// Adds a string's UTF-8 (in place: a report digests 100,000 transaction ids).
  public mutating func add(_ text: String) {
    var text = text
    text.withUTF8 { add(buffer: $0) }
  }

  /// Adds another digest's value.
  public mutating func add(_ other: InputDigest) {
    for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: other.value >> UInt64(shift))) }
  }

  private mutating func mix(_ b: UInt8) {
    value ^= UInt64(b)
    value = value &* 0x0000_0100_0000_01B3
  }

  /// 16 lowercase hex digits.
  public var hex: String { Self.hex(value) }

  /// `value` as 16 lowercase hex digits.
  public static func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
  }
}
