import Foundation
import Testing

@testable import ReceiptModel

@Suite struct TimestampTests {
  @Test func millisecondsReadEightDigitsAtOnceAsTheyDidOneByOne() {
    // Every length from empty to 17, a non-digit (the bytes either side of '0'...'9', a space, a sign) at each
    // place, leading zeros, and values past the range.
    var texts = ["", "0", "00000000", "0000000000000", "1595532771000", "9999999999999999", "99999999999999999"]
    texts += (1...17).map { String(repeating: "7", count: $0) }
    texts += (1...16).map { "1" + String(repeating: "0", count: $0 - 1) }
    for length in [1, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16] {
      for place in 0..<length {
        for odd in ["/", ":", " ", "-", "a"] {
          var digits = Array(String(repeating: "4", count: length))
          digits[place] = Character(odd)
          texts.append(String(digits))
        }
      }
    }
    for text in texts {
      var bytes = Array(text.utf8)
      let (fast, slow) = bytes.withUnsafeMutableBufferPointer {
        (
          Timestamp.parse(milliseconds: UnsafeBufferPointer($0)),
          Timestamp.parseDigitByDigit(milliseconds: UnsafeBufferPointer($0))
        )
      }
      #expect(fast == slow, "\(text)")
    }
    #expect(texts.count > 200)
  }

  @Test func formatsISO8601() throws {
    let t = try #require(Timestamp(milliseconds: 1_595_532_771_000))
    #expect(t.iso8601 == "2020-07-23T19:32:51Z")
  }

  @Test func wholeSecondsDropsOnlyTheMilliseconds() throws {
    let t = try #require(Timestamp(milliseconds: 1_595_532_771_999))
    #expect(t.iso8601 == "2020-07-23T19:32:51.999Z")
    #expect(t.iso8601WholeSeconds == "2020-07-23T19:32:51Z")
  }

  @Test func formatsLikeTheCLibraryAcrossTheRange() throws {
    // gmtime_r is an independent calendar: every field must agree, at the ends of the range too.
    var values: [Int64] = [0, 1, 999, 1_000, 86_399_999, 951_782_400_000, Timestamp.maximumMilliseconds]
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<2_000 {
      x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      values.append(Int64(x >> 16) % (Timestamp.maximumMilliseconds + 1))
    }
    for ms in values {
      let t = try #require(Timestamp(milliseconds: ms))
      var seconds = Int(ms / 1000)
      var parts = tm()
      _ = gmtime_r(&seconds, &parts)
      func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
      var expected = "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      expected += "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
      let fraction = ms % 1000
      if fraction != 0 { expected += "." + String(String(fraction + 1000).dropFirst()) }
      #expect(t.iso8601 == expected + "Z", "\(ms)")
    }
  }

  @Test func parsesAppleFormattedDate() {
    #expect(Timestamp.parse(formatted: "2020-07-23 19:32:51 Etc/GMT")?.milliseconds == 1_595_532_771_000)
    #expect(Timestamp.parse(formatted: "2020-07-23T20:32:51+01:00")?.milliseconds == 1_595_532_771_000)
    #expect(Timestamp.parse(formatted: "2020-02-30 00:00:00 Etc/GMT") == nil)
  }

  @Test(arguments: ["", "-1", "+12", "1e3", "12x", "99999999999999999999", "253402300800000"])
  func rejectsBadMilliseconds(_ text: String) {
    #expect(Timestamp.parse(milliseconds: Array(text.utf8)) == nil)
  }
  /// Apple's `YYYY-MM-DD HH:MM:SS Etc/GMT` read at fixed places (`parseAppleUTC`) is what the general reader
  /// gives: random dates over the whole range, impossible days and times, and the spelling off by one byte
  /// anywhere (which the fast reader leaves to the general one).
  @Test func appleDatesReadAtFixedPlacesAsTheGeneralReaderReadsThem() {
    var generator = SystemRandomNumberGenerator()
    var readFast = 0
    func both(_ text: String) {
      var bytes = Array(text.utf8)
      bytes.withUnsafeMutableBufferPointer { b in
        let buffer = UnsafeBufferPointer(b)
        let general = Timestamp.parseAnyFormatted(buffer)
        #expect(Timestamp.parse(formatted: buffer) == general, "\(text)")
        if let fast = Timestamp.parseAppleUTC(buffer) {
          #expect(fast == general, "\(text)")
          readFast += 1
        }
      }
    }
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    var texts: [String] = ["0000-01-01 00:00:00 Etc/GMT", "9999-12-31 23:59:59 Etc/GMT", "2020-02-29 12:00:00 Etc/GMT"]
    for _ in 0..<3_000 {
      let year = Int.random(in: 0...9999, using: &generator)
      let fields = [
        Int.random(in: 0...13, using: &generator), Int.random(in: 0...32, using: &generator),
        Int.random(in: 0...25, using: &generator), Int.random(in: 0...61, using: &generator),
        Int.random(in: 0...61, using: &generator),
      ].map(two)
      let y = String(repeating: "0", count: 4 - String(year).count) + String(year)
      texts.append("\(y)-\(fields[0])-\(fields[1]) \(fields[2]):\(fields[3]):\(fields[4]) Etc/GMT")
    }
    let base = Array("2021-07-26 19:00:00 Etc/GMT".utf8)
    for i in base.indices {
      // Every byte value: the fixed-place reader tests digits and separators a word at a time.
      for b in UInt8.min...UInt8.max {
        var changed = base
        changed[i] = b
        texts.append(String(decoding: changed, as: UTF8.self))
      }
    }
    // Month lengths, leap years and the first and last possible values of each field.
    for year in ["1969", "1970", "1900", "2000", "2023", "2024", "2100", "9999"] {
      for month in 0...13 {
        for day in ["00", "01", "28", "29", "30", "31", "32"] {
          texts.append("\(year)-\(two(month))-\(day) 00:00:00 Etc/GMT")
        }
      }
    }
    texts += ["2021-07-26 23:59:59 Etc/GMT", "2021-07-26 24:00:00 Etc/GMT", "2021-07-26 00:60:00 Etc/GMT"]
    texts += ["2021-07-26 00:00:60 Etc/GMT", "1970-01-01 00:00:00 Etc/GMT", "2021-07-26 19:00:00 Etc/GMT"]
    texts += ["2021-07-26 19:00:00 Etc/UTC", "2021-07-26 19:00:00 Etc/GMT ", "2021-07-26 19:00:00.5 Etc/GMT"]
    for text in texts { both(text) }
    // The fast reader is the one that reads Apple's spelling (some 1,800 of the random dates are possible ones).
    #expect(readFast > 1_000, "\(readFast) read at fixed places")
  }
}
