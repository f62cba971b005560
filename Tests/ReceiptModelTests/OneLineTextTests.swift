import Testing

@testable import ReceiptModel

/// An error message is one line whatever the input held.
struct OneLineTextTests {
  @Test func eachLineBreakIsOneSpace() {
    #expect("a\nb\rc".onOneLine == "a b c")
    #expect("a\r\nb".onOneLine == "a b")
    #expect("é\n😀\u{2028}x\u{85}y".onOneLine == "é 😀 x y")
    #expect("“quoted” — ok".onOneLine == "“quoted” — ok")
  }

  @Test func textWithoutABreakIsUnchanged() {
    let text = "byte 0: truncated: SEQUENCE declares 5140 bytes but only 536 remain"
    #expect(text.onOneLine == text)
    #expect(ReceiptError.data(source: "x.json", message: "two\nlines").description.contains("two lines"))
  }
}
