import Foundation
import Testing

@testable import ReceiptModel

@Suite struct TimestampTests {
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
}
