import Foundation
import ReceiptCrypto
import ReceiptModel
import ReceiptModelTestSupport
import ReceiptRules
import ReceiptTestSupport
import Testing

@testable import ReceiptFormats

/// Issue 28: a verifyReceipt body is compared with the signed receipt it carries in `latest_receipt`. RevenueCat's
/// pair (../shared) and the examples' signed receipt (committed, always run) are backed; copies the tests edit
/// are reported as what each edit is.
@Suite struct ReceiptBackingTests {
  /// One verifier lent to every decode and kept, to count its chain cache (one thread in these tests).
  typealias OneVerifier = OneVerifierLending

  static let now = Timestamp(milliseconds: 1_790_000_000_000) ?? .epoch

  static func decode(
    _ object: [String: Any], trust: TrustAnchors = .apple, keepSecrets: Bool = false, device: String? = nil
  ) throws -> PurchaseHistory {
    let bytes = Array(try JSONSerialization.data(withJSONObject: object))
    var options = DecodeOptions(
      keepSecrets: keepSecrets, signatures: SignatureChecking(verifiers: OneVerifier(trust: trust), now: now))
    options.deviceID = device.flatMap(DeviceIdentifier.init)
    return try VerifyReceiptFormat().decode(bytes, source: "test", options: options)
  }

