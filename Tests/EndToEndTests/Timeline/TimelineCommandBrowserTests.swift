import Foundation
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// `receipt-tool timeline --format html` on the Family Sharing examples, run through the built binary and
/// rendered by headless Chromium: the checks read the DOM Chromium built, against the dates and
/// ownership written in the example files (not the tool's own output). Skips with a note without Chromium.
@Suite(.serialized) struct TimelineCommandBrowserTests {
  /// What an example file says, read by eye from its JSON.
  struct Expected: Sendable {
    var file: String
    /// Transaction id, purchase date, FAMILY_SHARED, refunded or revoked: in time order.
    var bars: [(id: String, start: String, familyShared: Bool, cancelled: Bool)]
    /// The element whose dates hold the evaluation moment 2024-06-15 (its request_date): a `bar`, or
    /// the `voided` part of a cancelled one (from the cancellation to the expiry); a cancelled bar stops
    /// at its cancellation, so it never counts.
    var asOfInside: String
  }

  static let asOf = "2024-06-15T00:00:00Z"

  static let examples: [Expected] = [
    Expected(
      file: "examples/family-revoked-but-purchased.json",
      bars: [
        ("2200000101", "2023-09-01T10:00:00Z", true, true), ("3100", "2024-03-02T09:14:05Z", false, false),
      ], asOfInside: "bar"),
    Expected(
      file: "examples/family-revoked.json", bars: [("2200000101", "2023-09-01T10:00:00Z", true, true)],
      asOfInside: "voided"),
    Expected(
      file: "examples/family-shared-active.json", bars: [("2200000101", "2023-09-01T10:00:00Z", true, false)],
      asOfInside: "bar"),
    Expected(
      file: "examples/entitlements-refunded.json", bars: [("1000000950", "2024-02-20T11:45:00Z", false, true)],
      asOfInside: "voided"),
  ]

