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
    // Ids of 8 to 19 digits with one byte just outside '0'...'9' (or not ASCII) at every place.
    for length in [8, 9, 15, 16, 17, 19] {
      let digits = Array("9182736450918273645".utf8.prefix(length))
      keys.append(String(decoding: digits, as: UTF8.self))
      for place in 0..<length {
        for byte in [0x2F, 0x3A, 0x40, 0xB0, 0x20, 0x00] as [UInt8] {
          var changed = digits
          changed[place] = byte
          keys.append(String(decoding: changed, as: UTF8.self))
        }
      }
    }
    var numbering = KeyNumbering()
    var dictionary: [String: Int] = [:]
    for key in keys {
      let expected = dictionary[key] ?? dictionary.count
      dictionary[key] = expected
      #expect(numbering.number(of: key) == expected, "\(key)")
    }
    #expect(numbering.count == dictionary.count)
  }

  @Test func eightDigitsAtOnceAreTheirDecimalValue() {
    // Every digit at every place, and every other byte value at every place of a valid word.
    func word(_ bytes: [UInt8]) -> UInt64 { bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    var rng: UInt64 = 29
    for _ in 0..<2_000 {
      rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      let digits = (0..<8).map { UInt8(0x30 + (rng >> (8 * UInt64($0) + 3)) % 10) }
      let value = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - 0x30) }
      #expect(TransactionIDIndex.eightDigits(word(digits)) == value)
      let place = Int(rng >> 60) % 8
      for byte in 0...255 as ClosedRange<UInt8> where !(0x30...0x39).contains(byte) {
        var changed = digits
        changed[place] = byte
        #expect(TransactionIDIndex.eightDigits(word(changed)) == nil, "\(byte) at \(place)")
      }
    }
  }
}
