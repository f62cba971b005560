import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `decode --format text`: the document as a support person reads it.
package enum DecodeTextRenderer {
  package static func render(_ doc: PurchaseHistory, catalog: Catalog, color: Bool, width: Int = 80)
    -> TerminalText
  {
    let layout = TextLayout(color: color, width: width)
    let source = doc.provenance
    var head: [(TerminalText, TerminalText)] = [("Kind", "\(source.format.description)")]
    if let status = source.status {
      head.append(("Status", "\(status.code): \(status.meaning)"))
    } else {
      head.append(("Status", "(none given)"))
    }
    if let retry = source.isRetryable { head.append(("Retryable", retry ? "yes" : "no")) }
    head.append(("Environment", "\(doc.environment ?? "-")"))
    if let signature = source.signature {
      var header = [signature.algorithm.map { "alg \($0)" }, signature.keyID.map { "kid \($0)" }].compactMap { $0 }
      header.append("\(signature.certificateCount) x5c certificate\(signature.certificateCount == 1 ? "" : "s")")
      head.append(("Signature", "not verified (\(header.joined(separator: ", ")))"))
    }
    if let n = source.notification {
      head.append(("Notification", "\(n.notificationType ?? "-")"))
      if let env = n.environment { head.append(("Notif. env.", "\(env)")) }
      if let s = n.autoRenewStatus { head.append(("Auto-renew", "\(s.code)")) }
      if let password = n.password {
        head.append(("Password", "\(password)"))
      } else if n.hasPassword {
        head.append(("Password", "(present, not shown)"))
      }
    }
    if let r = source.receipt {
      head.append(("Bundle ID", "\(r.bundleID ?? "-")"))
      var version = r.applicationVersion ?? "-"
      if let original = r.originalApplicationVersion { version += " (originally \(original))" }
      head.append(("App version", "\(version)"))
      head.append(("Receipt type", "\(r.receiptType ?? "-")"))
      head.append(("Created", "\(r.receiptCreationDate.display)"))
      head.append(("Requested", "\(r.requestDate.display)"))
      head.append(("App bought", "\(r.originalPurchaseDate.display)"))
    }
    if let receipt = source.latestReceipt {
      head.append(("Latest receipt", "\(receipt)"))
    } else if let length = source.latestReceiptLength {
      head.append(("Latest receipt", "\(length) characters of base64 (not shown; --show-secrets prints it)"))
    }
    var out = layout.fields(head)

    out += "\n" + layout.paint("Transactions (\(doc.transactions.count))", .bold)
    if source.duplicateRowsMerged > 0 {
      out += " - \(source.duplicateRowsMerged) duplicate rows merged"
    }
    out += "\n"
    for t in doc.transactions {
      out += "\n"
      out += transactionBlock(t, catalog: catalog, layout: layout)
    }
    if !doc.renewals.isEmpty {
      out += "\n" + layout.paint("Pending renewals (\(doc.renewals.count))", .bold) + "\n"
      for p in doc.renewals {
        out += "\n"
        var rows: [(TerminalText, TerminalText)] = [("Product", "\(p.productID ?? "-")")]
        if let next = p.autoRenewProductID, next != p.productID { rows.append(("Renews into", "\(next)")) }
        rows.append(("Original ID", "\(p.originalTransactionID ?? "-")"))
        rows.append(("Auto-renew", "\(p.autoRenewStatus.map(autoRenewText) ?? "-")"))
        if let intent = p.expirationIntent { rows.append(("Expired by", "\(intent.description) (\(intent.code))")) }
        if let retry = p.isInBillingRetryPeriod { rows.append(("Billing retry", retry ? "yes" : "no")) }
        if let grace = p.gracePeriodExpiresDate { rows.append(("Grace until", "\(grace.iso8601)")) }
        if let consent = p.priceConsentStatus { rows.append(("Price consent", "\(consent)")) }
        out += layout.fields(rows, indent: 2, minimumLabelWidth: 15)
      }
    }
    if !doc.warnings.isEmpty {
      out += "\n" + layout.paint("Warnings", .warn) + "\n"
      for w in doc.warnings { out += "  \(w.path): \(w.message)\n" as TerminalText }
    }
    return out
  }

  static func transactionBlock(_ t: PurchaseTransaction, catalog: Catalog, layout: TextLayout) -> TerminalText {
    var rows: [(TerminalText, TerminalText)] = []
    var product = t.productID
    if let resolved = resolveProductType(of: t, catalog: catalog) {
      product += " (\(resolved.type.description)\(basisText(resolved.basis, t.vocabulary)))"
    }
    rows.append(("Product", "\(product)"))
    if let entitlements = catalog.product(t.productID)?.entitlements {
      rows.append(("Entitlements", "\(entitlements.joined(separator: ", "))"))
    }
    var ownership = t.ownership.raw
    if t.ownershipAssumed { ownership += " (assumed: no \(t.vocabulary.ownership))" }
    if t.ownership == .unknown { ownership += " (\(t.vocabulary.document) does not say)" }
    if case .unrecognized = t.ownership { ownership += " (not a documented value)" }
    rows.append(("Ownership", "\(ownership)"))
    if let original = t.originalTransactionID, original != t.transactionID {
      rows.append(("Original ID", "\(original)"))
    }
    rows.append(("Purchased", "\(t.purchaseDate.display)"))
    if let e = t.expiresDate { rows.append(("Expires", "\(e.iso8601)")) }
    if let revocation = t.revocation {
      rows.append(("Cancelled", "\(revocation.date.iso8601 + (revocation.reason.map(reasonText) ?? ""))"))
    }
    var flags: [String] = []
    if t.offer?.isFreeTrial == true { flags.append("free trial") }
    if let pricing = t.offer?.pricing, pricing != .freeTrial { flags.append("intro price") }
    if t.isUpgraded { flags.append("upgraded") }
    if !flags.isEmpty { rows.append(("Flags", "\(flags.joined(separator: ", "))")) }
    if let q = t.quantity, q != 1 { rows.append(("Quantity", "\(q)")) }
    if let g = t.subscriptionGroup { rows.append(("Group", "\(g)")) }
    if let offer = t.offer, let id = offer.identifier {
      rows.append((offer.kind == .offerCode ? "Offer code" : "Promo offer", "\(id)"))
    }
    if let price = t.price { rows.append(("Price", "\(price.amount.text) \(price.currency)")) }
    rows.append(("From", "\(t.sources.names.joined(separator: ", "))"))
    return "  " + layout.paint("Transaction \(t.transactionID)", .bold) + "\n"
      + layout.fields(rows, indent: 4, minimumLabelWidth: 14)
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
    }
  }
}