  static func page(_ arguments: [String], name: String) throws -> URL {
    let result = try BinaryRunner.run(["timeline", "--format", "html"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    return try Browser.writePage(result.stdout, name: name)
  }

  @Test func examplesRenderWithEveryBarInOrderTheirStylesAndTheMarker() throws {
    guard let chromium = Browser.chromium else {
      return Browser.noteMissing("the timeline command's pages")
    }
    let dom = try Browser.dumpDOM(chromium, try Self.page(Self.examples.map(\.file), name: "family.html"))
    try #require(dom.contains("</html>"), "chromium printed no DOM")
    let sections = MarkupTag.all("section", in: dom)
    try #require(sections.count == Self.examples.count)
    let rects = MarkupTag.all("rect", in: dom)
    let markers = MarkupTag.all("line", in: dom).filter { $0.classes.contains("as-of") }
    let headings = MarkupTag.all("h2", in: dom)
    for (index, example) in Self.examples.enumerated() {
      let start = sections[index].offset
      let end = index + 1 < sections.count ? sections[index + 1].offset : Int.max
      let inSection = { (tag: MarkupTag) in tag.offset > start && tag.offset < end }
      // One section per document, in input order.
      let heading = try #require(headings.first(where: inSection))
      let headingText = dom.utf8.dropFirst(heading.offset).prefix(200)
      #expect(String(decoding: headingText, as: UTF8.self).contains(example.file))
      // Every transaction has its bar, in time order in the DOM and on the x axis.
      let bars = rects.filter { $0.classes.contains("bar") && inSection($0) }
      #expect(bars.compactMap { $0.attributes["data-transaction-id"] } == example.bars.map(\.id), "\(example.file)")
      #expect(bars.compactMap { $0.attributes["data-start"] } == example.bars.map(\.start))
      let xs = bars.compactMap { $0.number("x") }
      #expect(xs == xs.sorted() && xs.count == bars.count, "\(example.file): \(xs)")
      // Family-shared and cancelled bars carry their classes and their pattern fill.
      for (tag, bar) in zip(bars, example.bars) {
        #expect(tag.classes.contains("family-shared") == bar.familyShared, "\(example.file) \(bar.id)")
        #expect(tag.classes.contains("owned") == !bar.familyShared, "\(example.file) \(bar.id)")
        #expect(tag.classes.contains("revoked") == bar.cancelled, "\(example.file) \(bar.id)")
        #expect(tag.attributes["fill"]?.hasSuffix(bar.familyShared ? "-family-shared)" : "-owned)") == true)
      }
      // The evaluation marker lies inside the element whose dates hold 2024-06-15.
      let marker = try #require(markers.first(where: inSection))
      #expect(marker.attributes["data-as-of"] == Self.asOf)
      let markerX = try #require(marker.number("x1"))
      let holder = try #require(
        rects.first {
          inSection($0) && $0.classes.contains(example.asOfInside) && !$0.classes.contains("revoked")
            && ($0.attributes["data-start"] ?? "") <= Self.asOf
            && Self.asOf < ($0.attributes["data-end"] ?? "")
        }, "\(example.file): no \(example.asOfInside) around \(Self.asOf)")
      let left = try #require(holder.number("x"))
      let width = try #require(holder.number("width"))
      #expect(left < markerX && markerX < left + width, "\(example.file): \(left) \(markerX) \(left + width)")
    }
    // Nothing is wider than the page.
    let widths = MarkupTag.all("svg", in: dom).compactMap { $0.number("width") }
    #expect(widths.count == Self.examples.count)
    #expect(widths.allSatisfy { $0 <= Double(TimelineHTMLRenderer.pageWidth - 24) }, "\(widths)")
  }

  /// Screenshots of the examples' page at A4 width and at a phone's: the right margin stays empty. They
  /// are kept in `.build/timeline-screenshots/`; examples/timeline/ holds a copy of the README's one.
  @Test func examplesScreenshotsHaveAnEmptyRightMargin() throws {
    guard let chromium = Browser.chromium else {
      return Browser.noteMissing("the timeline command's screenshots")
    }
    let directory = Browser.screenshots
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let pages = [
      ("family-revoked-but-purchased", [Self.examples[0].file]),
      ("entitlements-refunded", [Self.examples[3].file]),
      ("family-examples", Self.examples.map(\.file)),
    ]
    for (name, files) in pages {
      let page = try Self.page(files, name: name + ".html")
      for (suffix, width, margin) in [("", 794, 40), ("-narrow", 400, 8)] {
        let png = directory.appendingPathComponent("command-\(name)\(suffix).png")
        try? FileManager.default.removeItem(at: png)
        _ = try Browser.run(
          chromium,
          [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
            "--window-size=\(width),\(files.count > 1 ? 3200 : 760)", "--screenshot=\(png.path)",
            page.absoluteString,
          ])
        try #require(FileManager.default.fileExists(atPath: png.path), "no screenshot \(png.lastPathComponent)")
        let report = try Browser.rightMargin(png, columns: margin)
        #expect(report.hasPrefix("ok "), "\(png.lastPathComponent): \(report)")
        print("timeline screenshot: \(png.path) (\(report))")
      }
    }
  }

  /// The transaction table reads at common widths, measured by Chromium itself: no header's word is split
  /// across lines, no cell's word is split except after a hyphen or where the page allows it (`<wbr>`), and
  /// the table never widens the page (in a narrow window it scrolls inside its own box). The page runs no
  /// script, so it is shown in a frame of the width asked for (headless Chromium's window is at least 500
  /// pixels wide) and a script of the host page measures it and writes what it found into the DOM.
  @Test(arguments: [1280, 1024, 800, 360])
  func transactionTableReadsWithoutWordsBrokenAt(width: Int) throws {
    guard let chromium = Browser.chromium else {
      return Browser.noteMissing("the transaction table at \(width) pixels")
    }
    let files = ["examples/family-revoked-but-purchased.json", "examples/entitlements-long-product-id.json"]
    let result = try BinaryRunner.run(["timeline", "--format", "html"] + files)
    #expect(result.status == 0, "\(result.stderr)")
    let page = result.stdout.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    let host = """
      <!DOCTYPE html>
      <html><head><meta charset="utf-8"></head><body style="margin: 0">
      <iframe id="page" style="display: block; border: 0; width: \(width)px; height: 4000px" srcdoc="\(page)"></iframe>
      <script>\(Self.tableMeasurement)</script>
      </body></html>
      """
    let dom = try Browser.run(
      chromium,
      [
        "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
        "--window-size=\(max(width, 500)),900", "--dump-dom",
        try Browser.writePage(host, name: "table-\(width).html").absoluteString,
      ])
    try #require(dom.contains("</html>"), "chromium printed no DOM")
    let start = try #require(dom.range(of: "<pre id=\"table-measure\">"), "the measuring script did not run")
    let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
    let json = dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&lt;", with: "<")
      .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    let report = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "not JSON: \(json)")
    #expect(report["window"] as? Int == width, "the page was laid out \(report["window"] ?? "?") pixels wide")
    // Two documents of two transactions each: 10 headers per table, a row of 10 cells per transaction.
    #expect(report["headers"] as? Int == 20)
    #expect(report["cells"] as? Int == 40)
    #expect((report["brokenHeaders"] as? [String]) == [], "headers broken inside a word at \(width) px")
    #expect((report["brokenCells"] as? [String]) == [], "cells broken inside a word at \(width) px")
    let pageWidth = try #require(report["page"] as? Int)
    #expect(pageWidth <= width, "the page is \(pageWidth) pixels wide in a \(width)-pixel frame")
  }

