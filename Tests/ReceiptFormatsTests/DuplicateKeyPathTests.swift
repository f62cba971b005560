import Testing

@testable import ReceiptFormats

/// `JSONValue.firstDuplicateKey` writes the path only once a duplicate is found; the eager version, which wrote
/// the path of every value on the way, is kept here to compare.
@Suite struct DuplicateKeyPathTests {
  /// The version that built every value's path as it went.
  static func eagerFirstDuplicateKey(_ value: JSONValue, among keys: Set<String>, path: String) -> String? {
    switch value {
    case .array(let items):
      for (i, item) in items.enumerated() {
        if let found = eagerFirstDuplicateKey(item, among: keys, path: "\(path)[\(i)]") { return found }
      }
    case .object(let members):
      var seen: Set<String> = []
      for member in members where keys.contains(member.key) {
        if !seen.insert(member.key).inserted { return "\(path).\(member.key)" }
      }
      for member in members {
        if let found = eagerFirstDuplicateKey(member.value, among: keys, path: "\(path).\(member.key)") {
          return found
        }
      }
    default: break
    }
    return nil
  }

  /// A random tree of arrays and objects whose keys come from a few names, so that some objects repeat one; now
  /// and then an object of 40 plain members, 20 distinct then 20 of 36 names (past 16 an object's keys go into a set).
  static func randomValue(depth: Int, using generator: inout some RandomNumberGenerator) -> JSONValue {
    let names = ["a", "b", "price", "caf\u{E9}", "cafe\u{301}", "products"]
    guard depth > 0 else { return Bool.random(using: &generator) ? .string("x") : .number("1") }
    if Int.random(in: 0..<12, using: &generator) == 0 {
      let many = names + (0..<30).map { "k\($0)" }
      // Twenty distinct names first, so that a repeat among the rest is found in the set.
      let distinct = (0..<20).map { ("k\($0)", JSONValue.null) }
      return .object(distinct + (0..<20).map { _ in (many.randomElement(using: &generator) ?? "a", .null) })
    }
    let count = Int.random(in: 0...4, using: &generator)
    if Bool.random(using: &generator) {
      return .array((0..<count).map { _ in randomValue(depth: depth - 1, using: &generator) })
    }
    return .object(
      (0..<count).map { _ in
        (names.randomElement(using: &generator) ?? "a", randomValue(depth: depth - 1, using: &generator))
      })
  }

  @Test func pathWrittenOnceFoundIsTheEagerPath() {
    var generator = SystemRandomNumberGenerator()
    var found = 0
    for round in 0..<3_000 {
      let value = Self.randomValue(depth: 1 + round % 5, using: &generator)
      let many = Set((0..<30).map { "k\($0)" } + ["a"])
      for keys: Set<String> in [
        ["a", "price"], ["caf\u{E9}"], [], ["a", "b", "price", "products", "cafe\u{301}"], many,
      ] {
        for path in ["$", ""] {
          let lazy = value.firstDuplicateKey(among: keys, path: path)
          #expect(lazy == Self.eagerFirstDuplicateKey(value, among: keys, path: path), "\(value)")
          if lazy != nil { found += 1 }
        }
      }
    }
    #expect(found > 1_000, "duplicates to compare")
  }
}
