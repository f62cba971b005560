import ReceiptModel

extension PurchaseHistory {
  /// Fails when the data's own status says it carries no receipt to trust: a verifyReceipt status other
  /// than 0 or 21006 (a valid receipt whose subscription expired).
  /// - Parameters:
  ///   - source: the input's name, for the message.
  ///   - consequence: what the command cannot do without a receipt.
  /// - Throws: `ReceiptError` of kind `unusable`.
  public func requireValidStatus(
    source: String, consequence: String = "There is no valid receipt to evaluate."
  ) throws(ReceiptError) {
    guard let status = provenance.status, !status.carriesValidReceipt else { return }
    throw .data(source: source, message: "receipt status \(status.code): \(status.meaning) \(consequence)")
  }
}
