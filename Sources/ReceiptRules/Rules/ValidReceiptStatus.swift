import ReceiptModel

extension PurchaseHistory {
  /// Fails when the data's own status says it carries no receipt to trust: a verifyReceipt status other
  /// than 0 or 21006 (a valid receipt whose subscription expired), or a response's status that says it does not
  /// hold what was asked for (Look Up Order ID's 1, an invalid order id). (§1.4 [S2a][S42]: verifyReceipt's status
  /// codes; [S29a].)
  /// - Parameters:
  ///   - source: the input's name, for the message (made only for one: most documents pass).
  ///   - consequence: what the command cannot do without a receipt.
  /// - Throws: `ReceiptError` of kind `unusable`.
  public func requireValidStatus(
    source: @autoclosure () -> String, consequence: String = "There is no valid receipt to evaluate."
  ) throws(ReceiptError) {
    if let status = provenance.responseStatus, !status.isValid {
      throw .data(
        source: source(),
        message: "\(provenance.format.description) \(status.field) \(status.code): \(status.meaning) \(consequence)")
    }
    guard let status = provenance.status, !status.carriesValidReceipt else { return }
    throw .data(source: source(), message: "receipt status \(status.code): \(status.meaning) \(consequence)")
  }
}
