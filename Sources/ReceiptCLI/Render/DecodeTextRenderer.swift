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
    if let signature = source.signature, source.format.name == "app_receipt" {
      // A PKCS#7 receipt: the certificates as read, none checked.
      let count = "\(signature.certificateCount) certificate\(signature.certificateCount == 1 ? "" : "s")"
      head.append(
        ("Signature", "not verified: \(signature.algorithm ?? "unknown algorithm"), \(count), read not checked"))
      for (i, c) in signature.certificates.enumerated() {
        var text = c.subject ?? c.problem ?? "-"
        if let from = c.notBefore, let to = c.notAfter { text += ", valid \(from.date) to \(to.date)" }
        head.append(("Certificate \(i + 1)", "\(text)"))
      }
    } else if let signature = source.signature {
      var header = [signature.algorithm.map { "alg \($0)" }, signature.keyID.map { "kid \($0)" }].compactMap { $0 }
      header.append("\(signature.certificateCount) x5c certificate\(signature.certificateCount == 1 ? "" : "s")")
      head.append(("Signature", "not verified (\(header.joined(separator: ", ")))"))
      if let signer = signature.signer { head.append(("Signed by", "\(signer)")) }
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
    head += carriedRows(source.carriedFields)
    // Per-transaction carried fields are summarised once: listing them in every block would bury the purchases.
    var carriedTypes: [Int64: String?] = [:]
    var carrying = 0
    // Purchases mostly repeat the previous one's types: those add nothing (the first name seen is kept).
    var previousTypes: [Int64] = []
    for t in doc.transactions where !t.carriedFields.isEmpty {
      carrying += 1
      let fields = t.carriedFields
      if fields.count == previousTypes.count, zip(fields, previousTypes).allSatisfy({ $0.type == $1 }) { continue }
      previousTypes = fields.map(\.type)
      for f in fields where carriedTypes[f.type] == nil { carriedTypes[f.type] = f.name }
    }
    if carrying > 0 {
      let types = carriedTypes.keys.sorted().map { type in
        (carriedTypes[type] ?? nil).map { "\(type) (\($0))" } ?? String(type)
      }
      head.append(
        (
          "In-app extras",
          "types \(types.joined(separator: ", ")) in \(carrying) transaction\(carrying == 1 ? "" : "s"), "
            + "not relied on; --format json shows their values"
        ))
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
        if let renewal = p.renewalDate { rows.append(("Renews", "\(renewal.iso8601)")) }
        if let status = p.storeStatus {
          let asOf = status.asOf.map { ", as of \($0.iso8601)" } ?? ""
          rows.append(("Apple status", "\(status.code) (\(status.meaning))\(asOf)"))
        }
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
      if let type = revocation.type { rows.append(("Revocation", "\(type)")) }
    }
    var flags: [String] = []
    if t.offer?.isFreeTrial == true { flags.append("free trial") }
    if let offer = t.offer, let pricing = offer.pricing, pricing != .freeTrial {
      flags.append(offer.usesIntroductoryOffer ? "intro price" : "offer price")
    }
    if t.isUpgraded { flags.append("upgraded") }
    if !flags.isEmpty { rows.append(("Flags", "\(flags.joined(separator: ", "))")) }
    if let q = t.quantity, q != 1 { rows.append(("Quantity", "\(q)")) }
    if let g = t.subscriptionGroup { rows.append(("Group", "\(g)")) }
    if let offer = t.offer, let id = offer.identifier { rows.append(("\(offerLabel(offer.kind))", "\(id)")) }
    if let price = t.price { rows.append(("Price", "\(DecodeJSONRenderer.amountText(price)) \(price.currency)")) }
    rows.append(("From", "\(t.sources.names.joined(separator: ", "))"))
    return "  " + layout.paint("Transaction \(t.transactionID)", .bold) + "\n"
      + layout.fields(rows, indent: 4, minimumLabelWidth: 14)
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
