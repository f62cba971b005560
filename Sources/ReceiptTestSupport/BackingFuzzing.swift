import Foundation
import ReceiptCLI
import ReceiptCrypto
import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// Fuzz properties of the backing path (issue 28): a verifyReceipt body whose `latest_receipt` is the examples'
/// signed receipt mutated by the input (or the input itself), and whose transactions the input edits, drops and
/// adds. Decoding, verifying, the device check and the comparison never trap; the verdict and the backing agree
/// with each other; the verdict is shown with the input's control characters escaped; and (issue 39) no edit —
/// a row removed, added or changed, ownership or a trial flag flipped — yields a verdict that holds while the
/// answers differ from the signed rows' answers. Returns the properties that failed.
package enum BackingFuzzing {
  /// The unmutated pair: the examples' receipt (signed through their test root) and the JSON it backs.
  package struct Base: Sendable {
    var receipt: [UInt8]
    var body: [(key: String, value: JSONValue)]
    var trust: TrustAnchors
    /// The signed receipt's transactions, as the unmutated receipt reads.
    package var transactions: [PurchaseTransaction]
  }

  /// The device the examples' receipt was issued to.
  static let issuedTo = "3F2504E0-4F89-41D3-9A0C-0305E82C3301"

  /// Read once from examples/; nil (and no property runs) where they are not found.
  package static let base: Base? = {
    let root = TestPaths.packageRoot.appendingPathComponent("examples")
    guard
      let text = try? Data(contentsOf: root.appendingPathComponent("app-receipt/signed-entitlements-active.b64")),
      let receipt = ReceiptCrypto.Base64.decode(Array(text).filter { $0 > 0x20 }),
      let pem = try? Data(contentsOf: root.appendingPathComponent("app-receipt/test-receipt-root.pem")),
      let json = try? Data(contentsOf: root.appendingPathComponent("backed-entitlements-active.json")),
      case .object(let body)? = try? JSONValue.parse(Array(json)),
      let document = try? AppReceiptReader.read(receipt),
      let history = try? AppReceiptHistory.history(of: document, source: "base", keepsCarriedFields: false)
    else { return nil }
    var trust = TrustAnchors.apple
    for der in (try? TrustAnchors.certificatesFromPEMOrDER(Array(pem))) ?? [] {
      guard let added = try? trust.adding(rootDER: der) else { return nil }
      trust = added
    }
    return Base(receipt: receipt, body: body, trust: trust, transactions: history.transactions)
  }()

  /// One verifier for the whole run, on the fuzzer's one thread.
  static let verifiers: OneVerifierLending? = base.map { OneVerifierLending($0.trust) }

  package static func fuzz(_ bytes: [UInt8]) -> [String] {
    guard let base, let verifiers else { return [] }
    var problems: [String] = []
    let mutated = mutatedReceipt(base.receipt, by: bytes)
    let body = mutatedBody(base.body, by: bytes)
    // Half the inputs name the device the receipt was issued to, the rest one made of their own bytes.
    let deviceText =
      bytes.first.map { $0 & 1 == 0 } ?? true
      ? issuedTo : lowercaseHexText(Array(bytes.prefix(16)) + [UInt8](repeating: 0, count: max(0, 16 - bytes.count)))
    for (receipt, what) in [(mutated, "mutated receipt"), (bytes, "input as receipt")] {
      var object = body.filter { $0.key != "latest_receipt" }
      object.append(("latest_receipt", .string(Base64.encode(receipt))))
      let json = Array(JSONValue.object(object).rendered(pretty: false).utf8)
      var options = DecodeOptions(
        keepSecrets: false, keepsFieldsOnlyDecodeShows: false,
        signatures: SignatureChecking(verifiers: verifiers, now: Timestamp(milliseconds: 1_790_000_000_000) ?? .epoch))
      options.deviceID = DeviceIdentifier(deviceText)
      let history: PurchaseHistory
      do {
        history = try VerifyReceiptFormat().decode(json, source: "fuzz", options: options)
      } catch {
        // The body's own edits may make it unreadable; that is a one-line error, never a trap.
        if error.description.contains("\n") { problems.append("\(what): decode error spans lines") }
        continue
      }
      problems += verdictProperties(history, receipt: receipt, base: base, device: deviceText, what: what)
      // The rule alone on the receipt's payload, signed or not, so mutations that break the signature still reach
      // the comparison.
      if let document = try? AppReceiptReader.read(receipt),
        let signed = try? AppReceiptHistory.history(of: document, source: "fuzz", keepsCarriedFields: false)
      {
        let backing = receiptBacking(of: history, by: signed)
        problems += backingProperties(backing, json: history, what: "\(what), rule alone")
      }
    }
    return problems
  }

  /// The document's verdict: one line, the backing consistent with itself and with the verdict, a verified
  /// receipt holding the unmutated receipt's purchases, and the device check present whenever a device was named.
  static func verdictProperties(
    _ history: PurchaseHistory, receipt: [UInt8], base: Base, device: String, what: String
  ) -> [String] {
    var problems: [String] = []
    let check = history.provenance.signatureCheck
    // The verdict quotes the JSON's own values (a product id may hold a line break); shown, it is escaped.
    let shown =
      SignatureCheckRendering.line(check, color: false, width: 80).rendered
      + SignatureCheckRendering.rows(check).map { $0.0.rendered + " " + $0.1.rendered + "\n" }.joined()
    if shown.unicodeScalars.contains(where: { $0 != "\n" && TerminalSafeText.mustEscape($0) }) {
      problems.append("\(what): the verdict is shown with a control character unescaped")
    }
    if history.provenance.latestReceipt != nil { problems.append("\(what): latest_receipt kept without asking") }
    if let backing = check.backing {
      problems += backingProperties(backing, json: history, what: what)
      switch backing.outcome {
      case .backed where check.verdict != .verified && check.verdict != .testSigned,
        .contradicted where check.verdict != .invalid,
        .partlyBacked where check.verdict != .unsigned,
        .notAReceipt where check.verdict != .unsigned:
        problems.append("\(what): backing \(backing.outcome.rawValue) with verdict \(check.verdict.rawValue)")
      default: break
      }
    }
    if check.verdict == .verified || check.verdict == .testSigned || check.backing?.outcome == .contradicted {
      // Only a receipt whose signature held is compared: it must say what the unmutated one says.
      let signed = (try? AppReceiptReader.read(receipt)).flatMap {
        try? AppReceiptHistory.history(of: $0, source: "fuzz", keepsCarriedFields: false).transactions
      }
      if signed != base.transactions { problems.append("\(what): a changed receipt's signature held") }
    }
    if check.verdict == .verified || check.verdict == .testSigned, check.backing != nil {
      problems += answeredFromSignedRows(history, signed: base.transactions, what: what)
    }
    if check.device == nil, !receipt.isEmpty {
      problems.append("\(what): latest_receipt holds something, a device was named, and no device check was made")
    }
    if let result = check.device,
      !["match", "mismatch", "cannot-check"].contains(result.result) || result.deviceID != device
    {
      problems.append("\(what): device check \(result.result) for \(result.deviceID ?? "none"), not \(device)")
    }
    if receipt == base.receipt, device == issuedTo, check.device != .matches(deviceID: issuedTo) {
      problems.append("\(what): the unmutated receipt does not match its device")
    }
    let rendered = SignatureCheckRendering.json(check).rendered(pretty: false)
    if (try? JSONValue.parse(Array(rendered.utf8))) == nil { problems.append("\(what): verdict JSON does not parse") }
    return problems
  }

  /// Where a receipt-backed verdict stands, the rows answered from are the signed rows on every field the receipt
  /// covers (each signed row answered from, no other row), and intro eligibility, which reads covered fields alone,
  /// answers over them as over the signed rows.
  package static func answeredFromSignedRows(
    _ history: PurchaseHistory, signed: [PurchaseTransaction], what: String
  ) -> [String] {
    func covered(_ t: PurchaseTransaction) -> String {
      let dates = [t.purchaseDate, t.originalPurchaseDate, t.expiresDate, t.revocation?.date].map {
        $0.map { "\($0.milliseconds)" } ?? "-"
      }
      return [t.transactionID, t.originalTransactionID ?? "-", t.productID, "\(t.quantity ?? 1)"].joined(separator: "|")
        + "|" + dates.joined(separator: "|")
        + "|\(t.offer?.isFreeTrial == true)|\(t.offer?.pricing == .introductoryPrice)"
    }
    var problems: [String] = []
    let answered = history.transactions.map(covered).sorted()
    if answered != signed.map(covered).sorted() {
      problems.append("\(what): a verdict that holds, over rows that are not the signed rows")
    }
    let catalog = Catalog([
      CatalogProduct(
        productID: "com.acme.pro.monthly", type: .autoRenewable, subscriptionGroup: "21000111",
        introOffer: IntroOffer(paymentMode: .freeTrial, period: "P1W"), origin: "fuzz")
    ])
    func intro(_ rows: [PurchaseTransaction]) -> [String] {
      var h = PurchaseHistory(format: history.provenance.format)
      h.provenance.status = history.provenance.status
      h.transactions = rows
      let at = EvaluationTime(time: Timestamp(milliseconds: 1_722_470_400_000) ?? .epoch, source: .given)
      return decideIntroEligibility(products: ["com.acme.pro.monthly"], history: h, catalog: catalog, at: at).map {
        "\($0.status.rawValue) \($0.transactionID ?? "-")"
      }
    }
    if intro(history.transactions) != intro(signed) {
      problems.append("\(what): a verdict that holds, and intro eligibility other than the signed rows'")
    }
    return problems
  }

  /// The comparison agrees with itself: every JSON transaction has one standing, the outcome follows from them,
  /// what only the receipt holds is not in the JSON, and a contradiction names at least one field.
  package static func backingProperties(_ backing: ReceiptBacking, json: PurchaseHistory, what: String) -> [String] {
    var problems: [String] = []
    let contradicted = backing.contradicted.count
    let absent = backing.absent.count
    if backing.backedCount + contradicted + absent != backing.entries.count {
      problems.append("\(what): standings do not add up")
    }
    switch backing.outcome {
    case .backed where contradicted + absent > 0, .contradicted where contradicted == 0,
      .partlyBacked where contradicted > 0 || absent == 0,
      .notAReceipt where !backing.entries.isEmpty || !backing.onlyInReceipt.isEmpty:
      problems.append("\(what): outcome \(backing.outcome.rawValue) does not follow from the standings")
    default: break
    }
    // The history answered from is the JSON's transactions, then the signed ones it lacks (`backedTransactions`).
    let answered = json.transactions.map(\.transactionID)
    let entries = backing.entries.map(\.transactionID)
    if backing.outcome != .notAReceipt, answered != entries,
      answered != entries + backing.onlyInReceipt.map(\.transactionID)
    {
      problems.append("\(what): the entries are not the JSON's transactions in order")
    }
    let ids = Set(backing.entries.map(\.transactionID))
    if backing.onlyInReceipt.contains(where: { ids.contains($0.transactionID) }) {
      problems.append("\(what): a transaction both in the JSON and only in the receipt")
    }
    for entry in backing.contradicted {
      if case .contradicted(let differences) = entry.standing, differences.isEmpty {
        problems.append("\(what): a contradiction names no field")
      }
    }
    return problems
  }

  /// The base receipt changed as the input's first byte says: bytes overwritten at places the input picks, the
  /// input spliced in, cut short, or left alone (so the JSON's edits meet a receipt whose signature holds).
  static func mutatedReceipt(_ receipt: [UInt8], by bytes: [UInt8]) -> [UInt8] {
    guard let mode = bytes.first, !receipt.isEmpty else { return receipt }
    let rest = Array(bytes.dropFirst())
    let at = Int(CryptoFuzzing.fnv(bytes) % UInt64(receipt.count))
    switch mode % 4 {
    case 0:
      var out = receipt
      var i = 0
      while i + 2 < rest.count {
        let place = (Int(rest[i]) << 8 | Int(rest[i + 1])) &* 7 % out.count
        out[place] = rest[i + 2]
        i += 3
      }
      return out
    case 1: return Array(receipt[..<at]) + rest + Array(receipt[min(receipt.count, at + rest.count)...])
    case 2: return Array(receipt[..<at])
    default: return receipt
    }
  }

  /// The body's transactions (in `receipt.in_app` and `latest_receipt_info`) edited one by one as the input's
  /// bytes say: product, dates, ids, quantity, the trial flag and ownership changed, a row dropped, copied under a
  /// new id, or left alone.
  static func mutatedBody(
    _ body: [(key: String, value: JSONValue)], by bytes: [UInt8]
  ) -> [(key: String, value: JSONValue)] {
    let ops = Array(bytes.dropFirst())
    let text = String(decoding: ops.prefix(24), as: UTF8.self)
    var next = 0
    func edit(_ rows: [JSONValue]) -> [JSONValue] {
      var out: [JSONValue] = []
      for row in rows {
        guard case .object(var fields) = row, next < ops.count else {
          out.append(row)
          continue
        }
        let op = ops[next]
        next += 1
        func set(_ key: String, _ value: JSONValue?) {
          fields.removeAll { $0.key == key }
          if let value { fields.append((key, value)) }
        }
        let shift = Int64(op) * 86_400_000 - 11_000_000_000
        switch op % 11 {
        case 0: break
        case 1: set("product_id", .string(text))
        case 2: set("purchase_date_ms", .string("\(1_712_160_131_000 + shift)"))
        case 3: for key in ["expires_date_ms", "expires_date", "expires_date_pst"] { set(key, nil) }
        case 4: continue
        case 5:
          out.append(row)
          set("transaction_id", .string("9\(op)\(next)"))
          set("purchase_date_ms", .string("\(1_718_409_600_000 + shift)"))
        case 6: set("transaction_id", .string(text.isEmpty ? "0" : text))
        case 7: set("original_transaction_id", .string("\(op)"))
        case 9:
          let trial = fields.first { $0.key == "is_trial_period" }?.value == .string("true")
          set("is_trial_period", .string(trial ? "false" : "true"))
        case 10:
          let shared = fields.first { $0.key == "in_app_ownership_type" }?.value == .string("FAMILY_SHARED")
          set("in_app_ownership_type", .string(shared ? "PURCHASED" : "FAMILY_SHARED"))
        default: set("quantity", .string("\(Int(op) - 100)"))
        }
        out.append(.object(fields))
      }
      return out
    }
    return body.map { member in
      switch (member.key, member.value) {
      case ("latest_receipt_info", .array(let rows)): return (member.key, .array(edit(rows)))
      case ("receipt", .object(var receipt)):
        for i in receipt.indices where receipt[i].key == "in_app" {
          if case .array(let rows) = receipt[i].value { receipt[i].value = .array(edit(rows)) }
        }
        return (member.key, .object(receipt))
      default: return member
      }
    }
  }

  static func lowercaseHexText(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
  }
}
