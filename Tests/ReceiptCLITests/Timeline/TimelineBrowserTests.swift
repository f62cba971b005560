import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// The HTML timeline rendered by a real browser (headless Chromium): checks on the DOM Chromium built and
/// on its screenshots, kept in `.build/timeline-screenshots/`. Skips with a note where Chromium is absent.
@Suite(.serialized) struct TimelineBrowserTests {
  static let charts = [TimelineSamples.familyRevokedButPurchased, TimelineSamples.everyMark]
  @Test func renderedDOMHasEveryBarInOrderWithItsStyles() throws {
    guard let chromium = Browser.chromium else { return Browser.noteMissing("the DOM") }
    let page = try Browser.writePage(TimelineHTMLRenderer.render(Self.charts), name: "timeline.html")
    let dom = try Browser.dumpDOM(chromium, page)
    try #require(dom.contains("</html>"), "chromium printed no DOM")
    let sections = MarkupTag.all("section", in: dom)
    #expect(sections.count == Self.charts.count)
    let lanes = MarkupTag.all("g", in: dom).filter { $0.classes.contains("lane") }
    let rects = MarkupTag.all("rect", in: dom)
    let bars = rects.filter { $0.classes.contains("bar") }
    let ticks = MarkupTag.all("g", in: dom).filter { $0.classes.contains("tick") }
    let tickLines = MarkupTag.all("line", in: dom)
    let markers = tickLines.filter { $0.classes.contains("as-of") }
    for (index, chart) in Self.charts.enumerated() {
      let start = sections[index].offset
      let end = index + 1 < sections.count ? sections[index + 1].offset : Int.max
      let inSection = { (tag: MarkupTag) in tag.offset > start && tag.offset < end }
      let sectionBars = bars.filter(inSection)
      // Every transaction has its bar.
      #expect(
        Set(sectionBars.compactMap { $0.attributes["data-transaction-id"] }) == Set(chart.allBars.map(\.transactionID)))
      #expect(sectionBars.count == chart.allBars.count)
      // Bars are in time order within each lane, in the DOM and on the x axis.
      let sectionLanes = lanes.filter(inSection)
      #expect(sectionLanes.count == chart.lanes.count)
      for (l, lane) in sectionLanes.enumerated() {
        let laneEnd = l + 1 < sectionLanes.count ? sectionLanes[l + 1].offset : end
        let laneBars = sectionBars.filter { $0.offset > lane.offset && $0.offset < laneEnd }
        let starts = laneBars.compactMap { $0.attributes["data-start"] }
        let xs = laneBars.compactMap { $0.number("x") }
        #expect(starts == starts.sorted() && xs == xs.sorted() && xs.count == laneBars.count, "\(starts) \(xs)")
      }
      // Family-shared and revoked bars carry their classes (and thus their fills and strokes).
      for bar in chart.allBars {
        let tag = try #require(sectionBars.first { $0.attributes["data-transaction-id"] == bar.transactionID })
        #expect(tag.classes.contains("family-shared") == (bar.ownership == .familyShared), "\(bar.transactionID)")
        #expect(tag.classes.contains("revoked") == (bar.cancellation != nil), "\(bar.transactionID)")
        if bar.ownership == .familyShared { #expect(tag.attributes["fill"]?.hasSuffix("-family-shared)") == true) }
      }
      // The evaluation marker lies between the ticks of the dates around it.
      let marker = try #require(markers.first(where: inSection))
      let moment = chart.evaluationMoment.iso8601
      #expect(marker.attributes["data-as-of"] == moment)
      let markerX = try #require(marker.number("x1"))
      var tickXs: [(date: String, x: Double)] = []
      for tick in ticks.filter(inSection) {
        let line = try #require(tickLines.first { $0.offset > tick.offset })
        tickXs.append((tick.attributes["data-date"] ?? "", line.number("x1") ?? -1))
      }
      let before = try #require(tickXs.last { $0.date <= moment }, "no tick before \(moment)")
      // Past the last tick, the marker must still lie before the end of the axis line.
      let axis = try #require(MarkupTag.all("g", in: dom).first { $0.classes.contains("axis") && inSection($0) })
      let axisLine = try #require(tickLines.first { $0.offset > axis.offset })
      let after = tickXs.first { $0.date > moment } ?? ("end of axis", axisLine.number("x2") ?? -1)
      #expect(before.x <= markerX && markerX < after.x, "\(before) \(markerX) \(after)")
    }
    // Known dates, checked by name: 2024-06-15 between the quarter ticks 2024-04-01 and 2024-07-01 ...
    #expect(dom.contains("data-date=\"2024-04-01T00:00:00Z\"") && dom.contains("data-date=\"2024-07-01T00:00:00Z\""))
    // ... and 2024-05-10 after the 2024-05-01 tick.
    #expect(dom.contains("data-date=\"2024-05-01T00:00:00Z\""))
    // Nothing is wider than the page: every chart fits the content width the CSS allows.
    let widths = MarkupTag.all("svg", in: dom).compactMap { $0.number("width") }
    #expect(
      widths.count == Self.charts.count && widths.allSatisfy { $0 <= Double(TimelineHTMLRenderer.pageWidth - 24) })
  }

  @Test func hostilePageShowsTheScriptAsText() throws {
    guard let chromium = Browser.chromium else { return Browser.noteMissing("hostile values") }
    let html = TimelineHTMLRenderer.render([TimelineSamples.hostile], pageTitle: TimelineSamples.hostileText)
    let dom = try Browser.dumpDOM(chromium, try Browser.writePage(html, name: "hostile.html"))
    try #require(dom.contains("</html>"), "chromium printed no DOM")
    #expect(!dom.lowercased().contains("<script"))
    #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
  }

  /// At A4 width (794 px at 96 dpi) and at a phone's width, the rightmost columns of the screenshot are
  /// page background only: nothing runs off the page.
  @Test func screenshotsHaveAnEmptyRightMargin() throws {
    guard let chromium = Browser.chromium else { return Browser.noteMissing("screenshots") }
    let page = try Browser.writePage(TimelineHTMLRenderer.render(Self.charts), name: "timeline.html")
    try FileManager.default.createDirectory(at: Browser.screenshots, withIntermediateDirectories: true)
    for (name, width, margin) in [("timeline-a4.png", 794, 40), ("timeline-narrow.png", 400, 8)] {
      let png = Browser.screenshots.appendingPathComponent(name)
      try? FileManager.default.removeItem(at: png)
      _ = try Browser.run(
        chromium,
        [
          "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
          "--window-size=\(width),2600", "--screenshot=\(png.path)", page.absoluteString,
        ])
      try #require(FileManager.default.fileExists(atPath: png.path), "no screenshot \(name)")
      let report = try Browser.rightMargin(png, columns: margin)
      #expect(report.hasPrefix("ok "), "\(name): \(report)")
      print("timeline screenshot: \(png.path) (\(report))")
    }
  }
}
