extension ReceiptDocument {
  /// Fails with exit 65 when the document's status says it carries no receipt to trust
  /// (any non-zero status except 21006, a valid receipt whose subscription expired).
  public func requireValidStatus(source: String) throws(ReceiptToolError) {
    guard let status, !status.carriesValidReceipt else { return }
    throw .data(source: source, message: "receipt status \(status.code): \(status.meaning) There is no valid receipt to evaluate.")
  }
}
