import ReceiptCrypto
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
    // Swapped in, not copied: the verdict is large, and the former one goes with `check`.
    swap(&history.provenance.signatureCheck, &check.verdict)
  }

  /// The verdict, the receipt's payload when `latest_receipt` held one that could be read, and its transactions
  /// when its signature held.
  static func backingCheck(
    of history: PurchaseHistory, latestReceipt text: String, checking: SignatureChecking, source: String
  ) -> (verdict: SignatureCheck, payload: AppReceiptPayload?, signed: [PurchaseTransaction]?) {
    if let cutShort = cutShortVerdict(text) { return (cutShort, nil, nil) }
    return fullBackingCheck(of: history, latestReceipt: text, checking: checking, source: source)
  }

  /// `backingCheck` with every receipt decoded: the reference `cutShortVerdict` is held to.
  static func fullBackingCheck(
    of history: PurchaseHistory, latestReceipt text: String, checking: SignatureChecking, source: String
  ) -> (verdict: SignatureCheck, payload: AppReceiptPayload?, signed: [PurchaseTransaction]?) {
    let input: AppReceiptInput
    do {
      input = try recognise(text)
    } catch {
      // A placeholder ("XXXX" in fixtures) or other text: no receipt, so no claim either way.
      let kind = text.utf8.count < 64 ? "a placeholder" : error.kind == .malformed ? "not base64" : "not PKCS#7"
      let reason = text.isEmpty ? "empty" : "not a receipt (\(kind))"
      return (notAReceipt(reason, detail: error.description), nil, nil)
    }
    // Each step's error read as its own type: `"\(error)"` of an `any Error` goes through the runtime's casts.
    let payload: AppReceiptPayload
    do {
      payload = try AppReceiptPayloadDecoder.decode(der: input.der, keepsOtherAttributes: false)
    } catch {
      // Cut short or otherwise unreadable (hand-written examples keep a real receipt's first bytes): no receipt.
      // The ASN.1 reader words every element cut short "truncated: ..." (ASN1Reader).
      let cutShort = error.message.hasPrefix("truncated")
      return (notAReceipt(cutShort ? "cut short" : "damaged", detail: error.description), nil, nil)
    }
    let document = AppReceiptReader.Document(form: input.form, payload: payload, der: input.der)
    let signed: PurchaseHistory
    do {
      signed = try AppReceiptHistory.history(of: document, source: source, keepsCarriedFields: false)
    } catch {
      return (notAReceipt("damaged", detail: "\(error)"), nil, nil)
    }
    if document.payload.signature.signerCount == 0 {
      return (notAReceipt("not a receipt (no signer)", detail: nil), document.payload, nil)
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

  /// The verdict of a `latest_receipt` that is base64 of a DER SEQUENCE declaring more bytes than the text
  /// decodes to (an export's column limit cut it), found from the text's decoded length and first bytes without
  /// decoding the rest; nil when `fullBackingCheck` must decide. Its verdict and detail are the full path's.
  static func cutShortVerdict(_ text: String) -> SignatureCheck? {
    var text = text
    guard let declared = text.withUTF8({ cutShortDeclaration($0) }) else { return nil }
    // `ASN1Error.declaresMore` placed at byte 0 with no path, as `AppReceiptError.description` words it.
    let detail = JoinedText.make(capacity: 60 + 2 * JoinedText.decimalCapacity) { text in
      text.append(literal: "byte 0: truncated: SEQUENCE declares ")
      text.append(decimal: declared.length)
      text.append(literal: " bytes but only ")
      text.append(decimal: declared.remaining)
      text.append(literal: " remain")
    }
    return notAReceipt(cutShortReason, detail: detail)
  }

  static let cutShortReason = "cut short"

  /// The ContentInfo SEQUENCE's declared length and the bytes that remain after its header, when the full path's
  /// first error would be that it declares more: the text is what `AppReceiptInput.recognise` reads as base64
  /// (whole, by `Base64.measure`), and the header is one the envelope's reader takes as it is (definite, its
  /// length in the shortest form).
  static func cutShortDeclaration(_ bytes: UnsafeBufferPointer<UInt8>) -> (length: Int, remaining: Int)? {
    let start = AppReceiptInput.contentStart(bytes)
    // A first `0` is read as DER, not base64.
    guard start < bytes.count, bytes[start] != 0x30, AppReceiptInput.isBase64(bytes[start]),
      bytes.count - start >= 8
    else { return nil }
    // The header from the first eight symbols; a whole receipt (the text long enough to hold what the header
    // declares) goes to the full path without its alphabet checked twice.
    let lead = UnsafeBufferPointer(rebasing: bytes[start..<(start + 8)])
    guard let header = try? Base64.measure(lead, rules: .text), header.count == 6 else { return nil }
    func byte(_ k: Int) -> Int { Int(truncatingIfNeeded: header.head >> UInt64(56 - 8 * k)) & 0xFF }
    guard byte(0) == 0x30 else { return nil }
    let first = byte(1)
    var contentStart = 2
    var length = first
    if first >= 0x80 {
      let octets = first & 0x7F
      guard octets >= 1, octets <= 4 else { return nil }
      length = 0
      for k in 0..<octets { length = length << 8 | byte(contentStart + k) }
      guard byte(contentStart) != 0, length >= 0x80 else { return nil }
      contentStart += octets
    }
    // At most three bytes for every four characters.
    guard length > bytes.count / 4 * 3 + 2 - contentStart,
      let measured = try? Base64.measure(bytes, rules: .text), measured.count >= contentStart
    else { return nil }
    let remaining = measured.count - contentStart
    return length > remaining ? (length, remaining) : nil
  }

  /// The unsigned verdict of a body whose `latest_receipt` holds no receipt: its note is the backing's phrase.
  static func notAReceipt(_ reason: String, detail: String?) -> SignatureCheck {
    SignatureCheck.notAReceipt(reason, detail: detail)
  }

  /// `AppReceiptInput.recognise` over the text's own UTF-8 bytes, not a copy of them.
  static func recognise(_ text: String) throws(AppReceiptError) -> AppReceiptInput {
    var text = text
    let result = text.withUTF8 { buffer in
      Result { () throws(AppReceiptError) in try AppReceiptInput.recognise(buffer, whole: { Array(buffer) }) }
    }
    return try result.get()
  }
}
