import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptCLI

/// Text output is for people at an 80-column terminal: tables and wrapped prose must fit, long product
/// ids included, and colour appears only when asked for.
@Suite struct TextOutputTests {
  static let longID = "com.example.app.subscription.premium.yearly.family.promo2026"

  static func overlong(_ text: String, width: Int = 80) -> [String] {
    text.split(separator: "\n").map(String.init).filter { $0.count > width }
  }

  @Test func tableNarrowsEveryFlexibleColumnAndKeepsBothEndsOfAnID() {
    let layout = TextLayout(color: false, width: 80)
    let table = layout.table(
      header: ["ENTITLEMENT", "STATUS", "PRODUCT", "OWNERSHIP", "EXPIRES"],
      rows: [
        [TerminalText(Self.longID), "grace_period", TerminalText(Self.longID), "PURCHASED", "2024-06-26"],
        ["pro", "active", "p", "FAMILY_SHARED", "never"],
      ],
      flexible: [0, 2]
    ).rendered
    #expect(Self.overlong(table).isEmpty, "\(table)")
    #expect(table.contains("com.examp…romo2026"), "\(table)")
    // Short cells are not widened to the minimum.
    #expect(
      TextLayout(color: false, width: 60).table(header: ["A", "B"], rows: [["x", "y"]], flexible: [0]).rendered
        == "A  B\nx  y\n")
  }

  @Test func tableThatFitsIsUnchanged() {
    let layout = TextLayout(color: false, width: 80)
    let table = layout.table(
      header: ["product", "units"], rows: [[TerminalText(Self.longID), "2"]], rightAligned: [1], flexible: [0],
      indent: 2
    ).rendered
    #expect(table.contains(Self.longID))
  }

  @Test func colourIsAppliedAfterLayout() {
    let layout = TextLayout(color: true, width: 60)
    let table = layout.table(header: ["ID", "STATUS"], rows: [[TerminalText(Self.longID), "active"]], flexible: [0]) {
      _, column, cell in
      column == 1 ? layout.paint(cell, .good) : cell
    }.rendered
    let line = table.split(separator: "\n")[1]
    #expect(line.contains("\u{1B}[32mactive\u{1B}[0m"))
    #expect(
      line.replacingOccurrences(of: "\u{1B}[32m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "").count <= 60)
  }

  @Test func wrapSplitsAWordLongerThanALine() {
    let text = TextLayout.wrap("id: \(Self.longID).with.an.even.longer.suffix.v2 expired", indent: 2, columns: 40)
    #expect(Self.overlong(text, width: 40).isEmpty, "\(text)")
    #expect(text.replacingOccurrences(of: "\n  ", with: "").contains("\(Self.longID).with.an.even.longer.suffix.v2"))
  }

  @Test func colourOnlyOnATerminalAndNeverWithNoColor() {
    #expect(ProcessEnvironment(variables: [:], stdoutIsTerminal: true).useColor)
    #expect(!ProcessEnvironment(variables: [:], stdoutIsTerminal: false).useColor)
    #expect(!ProcessEnvironment(variables: ["NO_COLOR": "1"], stdoutIsTerminal: true).useColor)
    #expect(ProcessEnvironment(variables: ["NO_COLOR": ""], stdoutIsTerminal: true).useColor)
    #expect(!ProcessEnvironment(variables: ["TERM": "dumb"], stdoutIsTerminal: true).useColor)
    #expect(ProcessEnvironment(variables: ["COLUMNS": "120"], stdoutIsTerminal: false).columns == 120)
    #expect(ProcessEnvironment(variables: ["COLUMNS": "abc"], stdoutIsTerminal: false).columns == 80)
  }

}
