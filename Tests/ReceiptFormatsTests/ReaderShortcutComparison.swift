import Foundation
import ReceiptModel
import Testing

// The reader's shortcuts are switches on the decoder's internal reader (ValueReading).
@testable import ReceiptFormats

/// A verifyReceipt document read with one of the reader's shortcuts on or off (`shortcut`, e.g. `\.guessesKeys`):
/// its transactions, warnings, receipt and status, or its error's text.
func readVerifyReceipt(_ bytes: [UInt8], with shortcut: WritableKeyPath<ValueReading, Bool>, on: Bool) -> String {
  do {
    let history = try JSONReader.withReader(bytes) { reader in
      var reading = ValueReading(reader: reader, source: "doc.json")
      reading[keyPath: shortcut] = on
      return try reading.decodeDocument()
    }
    return
      "\(history.transactions)\n\(history.warnings)\n\(history.provenance.receipt as Any)\n\(history.provenance.status as Any)"
  } catch {
    return "error: \(error)"
  }
}

/// Both reads of `text` agree, the shortcut on and off; returns the answer (so a case can also say what it must be).
@discardableResult
func expectSameWithAndWithout(
  _ shortcut: WritableKeyPath<ValueReading, Bool>, _ text: String, _ note: String,
  sourceLocation: SourceLocation = #_sourceLocation
) -> String {
  let bytes = Array(text.utf8)
  let answer = readVerifyReceipt(bytes, with: shortcut, on: true)
  #expect(answer == readVerifyReceipt(bytes, with: shortcut, on: false), "\(note)", sourceLocation: sourceLocation)
  return answer
}
