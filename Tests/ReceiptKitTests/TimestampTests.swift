import Testing

@testable import ReceiptCLI
@testable import ReceiptFormats
@testable import ReceiptModel
@testable import ReceiptRules
@testable import ReceiptTestSupport

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
