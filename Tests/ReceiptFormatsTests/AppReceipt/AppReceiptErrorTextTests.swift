import ReceiptModel
import Testing

@testable import ReceiptFormats

/// `AppReceiptError.description`, written in one allocation (issue 42: the detail of every `latest_receipt` cut
/// short), is what the interpolation it replaced wrote: with and without a path, any offset, line breaks made spaces.
@Suite struct AppReceiptErrorTextTests {
  static func former(_ error: AppReceiptError) -> String {
    let place =
      error.path.isEmpty ? "byte \(error.offset)" : "byte \(error.offset) (\(error.path.joined(separator: " > ")))"
    return (place + ": " + error.message).onOneLine
  }

  @Test func theDescriptionIsTheFormerInterpolation() {
    let paths: [[String]] = [
      [], ["base64"], ["content", "SET", "attribute 17", "in-app 3", "type 1704"], ["a\nb"], [""],
    ]
    let messages = [
      "truncated: SEQUENCE declares 5140 bytes but only 536 remain", "", "two\nlines", "crlf\r\nand\u{2028}more",
      "é is not a base64 character", "next line\u{85}", String(repeating: "long ", count: 40),
    ]
    for offset in [0, 1, 536, -1, Int.max, Int.min] {
      for path in paths {
        for message in messages {
          let error = AppReceiptError(.malformed, offset: offset, path: path, message: message)
          #expect(error.description == Self.former(error), "\(offset) \(path) \(message)")
          #expect(!error.description.contains("\n"))
        }
      }
    }
  }
}
