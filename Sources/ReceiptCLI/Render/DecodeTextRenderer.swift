import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `decode --format text`: the document as a support person reads it.
package enum DecodeTextRenderer {
  package static func render(_ doc: PurchaseHistory, catalog: Catalog, color: Bool, width: Int = 80)
    -> TerminalText
  {
    // The whole document goes into one byte buffer, made a String once.
    var out = TerminalTextBuilder(capacity: 2048 + 400 * doc.transactions.count + 300 * doc.renewals.count)
    write(doc, catalog: catalog, color: color, width: width, to: &out, drainEvery: .max) { _ in }
    return out.text
  }

  /// `render`, handed to `drain` in pieces of about 64 KiB as it is written, so a large document's text is never
  /// held whole (`DecodeStreamingTests.decodeTextWrittenAsItGoesIsTheWholeText`).
  package static func write(
    _ doc: PurchaseHistory, catalog: Catalog, color: Bool, width: Int = 80, parts: InOrderParts = .here,
    drain: ([UInt8]) -> Void
  ) {
    var out = TerminalTextBuilder(capacity: drainBytes + 8192)
    write(
      doc, catalog: catalog, color: color, width: width, to: &out, drainEvery: drainBytes, parts: parts, drain: drain)
    drain(out.takeBytes())
  }

  static let drainBytes = 1 << 16

  private static func write(
    _ doc: PurchaseHistory, catalog: Catalog, color: Bool, width: Int, to out: inout TerminalTextBuilder,
    drainEvery: Int, parts: InOrderParts = .here, drain: ([UInt8]) -> Void
  ) {
    let layout = TextLayout(color: color, width: width)
    let source = doc.provenance
    layout.appendFields(headRows(doc, layout: layout, color: color), to: &out)

    out.appendNewline()
    out.append(layout.paint("Transactions (\(doc.transactions.count))", .bold))
    if source.duplicateRowsMerged > 0 {
      out.append(" - \(source.duplicateRowsMerged) duplicate rows merged")
    }
    out.appendNewline()
    // In parts (on every core, for a large history), each with its own memo: it gives what one pass gives.
    parts.run(count: doc.transactions.count) { range in
      var part = TerminalTextBuilder(capacity: 400 * range.count)
      var repeated = RepeatedValues()
      // Read in place: `doc.transactions[i]` copied each transaction (every field retained and released).
      doc.transactions.withUnsafeBufferPointer { transactions in
        for i in range {
          part.appendNewline()
          appendTransactionBlock(transactions[i], catalog: catalog, layout: layout, repeated: &repeated, to: &part)
        }
      }
      return part.takeBytes()
    } deliver: { bytes in
      out.append(built: bytes)
      if out.count >= drainEvery { drain(out.takeBytes()) }
    }
    if !doc.renewals.isEmpty {
      out.appendNewline()
      out.append(layout.paint("Pending renewals (\(doc.renewals.count))", .bold))
      out.appendNewline()
      for p in doc.renewals {
        out.appendNewline()
        layout.appendFields(renewalRows(p), indent: 2, minimumLabelWidth: 15, to: &out)
      }
    }
    if !source.deliveries.isEmpty {
      out.appendNewline()
      out.append(layout.paint("Notifications (\(source.deliveries.count))", .bold))
      out.appendNewline()
      for d in source.deliveries {
        out.appendNewline()
        layout.appendFields(deliveryRows(d), indent: 2, minimumLabelWidth: 15, to: &out)
      }
    }
    if !doc.warnings.isEmpty {
      out.appendNewline()
      out.append(layout.paint("Warnings", .warn))
      out.appendNewline()
      for w in doc.warnings { out.append("  \(w.path): \(w.message)\n" as TerminalText) }
    }
  }

  /// The document's head: what it is, its status, signature check and envelope, notification, receipt and what it
  /// carries.
  static func headRows(_ doc: PurchaseHistory, layout: TextLayout, color: Bool) -> [(TerminalText, TerminalText)] {
    let source = doc.provenance
    var head: [(TerminalText, TerminalText)] = [("Kind", "\(source.format.description)")]
    head.reserveCapacity(32)
    if let status = source.status {
      head.append(("Status", "\(status.code): \(status.meaning)"))
    } else if let status = source.responseStatus {
      head.append(("Status", "\(status.field) \(status.code): \(status.meaning)"))
    } else {
      head.append(("Status", "(none given)"))
    }
    if let retry = source.isRetryable { head.append(("Retryable", retry ? "yes" : "no")) }
    if let page = source.page { head.append(("Page", "\(pageText(page))")) }
    head.append(("Environment", "\(doc.environment ?? "-")"))
    let check = source.signatureCheck
    var verdictRows = SignatureCheckRendering.rows(check)
    if check.verdict != .verified, color, let first = verdictRows.first {
      verdictRows[0] = (first.0, layout.paint(first.1, SignatureCheckRendering.tone(check.verdict)))
    }
    if let device = SignatureCheckRendering.deviceRow(check, layout: layout) {
      verdictRows.insert(device, at: min(1, verdictRows.count))
    }
    head += verdictRows
    if let signature = source.signature { head += signatureRows(signature) }
    if let n = source.notification { head += notificationRows(n) }
    if let r = source.receipt { head += receiptRows(r) }
    if let receipt = source.latestReceipt {
      head.append(("Latest receipt", "\(receipt)"))
    } else if let length = source.latestReceiptLength {
      head.append(("Latest receipt", "\(length) characters of base64 (not shown; --show-secrets prints it)"))
    }
    head += carriedRows(source.carriedFields)
    if let extras = inAppExtrasRow(doc.transactions) { head.append(extras) }
    return head
  }

  /// A paged response's page: whether more follow, and how the next is asked for.
  static func pageText(_ page: ResponsePage) -> String {
    let next = page.continuation.map { "; the next page is asked for with \(page.continuationField) \($0)" } ?? ""
    switch page.hasMore {
    case true?: return "partial: hasMore true, more pages follow\(next)"
    case false?:
      return "the last page: hasMore false" + (page.continuation.map { " (\(page.continuationField) \($0))" } ?? "")
    case nil: return "hasMore not given" + (page.continuation.map { " (\(page.continuationField) \($0))" } ?? "")
    }
  }

  /// One listed notification: what it was and how sending it went.
  static func deliveryRows(_ d: DeliveredNotification) -> [(TerminalText, TerminalText)] {
    var rows: [(TerminalText, TerminalText)] = [("Notification", "\(d.notificationType ?? "-")")]
    if let uuid = d.notificationUUID { rows.append(("UUID", "\(uuid)")) }
    if let signed = d.signedDate { rows.append(("Signed", "\(signed.iso8601)")) }
    if let problem = d.problem { rows.append(("Not read", "\(problem)")) }
    let attempts = d.sendAttempts.map { "\($0.attemptDate.display) \($0.result ?? "-")" }
    rows.append(("Send attempts", "\(attempts.isEmpty ? "none listed" : attempts.joined(separator: ", "))"))
    return rows
  }

  /// What wraps the signed content, as read.
  static func signatureRows(_ signature: SignatureFacts) -> [(TerminalText, TerminalText)] {
    var head: [(TerminalText, TerminalText)] = []
    switch signature.envelope {
    case .pkcs7:
      // A PKCS#7 receipt: the certificates as read.
      let count = "\(signature.certificateCount) certificate\(signature.certificateCount == 1 ? "" : "s")"
      head.append(("Envelope", "\(signature.algorithm ?? "unknown algorithm"), \(count)"))
      for (i, c) in signature.certificates.enumerated() {
        var text = c.subject ?? c.problem ?? "-"
        if let from = c.notBefore, let to = c.notAfter { text += ", valid \(from.date) to \(to.date)" }
        head.append(("Certificate \(i + 1)", "\(text)"))
      }
    case .jws:
      var header = [signature.algorithm.map { "alg \($0)" }, signature.keyID.map { "kid \($0)" }].compactMap { $0 }
      header.append("\(signature.certificateCount) x5c certificate\(signature.certificateCount == 1 ? "" : "s")")
      head.append(("JWS header", "\(header.joined(separator: ", "))"))
      if let signer = signature.signer { head.append(("Signed by", "\(signer)")) }
    }
    return head
  }

  /// A notification V1's own fields.
  static func notificationRows(_ n: NotificationInfo) -> [(TerminalText, TerminalText)] {
    var head: [(TerminalText, TerminalText)] = []
    head.append(("Notification", "\(n.notificationType ?? "-")"))
    if let env = n.environment { head.append(("Notif. env.", "\(env)")) }
    if let s = n.autoRenewStatus { head.append(("Auto-renew", "\(s.code)")) }
    if let password = n.password {
      head.append(("Password", "\(password)"))
    } else if n.hasPassword {
      head.append(("Password", "(present, not shown)"))
    }
    return head
  }

  /// The app receipt's own fields.
  static func receiptRows(_ r: ReceiptInfo) -> [(TerminalText, TerminalText)] {
    var head: [(TerminalText, TerminalText)] = []
    head.append(("Bundle ID", "\(r.bundleID ?? "-")"))
    var version = r.applicationVersion ?? "-"
    if let original = r.originalApplicationVersion { version += " (originally \(original))" }
    head.append(("App version", "\(version)"))
    head.append(("Receipt type", "\(r.receiptType ?? "-")"))
    head.append(("Created", "\(r.receiptCreationDate.display)"))
    head.append(("Requested", "\(r.requestDate.display)"))
    head.append(("App bought", "\(r.originalPurchaseDate.display)\(r.originalPlatform.map { " on \($0)" } ?? "")"))
    return head
  }

  /// Per-transaction carried fields, summarised once (nil when none carries any): listing them in every block
  /// would bury the purchases.
  static func inAppExtrasRow(_ transactions: [PurchaseTransaction]) -> (TerminalText, TerminalText)? {
    // The first field seen of each type (a handful), in a short array rather than a dictionary.
    var kinds: [CarriedField] = []
    var carrying = 0
    // Purchases mostly carry what the previous one carried (often the very same array): those add nothing.
    var previous: [CarriedField] = []
    for i in transactions.indices where !transactions[i].carriedFields.isEmpty {
      carrying += 1
      let fields = transactions[i].carriedFields
      if fields == previous { continue }
      previous = fields
      for f in fields where !kinds.contains(where: { $0.type == f.type }) { kinds.append(f) }
    }
    guard carrying > 0 else { return nil }
    let types = kinds.sorted { $0.type < $1.type }.map { f in f.name.map { "\(f.type) (\($0))" } ?? String(f.type) }
    return (
      "In-app extras",
      "types \(types.joined(separator: ", ")) in \(carrying) transaction\(carrying == 1 ? "" : "s"), "
        + "not relied on; --format json shows their values"
    )
  }

  /// One pending renewal's fields.
  static func renewalRows(_ p: RenewalState) -> [(TerminalText, TerminalText)] {
    var rows: [(TerminalText, TerminalText)] = [("Product", "\(p.productID ?? "-")")]
    if let next = p.autoRenewProductID, next != p.productID { rows.append(("Renews into", "\(next)")) }
    rows.append(("Original ID", "\(p.originalTransactionID ?? "-")"))
    rows.append(("Auto-renew", "\(p.autoRenewStatus.map(autoRenewText) ?? "-")"))
    if let intent = p.expirationIntent { rows.append(("Expired by", "\(intent.description) (\(intent.code))")) }
    if let retry = p.isInBillingRetryPeriod { rows.append(("Billing retry", retry ? "yes" : "no")) }
    if let grace = p.gracePeriodExpiresDate { rows.append(("Grace until", "\(grace.iso8601)")) }
    if let consent = p.priceConsentStatus { rows.append(("Price consent", "\(consent)")) }
    if let renewal = p.renewalDate { rows.append(("Renews", "\(renewal.iso8601)")) }
    if let status = p.storeStatus {
      let asOf = status.asOf.map { ", as of \($0.iso8601)" } ?? ""
      rows.append(("Apple status", "\(status.code) (\(status.meaning))\(asOf)"))
    }
    if let plan = p.billingPlan { rows.append(("Billing plan", TerminalText(planText(plan) + ", next renewal"))) }
    if let c = p.commitment { rows.append(("Commitment", TerminalText(renewalCommitmentText(c)))) }
    if p.statedFields.last?.name == advancedCommerceField {
      rows.append(("Commerce API", "advancedCommerceInfo carried, not interpreted (--format json shows it)"))
    }
    return rows
  }

  /// A billing plan as Apple spells it, said when Apple does not document it.
  static func planText(_ plan: BillingPlanType) -> String {
    switch plan {
    case .billedUpfront: "BILLED_UPFRONT (the whole period charged at its start)"
    case .monthly: "MONTHLY (charged monthly through a commitment)"
    case .unrecognized(let raw): "\(raw) (not a documented value)"
    }
  }

  /// Where a commitment stands: `billing period 3 of 12, ends ..., 119.88 USD in all`.
  static func commitmentText(_ c: TransactionCommitment) -> String {
    var parts: [String] = []
    if let k = c.billingPeriodNumber {
      parts.append("billing period \(k)" + (c.totalBillingPeriods.map { " of \($0)" } ?? ""))
    } else if let n = c.totalBillingPeriods {
      parts.append("\(n) billing periods")
    }
    if let end = c.expiresDate { parts.append("ends \(end.iso8601)") }
    if let price = c.price { parts.append("\(DecodeJSONRenderer.amountText(price)) \(price.currency) in all") }
    return parts.isEmpty ? "(commitmentInfo with no fields)" : parts.joined(separator: ", ")
  }

  /// What a commitment renews into: `renews into P (MONTHLY) on ... at 9.99 USD, auto-renew on (1)`.
  static func renewalCommitmentText(_ c: RenewalCommitment) -> String {
    var into = c.autoRenewProductID.map { "renews into \($0)" } ?? "renews"
    if let plan = c.billingPlan { into += " (\(plan.raw))" }
    if let date = c.renewalDate { into += " on \(date.iso8601)" }
    if let price = c.renewalPrice { into += " at \(DecodeJSONRenderer.amountText(price)) \(price.currency)" }
    guard let status = c.autoRenewStatus else { return into }
    return into + ", auto-renew \(autoRenewText(status))"
  }

  /// The last product line, ownership wording and sources made, with what each was made from: a receipt lists
  /// the same few for hundreds of purchases in a row, so each is built and sanitised once per run of them.
  struct RepeatedValues {
    var productID: String?
    var productType: ResolvedProductType?
    var productNames: FieldVocabulary?
    var product: TerminalText = ""
    var ownership: Ownership?
    var ownershipAssumed = false
    var ownershipNames: FieldVocabulary?
    var ownershipText: TerminalText = ""
    var sources: TransactionSources?
    var sourcesText: TerminalText = ""
    /// The ownership and sources values of `appendPlainTransactionBlock`, as `appendFieldValue` lays them out,
    /// by what each is made from: a receipt goes back and forth among a few owners and sources, which the
    /// one-value memos above miss at every change. At most 16 each.
    var ownershipLines: [(ownership: Ownership, assumed: Bool, names: FieldVocabulary, bytes: [UInt8])] = []
    var sourcesLines: [(sources: TransactionSources, bytes: [UInt8])] = []
    /// Every product line laid out (usually wrapped), by product id: a product line costs thousands of
    /// instructions to make, and a receipt may cycle through hundreds of products. (A list of the last 16 looked
    /// at first cost more in comparing ids than it saved in hashing them.)
    var productLinesByID: [String: [(names: FieldVocabulary, facts: ProductFacts, bytes: [UInt8])]] = [:]

    /// What a product type is resolved from besides the product (`resolveProductType`).
    struct ProductFacts: Equatable {
      var stated: ProductType?
      var hasExpiry: Bool
      var ownership: Ownership
    }

    static func laidOut(_ value: TerminalText, layout: TextLayout, valueIndent: Int) -> [UInt8] {
      var line = TerminalTextBuilder(capacity: 128)
      layout.appendFieldValue(value, valueIndent: valueIndent, to: &line)
      return line.takeBytes()
    }

    mutating func productLine(
      of t: PurchaseTransaction, catalog: Catalog, layout: TextLayout, valueIndent: Int
    ) -> [UInt8] {
      let facts = ProductFacts(stated: t.productType, hasExpiry: t.expiresDate != nil, ownership: t.ownership)
      if let found = productLinesByID[t.productID]?.first(where: { $0.names === t.vocabulary && $0.facts == facts }) {
        return found.bytes
      }
      let bytes = Self.laidOut(product(of: t, catalog: catalog), layout: layout, valueIndent: valueIndent)
      productLinesByID[t.productID, default: []].append((t.vocabulary, facts, bytes))
      return bytes
    }

    mutating func ownershipLine(of t: PurchaseTransaction, layout: TextLayout, valueIndent: Int) -> [UInt8] {
      for line in ownershipLines
      where line.ownership == t.ownership && line.assumed == t.ownershipAssumed && line.names === t.vocabulary {
        return line.bytes
      }
      let bytes = Self.laidOut(ownership(of: t), layout: layout, valueIndent: valueIndent)
      if ownershipLines.count == 16 { ownershipLines.removeFirst() }
      ownershipLines.append((t.ownership, t.ownershipAssumed, t.vocabulary, bytes))
      return bytes
    }

    mutating func sourcesLine(of t: PurchaseTransaction, layout: TextLayout, valueIndent: Int) -> [UInt8] {
      for line in sourcesLines where line.sources == t.sources { return line.bytes }
      let bytes = Self.laidOut(sources(of: t), layout: layout, valueIndent: valueIndent)
      if sourcesLines.count == 16 { sourcesLines.removeFirst() }
      sourcesLines.append((t.sources, bytes))
      return bytes
    }

    /// What the product type was resolved from, beside `productID` (the type rests on these alone).
    var stated: ProductType?
    var hasExpiry = false
    var resolvedOwnership: Ownership?

    mutating func product(of t: PurchaseTransaction, catalog: Catalog) -> TerminalText {
      let hasExpiry = t.expiresDate != nil
      if productID == t.productID, productNames === t.vocabulary, resolvedOwnership == t.ownership,
        stated == t.productType, self.hasExpiry == hasExpiry
      {
        return product
      }
      (stated, self.hasExpiry, resolvedOwnership) = (t.productType, hasExpiry, t.ownership)
      let resolved = resolveProductType(of: t, catalog: catalog)
      if productID == t.productID, productType == resolved, productNames === t.vocabulary { return product }
      var text = t.productID
      if let resolved {
        text += " (\(resolved.type.description)\(basisText(resolved.basis, t.vocabulary)))"
      }
      (productID, productType, productNames, product) = (t.productID, resolved, t.vocabulary, TerminalText(text))
      return product
    }

    mutating func ownership(of t: PurchaseTransaction) -> TerminalText {
      if ownership == t.ownership, ownershipAssumed == t.ownershipAssumed, ownershipNames === t.vocabulary {
        return ownershipText
      }
      var text = t.ownership.raw
      if t.ownershipAssumed { text += " (assumed: no \(t.vocabulary.ownership))" }
      if t.ownership == .unknown { text += " (\(t.vocabulary.document) does not say)" }
      if case .unrecognized = t.ownership { text += " (not a documented value)" }
      (ownership, ownershipAssumed, ownershipNames, ownershipText) =
        (t.ownership, t.ownershipAssumed, t.vocabulary, TerminalText(text))
      return ownershipText
    }

    mutating func sources(of t: PurchaseTransaction) -> TerminalText {
      if sources == t.sources { return sourcesText }
      (sources, sourcesText) = (t.sources, TerminalText(t.sources.names.joined(separator: ", ")))
      return sourcesText
    }
  }

  static func appendTransactionBlock(
    _ t: PurchaseTransaction, catalog: Catalog, layout: TextLayout, repeated: inout RepeatedValues,
    to out: inout TerminalTextBuilder
  ) {
    if hasPlainBlock(t, layout: layout) {
      appendPlainTransactionBlock(t, catalog: catalog, layout: layout, repeated: &repeated, to: &out)
    } else {
      appendTransactionBlockRows(t, catalog: catalog, layout: layout, repeated: &repeated, to: &out)
    }
  }

  /// Whether a transaction's block takes `appendPlainTransactionBlock`: no colour, and none of the rows whose
  /// label is not a plain literal or that only some transactions have (a refund, an offer id, a price).
  static func hasPlainBlock(_ t: PurchaseTransaction, layout: TextLayout) -> Bool {
    !layout.color && t.revocation == nil && t.offer?.identifier == nil && t.price == nil && t.billing == nil
      && t.statedFields.last?.name != advancedCommerceField
  }

  /// Signed data's `advancedCommerceInfo`, carried as read (always the last stated field when present).
  static let advancedCommerceField = "advancedCommerceInfo"

  /// The rows of `appendTransactionBlockRows` written straight into `out`: labels no wider than 12 (so the label
  /// column is 14 wide, as `appendFields` makes it), input text and dates appended as they are when `TerminalText`
  /// and `appendFieldValue` would leave them so, and the product line laid out once per run of one product.
  /// Anything else goes through `appendFieldValue`, so the bytes are those of the rows
  /// (`TextLayoutFastPathTests.plainTransactionBlocksAreTheRowsBlocks`).
  static func appendPlainTransactionBlock(
    _ t: PurchaseTransaction, catalog: Catalog, layout: TextLayout, repeated: inout RepeatedValues,
    to out: inout TerminalTextBuilder
  ) {
    let valueIndent = 4 + 14
    func label(_ name: Label) { out.append(built: name.prefix) }
    func input(_ value: String) {
      if !out.appendPlainValue(value, layout: layout, valueIndent: valueIndent) {
        layout.appendFieldValue(TerminalText(value), valueIndent: valueIndent, to: &out)
      }
      out.appendNewline()
    }
    func date(_ value: Timestamp?) {
      if !out.appendDateValue(value, layout: layout, valueIndent: valueIndent) {
        layout.appendFieldValue(TerminalText(value.display), valueIndent: valueIndent, to: &out)
      }
      out.appendNewline()
    }
    out.appendSpaces(2)
    // The id sanitised alone is what interpolating it sanitises: the literal has nothing to escape.
    out.append(literal: "Transaction ")
    out.append(TerminalText(t.transactionID))
    out.appendNewline()
    label(.product)
    out.append(built: repeated.productLine(of: t, catalog: catalog, layout: layout, valueIndent: valueIndent))
    out.appendNewline()
    if let entitlements = catalog.product(t.productID)?.entitlements {
      label(.entitlements)
      input(entitlements.joined(separator: ", "))
    }
    label(.ownership)
    out.append(built: repeated.ownershipLine(of: t, layout: layout, valueIndent: valueIndent))
    out.appendNewline()
    if let original = t.originalTransactionID, original != t.transactionID {
      label(.originalID)
      input(original)
    }
    label(.purchased)
    date(t.purchaseDate)
    if let e = t.expiresDate {
      label(.expires)
      date(e)
    }
    if let flags = flags(of: t) {
      label(.flags)
      input(flags)
    }
    if let q = t.quantity, q != 1 {
      label(.quantity)
      input(String(q))
    }
    if let g = t.subscriptionGroup {
      label(.group)
      input(g)
    }
    label(.from)
    out.append(built: repeated.sourcesLine(of: t, layout: layout, valueIndent: valueIndent))
    out.appendNewline()
  }

  /// The labels of `appendPlainTransactionBlock`, each with its row's indent before it and padding after it
  /// (4 and 14 columns, as `appendFields` lays out labels of 12 characters or fewer), made once.
  enum Label: Int, CaseIterable {
    case product, entitlements, ownership, originalID, purchased, expires, flags, quantity, group, from

    var name: String {
      switch self {
      case .product: "Product"
      case .entitlements: "Entitlements"
      case .ownership: "Ownership"
      case .originalID: "Original ID"
      case .purchased: "Purchased"
      case .expires: "Expires"
      case .flags: "Flags"
      case .quantity: "Quantity"
      case .group: "Group"
      case .from: "From"
      }
    }

    var prefix: [UInt8] { Self.prefixes[rawValue] }

    private static let prefixes: [[UInt8]] = allCases.map { label in
      let name = Array(label.name.utf8)
      return Array(repeating: 0x20, count: 4) + name + Array(repeating: 0x20, count: 14 - name.count)
    }
  }

  /// A transaction's block as rows laid out by `appendFields`: every transaction's, and the definition the
  /// fast path above gives the bytes of.
  static func appendTransactionBlockRows(
    _ t: PurchaseTransaction, catalog: Catalog, layout: TextLayout, repeated: inout RepeatedValues,
    to out: inout TerminalTextBuilder
  ) {
    // Room for every row a transaction can have: the array is allocated once, not grown. Plain strings become
    // terminal text by `TerminalText(_:)`, which sanitises them as interpolation would, without the copy.
    var rows: [(TerminalText, TerminalText)] = []
    rows.reserveCapacity(16)
    rows.append(("Product", repeated.product(of: t, catalog: catalog)))
    if let entitlements = catalog.product(t.productID)?.entitlements {
      rows.append(("Entitlements", TerminalText(entitlements.joined(separator: ", "))))
    }
    rows.append(("Ownership", repeated.ownership(of: t)))
    if let original = t.originalTransactionID, original != t.transactionID {
      rows.append(("Original ID", TerminalText(original)))
    }
    rows.append(("Purchased", TerminalText(t.purchaseDate.display)))
    if let e = t.expiresDate { rows.append(("Expires", TerminalText(e.iso8601))) }
    if let revocation = t.revocation {
      rows.append(("Cancelled", TerminalText(revocation.date.iso8601 + (revocation.reason.map(reasonText) ?? ""))))
      if let type = revocation.type { rows.append(("Revocation", TerminalText(type))) }
    }
    if let flags = flags(of: t) { rows.append(("Flags", TerminalText(flags))) }
    if let q = t.quantity, q != 1 { rows.append(("Quantity", "\(q)")) }
    if let g = t.subscriptionGroup { rows.append(("Group", TerminalText(g))) }
    if let offer = t.offer, let id = offer.identifier { rows.append(("\(offerLabel(offer.kind))", TerminalText(id))) }
    if let price = t.price { rows.append(("Price", "\(DecodeJSONRenderer.amountText(price)) \(price.currency)")) }
    if let billing = t.billing {
      if let plan = billing.plan { rows.append(("Billing plan", TerminalText(planText(plan)))) }
      if let c = billing.commitment { rows.append(("Commitment", TerminalText(commitmentText(c)))) }
    }
    if t.statedFields.last?.name == advancedCommerceField {
      rows.append(("Commerce API", "advancedCommerceInfo carried, not interpreted (--format json shows it)"))
    }
    rows.append(("From", repeated.sources(of: t)))
    out.appendSpaces(2)
    out.append(layout.paint("Transaction \(t.transactionID)", .bold))
    out.appendNewline()
    layout.appendFields(rows, indent: 4, minimumLabelWidth: 14, to: &out)
  }

  /// The Flags row's value (free trial, intro or offer price, upgraded); nil when none applies.
  static func flags(of t: PurchaseTransaction) -> String? {
    var flags: [String] = []
    if t.offer?.isFreeTrial == true { flags.append("free trial") }
    if let offer = t.offer, let pricing = offer.pricing, pricing != .freeTrial {
      flags.append(offer.usesIntroductoryOffer ? "intro price" : "offer price")
    }
    if t.isUpgraded { flags.append("upgraded") }
    return flags.isEmpty ? nil : flags.joined(separator: ", ")
  }

  /// A row per named field (`Type 1707  3 (product_type, not relied on)`), and one listing the undocumented
  /// types, whose values `decode --format json` shows.
  static func carriedRows(_ fields: [CarriedField]) -> [(TerminalText, TerminalText)] {
    var rows: [(TerminalText, TerminalText)] = []
    for f in fields { if let name = f.name { rows.append(("Type \(f.type)", "\(f.value) (\(name), not relied on)")) } }
    let unnamed = fields.filter { $0.name == nil }.map { String($0.type) }
    if !unnamed.isEmpty { rows.append(("Undocumented", "types \(unnamed.joined(separator: ", ")) (carried)")) }
    return rows
  }

  static func offerLabel(_ kind: OfferUse.Kind) -> String {
    switch kind {
    case .offerCode: "Offer code"
    case .promotional: "Promo offer"
    case .introductory: "Intro offer"
    case .winBack: "Win-back offer"
    case .unrecognized: "Offer"
    }
  }

  static func autoRenewText(_ status: AutoRenewStatus) -> String {
    switch status {
    case .on: "on (1)"
    case .off: "off (0)"
    case .unrecognized(let raw): raw
    }
  }

  static func reasonText(_ reason: RevocationReason) -> String {
    switch reason {
    case .appIssue: " (reason 1: a problem in the app)"
    case .other: " (reason 0: other)"
    case .unrecognized(let raw): " (reason \(raw))"
    }
  }

  static func basisText(_ basis: ResolvedProductType.Basis, _ names: FieldVocabulary) -> String {
    switch basis {
    case .catalog: ""
    case .expiresDate: ", from \(names.expiresDate)"
    case .transaction: ", as the transaction states"
    case .familyShared: ", family-shared with no \(names.expiresDate)"
    }
  }
}
