import ReceiptModel
import ReceiptModelTestSupport
import Testing

// The interner is internal to the reader.
@testable import ReceiptFormats

/// The interner hands out one String per repeating value, so that the rules find it by its bits
/// (`SharedKeyNumbering`) instead of reading its text: values a middle byte apart (the benchmark's product ids) or
/// a last digit apart (sequential ids) must not share a slot for that reason.
@Suite struct InternerSharingTests {
  /// How many lookups of the last `counted` of `rounds` passes over `values` made a new String (the passes before
  /// fill and grow the table).
  static func freshStrings(_ values: [String], rounds: Int, counted: Int) -> (fresh: Int, looked: Int) {
    var interner = StringInterner()
    var wrong = 0
    // Every String handed out is kept, as transactions keep theirs: a freed one's storage could be handed out again
    // with the same bits, and a new String would pass for the old one.
    var kept: [String] = []
    var held: [String: [UInt64]] = [:]
    var fresh = 0
    var looked = 0
    for round in 0..<rounds {
      for v in values {
        var bytes = Array(v.utf8)
        let s = bytes.withUnsafeMutableBufferPointer { interner.string(UnsafeBufferPointer($0)) }
        if s != v { wrong += 1 }
        kept.append(s)
        let (low, high) = unsafeBitCast(s, to: (UInt64, UInt64).self)
        if round >= rounds - counted {
          looked += 1
          if held[v] != [low, high] { fresh += 1 }
        }
        held[v] = [low, high]
      }
    }
    #expect(wrong == 0 && kept.count == rounds * values.count, "Strings handed out for other bytes")
    return (fresh, looked)
  }

  @Test func productIDsAMiddleByteApartShareOneStringEach() {
    // com.example.p0.monthly … p4.monthly: the same first and last eight bytes.
    let products = (0..<5).map { ReceiptShape.productID($0) } + [ReceiptShape.subscriptionGroup]
    let (fresh, looked) = Self.freshStrings(products, rounds: 300, counted: 290)
    #expect(fresh == 0, "\(fresh) of \(looked) lookups made a new String")
  }

  @Test func sequentialIDsMostlyShareOneStringEach() {
    // A thousand chains, ids a last digit apart (the family-90 shape's): most keep their slot.
    let ids = (0..<1_000).map { String(2_000_000_000_000_000 + $0) }
    let (fresh, looked) = Self.freshStrings(ids, rounds: 12, counted: 4)
    #expect(fresh * 3 < looked, "\(fresh) of \(looked) lookups made a new String")
  }

  @Test func theTableGrowsTo4096Slots() {
    var misses = 0
    #expect(InternerGrowth.size(0, misses: &misses) == 64)
    var sizes: [Int] = []
    var size = 64
    for _ in 0..<5_000 {
      if let grown = InternerGrowth.size(size, misses: &misses) {
        sizes.append(grown)
        size = grown
      }
    }
    #expect(sizes == [1_024, 4_096])
  }
}
