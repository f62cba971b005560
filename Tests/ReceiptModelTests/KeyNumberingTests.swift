import Testing

@testable import ReceiptModel

/// `KeyNumbering` (FAST-PATHS.md: numeric keys without String hashing, other keys by a hash of their bytes)
/// against a dictionary of the keys' text.
@Suite struct KeyNumberingTests {
  @Test func numbersWhatADictionaryOfTheTextNumbers() {
    // Numeric and textual ids that look alike, leading zeros, 19 and 20 digits, repeats next to each other.
    var keys = [
      "12", "012", "12", "0", "00", "1234567890123456789", "12345678901234567890", "a12", "12", "12", "",
      "2000000000000001", "2000000000000001", "9223372036854775807", "18446744073709551615", "018446744073709551615",
    ]
    // Long product ids: equal texts in two strings each, each string repeated, next to itself or not.
    let long = (0..<40).map { "com.example.product.\($0 % 20).monthly" }
    for i in 0..<2_000 {
      let n = i * 7_919 % 300
      keys.append(i % 3 == 0 ? "p\(n)" : i % 3 == 1 ? long[n % 40] : String(n))
    }
    // Enough keys that are not digits to grow their table several times, some differing in one byte only,
    // at every length around the eight bytes hashed at a time.
    for i in 0..<3_000 { keys.append("k" + String(repeating: "x", count: i % 19) + "\(i % 1_200)") }
    var numbering = KeyNumbering()
    var dictionary: [String: Int] = [:]
    for key in keys {
      let expected = dictionary[key] ?? dictionary.count
      dictionary[key] = expected
      #expect(numbering.number(of: key) == expected, "\(key)")
    }
    #expect(numbering.count == dictionary.count)
  }
}
