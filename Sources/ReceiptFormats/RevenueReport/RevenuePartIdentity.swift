import ReceiptModel

/// What a partial revenue report was made from, written beside it so `revenue --merge` can refuse to count
/// a part twice or to add parts made with different options.
///
/// `digest` covers the bytes of every input document, in order, and the options that change the numbers
/// (`--by`, `--commission`, `--from`, `--to`); `parts` lists the digests of every part a report was
/// merged from (just its own for a report made from receipts), so a merged report merged again with one
/// of its parts is caught too.
public struct RevenuePartIdentity: Hashable, Sendable {
  /// 16 hex digits.
  public var digest: String
  /// `--by` the part was made with.
  public var grouping: String
  /// `--commission` the part was made with.
  public var commission: String
  /// The digests of the parts this report sums.
  public var parts: [String]

  /// - Parameters:
  ///   - digest: the report's own digest.
  ///   - grouping: its `--by`.
  ///   - commission: its `--commission`.
  ///   - parts: the digests it sums; `[digest]` when empty.
  public init(digest: String, grouping: String, commission: String, parts: [String] = []) {
    self.digest = digest
    self.grouping = grouping
    self.commission = commission
    self.parts = parts.isEmpty ? [digest] : parts
  }

  /// `"part"` in `revenue --format json`.
  public var json: JSONValue {
    .object([
      ("digest", .string(digest)), ("by", .string(grouping)), ("commission", .string(commission)),
      ("parts", .array(parts.map { .string($0) })),
    ])
  }
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

  /// Adds a string's UTF-8.
  public mutating func add(_ text: String) { add(text.utf8, count: text.utf8.count) }

  /// Adds another digest's value.
  public mutating func add(_ other: InputDigest) {
    for shift in stride(from: 0, to: 64, by: 8) { mix(UInt8(truncatingIfNeeded: other.value >> UInt64(shift))) }
  }

  private mutating func mix(_ b: UInt8) {
    value ^= UInt64(b)
    value = value &* 0x0000_0100_0000_01B3
  }

  /// 16 lowercase hex digits.
  public var hex: String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 16 - digits.count)) + digits
  }
}
