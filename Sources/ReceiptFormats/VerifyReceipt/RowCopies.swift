import ReceiptModel

/// Transaction objects of one document already read, remembered by their bytes (issue 42): Apple writes every
/// transaction of `receipt.in_app` again in `latest_receipt_info`, the same bytes, and reading an object again
/// only to merge it into the copy held gives that copy with one more source (`TransactionCollector.addCopy`).
///
/// An object is remembered only when reading it said nothing but its transaction (no warning, whose path would
/// differ) and the collector took it as a new transaction; it is forgotten when another copy of the transaction
/// is merged into the held one, whose values then are no longer the object's alone. At most `capacity` are
/// remembered, each found by a fingerprint of its first `window` bytes and then compared whole in place, so a
/// document of thousands of rows pays a fingerprint and a short scan for each.
struct RowCopies {
  /// A remembered object: where it starts in the document and how long it is, the fingerprint of its first
  /// `window` bytes, how deep it was read (`copy` says why), and where the collector holds its transaction.
  private struct Remembered {
    var fingerprint: UInt64
    var start: Int
    var length: Int
    var depth: Int
    var held: Int
  }

  /// Enough for a customer of 60 transactions, and few enough to scan.
  static let capacity = 64
  /// Apple's rows are 600 bytes or more and name their transaction in the first hundred: `quantity`,
  /// `product_id`, then `transaction_id`. A shorter object is not remembered (its fingerprint would take in bytes
  /// after it).
  static let window = 128

  private var remembered: [Remembered] = []

  /// A fingerprint of the `window` bytes at `start`, or nil when fewer are left (no remembered object fits).
  static func fingerprint(_ buffer: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt64? {
    guard start >= 0, buffer.count &- start >= window, let base = buffer.baseAddress else { return nil }
    let raw = UnsafeRawPointer(base + start)
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15
    var i = 0
    while i < window {
      h = (h ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
      h ^= h >> 31
      i &+= 8
    }
    return h
  }

  /// The remembered object the bytes at `start` repeat byte for byte: its length (the object at `start` ends as
  /// many bytes on, since the same bytes make the same value) and where its transaction is held.
  ///
  /// The copy is read at `depth` in a reader that refuses to go deeper than `maxDepth`: the object was within the
  /// limit where it was read, and so is the copy when read no deeper, or when even an object of nothing but
  /// brackets (half its length deep) would be (Apple's rows are flat, the limit 512 levels).
  func copy(
    in buffer: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int, maxDepth: Int, fingerprint: UInt64
  ) -> (length: Int, held: Int)? {
    guard let base = buffer.baseAddress else { return nil }
    for r in remembered where r.fingerprint == fingerprint {
      guard depth <= r.depth || depth &+ r.length / 2 <= maxDepth, r.length <= buffer.count &- start,
        bytesEqual(base + start, base + r.start, count: r.length)
      else { continue }
      return (r.length, r.held)
    }
    return nil
  }

  /// Remembers the object of `length` bytes at `start` (fingerprinted as `fingerprint`), read at `depth` into the
  /// transaction held at `held`; nothing once `capacity` are remembered.
  mutating func remember(start: Int, length: Int, depth: Int, fingerprint: UInt64, held: Int) {
    guard remembered.count < Self.capacity, length >= Self.window else { return }
    if remembered.isEmpty { remembered.reserveCapacity(8) }
    remembered.append(Remembered(fingerprint: fingerprint, start: start, length: length, depth: depth, held: held))
  }

  /// Forgets the object whose transaction is held at `held`: another copy was merged into it.
  mutating func forget(held: Int) {
    remembered.removeAll { $0.held == held }
  }

  /// Forgets every object (transactions were merged without saying where).
  mutating func forgetAll() { remembered.removeAll() }
}
