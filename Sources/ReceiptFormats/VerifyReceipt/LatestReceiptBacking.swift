import ReceiptModel
import ReceiptRules

/// A JSON body's verdict from the signed receipt it carries in `latest_receipt`: the receipt is verified at its
/// creation date, decoded, and its purchases compared with the JSON's (`receiptBacking(of:by:)`); its device hash
/// is checked against `--device-id` as an on-device receipt's is. Where the receipt's signature holds, the
/// history's transactions become `backedTransactions(of:by:)`: the signed rows the JSON lacks are answered from.
enum LatestReceiptBacking {
  /// Sets the verdict of `history`, a verifyReceipt response or Notification v1 body whose `latest_receipt` is
  /// `text`: its signature check, with the backing when the receipt verified and the device check whenever
  /// `latest_receipt` holds a receipt (or a device was named); and its transactions, the signed ones it lacks added.
  /// - Parameters:
  ///   - history: The JSON body's purchase history.
  ///   - text: The base64 `latest_receipt`.
  ///   - checking: The verifiers lent for this document.
  ///   - device: The device the receipt's hash is checked against; nil: not checked.
  ///   - source: The input's name.
  static func check(
    _ history: inout PurchaseHistory, latestReceipt text: String, checking: SignatureChecking,
    device: DeviceIdentifier? = nil, source: String
  ) {
    var check = backingCheck(of: history, latestReceipt: text, checking: checking, source: source)
    if let payload = check.payload {
      check.verdict.device = AppReceiptHistory.deviceCheck(of: payload, device: device)
    } else if let device {
      let what = check.verdict.backing?.notAReceiptReason ?? "not a receipt"
      check.verdict.device = .noReceipt(deviceID: device.text, latestReceipt: what)
    }
    if let signed = check.signed, let backing = check.verdict.backing {
      history.transactions = backedTransactions(of: history.transactions, by: signed, backing: backing)
    }
    // The receipt vouches for the JSON's transactions it is compared with, not for the JSON's receipt object.
    if check.verdict.coverage == .appReceipt { check.verdict.coverage = .latestReceipt }
    history.provenance.signatureCheck = check.verdict
  }

  /// The verdict, the receipt's payload when `latest_receipt` held one that could be read, and its transactions
  /// when its signature held.
  static func backingCheck(
    of history: PurchaseHistory, latestReceipt text: String, checking: SignatureChecking, source: String
  ) -> (verdict: SignatureCheck, payload: AppReceiptPayload?, signed: [PurchaseTransaction]?) {
    let what = history.provenance.format.description
    let input: AppReceiptInput
    do {
      input = try AppReceiptInput.recognise(Array(text.utf8))
    } catch {
      // A placeholder ("XXXX" in fixtures) or other text: no receipt, so no claim either way.
      let kind = text.utf8.count < 64 ? "a placeholder" : error.kind == .malformed ? "not base64" : "not PKCS#7"
      let reason = text.isEmpty ? "empty" : "not a receipt (\(kind))"
      return (notAReceipt(reason, detail: error.description, what: what), nil, nil)
    }
    let document: AppReceiptReader.Document
    let signed: PurchaseHistory
    do {
      document = AppReceiptReader.Document(
        form: input.form,
        payload: try AppReceiptPayloadDecoder.decode(der: input.der, keepsOtherAttributes: false), der: input.der)
      signed = try AppReceiptHistory.history(of: document, source: source, keepsCarriedFields: false)
    } catch {
      // Cut short or otherwise unreadable (hand-written examples keep a real receipt's first bytes): no receipt.
      // The ASN.1 reader words every element cut short "truncated: ..." (ASN1Reader).
      let cutShort = (error as? AppReceiptError)?.message.hasPrefix("truncated") ?? false
      return (notAReceipt(cutShort ? "cut short" : "damaged", detail: "\(error)", what: what), nil, nil)
    }
    if document.payload.signature.signerCount == 0 {
      return (notAReceipt("not a receipt (no signer)", detail: nil, what: what), document.payload, nil)
    }
    var check = AppReceiptHistory.signatureCheck(of: document, checking: checking)
    for i in check.failures.indices { check.failures[i].path = "latest_receipt" }
    guard check.verdict == .verified || check.verdict == .testSigned else { return (check, document.payload, nil) }
    var backing = receiptBacking(of: history, by: signed)
    backing.signedByApple = check.verdict == .verified && check.anchor == .apple
    check.backing = backing
    switch backing.outcome {
    case .backed, .notAReceipt: break
    case .partlyBacked:
      check.verdict = .unsigned
      check.note = backing.summary
      check.anchor = nil
    case .contradicted:
      check.verdict = .invalid
      check.anchor = nil
      let contradictions = backing.contradicted
      check.failureCount = contradictions.count
      check.failures = contradictions.prefix(SignatureCheck.maxFailuresKept).map { entry in
        var differences: [String] = []
        if case .contradicted(let list) = entry.standing {
          differences = list.map { "\($0.field) \($0.json) in the JSON, \($0.receipt) in the signed receipt" }
        }
        return SignatureItemFailure(
          path: "transaction_id \(entry.transactionID)", code: "backing.contradicted", certificate: nil,
          reason: "contradicts the signed receipt: " + differences.joined(separator: "; "))
      }
    }
    return (check, document.payload, signed.transactions)
  }

  static func notAReceipt(_ reason: String, detail: String?, what: String) -> SignatureCheck {
    var check = SignatureCheck.unsigned(what)
    let backing = ReceiptBacking.notAReceipt(reason, detail: detail)
    check.backing = backing
    check.note = backing.summary
    return check
  }
}
