import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `decode --format text`: the document as a support person reads it.
public enum DecodeTextRenderer {
  public static func render(_ doc: ReceiptDocument, catalog: Catalog, color: Bool, width: Int = 80) -> String {
    let layout = TextLayout(color: color, width: width)
    var head: [(String, String)] = [("Kind", doc.kind.description)]
    if let status = doc.status {
      head.append(("Status", "\(status.code): \(status.meaning)"))
    } else {
      head.append(("Status", "(none given)"))
    }
    if let retry = doc.isRetryable { head.append(("Retryable", retry ? "yes" : "no")) }
    head.append(("Environment", doc.environment ?? "-"))
    if let n = doc.notification {
      head.append(("Notification", n.notificationType ?? "-"))
      if let env = n.environment { head.append(("Notif. env.", env)) }
      if let s = n.autoRenewStatus { head.append(("Auto-renew", s)) }
      if let password = n.password {
        head.append(("Password", password))
      } else if n.hasPassword {
        head.append(("Password", "(present, not shown)"))
      }
    }
    if let r = doc.receipt {
      head.append(("Bundle ID", r.bundleID ?? "-"))
      var version = r.applicationVersion ?? "-"
      if let original = r.originalApplicationVersion { version += " (originally \(original))" }
      head.append(("App version", version))
      head.append(("Receipt type", r.receiptType ?? "-"))
      head.append(("Created", r.receiptCreationDate.display))
      head.append(("Requested", r.requestDate.display))
      head.append(("App bought", r.originalPurchaseDate.display))
    }
    if let receipt = doc.latestReceipt {
      head.append(("Latest receipt", receipt))
    } else if let length = doc.latestReceiptLength {
      head.append(("Latest receipt", "\(length) characters of base64 (not shown; --show-secrets prints it)"))
    }
    var out = layout.fields(head)

    out += "\n" + layout.paint("Transactions (\(doc.transactions.count))", .bold)
    if doc.duplicateRowsMerged > 0 {
      out += " - \(doc.duplicateRowsMerged) duplicate rows merged"
    }
    out += "\n"
    for t in doc.transactions {
      out += "\n"
      out += transactionBlock(t, catalog: catalog, layout: layout)
    }
    if !doc.pendingRenewals.isEmpty {
      out += "\n" + layout.paint("Pending renewals (\(doc.pendingRenewals.count))", .bold) + "\n"
      for p in doc.pendingRenewals {
        out += "\n"
        var rows: [(String, String)] = [("Product", p.productID ?? "-")]
        if let next = p.autoRenewProductID, next != p.productID { rows.append(("Renews into", next)) }
        rows.append(("Original ID", p.originalTransactionID ?? "-"))
        rows.append(("Auto-renew", p.autoRenewStatus.map { $0 == "1" ? "on (1)" : $0 == "0" ? "off (0)" : $0 } ?? "-"))
        if let intent = p.expirationIntent {
          rows.append(("Expired by", "\(PendingRenewal.describe(expirationIntent: intent)) (\(intent))"))
        }
        if let retry = p.isInBillingRetryPeriod { rows.append(("Billing retry", retry ? "yes" : "no")) }
        if let grace = p.gracePeriodExpiresDate { rows.append(("Grace until", grace.iso8601)) }
        if let consent = p.priceConsentStatus { rows.append(("Price consent", consent)) }
        out += layout.fields(rows, indent: 2, minimumLabelWidth: 15)
      }
    }
    if !doc.warnings.isEmpty {
      out += "\n" + layout.paint("Warnings", .warn) + "\n"
      for w in doc.warnings { out += "  \(w.path): \(w.message)\n" }
    }
    return out
  }

  static func transactionBlock(_ t: PurchaseTransaction, catalog: Catalog, layout: TextLayout) -> String {
    var rows: [(String, String)] = []
    var product = t.productID
    if let resolved = resolveProductType(of: t, catalog: catalog) {
      product += " (\(resolved.type.description)\(resolved.basis == .catalog ? "" : ", from expires_date"))"
    }
    rows.append(("Product", product))
    if let entitlements = catalog.product(t.productID)?.entitlements {
      rows.append(("Entitlements", entitlements.joined(separator: ", ")))
    }
    var ownership = t.ownership.raw
    if t.ownershipAssumed { ownership += " (assumed: no in_app_ownership_type)" }
    if case .unrecognized = t.ownership { ownership += " (not a documented value)" }
    rows.append(("Ownership", ownership))
    if let original = t.originalTransactionID, original != t.transactionID { rows.append(("Original ID", original)) }
    rows.append(("Purchased", t.purchaseDate.display))
    if let e = t.expiresDate { rows.append(("Expires", e.iso8601)) }
    if let c = t.cancellationDate {
      let reason = t.cancellationReason.map { $0 == "1" ? " (reason 1: a problem in the app)" : $0 == "0" ? " (reason 0: other)" : " (reason \($0))" } ?? ""
      rows.append(("Cancelled", c.iso8601 + reason))
    }
    var flags: [String] = []
    if t.isTrialPeriod { flags.append("free trial") }
    if t.isInIntroOfferPeriod { flags.append("intro price") }
    if t.isUpgraded { flags.append("upgraded") }
    if !flags.isEmpty { rows.append(("Flags", flags.joined(separator: ", "))) }
    if let q = t.quantity, q != 1 { rows.append(("Quantity", String(q))) }
    if let g = t.subscriptionGroup { rows.append(("Group", g)) }
    if let offer = t.promotionalOfferID { rows.append(("Promo offer", offer)) }
    if let code = t.offerCodeRefName { rows.append(("Offer code", code)) }
    rows.append(("From", t.sources.names.joined(separator: ", ")))
    return "  " + layout.paint("Transaction \(t.transactionID)", .bold) + "\n" + layout.fields(rows, indent: 4, minimumLabelWidth: 14)
  }
}
