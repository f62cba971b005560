import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The text timeline at 80 columns (a chart) and 40 (a list), with and without colour, and hostile text.
@Suite struct TimelineTextRendererTests {
  static func lines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// Removes ANSI SGR sequences (ESC [ digits/semicolons m).
  static func stripped(_ text: String) -> String {
    var out = ""
    var i = text.startIndex
    while i < text.endIndex {
      if text[i] == "\u{1B}", let m = text[i...].firstIndex(of: "m") {
        i = text.index(after: m)
      } else {
        out.append(text[i])
        i = text.index(after: i)
      }
    }
    return out
  }

  static func overlong(_ text: String, width: Int) -> [String] { lines(stripped(text)).filter { $0.count > width } }

  @Test func familyRowAt80IsWhereTheDatesPutIt() {
    let text = TimelineTextRenderer.render(TimelineSamples.familyRevokedButPurchased, width: 80)
    #expect(Self.overlong(text, width: 80).isEmpty, "\(text)")
    // Axis 2023-09-01T10:00:00Z to 2025-03-02T09:14:05Z over 76 columns (0...75): the revocation on
    // 2024-03-01T18:20:11Z is 182.3 of 548.0 days in, column round(0.3327 * 75) = 25; the evaluation
    // moment 2024-06-15 is 287.6 days in, column round(0.5248 * 75) = 39; the own purchase runs on to the end.
    let row =
      "  " + String(repeating: "~", count: 25) + "X" + String(repeating: "=", count: 13) + "|"
      + String(repeating: "=", count: 36)
    #expect(Self.lines(text).contains(row), "\(text)")
    // Quarterly ticks (six fit in 76 columns at 12 each) on the first day of each quarter.
    #expect(text.contains("2023-10-01   2024-01-01  2024-04-01   2024-07-01  2024-10-01  2025-01-01"), "\(text)")
    #expect(text.contains("signature    unsigned: verifyReceipt response carries no signature"))
    #expect(text.contains("As of 2024-06-15T00:00:00Z (the receipt's request_date)"))
    #expect(
      text.contains("com.acme.pro.yearly: active\n  Family Sharing access to com.acme.pro.yearly was revoked on\n"))
    #expect(text.contains("Legend:"))
    #expect(!text.contains("\u{1B}"))
  }

  @Test func everyMarkHasItsOwnCharacterAt80() throws {
    let text = TimelineTextRenderer.render(TimelineSamples.everyMark, width: 80)
    #expect(Self.overlong(text, width: 80).isEmpty, "\(text)")
    let all = Self.lines(text)
    let pro = try #require(all.firstIndex(of: "pro  billing_retry").map { all[$0 + 1] }, "\(text)")
    // In time order: the trial, paid months, the refund, the gap, the last month, grace, retry, as of.
    let order: [Character] = ["t", "=", "X", ".", "=", "g", "r", "|"]
    var position = pro.startIndex
    for mark in order {
      let found = try #require(pro[position...].firstIndex(of: mark), "\(mark) missing or out of order in \(pro)")
      position = found
    }
    let basic = try #require(all.firstIndex(of: "basic  upgraded").map { all[$0 + 1] })
    #expect(basic.hasPrefix("  ???") && basic.contains("^"), "\(basic)")
    let lifetime = try #require(all.firstIndex(of: "lifetime  active").map { all[$0 + 1] })
    #expect(lifetime.contains("~|~") && lifetime.hasSuffix(">"), "\(lifetime)")
    // The marker is one column for every lane.
    let offsets = [pro, basic, lifetime].map { line in
      line.distance(from: line.startIndex, to: line.firstIndex(of: "|") ?? line.endIndex)
    }
    #expect(Set(offsets).count == 1, "\(offsets)")
  }

  @Test func narrowTerminalGetsAListNotGarbage() {
    for chart in [TimelineSamples.familyRevokedButPurchased, TimelineSamples.everyMark, TimelineSamples.hostile] {
      for width in [40, 59, 20] {
        let text = TimelineTextRenderer.render(chart, width: width)
        #expect(Self.overlong(text, width: width).isEmpty, "width \(width):\n\(text)")
        #expect(!text.contains("~~~") && !text.contains("==="), "\(text)")
      }
    }
    let text = TimelineTextRenderer.render(TimelineSamples.familyRevokedButPurchased, width: 40)
    #expect(text.contains("~ 2200000101 com.acme.pro.yearly\n"), "\(text)")
    #expect(text.contains("X revoked 2024-03-01"), "\(text)")
    #expect(text.contains(". gap 2024-03-01 to 2024-03-02"), "\(text)")
    #expect(text.contains("= 3100 com.acme.pro.yearly\n    2024-03-02 to 2025-03-02, owned\n"), "\(text)")
    #expect(text.contains("com.acme.pro.yearly: active\n"))
  }

  @Test func colourOnlyPaintsTheSameCharacters() {
    for chart in [TimelineSamples.familyRevokedButPurchased, TimelineSamples.everyMark] {
      for width in [80, 40, 120] {
        let plain = TimelineTextRenderer.render(chart, width: width, color: false)
        let coloured = TimelineTextRenderer.render(chart, width: width, color: true)
        #expect(!plain.contains("\u{1B}"))
        #expect(coloured.contains("\u{1B}["))
        #expect(Self.stripped(coloured) == plain, "width \(width)")
      }
    }
    let coloured = TimelineTextRenderer.render(TimelineSamples.everyMark, width: 80, color: true)
    #expect(coloured.contains("\u{1B}[1;31mX\u{1B}[0m"))
    #expect(coloured.contains("\u{1B}[33mbilling_retry\u{1B}[0m"))
  }

  @Test func hostileTextNeverReachesTheTerminalRaw() {
    for width in [80, 40] {
      for color in [false, true] {
        let text = TimelineTextRenderer.render(TimelineSamples.hostile, width: width, color: color)
        let plain = color ? Self.stripped(text) : text
        #expect(!plain.contains("\u{1B}") && !plain.contains("\u{7}") && !plain.contains("\u{202E}"), "\(plain)")
        #expect(plain.contains("\\u{1b}"), "\(plain)")
        #expect(Self.overlong(text, width: width).isEmpty, "\(plain)")
      }
    }
  }

  @Test func degenerateChartsDoNotCrashOrOverflow() throws {
    let moment = TimelineSamples.t("2024-06-15T00:00:00Z")
    let far = try #require(Timestamp(milliseconds: Timestamp.maximumMilliseconds))
    let epoch = try #require(Timestamp(milliseconds: 0))
    let charts = [
      TimelineChart(title: "", evaluationMoment: moment, lanes: []),
      TimelineChart(
        title: "empty lane", evaluationMoment: moment,
        lanes: [TimelineLane(label: "", status: "", reason: "", bars: [])]),
      TimelineChart(
        title: "one instant", evaluationMoment: moment,
        lanes: [
          TimelineLane(
            label: "x", status: "s", reason: "r",
            bars: [
              TimelineBar(transactionID: "1", productID: "p", start: moment, end: .expires(moment)),
              TimelineBar(
                transactionID: "2", productID: "p", start: moment, end: .unknown,
                cancellation: TimelineCancellation(date: epoch, kind: .refund),
                zones: [TimelineZone(kind: .billingRetry, start: far)]),
            ])
        ]),
      TimelineChart(
        title: "all of time", evaluationMoment: far,
        lanes: [
          TimelineLane(
            label: String(repeating: "w", count: 300), status: String(repeating: "s", count: 300), reason: "",
            bars: [
              TimelineBar(
                transactionID: "1", productID: "p", start: epoch, end: .expires(far), period: .introductoryOffer)
            ])
        ]),
    ]
    for chart in charts {
      for width in [0, 20, 40, 59, 60, 80, 200] {
        let text = TimelineTextRenderer.render(chart, width: width, color: true)
        #expect(Self.overlong(text, width: max(20, width)).isEmpty, "width \(width):\n\(text)")
      }
      _ = TimelineSVGRenderer.render(chart, width: 0)
      _ = TimelineHTMLRenderer.render([chart])
    }
  }

  @Test func terminalSafeTextShowsEveryControlAndOverride() {
    #expect(TerminalSafeText("com.acme.pro").visible == "com.acme.pro")
    #expect(TerminalSafeText("a\u{1B}[2Jb").visible == "a\\u{1b}[2Jb")
    #expect(TerminalSafeText("\u{0}\u{9}\u{A}\u{D}\u{7F}").visible == "\\u{0}\\u{9}\\u{a}\\u{d}\\u{7f}")
    #expect(TerminalSafeText("\u{9B}31m\u{85}").visible == "\\u{9b}31m\\u{85}")
    #expect(
      TerminalSafeText("abc\u{202E}fdp.exe\u{2066}\u{2069}\u{200F}\u{2028}").visible
        == "abc\\u{202e}fdp.exe\\u{2066}\\u{2069}\\u{200f}\\u{2028}")
    #expect(TerminalSafeText("Café 日本 🙂").visible == "Café 日本 🙂")
  }
}
