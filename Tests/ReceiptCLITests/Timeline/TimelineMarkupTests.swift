import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The SVG and HTML: structure, classes and data attributes, well-formed XML, and escaping.
@Suite struct TimelineMarkupTests {
  final class ParseErrors: NSObject, XMLParserDelegate {
    var error: Error?
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { error = parseError }
  }

  static func isWellFormedXML(_ text: String) -> Bool {
    let parser = XMLParser(data: Data(text.utf8))
    let errors = ParseErrors()
    parser.delegate = errors
    return parser.parse() && errors.error == nil
  }

  @Test func svgCarriesEveryBarWithItsClassesAndDates() throws {
    let chart = TimelineSamples.familyRevokedButPurchased
    let svg = TimelineSVGRenderer.render(chart)
    #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    #expect(Self.isWellFormedXML(svg))
    #expect(svg.contains("<title id=\"timeline-title\">Timeline: family-revoked-but-purchased.json</title>"))
    #expect(svg.contains("<desc id=\"timeline-desc\">1 lane, 2 transactions, evaluated at 2024-06-15T00:00:00Z."))
    let bars = MarkupTag.all("rect", in: svg).filter { $0.classes.contains("bar") }
    #expect(bars.map { $0.attributes["data-transaction-id"] } == ["2200000101", "3100"])
    #expect(bars[0].classes == ["bar", "family-shared", "revoked"])
    #expect(bars[0].attributes["data-start"] == "2023-09-01T10:00:00Z")
    #expect(bars[0].attributes["data-end"] == "2024-09-01T10:00:00Z")
    #expect(bars[0].attributes["data-revocation-date"] == "2024-03-01T18:20:11Z")
    #expect(bars[0].attributes["fill"] == "url(#timeline-family-shared)")
    #expect(bars[1].classes == ["bar", "owned"])
    #expect(
      svg.contains(
        "<title>transaction 3100 of com.acme.pro.yearly\n2024-03-02T09:14:05Z to 2025-03-02T09:14:05Z\nowned\n"
          + "transaction_id: 3100\nin_app_ownership_type: PURCHASED</title>"))
    let asOf = try #require(MarkupTag.all("line", in: svg).first { $0.classes.contains("as-of") })
    #expect(asOf.attributes["data-as-of"] == "2024-06-15T00:00:00Z")
    // The marker lies inside the own purchase's bar, right of where the shared copy was revoked.
    let x = try #require(asOf.number("x1"))
    let own0 = try #require(bars[1].number("x"))
    let ownWidth = try #require(bars[1].number("width"))
    let shared0 = try #require(bars[0].number("x"))
    let sharedWidth = try #require(bars[0].number("width"))
    #expect(own0 < x && x < own0 + ownWidth)
    #expect(shared0 + sharedWidth < x)
    // Patterns for every fill, so each kind differs by texture as well as colour.
    for id in ["owned", "family-shared", "ownership-unknown", "trial", "intro", "grace-period", "billing-retry"] {
      #expect(svg.contains("<pattern id=\"timeline-\(id)\""), "\(id)")
    }
    // Real dates on the axis.
    let ticks = MarkupTag.all("g", in: svg).filter { $0.classes.contains("tick") }.compactMap {
      $0.attributes["data-date"]
    }
    #expect(ticks.contains("2024-01-01T00:00:00Z") && ticks.contains("2025-01-01T00:00:00Z"), "\(ticks)")
  }

  @Test func svgOfEveryMarkIsOrderedAndClassified() throws {
    let svg = TimelineSVGRenderer.render(TimelineSamples.everyMark, width: 900, idPrefix: "x\"><script>")
    #expect(Self.isWellFormedXML(svg))
    #expect(!svg.contains("<script"))
    let bars = MarkupTag.all("rect", in: svg).filter { $0.classes.contains("bar") }
    #expect(bars.map { $0.attributes["data-transaction-id"] ?? "" } == ["r1", "r2", "r3", "r4", "b1", "l1"])
    let proX = bars.prefix(4).compactMap { $0.number("x") }
    #expect(proX == proX.sorted() && proX.count == 4)
    #expect(bars[0].classes.contains("trial"))
    #expect(bars[2].classes.isSuperset(of: ["revoked", "refunded"]))
    #expect(bars[4].classes.isSuperset(of: ["ownership-unknown", "upgraded"]))
    #expect(
      bars[5].classes.isSuperset(of: ["family-shared", "open-ended"])
        && bars[5].attributes["data-open-end"] == "no-expiry")
    let zones = MarkupTag.all("rect", in: svg).filter { $0.classes.contains("zone") }.map(\.classes)
    #expect(zones == [["zone", "grace-period"], ["zone", "billing-retry"]])
    let gaps = MarkupTag.all("line", in: svg).filter { $0.classes.contains("gap") }
    #expect(gaps.map { $0.attributes["data-start"] ?? "" } == ["2024-02-20T00:00:00Z"])
    #expect(gaps.map { $0.attributes["data-end"] ?? "" } == ["2024-04-01T00:00:00Z"])
    #expect(svg.contains("class=\"marker refund\" data-date=\"2024-02-20T00:00:00Z\""))
    #expect(svg.contains("class=\"marker upgrade\""))
  }

  @Test func hostileValuesAreShownNeverRun() {
    let svg = TimelineSVGRenderer.render(TimelineSamples.hostile)
    #expect(Self.isWellFormedXML(svg))
    let html = TimelineHTMLRenderer.render([TimelineSamples.hostile], pageTitle: TimelineSamples.hostileText)
    for page in [svg, html] {
      #expect(!page.lowercased().contains("<script"))
      #expect(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;\\u{1b}[31m&amp;&quot;&#39;\\u{202e}gnp.exe\\u{7}"))
      #expect(!page.contains("\u{1B}") && !page.contains("\u{202E}") && !page.contains("\u{7}"))
    }
  }

  @Test func pageIsSelfContainedWithOneSectionPerDocument() {
    let charts = [TimelineSamples.familyRevokedButPurchased, TimelineSamples.everyMark]
    let html = TimelineHTMLRenderer.render(charts)
    #expect(html.hasPrefix("<!DOCTYPE html>"))
    #expect(MarkupTag.all("section", in: html).count == 2)
    #expect(MarkupTag.all("svg", in: html).count == 2)
    // No script, no network: the only URL is the SVG namespace; a policy forbids the rest anyway.
    #expect(!html.contains("<script") && !html.contains("<link") && !html.contains("@import"))
    #expect(html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").range(of: "http:") == nil)
    #expect(!html.contains("https:"))
    #expect(html.contains("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""))
    // Unique pattern ids per document.
    #expect(html.contains("id=\"doc1-family-shared\"") && html.contains("id=\"doc2-family-shared\""))
    // A data table row for every transaction, and print rules.
    let rows = MarkupTag.all("tr", in: html).compactMap { $0.attributes["data-transaction-id"] }
    #expect(rows == ["2200000101", "3100", "r1", "r2", "r3", "r4", "b1", "l1"])
    #expect(html.contains("@media print") && html.contains("@page"))
    #expect(
      html.contains(
        "<dd class=\"unverified\">unsigned: verifyReceipt response carries no signature</dd>"))
    #expect(html.contains("<span class=\"status good\">active</span> Family Sharing access to com.acme.pro.yearly"))
    let widths = MarkupTag.all("svg", in: html).compactMap { $0.number("width") }
    #expect(widths.allSatisfy { $0 <= Double(TimelineHTMLRenderer.pageWidth) }, "\(widths)")
  }

  /// The table's ids wrap only after a separator followed by more of the word, dates only before their time,
  /// and both stay escaped.
  @Test func tableTextWrapsOnlyAtItsBreakPoints() {
    #expect(TimelineHTMLRenderer.breakable("com.acme.pro_yearly") == "com.<wbr>acme.<wbr>pro_<wbr>yearly")
    #expect(TimelineHTMLRenderer.breakable("a..b. c.") == "a..<wbr>b. c.")
    #expect(TimelineHTMLRenderer.breakable("<x.y>") == "&lt;x.<wbr>y&gt;")
    #expect(TimelineHTMLRenderer.breakable("2200000101") == "2200000101")
    #expect(
      TimelineHTMLRenderer.date("2024-03-01T18:20:11Z") == "<span class=\"day\">2024-03-01</span><wbr>T18:20:11Z")
    #expect(TimelineHTMLRenderer.date("not given") == "not given")
  }
}
