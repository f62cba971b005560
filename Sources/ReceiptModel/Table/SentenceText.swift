/// A sentence written piece by piece into one allocation: an interpolation grows its string as the pieces come
/// (a new allocation and a copy at each growth), and a one-transaction document's reason is made once per answer.
/// `SentenceTextTests` holds it to the interpolation.
package struct SentenceText {
  /// Where the pieces go, and how much of it they fill.
  private let out: UnsafeMutableBufferPointer<UInt8>
  private var count = 0
  /// How many bytes the pieces took, written or not: more than `out` holds when the capacity was too small.
  private var needed = 0

  private init(_ out: UnsafeMutableBufferPointer<UInt8>) { self.out = out }

  /// Room for one `append(iso8601:)`.
  package static let dateCapacity = 24

  /// The pieces `write` appends, in one allocation of `capacity` bytes (the pieces' UTF-8 counts and
  /// `dateCapacity` for each date). A capacity too small costs a second pass, never a byte of the text.
  package static func make(capacity: Int, _ write: (inout SentenceText) -> Void) -> String {
    var needed = 0
    let text = String(unsafeUninitializedCapacity: max(0, capacity)) { buffer in
      var text = SentenceText(buffer)
      write(&text)
      needed = text.needed
      return text.needed <= buffer.count ? text.count : 0
    }
    guard needed > max(0, capacity) else { return text }
    // The pieces are the same on the second pass, and now fit.
    return make(capacity: needed, write)
  }

  /// Appends text.
  package mutating func append(_ piece: String) {
    var piece = piece
    piece.withUTF8 { append($0) }
  }

  /// Appends a moment as `Timestamp.iso8601` spells it.
  package mutating func append(iso8601 time: Timestamp) {
    guard needed == count, out.count &- count >= Self.dateCapacity, let base = out.baseAddress,
      let written = time.writeISO8601(to: base + count)
    else { return append(time.iso8601) }
    count &+= written
    needed &+= written
  }

  private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    needed &+= bytes.count
    guard needed <= out.count, let to = out.baseAddress, let from = bytes.baseAddress else { return }
    (to + count).initialize(from: from, count: bytes.count)
    count &+= bytes.count
  }
}
