/// Text written piece by piece into one allocation: the messages every `latest_receipt` cut short makes
/// (`ASN1Error.declaresMore`, `AppReceiptError.description`), where an interpolation grows its string at each piece.
/// `JoinedTextTests` holds it to the interpolation.
package struct JoinedText {
  /// Where the pieces go, and how much of it they fill.
  private let out: UnsafeMutableBufferPointer<UInt8>
  private var count = 0

  private init(_ out: UnsafeMutableBufferPointer<UInt8>) { self.out = out }

  /// The pieces `write` appends, in at most `capacity` bytes (what does not fit is not written: give the pieces'
  /// UTF-8 counts, and `decimalCapacity` for each number).
  package static func make(capacity: Int, _ write: (inout JoinedText) -> Void) -> String {
    String(unsafeUninitializedCapacity: max(0, capacity)) { buffer in
      var text = JoinedText(buffer)
      write(&text)
      return text.count
    }
  }

  /// Appends a literal piece, read where the compiler put it.
  package mutating func append(literal piece: StaticString) {
    append(UnsafeBufferPointer(start: piece.utf8Start, count: piece.utf8CodeUnitCount))
  }

  /// The most bytes `append(decimal:)` writes.
  package static let decimalCapacity = 20

  /// Appends text.
  package mutating func append(_ piece: String) {
    var piece = piece
    piece.withUTF8 { append($0) }
  }

  /// Appends a whole number as `"\(n)"` writes it.
  package mutating func append(decimal n: Int) {
    // Nineteen digits and a sign at most, written from the end of a scratch on the stack.
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.decimalCapacity) { scratch in
      var at = scratch.count
      var rest = n.magnitude
      repeat {
        at &-= 1
        scratch[at] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
        rest /= 10
      } while rest > 0
      if n < 0 {
        at &-= 1
        scratch[at] = UInt8(ascii: "-")
      }
      append(UnsafeBufferPointer(rebasing: scratch[at...]))
    }
  }

  private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard bytes.count <= out.count &- count, let to = out.baseAddress, let from = bytes.baseAddress else { return }
    (to + count).initialize(from: from, count: bytes.count)
    count &+= bytes.count
  }
}