  static func json(_ url: URL) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
  }

  /// RevenueCat's verifyReceipt JSON with its own receipt as latest_receipt (the file holds "..." there).
  static func revenueCatPair() throws -> [String: Any]? {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("RevenueCat's receipt and verifyReceipt pair")
      return nil
    }
    let folder = shared.appendingPathComponent("peer-fixtures/RevenueCat__purchases-ios")
    var body = try json(folder.appendingPathComponent("verifyReceiptSample1.txt"))
    let receipt = try String(
      contentsOf: folder.appendingPathComponent("base64encodedreceiptsample1.txt"), encoding: .utf8)
    body["latest_receipt"] = receipt.trimmingCharacters(in: .whitespacesAndNewlines)
    return body
  }

  /// The examples' receipt, signed through a test root (examples/app-receipt/make-signed-receipt.sh).
  static func examplePair() throws -> (body: [String: Any], trust: TrustAnchors) {
    let root = try Data(
      contentsOf: TestPaths.packageRoot.appendingPathComponent("examples/app-receipt/test-receipt-root.pem"))
    var trust = TrustAnchors.apple
    for der in try TrustAnchors.certificatesFromPEMOrDER(Array(root)) { trust = try trust.adding(rootDER: der) }
    let body = try json(TestPaths.packageRoot.appendingPathComponent("examples/backed-entitlements-active.json"))
    return (body, trust)
  }

  /// imdhemy's verifyReceipt JSON (appstore-iap) with laravel-in-app-purchases' `transactionReceipt` as its
  /// latest_receipt (the file holds "ZmFrZV9kYXRh", base64 of "fake_data", there). SOURCES.md calls them the same
  /// 42 purchases.
  static func laravelPair() throws -> [String: Any]? {
    guard let shared = TestPaths.shared else {
      TestPaths.noteSharedMissing("imdhemy's laravel receipt and verifyReceipt pair")
      return nil
    }
    let folder = shared.appendingPathComponent("peer-fixtures")
    var body = try json(folder.appendingPathComponent("imdhemy__appstore-iap/verify_receipt_response.json"))
    let purchase = try json(folder.appendingPathComponent("imdhemy__laravel-in-app-purchases/iOS-receipt.json"))
    body["latest_receipt"] = purchase["transactionReceipt"]
    return body
  }

  /// Applies `edit` to every copy of transaction `id` (in_app and latest_receipt_info).
  static func editing(_ body: [String: Any], id: String, _ edit: (inout [String: Any]) -> Void) -> [String: Any] {
    var body = body
    func rows(_ list: Any?) -> [[String: Any]] {
      ((list as? [[String: Any]]) ?? []).map { row in
        var row = row
        if row["transaction_id"] as? String == id { edit(&row) }
        return row
      }
    }
    body["latest_receipt_info"] = rows(body["latest_receipt_info"])
    if var receipt = body["receipt"] as? [String: Any] {
      receipt["in_app"] = rows(receipt["in_app"])
      body["receipt"] = receipt
    }
    return body
  }

  /// Removes every copy of transaction `id`.
  static func dropping(_ body: [String: Any], id: String) -> [String: Any] {
    var body = body
    let keep = { (list: Any?) in ((list as? [[String: Any]]) ?? []).filter { $0["transaction_id"] as? String != id } }
    body["latest_receipt_info"] = keep(body["latest_receipt_info"])
    if var receipt = body["receipt"] as? [String: Any] {
      receipt["in_app"] = keep(receipt["in_app"])
      body["receipt"] = receipt
    }
    return body
  }

  /// Appends a copy of the first latest_receipt_info row as transaction `id`, changed by `edit`.
  static func adding(_ body: [String: Any], id: String, _ edit: (inout [String: Any]) -> Void = { _ in }) -> [String:
    Any]
  {
    var body = body
    var rows = (body["latest_receipt_info"] as? [[String: Any]]) ?? []
    guard var row = rows.first else { return body }
    row["transaction_id"] = id
    edit(&row)
    rows.append(row)
    body["latest_receipt_info"] = rows
    return body
  }

  /// The JSON's `receipt_creation_date` a day after the signed receipt's: the signed receipt is older.
  static func later(_ body: [String: Any]) -> [String: Any] {
    var body = body
    guard var receipt = body["receipt"] as? [String: Any],
      let ms = (receipt["receipt_creation_date_ms"] as? String).flatMap({ Int64($0) })
    else { return body }
    receipt["receipt_creation_date"] = nil
    receipt["receipt_creation_date_pst"] = nil
    receipt["receipt_creation_date_ms"] = "\(ms + 86_400_000)"
    body["receipt"] = receipt
    return body
  }

  static func firstID(_ body: [String: Any]) -> String {
    ((body["latest_receipt_info"] as? [[String: Any]])?.first?["transaction_id"] as? String) ?? ""
  }

  @Test func revenueCatsPairIsFullyBacked() throws {
    guard let body = try Self.revenueCatPair() else { return }
    let history = try Self.decode(body)
    let check = history.provenance.signatureCheck
    #expect(check.verdict == .verified, "\(check.summary)")
    #expect(check.anchor == .apple)
    #expect(check.moment?.source == "receipt creation date")
    let backing = try #require(check.backing)
    #expect(backing.outcome == .backed)
    #expect(backing.entries.count == history.transactions.count && backing.backedCount == 9)
    #expect(backing.onlyInReceipt.isEmpty)
    #expect(check.summary.hasPrefix("verified: backed by Apple's signature: 9 of 9 transactions"))
    // Read to be checked, never kept: --show-secrets alone keeps the credential.
    #expect(history.provenance.latestReceipt == nil)
    #expect(try Self.decode(body, keepSecrets: true).provenance.latestReceipt == body["latest_receipt"] as? String)
  }

  @Test func revenueCatsEditedTransactionContradictsNamingFieldAndValues() throws {
    guard let body = try Self.revenueCatPair() else { return }
    let id = Self.firstID(body)
    let edited = Self.editing(body, id: id) { $0["expires_date_ms"] = "1626291386000" }
    let check = try Self.decode(edited).provenance.signatureCheck
    #expect(check.verdict == .invalid)
    let backing = try #require(check.backing)
    #expect(backing.outcome == .contradicted)
    let entry = try #require(backing.contradicted.first)
    #expect(backing.contradicted.count == 1 && entry.transactionID == id)
    guard case .contradicted(let differences) = entry.standing else { return }
    #expect(differences.map(\.field) == ["expires_date_ms"])
    #expect(differences.first?.json.hasPrefix("1626291386000 ") == true)
    #expect(differences.first?.receipt.hasPrefix("1594755386000 ") == true)
    #expect(check.failures.first?.code == "backing.contradicted")
    #expect(check.failures.first?.path == "transaction_id \(id)")
  }

  @Test func revenueCatsAddedAndDroppedTransactionsAreNamed() throws {
    guard let body = try Self.revenueCatPair() else { return }
    // Bought before the receipt the JSON itself describes (the same receipt_creation_date) was made: an edit.
    let added = try Self.decode(Self.adding(body, id: "1000000999999999")).provenance.signatureCheck
    #expect(added.verdict == .invalid, "\(added.summary)")
    #expect(added.backing?.outcome == .contradicted)
    #expect(added.backing?.sameMoment == true)
    #expect(added.failures.map(\.path) == ["transaction_id 1000000999999999"])
    // The same row beside an older receipt is not backed, and nothing explains it.
    let older = try Self.decode(Self.later(Self.adding(body, id: "1000000999999999"))).provenance.signatureCheck
    #expect(older.verdict == .unsigned, "\(older.summary)")
    #expect(older.backing?.outcome == .partlyBacked)
    #expect(older.backing?.sameMoment == false)
    #expect(older.backing?.absent.map(\.standing) == [.notInReceipt(.unexplained)])
    #expect(older.backing?.absent.first?.transactionID == "1000000999999999")

    // A row dropped from the JSON is answered from the signed receipt.
    let id = Self.firstID(body)
    let droppedHistory = try Self.decode(Self.dropping(body, id: id))
    let dropped = droppedHistory.provenance.signatureCheck
    #expect(dropped.verdict == .verified)
    #expect(dropped.backing?.outcome == .backed)
    #expect(dropped.backing?.onlyInReceipt.map(\.transactionID) == [id])
    #expect(dropped.summary.contains("8 of 8 transactions; the signed receipt also holds \(id)"))
    #expect(dropped.summary.contains("the answers take it from the signed receipt"))
    #expect(droppedHistory.transactions.filter { $0.transactionID == id }.map(\.sources) == [.appReceipt])
  }

  /// Always runs: the examples' receipt, signed through a committed test root.
  @Test func theExamplesSignedReceiptBacksItsJSONThroughTheTestRoot() throws {
    let (body, trust) = try Self.examplePair()
    let check = try Self.decode(body, trust: trust).provenance.signatureCheck
    #expect(check.verdict == .verified, "\(check.summary)")
    #expect(check.anchor == .trustRoot)
    #expect(check.backing?.outcome == .backed && check.backing?.backedCount == 3)
    #expect(check.backing?.signedByApple == false)
    #expect(check.summary.hasPrefix("verified: backed by the receipt's signature (not Apple's): 3 of 3 transactions"))
    // At Apple's root alone the test chain is untrusted: invalid, and nothing is said to be backed.
    let untrusted = try Self.decode(body).provenance.signatureCheck
    #expect(untrusted.verdict == .invalid)
    #expect(untrusted.backing == nil)
    #expect(untrusted.failures.first?.path == "latest_receipt")
  }

  @Test func theExamplesEditsAreEachReportedAsWhatTheyAre() throws {
    let (body, trust) = try Self.examplePair()
    let id = Self.firstID(body)
    let product = try Self.decode(Self.editing(body, id: id) { $0["product_id"] = "com.acme.pro.yearly" }, trust: trust)
      .provenance.signatureCheck
    #expect(product.verdict == .invalid)
    guard case .contradicted(let differences)? = product.backing?.contradicted.first?.standing else {
      Issue.record("no contradiction: \(product.summary)")
      return
    }
    #expect(
      differences == [
        ReceiptBacking.Difference(field: "product_id", json: "com.acme.pro.yearly", receipt: "com.acme.pro.monthly")
      ])

    // Bought after the receipt was made (2024-06-15): latest_receipt_info may be newer than latest_receipt.
    let newer = try Self.decode(
      Self.adding(body, id: "1000000999") {
        $0["purchase_date_ms"] = "1719000000000"
        $0["expires_date_ms"] = "1721592000000"
      }, trust: trust
    ).provenance.signatureCheck
    #expect(newer.backing?.absent.map(\.standing) == [.notInReceipt(.newerThanReceipt)])
    #expect(newer.summary.contains("latest_receipt_info may be newer than latest_receipt"))

    // No expiry date, bought before an older receipt was made: may be a finished consumable. Beside the receipt
    // of the JSON's own moment, an edit.
    let coins = Self.adding(body, id: "1000000998") {
      $0["product_id"] = "com.acme.coins.100"
      $0["expires_date_ms"] = nil
      $0["expires_date"] = nil
      $0["expires_date_pst"] = nil
    }
    let consumable = try Self.decode(Self.later(coins), trust: trust).provenance.signatureCheck
    #expect(consumable.backing?.absent.map(\.standing) == [.notInReceipt(.mayBeFinishedConsumable)])
    let sameMoment = try Self.decode(coins, trust: trust).provenance.signatureCheck
    #expect(sameMoment.verdict == .invalid)
    #expect(sameMoment.backing?.contradicted.map(\.transactionID) == ["1000000998"])

    // A changed trial flag is a changed row.
    let flag = try Self.decode(Self.editing(body, id: id) { $0["is_trial_period"] = "false" }, trust: trust)
      .provenance.signatureCheck
    #expect(flag.verdict == .invalid)
    guard case .contradicted(let flagged)? = flag.backing?.contradicted.first?.standing else {
      Issue.record("no contradiction: \(flag.summary)")
      return
    }
    #expect(flagged == [ReceiptBacking.Difference(field: "is_trial_period", json: "false", receipt: "true")])
  }

  /// laravel's pair holds the same transaction ids with the same dates, but the JSON's product ids were renamed
  /// when the file was scrubbed (`month_premium` is `one_month_subscription` there, as the bundle id became
  /// `com.some.thing`), and one renamed wrongly. So the JSON is not what Apple signed: each of the 42 is
  /// contradicted in `product_id` alone, and the one transaction only in `latest_receipt_info` was bought after
  /// the receipt was made. A real edit is told from a scrub only by a person; the tool names the field.
  @Test func laravelsPairContradictsInProductIDAloneWhereTheJSONWasScrubbed() throws {
    guard let body = try Self.laravelPair() else { return }
    let history = try Self.decode(body)
    let check = history.provenance.signatureCheck
    #expect(check.verdict == .invalid, "\(check.summary)")
    #expect(check.failures.first?.code == "backing.contradicted")
    let backing = try #require(check.backing)
    #expect(backing.outcome == .contradicted)
    #expect(backing.signedByApple)
    #expect(backing.onlyInReceipt.isEmpty)
    let rows = (body["receipt"] as? [String: Any])?["in_app"] as? [[String: Any]] ?? []
    let inApp = Set(rows.compactMap { $0["transaction_id"] as? String })
    #expect(inApp.count == 42)
    // Every in_app transaction is in the signed receipt (none absent), differing in product_id and nothing else.
    let contradicted = backing.contradicted
    #expect(Set(contradicted.map(\.transactionID)) == inApp)
    for entry in contradicted {
      guard case .contradicted(let differences) = entry.standing else { continue }
      #expect(differences.map(\.field) == ["product_id"], "\(entry.transactionID)")
      #expect(differences.first?.json.hasPrefix("one_") == true)
      #expect(differences.first.map { ["month_premium", "year_premium"].contains($0.receipt) } == true)
    }
    // The scrub is not even a renaming: one year_premium-named purchase is month_premium in the signed receipt.
    #expect(
      contradicted.contains { entry in
        guard case .contradicted(let d) = entry.standing else { return false }
        return d.first?.json == "one_year_subscription" && d.first?.receipt == "month_premium"
      })
    let absent = backing.absent
    #expect(absent.map(\.standing) == [.notInReceipt(.newerThanReceipt)])
    #expect(absent.first.map { !inApp.contains($0.transactionID) } == true)
    #expect(check.summary.contains("42 of 43 transactions differ from the signed receipt (0 backed)"))
    // Put the receipt's product ids back and the same pair is backed, but for the newer one.
    var restored = body
    for entry in contradicted {
      guard case .contradicted(let d) = entry.standing, let receipt = d.first?.receipt else { continue }
      restored = Self.editing(restored, id: entry.transactionID) { $0["product_id"] = receipt }
    }
    let unscrubbed = try Self.decode(restored).provenance.signatureCheck
    #expect(unscrubbed.backing?.outcome == .partlyBacked, "\(unscrubbed.summary)")
    #expect(unscrubbed.backing?.backedCount == 42)
    #expect(unscrubbed.verdict == .unsigned)
  }

  /// The receipt in latest_receipt is the same signed receipt as an on-device one: its device hash is checked
  /// against `--device-id`, whatever the backing comes to.
  @Test func latestReceiptsDeviceHashIsChecked() throws {
    let (body, trust) = try Self.examplePair()
    let issuedTo = "3F2504E0-4F89-41D3-9A0C-0305E82C3301"
    let match = try Self.decode(body, trust: trust, device: issuedTo).provenance.signatureCheck
    #expect(match.device == .matches(deviceID: issuedTo))
    #expect(match.verdict == .verified)
    let other = try Self.decode(body, trust: trust, device: "3F2504E0-4F89-41D3-9A0C-0305E82C3302")
      .provenance.signatureCheck
    guard case .mismatch(_, let receipt, let computed)? = other.device else {
      Issue.record("expected a mismatch, got \(String(describing: other.device))")
      return
    }
    #expect(receipt == "1492d505d55557a5d41011fb5ee86b18a7050b7e" && computed != receipt)
    // The device does not change the signature's verdict: that is --require-signature's to combine.
    #expect(other.verdict == .verified)
    #expect(try Self.decode(body, trust: trust).provenance.signatureCheck.device == .notChecked)
    // A contradicted JSON still has its receipt's device checked.
    let edited = Self.editing(body, id: Self.firstID(body)) { $0["product_id"] = "com.acme.pro.yearly" }
    let contradicted = try Self.decode(edited, trust: trust, device: issuedTo).provenance.signatureCheck
    #expect(contradicted.verdict == .invalid && contradicted.device?.result == "match")
  }

  @Test func aLatestReceiptThatIsNotAReceiptCannotBeCheckedForADevice() throws {
    let (body, trust) = try Self.examplePair()
    var copy = body
    copy["latest_receipt"] = "XXXX"
    let named = try Self.decode(copy, trust: trust, device: "00:1c:42:00:00:08").provenance.signatureCheck
    #expect(named.device == .noReceipt(deviceID: "00:1c:42:00:00:08", latestReceipt: "not a receipt (a placeholder)"))
    #expect(named.device?.result == "cannot-check")
    #expect(named.device?.isShownToMatch == false)
    // Without --device-id, a document without a receipt has no device check at all.
    #expect(try Self.decode(copy, trust: trust).provenance.signatureCheck.device == nil)
    // Nor has a body without latest_receipt.
    copy["latest_receipt"] = nil
    #expect(try Self.decode(copy, trust: trust, device: "00:1c:42:00:00:08").provenance.signatureCheck.device == nil)
  }

  /// "XXXX" (fixtures), "..." (RevenueCat's file) and a real receipt cut short (the hand-written examples) are
  /// not receipts: unsigned, not invalid.
  @Test func placeholdersAreNotAReceiptNotForged() throws {
    let (body, trust) = try Self.examplePair()
    for placeholder in [
      "XXXX", "...", "",
      // A real receipt's first 96 characters, as the hand-written examples keep.
      "MIIUVwYJKoZIhvcNAQcCoIIUSDCCFEQCAQExCzAJBgUrDgMCGgUAMIIDeAYJKoZIhvcNAQcBoIIDaQSCA2UxggNhMAoCAQgC",
    ] {
      var copy = body
      copy["latest_receipt"] = placeholder
      let check = try Self.decode(copy, trust: trust).provenance.signatureCheck
      #expect(check.verdict == .unsigned, "\(placeholder): \(check.summary)")
      #expect(check.backing?.outcome == .notAReceipt)
      #expect(check.summary.hasSuffix("nothing backs this JSON"))
      let expected =
        placeholder.isEmpty
        ? "latest_receipt is empty" : placeholder.count > 64 ? "latest_receipt is cut short" : "not a receipt"
      #expect(check.summary.contains(expected))
    }
  }

  /// The not-a-receipt verdict as `LatestReceiptBacking.backingCheck` built it before issue 42's cuts (the reference):
  /// `unsigned(what)`, its note then replaced by the backing's phrase, the detail `"\(error)"` of an `any Error`.
  static func formerNotAReceipt(of text: String, what: String) -> SignatureCheck? {
    // `AppReceiptError.description` as it was interpolated (issue 42 writes it in one allocation).
    func formerDescription(_ error: AppReceiptError) -> String {
      let place =
        error.path.isEmpty ? "byte \(error.offset)" : "byte \(error.offset) (\(error.path.joined(separator: " > ")))"
      return (place + ": " + error.message).onOneLine
    }
    func notAReceipt(_ reason: String, detail: String?) -> SignatureCheck {
      var check = SignatureCheck.unsigned(what)
      let backing = ReceiptBacking.notAReceipt(reason, detail: detail)
      check.backing = backing
      check.note = "latest_receipt is \(backing.notAReceiptReason ?? "not a receipt"): nothing backs this JSON"
      return check
    }
    let input: AppReceiptInput
    do {
      input = try AppReceiptInput.recognise(Array(text.utf8))
    } catch {
      let kind = text.utf8.count < 64 ? "a placeholder" : error.kind == .malformed ? "not base64" : "not PKCS#7"
      return notAReceipt(text.isEmpty ? "empty" : "not a receipt (\(kind))", detail: formerDescription(error))
    }
    do {
      let document = AppReceiptReader.Document(
        form: input.form,
        payload: try AppReceiptPayloadDecoder.decode(der: input.der, keepsOtherAttributes: false), der: input.der)
      _ = try AppReceiptHistory.history(of: document, source: "test", keepsCarriedFields: false)
      if document.payload.signature.signerCount == 0 { return notAReceipt("not a receipt (no signer)", detail: nil) }
    } catch {
      let cutShort = (error as? AppReceiptError)?.message.hasPrefix("truncated") ?? false
      return notAReceipt(
        cutShort ? "cut short" : "damaged", detail: (error as? AppReceiptError).map(formerDescription) ?? "\(error)")
    }
    return nil
  }

  /// Issue 42: a `latest_receipt` that holds no receipt gets the verdict it got before the check stopped copying
  /// the text, reading its errors as `any Error` and building a note it then replaced: field for field, on
  /// placeholders, text that is not base64 or not PKCS#7, the examples' receipt cut short at many lengths and damaged.
  @Test func aLatestReceiptThatIsNoReceiptGetsTheFormerVerdict() throws {
    let (body, trust) = try Self.examplePair()
    let receipt = try #require(body["latest_receipt"] as? String)
    var der = try #require(Data(base64Encoded: receipt).map(Array.init))
    der[6] ^= 0xFF  // inside the ContentInfo's OID: the envelope is not SignedData
    var texts = [
      "XXXX", "...", "", "not base64 at all, but long enough to be more than a placeholder: !!!!!!!!!!!!!!!!!!!",
      Data(repeating: 0x41, count: 90).base64EncodedString(), Data(der).base64EncodedString(),
    ]
    for length in stride(from: 4, to: receipt.count, by: 97) { texts.append(String(receipt.prefix(length))) }
    // Cut, then padded, broken by a later character that is not base64, spread over lines, or cut mid-group: the
    // text's own error still wins over the DER's where it won before.
    for length in [8, 12, 720, 1_000] where length < receipt.count {
      let cut = String(receipt.prefix(length))
      texts += [
        cut + "=", cut + "==", cut + "===", cut + "!", cut + "A!", cut + "=A", cut + "\n", " " + cut + " \r\n",
        String(receipt.prefix(length + 1)), String(receipt.prefix(length + 2)), cut + "\u{7F}", cut + "é",
      ]
    }
    // The benchmark's bodies (issue 42's user shapes) carry theirs.
    for index in 0..<3 {
      for generated in [UserShapes.oneTransactionBody(index: index), UserShapes.customerBody(index: index)] {
        let object = try JSONSerialization.jsonObject(with: Data(generated.utf8)) as? [String: Any]
        if let text = object?["latest_receipt"] as? String { texts.append(text) }
      }
    }
    #expect(texts.count > 6 + receipt.count / 97, "the user shapes carry a latest_receipt")
    var history = try Self.decode(body, trust: trust)
    history.provenance.latestReceipt = nil
    let checking = SignatureChecking(verifiers: OneVerifier(trust: trust), now: Self.now)
    var seen: Set<String> = []
    for text in texts {
      let expected = try #require(Self.formerNotAReceipt(of: text, what: history.provenance.format.description))
      let check = LatestReceiptBacking.backingCheck(
        of: history, latestReceipt: text, checking: checking, source: "test")
      #expect(check.verdict == expected, "\(text.prefix(40))")
      #expect(check.payload == nil && check.signed == nil)
      seen.insert(expected.backing?.notAReceiptReason ?? "")
    }
    #expect(
      seen == [
        "empty", "not a receipt (a placeholder)", "not a receipt (not base64)", "not a receipt (not PKCS#7)",
        "cut short", "damaged",
      ])
    // The reason is optional in the model: without one the phrase says "not a receipt".
    var unnamed = ReceiptBacking.notAReceipt("x")
    unnamed.notAReceiptReason = nil
    #expect(unnamed.summary == "latest_receipt is not a receipt: nothing backs this JSON")
  }

  /// Issue 42: a `latest_receipt` cut short is answered from its base64 text's decoded length and first bytes
  /// (`cutShortVerdict`); whatever the text, `backingCheck` gives what `fullBackingCheck` (every receipt decoded)
  /// gives: the same verdict, reason, detail and summary. Over the examples' receipts (each cut at every length,
  /// bytes replaced, padded, spread over lines, written with a byte order mark), DER headers declaring more or less
  /// than follows in each length form, text that is not base64, and the benchmark's bodies.
  @Test func aCutShortLatestReceiptGetsTheFullPathsVerdict() throws {
    let (body, trust) = try Self.examplePair()
    var receipts: [String] = []
    let folder = TestPaths.packageRoot.appendingPathComponent("examples/app-receipt")
    for name in ["signed-entitlements-active", "entitlements-active", "lifetime-unlock", "truncated"] {
      let text = try String(contentsOf: folder.appendingPathComponent(name + ".b64"), encoding: .utf8)
      receipts.append(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    receipts.append(try #require(body["latest_receipt"] as? String))
    var texts: [String] = receipts
    var generator = SplitMix64(seed: 42)
    let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=0 \n.".unicodeScalars)
    for receipt in receipts {
      let scalars = Array(receipt.unicodeScalars)
      for length in 0...scalars.count {
        var cut = String(String.UnicodeScalarView(scalars.prefix(length)))
        switch length % 9 {
        case 1: cut += "="
        case 2: cut += "=="
        case 3: cut += "==="
        case 4: cut = "\u{FEFF} " + cut + "\r\n"
        case 5 where !cut.isEmpty:
          // One character replaced: a symbol, padding, a leading `0` (read as DER), whitespace or a bad byte.
          var edited = Array(cut.unicodeScalars)
          let at = length % 18 == 5 ? 0 : Int(generator.next() % UInt64(edited.count))
          edited[at] = symbols[Int(generator.next() % UInt64(symbols.count))]
          cut = String(String.UnicodeScalarView(edited))
        case 6:
          // Spread over 76-column lines, as base64 tools write it (and JSON's `\n` escapes give).
          var lines = ""
          for (i, scalar) in cut.unicodeScalars.enumerated() {
            if i > 0, i % 76 == 0 { lines += "\n" }
            lines.unicodeScalars.append(scalar)
          }
          cut = lines
        default: break
        }
        texts.append(cut)
      }
    }
    // Headers declaring more or less than follows, in every length form (short, one to five octets, a leading
    // zero octet, a short value in the long form, indefinite), and other first bytes.
    let headers: [[UInt8]] = [
      [0x30, 0x05], [0x30, 0x7F], [0x30, 0x81, 0x7F], [0x30, 0x81, 0x80], [0x30, 0x82, 0x00, 0x90],
      [0x30, 0x82, 0x14, 0x14], [0x30, 0x83, 0x01, 0x00, 0x00], [0x30, 0x84, 0x00, 0x00, 0x01, 0x00],
      [0x30, 0x84, 0x7F, 0xFF, 0xFF, 0xFF], [0x30, 0x85, 0x01, 0x01, 0x01, 0x01, 0x01], [0x30, 0x80], [0x30],
      [0x31, 0x05], [0x7B, 0x0A], [0x30, 0x82, 0x01],
    ]
    for header in headers {
      for tail in [0, 1, 2, 3, 4, 5, 120, 127, 128, 129, 255, 256, 300] {
        let bytes = header + (0..<tail).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        texts.append(Data(bytes).base64EncodedString())
      }
    }
    texts += ["", "XXXX", "0IIU", "MIIUFA", "MIIUFA=", "MIIUFAA", "MI", "M", "  \n", "MIIU\u{7F}FAAA", "MIIUFAAAé"]
    for index in 0..<3 {
      for generated in [UserShapes.oneTransactionBody(index: index), UserShapes.customerBody(index: index)] {
        let object = try JSONSerialization.jsonObject(with: Data(generated.utf8)) as? [String: Any]
        if let text = object?["latest_receipt"] as? String { texts.append(text) }
      }
    }
    var history = try Self.decode(body, trust: trust)
    history.provenance.latestReceipt = nil
    let checking = SignatureChecking(verifiers: OneVerifier(trust: trust), now: Self.now)
    var answered = 0
    var reasons: Set<String> = []
    for text in texts {
      let full = LatestReceiptBacking.fullBackingCheck(
        of: history, latestReceipt: text, checking: checking, source: "test")
      let check = LatestReceiptBacking.backingCheck(
        of: history, latestReceipt: text, checking: checking, source: "test")
      #expect(check.verdict == full.verdict, "\(text.prefix(60))")
      #expect(check.verdict.summary == full.verdict.summary)
      #expect(check.payload == full.payload && check.signed == full.signed)
      if let fast = LatestReceiptBacking.cutShortVerdict(text) {
        answered += 1
        #expect(fast == full.verdict && full.payload == nil, "\(text.prefix(60))")
      }
      reasons.insert(full.verdict.backing?.notAReceiptReason ?? full.verdict.verdict.rawValue)
    }
    // The fast path answers most texts here (every cut of a receipt whose header survives), not a few.
    #expect(answered > texts.count / 2, "\(answered) of \(texts.count)")
    #expect(
      reasons.isSuperset(of: ["cut short", "damaged", "not a receipt (not base64)", "not a receipt (not PKCS#7)"]))
  }

  /// Checking the signature reads the credentials; neither is kept without --show-secrets.
  @Test func checkingANotificationKeepsNeitherCredential() throws {
    let body = try Self.json(TestPaths.packageRoot.appendingPathComponent("examples/notification-v1-did-renew.json"))
    let history = try Self.decode(body)
    #expect(history.provenance.notification?.hasPassword == true)
    #expect(history.provenance.notification?.password == nil)
    #expect(history.provenance.latestReceipt == nil)
    #expect(history.provenance.signatureCheck.backing?.outcome == .notAReceipt)
    let shown = try Self.decode(body, keepSecrets: true)
    #expect(shown.provenance.notification?.password != nil && shown.provenance.latestReceipt != nil)
  }

  /// The rule alone, over two histories made in the test: the JSON's order, each standing, the receipt's extras.
  @Test func theRuleComparesTwoHistoriesByTransactionID() throws {
    func tx(_ id: String, _ product: String, bought: Int64, expires: Int64?) -> PurchaseTransaction {
      PurchaseTransaction(
        transactionID: id, originalTransactionID: "1", productID: product,
        purchaseDate: Timestamp(milliseconds: bought),
        expiresDate: expires.flatMap { Timestamp(milliseconds: $0) }, vocabulary: .verifyReceipt)
    }
    var json = PurchaseHistory(format: VerifyReceiptFormats.response)
    var signed = PurchaseHistory(format: VerifyReceiptFormats.response)
    var info = ReceiptInfo()
    info.receiptCreationDate = Timestamp(milliseconds: 5_000)
    signed.provenance.receipt = info
    json.transactions = [
      tx("a", "p", bought: 1_000, expires: 2_000), tx("b", "p", bought: 1_000, expires: 3_000),
      tx("c", "p", bought: 6_000, expires: 9_000), tx("d", "coins", bought: 1_000, expires: nil),
      tx("e", "p", bought: 1_000, expires: 2_000),
    ]
    signed.transactions = [
      tx("a", "p", bought: 1_000, expires: 2_000), tx("b", "p", bought: 1_000, expires: 4_000),
      tx("z", "q", bought: 1, expires: 2),
    ]
    let backing = receiptBacking(of: json, by: signed)
    #expect(backing.outcome == .contradicted)
    #expect(backing.entries.map(\.transactionID) == ["a", "b", "c", "d", "e"])
    #expect(backing.entries[0].standing == .backed)
    guard case .contradicted(let d) = backing.entries[1].standing else {
      Issue.record("b is not contradicted")
      return
    }
    #expect(d.map(\.field) == ["expires_date_ms"])
    #expect(backing.entries[2].standing == .notInReceipt(.newerThanReceipt))
    #expect(backing.entries[3].standing == .notInReceipt(.mayBeFinishedConsumable))
    #expect(backing.entries[4].standing == .notInReceipt(.unexplained))
    #expect(backing.onlyInReceipt == [ReceiptBacking.ReceiptOnly(transactionID: "z", productID: "q")])
  }
}