  /// Finds, in every cell of every transaction table of the framed page, each word (a day `2024-03-01`, or
  /// a run without spaces up to a hyphen) whose text lies on more than one line. Words split by `<wbr>` are separate text
  /// nodes, so a break there is allowed; text in a closed `<details>` is not shown and not counted.
  static let tableMeasurement = """
    (function () {
      var frame = document.getElementById('page');
      function measure() {
        var w = frame.contentWindow, d = frame.contentDocument;
        if (!d || !d.querySelector('table') || document.getElementById('table-measure')) return;
        var report = {window: w.innerWidth, page: d.documentElement.scrollWidth,
          headers: 0, cells: 0, brokenHeaders: [], brokenCells: []};
        function lines(node, from, to) {
          var range = d.createRange();
          range.setStart(node, from); range.setEnd(node, to);
          var tops = {};
          Array.prototype.forEach.call(range.getClientRects(), function (r) {
            if (r.width > 0) tops[Math.round(r.top)] = true;
          });
          return Object.keys(tops).length;
        }
        function hidden(node) {
          var details = node.parentElement.closest('details');
          return details && !details.open && !node.parentElement.closest('summary');
        }
        function check(cell, words, broken) {
          var walker = d.createTreeWalker(cell, 4), node, match;
          while ((node = walker.nextNode())) {
            if (hidden(node)) continue;
            words.lastIndex = 0;
            while ((match = words.exec(node.data))) {
              if (lines(node, match.index, match.index + match[0].length) > 1) broken.push(match[0]);
            }
          }
        }
        d.querySelectorAll('table.transactions thead th').forEach(function (th) {
          report.headers++; check(th, /\\S+/g, report.brokenHeaders);
        });
        d.querySelectorAll('table.transactions tbody th, table.transactions tbody td').forEach(function (td) {
          report.cells++; check(td, /\\d{4}-\\d\\d-\\d\\d|[^\\s-]+-?/g, report.brokenCells);
        });
        var pre = document.createElement('pre');
        pre.id = 'table-measure';
        pre.textContent = JSON.stringify(report);
        document.body.appendChild(pre);
      }
      frame.addEventListener('load', measure);
      measure();
    })();
    """

  /// A product id `<script>alert(1)</script>` is text on the page, never an element Chromium runs.
  @Test func aScriptProductIDIsShownNeverRun() throws {
    let product = "<script>alert(1)</script>"
    let receipt =
      #"{"status":0,"receipt":{"request_date_ms":"1718409600000","in_app":[{"transaction_id":"1","product_id":"\#(product)","purchase_date_ms":"1700000000000","expires_date_ms":"1800000000000"}]}}"#
    let path = try InProcessRunner.temporaryFile(Array(receipt.utf8))
    for format in ["html", "svg"] {
      let result = try BinaryRunner.run(["timeline", "--format", format, path])
      #expect(result.status == 0, "\(result.stderr)")
      #expect(!result.stdout.lowercased().contains("<script"), "\(format)")
      #expect(result.stdout.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "\(format)")
    }
    guard let chromium = Browser.chromium else {
      return Browser.noteMissing("a <script> product id")
    }
    let dom = try Browser.dumpDOM(chromium, try Self.page([path], name: "script.html"))
    try #require(dom.contains("</html>"), "chromium printed no DOM")
    #expect(MarkupTag.all("script", in: dom).isEmpty)
    #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
  }
}
