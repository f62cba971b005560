import ReceiptModelTestSupport
import Testing

@testable import ReceiptModel

/// `LastKeyDictionary` answers what a plain dictionary answers, however its keys repeat, whatever is inserted
/// between them, and when an update throws.
@Suite struct LastKeyDictionaryTests {
  struct Refused: Error {}

  @Test func holdsWhatAPlainDictionaryHolds() {
    var numbers = SplitMix64(seed: 11)
    func next(_ n: Int) -> Int { numbers.below(n) }
    for round in 0..<50 {
      var remembering = LastKeyDictionary<String, Int>()
      var plain: [String: Int] = [:]
      var key = "k0"
      for step in 0..<400 {
        // Runs of one key, with new keys (which move entries) between them.
        if next(4) == 0 { key = "k\(next(10 + round))" }
        let add = next(100)
        if next(10) == 0 {
          #expect(throws: Refused.self) {
            try remembering.update(key, empty: 0) { _ throws(Refused) in throw Refused() }
          }
        } else {
          remembering.update(key, empty: 0) { $0 + add }
          plain[key, default: 0] += add
        }
        #expect(remembering.value(of: key) == plain[key], "round \(round) step \(step)")
        #expect(remembering.value(of: "absent") == nil)
      }
      #expect(remembering.elements == plain, "round \(round)")
    }
  }
}
