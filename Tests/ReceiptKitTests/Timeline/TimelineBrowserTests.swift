import Foundation
import Testing

@testable import ReceiptCLI
@testable import ReceiptFormats
@testable import ReceiptModel
@testable import ReceiptRules
@testable import ReceiptTestSupport

/// The HTML timeline rendered by a real browser (headless Chromium): checks on the DOM Chromium built and
/// on its screenshots, kept in `.build/timeline-screenshots/`. Skips with a note where Chromium is absent.
@Suite(.serialized) struct TimelineBrowserTests {
  static let charts = [TimelineSamples.familyRevokedButPurchased, TimelineSamples.everyMark]
  static let screenshots = TestPaths.packageRoot.appendingPathComponent(".build/timeline-screenshots")

  static var chromium: String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
      for name in ["chromium", "chromium-browser", "google-chrome"] {
        let candidate = String(directory) + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
    }
    return nil
  }

  static func noteMissing(_ what: String) {
    print("note: chromium is not installed (apt-get install chromium); skipping the browser test of \(what)")
  }

  /// Runs a program to its end (killed after `seconds`), returning standard output.
  static func run(_ program: String, _ arguments: [String], seconds: Double = 120) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let out = Scratch.directory.appendingPathComponent("timeline-out-\(UUID().uuidString)")
    FileManager.default.createFile(atPath: out.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: out) }
    let handle = try FileHandle(forWritingTo: out)
    process.standardOutput = handle
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning, Date() < deadline { usleep(50_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    try? handle.close()
    return String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self)
  }

  static func writePage(_ html: String, name: String) throws -> URL {
    let directory = Scratch.directory.appendingPathComponent("timeline-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent(name)
    try html.write(to: file, atomically: true, encoding: .utf8)
    return file
  }

  static func dumpDOM(_ chromium: String, _ page: URL) throws -> String {
    try run(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.absoluteString])
  }

  @Test func renderedDOMHasEveryBarInOrderWithItsStyles() throws {
    guard let chromium = Self.chromium else { return Self.noteMissing("the DOM") }
    let page = try Self.writePage(TimelineHTMLRenderer.render(Self.charts), name: "timeline.html")
    let dom = try Self.dumpDOM(chromium, page)
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
    guard let chromium = Self.chromium else { return Self.noteMissing("hostile values") }
    let html = TimelineHTMLRenderer.render([TimelineSamples.hostile], pageTitle: TimelineSamples.hostileText)
    let dom = try Self.dumpDOM(chromium, try Self.writePage(html, name: "hostile.html"))
    try #require(dom.contains("</html>"), "chromium printed no DOM")
    #expect(!dom.lowercased().contains("<script"))
    #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
  }

  /// At A4 width (794 px at 96 dpi) and at a phone's width, the rightmost columns of the screenshot are
  /// page background only: nothing runs off the page.
  @Test func screenshotsHaveAnEmptyRightMargin() throws {
    guard let chromium = Self.chromium else { return Self.noteMissing("screenshots") }
    let page = try Self.writePage(TimelineHTMLRenderer.render(Self.charts), name: "timeline.html")
    try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
    for (name, width, margin) in [("timeline-a4.png", 794, 40), ("timeline-narrow.png", 400, 8)] {
      let png = Self.screenshots.appendingPathComponent(name)
      try? FileManager.default.removeItem(at: png)
      _ = try Self.run(
        chromium,
        [
          "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
          "--window-size=\(width),2600", "--screenshot=\(png.path)", page.absoluteString,
        ])
      try #require(FileManager.default.fileExists(atPath: png.path), "no screenshot \(name)")
      let report = try Self.rightMargin(png, columns: margin)
      #expect(report.hasPrefix("ok "), "\(name): \(report)")
      print("timeline screenshot: \(png.path) (\(report))")
    }
  }

  /// Decodes the PNG with python3's zlib (the toolchain has no PNG reader) and says whether the last
  /// `columns` pixel columns are all white, and how many non-white pixels the image has overall.
  static func rightMargin(_ png: URL, columns: Int) throws -> String {
    let script = """
      import sys, zlib, struct
      data = open(sys.argv[1], 'rb').read()
      assert data[:8] == b'\\x89PNG\\r\\n\\x1a\\n'
      pos, idat, w, h, ctype, depth = 8, b'', 0, 0, 0, 0
      while pos < len(data):
          n, kind = struct.unpack('>I4s', data[pos:pos + 8]); body = data[pos + 8:pos + 8 + n]; pos += 12 + n
          if kind == b'IHDR': w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
          elif kind == b'IDAT': idat += body
      assert depth == 8 and ctype in (2, 6), (depth, ctype)
      bpp = 3 if ctype == 2 else 4
      raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
      for y in range(h):
          f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
          for i in range(stride):
              a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
              if f == 1: line[i] = (line[i] + a) & 255
              elif f == 2: line[i] = (line[i] + b) & 255
              elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
              elif f == 4:
                  p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                  line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
          rows.append(line); prev = line
      cols = int(sys.argv[2])
      bad = [(x, y) for y in range(h) for x in range(w - cols, w) if rows[y][x * bpp:x * bpp + 3] != b'\\xff\\xff\\xff']
      ink = sum(1 for y in range(0, h, 4) for x in range(0, w, 4) if rows[y][x * bpp:x * bpp + 3] != b'\\xff\\xff\\xff')
      verdict = 'ok' if not bad and ink > 1000 else 'FAIL'
      print(verdict + ' %dx%d, %d ink samples, right-margin non-white %s' % (w, h, ink, bad[:5]))
      """
    guard
      let python = ["/usr/bin/python3", "/usr/local/bin/python3"].first(where: FileManager.default.isExecutableFile)
    else { return "ok (python3 absent: margin not checked)" }
    let file = Scratch.directory.appendingPathComponent("png-margin-\(UUID().uuidString).py")
    try script.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    return try run(python, [file.path, png.path, String(columns)]).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}
