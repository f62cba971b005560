import Foundation
import ReceiptFormats
import ReceiptModel
import ReceiptRules
import Testing

@testable import ReceiptCLI

/// The text layout's fast paths (printable ASCII wrapped byte by byte, a value that fits left unwrapped, a
/// character count without a grapheme walk) give exactly what the general definitions give.
@Suite struct TextLayoutFastPathTests {
  /// Words of every length around the line width, single and repeated spaces, spaces at either end.
  static func randomText(_ generator: inout SystemRandomNumberGenerator, alphabet: [String]) -> String {
    var text = ""
    for _ in 0..<Int.random(in: 0...12, using: &generator) {
      text += String(repeating: " ", count: Int.random(in: 0...3, using: &generator))
      let length = [0, 1, 5, 19, 20, 21, 39, 40, 41, 61, 90].randomElement(using: &generator) ?? 1
      text += (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" }.joined()
    }
    return text
  }

  @Test func asciiWrapMatchesTheCharacterWrap() {
    var generator = SystemRandomNumberGenerator()
    let ascii = ["a", "b", "Z", "0", ".", "-", "(", ")", ",", "~"]
    for _ in 0..<3000 {
      let text = Self.randomText(&generator, alphabet: ascii)
      let indent = Int.random(in: 0...30, using: &generator)
      let columns = Int.random(in: 10...100, using: &generator)
      let width = max(20, columns - indent)
      let fast = TextLayout.wrapPrintableASCII(text, indent: indent, width: width)
      #expect(fast == TextLayout.wrapCharacters(text, indent: indent, width: width), "\(text) \(indent) \(columns)")
    }
    // Anything but printable ASCII takes the character wrap.
    for text in ["caf\u{E9} au lait", "a\tb", "a\nb", "\u{1B}[1mbold\u{1B}[0m", "e\u{301}"] {
      #expect(TextLayout.wrapPrintableASCII(text, indent: 2, width: 20) == nil, "\(text)")
    }
  }

  /// `fields` as it was written before its fast path: every value wrapped, then the indent dropped.
  static func referenceFields(
    _ layout: TextLayout, _ rows: [(TerminalText, TerminalText)], indent: Int, minimumLabelWidth: Int
  ) -> String {
    let labelWidth = max(minimumLabelWidth, (rows.map { $0.0.rendered.count }.max() ?? 0) + 2)
    var out = ""
    for (label, value) in rows {
      let valueIndent = indent + labelWidth
      let gap = String(repeating: " ", count: max(0, labelWidth - label.count))
      let pad = String(repeating: " ", count: indent)
      guard value.rendered.utf8.count <= 4096 else {
        out += pad + label.rendered + gap + value.rendered + "\n"
        continue
      }
      let wrapped = TextLayout.wrapCharacters(
        value.rendered, indent: valueIndent, width: max(20, layout.width - valueIndent))
      out += pad + label.rendered + gap + String(wrapped.dropFirst(valueIndent)) + "\n"
    }
    return out
  }

  @Test func fieldsMatchTheWrapEverythingDefinition() {
    var generator = SystemRandomNumberGenerator()
    let alphabets = [["a", "b", "7", ":", "-"], ["a", "\u{E9}", "\u{4E2D}", "b"]]
    for _ in 0..<1500 {
      let layout = TextLayout(color: false, width: Int.random(in: 20...120, using: &generator))
      let alphabet = alphabets.randomElement(using: &generator) ?? alphabets[0]
      let rows = (0..<Int.random(in: 0...5, using: &generator)).map { i -> (TerminalText, TerminalText) in
        (TerminalText("Label \(i)"), TerminalText(Self.randomText(&generator, alphabet: alphabet)))
      }
      let indent = Int.random(in: 0...6, using: &generator)
      let minimum = Int.random(in: 0...16, using: &generator)
      let fast = layout.fields(rows, indent: indent, minimumLabelWidth: minimum).rendered
      #expect(fast == Self.referenceFields(layout, rows, indent: indent, minimumLabelWidth: minimum))
    }
    // A value of many kilobytes stays on one line.
    let long = TerminalText(String(repeating: "word ", count: 1000))
    let layout = TextLayout(color: false)
    let expected = Self.referenceFields(layout, [("Key", long)], indent: 2, minimumLabelWidth: 0)
    #expect(layout.fields([("Key", long)], indent: 2).rendered == expected)
  }

  @Test func countIsCharactersWithoutColourCodes() {
    let bold = TextLayout(color: true).paint("Bold", .bold)
    #expect(bold.count == 4)
    #expect(TerminalText("plain ascii").count == 11)
    #expect(TerminalText("caf\u{E9}").count == 4)
    #expect(TerminalText("e\u{301}").count == 1)
    #expect(TerminalText("\r\n").count == TerminalText("\r\n").rendered.count)
    #expect(("a\nb" as TerminalText).count == 3)
  }

  /// `decode` text reuses a product line, ownership wording and sources made for the transaction before: each
  /// block still reads exactly as it does alone, whatever changes from one transaction to the next.
  @Test func decodeBlocksReadAsTheyDoAlone() {
    var generator = SystemRandomNumberGenerator()
    let names: [FieldVocabulary] = [.verifyReceipt, .appReceipt, .storeKit2]
    let ownerships: [Ownership] = [.purchased, .familyShared, .unknown, .unrecognized("ODD")]
    let products = ["com.acme.pro", "com.acme.lite", "com.acme.pro.yearly.with.a.long.name.that.wraps"]
    let sources: [TransactionSources] = [.inApp, .latestReceiptInfo, [.inApp, .latestReceiptInfo], .appReceipt]
    var transactions: [PurchaseTransaction] = []
    for i in 0..<300 {
      // Runs of equal values, then a change of any one of them.
      let pick = { (count: Int) in i % 7 == 0 ? Int.random(in: 0..<count, using: &generator) : (i / 7) % count }
      transactions.append(
        PurchaseTransaction(
          transactionID: "\(1000 + i)", productID: products[pick(products.count)],
          ownership: ownerships[pick(ownerships.count)], ownershipAssumed: pick(2) == 0,
          expiresDate: pick(3) == 0 ? nil : Timestamp(milliseconds: 1_700_000_000_000),
          productType: pick(4) == 0 ? .consumable : nil, sources: sources[pick(sources.count)],
          vocabulary: names[pick(names.count)]))
    }
    let catalog = Catalog()
    func render(_ list: [PurchaseTransaction]) -> String {
      var history = PurchaseHistory(format: FormatIdentity(name: "test", description: "test"))
      history.transactions = list
      return DecodeTextRenderer.render(history, catalog: catalog, color: false).rendered
    }
    let whole = render(transactions)
    let blocks = transactions.map { t -> String in
      let alone = render([t])
      guard let start = alone.range(of: "\n  Transaction ") else { return "" }
      return String(alone[start.lowerBound...])
    }
    guard let first = whole.range(of: "\n  Transaction ") else {
      Issue.record("no transaction block")
      return
    }
    let together = String(whole[first.lowerBound...])
    let apart = blocks.joined()
    #expect(together == apart)
  }

  /// `decode` text's plain blocks (`appendPlainTransactionBlock`: labels, ids and dates written as bytes, laid-out
  /// product, ownership and sources lines kept by what they are made from) are the blocks `appendFields` lays
  /// out from rows: ids that need escaping or wrapping, long groups, dates outside 1970...9999, quantities,
  /// flags, entitlements from a catalog, narrow and wide lines, products going back and forth.
  @Test func plainTransactionBlocksAreTheRowsBlocks() {
    var generator = SystemRandomNumberGenerator()
    let names: [FieldVocabulary] = [.verifyReceipt, .appReceipt, .storeKit2]
    let ownerships: [Ownership] = [.purchased, .familyShared, .unknown, .unrecognized("ODD\u{1b}[31m")]
    let products = (0..<20).map { "com.acme.product\($0)" } + ["com.acme.pro.yearly.with.a.long.name.that.wraps"]
    let ids = ["1000000000000001", "a  b", "id\u{7}bell", "ünïcode", " lead", String(repeating: "9", count: 90)]
    let groups = ["21000111", String(repeating: "g ", count: 60), "tab\tgroup", "x"]
    let dates: [Timestamp?] = [
      nil, Timestamp(milliseconds: 1_700_000_000_000), Timestamp(milliseconds: 1_700_000_000_123),
      Timestamp(unchecked: -86_400_000), Timestamp(milliseconds: 0), Timestamp(unchecked: 300_000_000_000_000),
    ]
    let sources: [TransactionSources] = [.inApp, .latestReceiptInfo, [.inApp, .latestReceiptInfo], .appReceipt]
    let catalog = Catalog(
      (0..<10).map { j in
        CatalogProduct(
          productID: "com.acme.product\(j)", type: j % 2 == 0 ? .autoRenewable : .nonConsumable,
          entitlements: j == 3 ? [String(repeating: "long entitlement ", count: 6)] : ["e\(j)", "all"])
      })
    func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &generator)] }
    var transactions: [PurchaseTransaction] = []
    for i in 0..<600 {
      var t = PurchaseTransaction(
        transactionID: i % 5 == 0 ? pick(ids) : "\(1000 + i)",
        originalTransactionID: i % 3 == 0 ? nil : pick(ids + ["\(i)"]), productID: pick(products),
        ownership: pick(ownerships), ownershipAssumed: i % 4 == 0, quantity: pick([1, 1, nil, 3]),
        purchaseDate: pick(dates), expiresDate: pick(dates), offer: pick([nil, .freeTrial, .introductoryPrice]),
        isUpgraded: i % 9 == 0, subscriptionGroup: pick([nil] + groups.map { $0 }),
        productType: i % 11 == 0 ? .consumable : nil, sources: pick(sources), vocabulary: pick(names))
      if i % 13 == 0 { t.offer = OfferUse(kind: .promotional, pricing: .payAsYouGo, identifier: "promo") }
      transactions.append(t)
    }
    for width in [20, 41, 80, 200] {
      let layout = TextLayout(color: false, width: width)
      for useCatalog in [false, true] {
        var plain = DecodeTextRenderer.RepeatedValues()
        var rows = DecodeTextRenderer.RepeatedValues()
        var fast = TerminalTextBuilder(capacity: 64)
        var slow = TerminalTextBuilder(capacity: 64)
        var plainCount = 0
        for t in transactions {
          guard DecodeTextRenderer.hasPlainBlock(t, layout: layout) else { continue }
          plainCount += 1
          let c = useCatalog ? catalog : Catalog()
          DecodeTextRenderer.appendPlainTransactionBlock(t, catalog: c, layout: layout, repeated: &plain, to: &fast)
          DecodeTextRenderer.appendTransactionBlockRows(t, catalog: c, layout: layout, repeated: &rows, to: &slow)
        }
        #expect(plainCount > 300)
        #expect(fast.text.rendered == slow.text.rendered, "width \(width), catalog \(useCatalog)")
      }
    }
  }

  /// `decode --format json` reuses the attributes value made for the transaction before only when the carried
  /// fields are equal: every transaction reads as it does alone.
  @Test func decodeJSONAttributesReadAsTheyDoAlone() {
    var generator = SystemRandomNumberGenerator()
    let variants: [[CarriedField]] = [
      [CarriedField(type: 1707, name: "product_type", value: "3", encoding: "integer")],
      [CarriedField(type: 1707, name: "product_type", value: "2", encoding: "integer")],
      [
        CarriedField(type: 1707, name: "product_type", value: "3", encoding: "integer"),
        CarriedField(type: 1709, name: nil, value: "", encoding: "utf8String"),
      ],
      [CarriedField(type: 1709, name: nil, value: "", encoding: "ia5String")],
      [],
    ]
    var memo = DecodeJSONRenderer.CarriedJSON()
    var shared = variants[0]
    for i in 0..<400 {
      // Runs of the very same array, equal arrays made apart, and changes.
      let pick = Int.random(in: 0..<10, using: &generator)
      if pick < variants.count { shared = variants[pick] }
      let fields = pick == 9 ? variants[i % variants.count].map { $0 } : shared
      let t = PurchaseTransaction(
        transactionID: "\(i)", productID: "p", sources: .appReceipt, vocabulary: .appReceipt, carriedFields: fields)
      var fresh = DecodeJSONRenderer.CarriedJSON()
      let together = DecodeJSONRenderer.transaction(t, catalog: Catalog(), carried: &memo).rendered(pretty: false)
      let alone = DecodeJSONRenderer.transaction(t, catalog: Catalog(), carried: &fresh).rendered(pretty: false)
      #expect(together == alone, "\(i)")
    }
  }

  /// Terminal-safe text and terminal text pass printable ASCII through as it is: exactly what escaping or repairing
  /// one scalar at a time gives, for text at and around every edge of that range (and with SGR sequences).
  @Test func printableASCIIPassesAsTheScalarByScalarPathLeavesIt() {
    let pieces: [String] = [
      "a", "Z", "0", " ", "~", "\"", "\\", "\n", "\r", "\t", "\u{1F}", "\u{7F}", "\u{80}", "\u{85}", "\u{9B}", "é",
      "\u{202E}", "\u{2028}", "\u{1B}", "\u{1B}[31m", "\u{1B}[0m", "\u{1B}[2J", "日",
    ]
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func next(_ n: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int(truncatingIfNeeded: state >> 33) % n
    }
    var asciiSeen = 0
    for round in 0..<4_000 {
      // Half the texts from the printable part alone, so the fast paths really run.
      let choices = round % 2 == 0 ? Array(pieces.prefix(7)) : pieces
      let text = (0..<next(12)).map { _ in choices[next(choices.count)] }.joined()
      if TerminalSafeText.isPrintableASCII(text, allowingNewline: false) { asciiSeen += 1 }
      #expect(TerminalSafeText(text).visible == TerminalSafeText.escaped(text), "\(text.debugDescription)")
      #expect(TerminalText.repaired(text) == TerminalText.repairedScalarByScalar(text), "\(text.debugDescription)")
    }
    #expect(asciiSeen > 1_000)
  }
}
