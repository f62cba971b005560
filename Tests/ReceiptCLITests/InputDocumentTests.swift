import Testing

@testable import ReceiptCLI

/// `InputDocument.label`, written into one buffer, against the interpolation it replaces.
@Suite struct InputDocumentTests {
  @Test func labelIsTheSourceAColonAndTheLine() {
    let sources = ["", "<stdin>", "a.ndjson", "/tmp/a long/path/export-2026-11-29.ndjson", "résumé ✓.ndjson", "a:b"]
    var lines = [0, 1, 9, 10, 99, 100, 12_345, -1, -10, Int.max, Int.min, Int.max - 1, Int.min + 1]
    var random = SystemRandomNumberGenerator()
    for _ in 0..<500 { lines.append(Int.random(in: Int.min...Int.max, using: &random) >> Int.random(in: 0...63)) }
    for source in sources {
      #expect(InputDocument(source: source, bytes: []).label == source)
      for line in lines {
        let label = InputDocument(source: source, line: line, bytes: []).label
        #expect(label == "\(source):\(line)", "\(source) \(line)")
        #expect(label.utf8.count == source.utf8.count + 1 + String(line).utf8.count)
      }
    }
  }
}
