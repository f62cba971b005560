import ReceiptModel

extension ReceiptDocument {
  /// Fails with exit 65 when the document's status says it carries no receipt to trust
  /// (any non-zero status except 21006, a valid receipt whose subscription expired).
  /// `consequence` says what the command cannot do without one.
  public func requireValidStatus(
    source: String, consequence: String = "There is no valid receipt to evaluate."
  ) throws(ReceiptError) {
    guard let status, !status.carriesValidReceipt else { return }
    throw .data(source: source, message: "receipt status \(status.code): \(status.meaning) \(consequence)")
  }
}
