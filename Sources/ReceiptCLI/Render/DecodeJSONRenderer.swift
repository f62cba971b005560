import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `decode --format json`: the documented schema, keys in a fixed order.
package enum DecodeJSONRenderer {
  /// The document as a tree (`writeDocument` into a `JSONTreeWriter`, each transaction made by
  /// `transaction(_:catalog:carried:)`): the plain form `write` is held to.
  package static func render(_ doc: PurchaseHistory, input: InputDocument, catalog: Catalog) -> JSONValue {
    var carried = CarriedJSON()
    let transactions = doc.transactions.map { transaction($0, catalog: catalog, carried: &carried) }
    return JSONTreeWriter.tree { w in
      writeDocument(doc, input: input, to: &w) { w in w.value(.array(transactions)) }
    }
  }

  /// `render`, written as it goes: the document's members straight into `w`, and each transaction straight from
  /// the history, `w` draining between them, so a large document's output is never held whole (the tree held it
  /// several times over, and a small document's verdict and receipt were trees made and freed for each).
  /// Gives `render`'s bytes (`DecodeStreamingTests.decodeJSONWrittenAsItGoesIsTheTreesText`).
  package static func write(
    _ doc: PurchaseHistory, input: InputDocument, catalog: Catalog, parts: InOrderParts = .here,
    to w: inout JSONStreamWriter
  ) {
    writeDocument(doc, input: input, to: &w) { w in
      w.beginArray()
      let template = JSONStreamWriter(elementsOf: w, continuing: false)
      // In parts (on every core, for a large history), each with its own memos: they give what one pass gives.
      parts.run(count: doc.transactions.count) { range in
        // About 700 bytes a transaction pretty-printed: room made once rather than doubled (and copied) ten times.
        var part = JSONStreamWriter(
          elementsOf: template, continuing: range.lowerBound > 0, capacity: min(1 << 20, 768 * range.count))
        var carried = CarriedJSON()
        var memo = ProductMemo()
        for i in range {
          part.element()
          writeTransaction(doc.transactions[i], catalog: catalog, carried: &carried, memo: &memo, to: &part)
        }
        return part.bytes
      } deliver: { bytes in
        w.append(elements: bytes)
        w.flushIfFull()
      }
      w.endArray()
    }
  }

  /// The document's object, its members in order; `transactions` writes the `transactions` member's value.
  /// Inlined: left generic, each member went through the writer's protocol witnesses.
  @inline(__always)
  private static func writeDocument<W: JSONOutput>(
    _ doc: PurchaseHistory, input: InputDocument, to w: inout W, transactions: (inout W) -> Void
  ) {
    let source = doc.provenance
    w.object { w in
      OutputSchemaVersion.write(to: &w)
      w.key("input")
      input.writeInput(to: &w)
      w.member("kind", source.format.name)
      w.member("status", int: source.status?.code)
      w.member("status_meaning", source.status?.meaning)
      w.key("is_retryable")
      w.flag(source.isRetryable)
      w.member("environment", doc.environment)
      if let status = source.responseStatus {
        w.member("response_status") { w in
          w.member("field", status.field)
          w.member("code", int: status.code)
          w.member("meaning", status.meaning)
          w.member("valid", bool: status.isValid)
        }
      }
      if let page = source.page {
        w.key("page")
        write(page, to: &w)
      }
      w.key("signature_check")
      SignatureCheckRendering.write(source.signatureCheck, to: &w)
      if let signature = source.signature {
        w.key("signature")
        w.value(signatureJSON(signature))
      }
      if let n = source.notification {
        w.key("notification")
        w.value(notificationJSON(n))
      }
      w.key("receipt")
      if let receipt = source.receipt { write(receipt, to: &w) } else { w.null() }
      if !source.carriedFields.isEmpty {
        w.key("receipt_attributes")
        w.value(carried(source.carriedFields))
      }
      if !source.statedFields.isEmpty {
        w.key("fields")
        w.value(fields(source.statedFields))
      }
      w.key("transactions")
      transactions(&w)
      w.key("pending_renewals")
      w.array(doc.renewals) { w, renewal in write(renewal, to: &w) }
      w.member("latest_receipt_length", int: source.latestReceiptLength)
      if let secret = source.latestReceipt { w.member("latest_receipt", secret) }
      if !source.deliveries.isEmpty {
        w.key("notifications")
        w.array(source.deliveries) { w, delivered in w.value(delivery(delivered)) }
      }
      w.member("duplicate_rows_merged", int: source.duplicateRowsMerged)
      w.key("warnings")
      w.array(doc.warnings) { w, warning in
        w.object { w in
          w.member("path", warning.path)
          w.member("message", warning.message)
        }
      }
    }
  }

  /// A Notification V1's own fields.
  static func notificationJSON(_ n: NotificationInfo) -> JSONValue {
    var notification: [(key: String, value: JSONValue)] = [
      ("notification_type", .str(n.notificationType)),
      ("environment", .str(n.environment)),
      ("auto_renew_status", .str(n.autoRenewStatus?.code)),
      ("auto_renew_product_id", .str(n.autoRenewProductID)),
      ("bundle_id", .str(n.bundleID)),
      ("has_password", .bool(n.hasPassword)),
    ]
    if let password = n.password { notification.append(("password", .string(password))) }
    if !n.statedFields.isEmpty { notification.append(("fields", fields(n.statedFields))) }
    return .object(notification)
  }

  static func date(_ t: Timestamp?) -> JSONValue { .str(t?.iso8601) }

  /// A paged response's page (`decode` and the answers from it say whether it is partial).
  package static func pageJSON(_ page: ResponsePage) -> JSONValue { JSONTreeWriter.tree { write(page, to: &$0) } }

  /// Writes `pageJSON` at the writer's place.
  static func write<W: JSONOutput>(_ page: ResponsePage, to w: inout W) {
    w.object { w in
      w.key("has_more")
      w.flag(page.hasMore)
      w.member("continuation_field", page.continuationField)
      w.member("continuation", page.continuation)
      w.member("partial", bool: page.isPartial)
    }
  }

  /// A listed notification and its send attempts.
  static func delivery(_ d: DeliveredNotification) -> JSONValue {
    .object([
      ("notification_type", .str(d.notificationType)), ("notification_uuid", .str(d.notificationUUID)),
      ("signed_date", date(d.signedDate)), ("problem", .str(d.problem)),
      (
        "send_attempts",
        .array(
          d.sendAttempts.map { .object([("attempt_date", date($0.attemptDate)), ("result", .str($0.result))]) })
      ),
    ])
  }

  /// What the header of signed data says (whether it verifies is `signature_check`).
  static func signatureJSON(_ s: SignatureFacts) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = [
      ("algorithm", .str(s.algorithm)),
      ("key_id", .str(s.keyID)),
      ("certificates", .int(s.certificateCount)),
      ("signed_by", .str(s.signer)),
    ]
    if !s.certificates.isEmpty {
      members.append(
        (
          "certificate_details",
          .array(
            s.certificates.map { c in
              var fields: [(key: String, value: JSONValue)] = [
                ("subject", .str(c.subject)), ("issuer", .str(c.issuer)),
                ("not_before", date(c.notBefore)), ("not_after", date(c.notAfter)),
              ]
              if let problem = c.problem { fields.append(("problem", .string(problem))) }
              return .object(fields)
            })
        ))
    }
    return .object(members)
  }

  /// The JSON of the last carried fields rendered: a receipt's purchases mostly carry what the one before
  /// carried (often the very same array), and those share one value, built once and released once.
  struct CarriedJSON {
    var fields: [CarriedField] = []
    var json: JSONValue = .null

    mutating func json(of fields: [CarriedField]) -> JSONValue {
      if self.fields.isEmpty || self.fields != fields { (self.fields, json) = (fields, carried(fields)) }
      return json
    }
  }

  /// Fields carried through without a meaning, with the format's own type number.
  static func carried(_ fields: [CarriedField]) -> JSONValue {
    .array(
      fields.map {
        .object([
          ("type", .int($0.type)), ("name", .str($0.name)), ("value", .string($0.value)),
          ("encoding", .string($0.encoding)),
        ])
      })
  }

  /// The receipt's own fields (`receipt` in the output).
  static func write<W: JSONOutput>(_ r: ReceiptInfo, to w: inout W) {
    w.object { w in
      w.member("bundle_id", r.bundleID)
      w.member("application_version", r.applicationVersion)
      w.member("original_application_version", r.originalApplicationVersion)
      w.member("receipt_type", r.receiptType)
      w.member("receipt_creation_date", date: r.receiptCreationDate)
      w.member("request_date", date: r.requestDate)
      w.member("original_purchase_date", date: r.originalPurchaseDate)
      // Only an AppTransaction states it, so other documents keep their shape.
      if let platform = r.originalPlatform { w.member("original_platform", platform) }
      if !r.statedFields.isEmpty {
        w.key("fields")
        w.value(fields(r.statedFields))
      }
    }
  }

  /// Fields the source states that no rule reads, under the source's own names, typed as given.
  static func fields(_ fields: [StatedField]) -> JSONValue {
    .object(fields.map { f in (f.name, value(f.value)) })
  }

  static func value(_ v: StatedField.Value) -> JSONValue {
    switch v {
    case .text(let s): .string(s)
    case .number(let n): .number(n)
    case .date(let t): date(t)
    case .flag(let b): .bool(b)
    case .list(let l): .array(l.map(JSONValue.string))
    case .object(let members): fields(members)
    case .array(let items): .array(items.map(value))
    }
  }

  static func priceJSON(_ price: StatedPrice) -> JSONValue {
    .object([("amount", .string(amountText(price))), ("currency", .string(price.currency))])
  }

  /// A charge's billing plan and where its commitment stands, under Apple's names in snake case.
  static func billingMembers(_ b: BillingTerms) -> [(key: String, value: JSONValue)] {
    var members: [(key: String, value: JSONValue)] = [("billing_plan_type", .str(b.plan?.raw))]
    if let c = b.commitment {
      members.append(
        (
          "commitment",
          .object([
            ("billing_period_number", .int(c.billingPeriodNumber)),
            ("total_billing_periods", .int(c.totalBillingPeriods)),
            ("commitment_expires_date", date(c.expiresDate)),
            ("commitment_price", c.price.map(priceJSON) ?? .null),
          ])
        ))
    }
    return members
  }

  /// What a commitment renews into, under Apple's names in snake case.
  static func renewalCommitment(_ c: RenewalCommitment) -> JSONValue {
    .object([
      ("commitment_auto_renew_product_id", .str(c.autoRenewProductID)),
      ("commitment_auto_renew_status", .str(c.autoRenewStatus?.code)),
      ("commitment_renewal_billing_plan_type", .str(c.billingPlan?.raw)),
      ("commitment_renewal_date", date(c.renewalDate)),
      ("commitment_renewal_price", c.renewalPrice.map(priceJSON) ?? .null),
    ])
  }

  static func transaction(_ t: PurchaseTransaction, catalog: Catalog, carried: inout CarriedJSON) -> JSONValue {
    let resolved = resolveProductType(of: t, catalog: catalog)
    var members: [(key: String, value: JSONValue)] = [
      ("transaction_id", .string(t.transactionID)),
      ("original_transaction_id", .str(t.originalTransactionID)),
      ("product_id", .string(t.productID)),
      ("product_type", .str(resolved?.type.rawValue)),
      ("product_type_basis", .str(resolved?.basis.rawValue)),
    ]
    if let product = catalog.product(t.productID) {
      members.append(("entitlements", .array(product.entitlements.map(JSONValue.string))))
    }
    members += [
      ("ownership", .string(t.ownership.raw)),
      ("ownership_assumed", .bool(t.ownershipAssumed)),
      ("quantity", .int(t.quantity)),
      ("purchase_date", date(t.purchaseDate)),
      ("original_purchase_date", date(t.originalPurchaseDate)),
      ("expires_date", date(t.expiresDate)),
      ("cancellation_date", date(t.revocation?.date)),
      ("cancellation_reason", .str(t.revocation?.reason?.code)),
      ("is_trial_period", .bool(t.offer?.isFreeTrial == true)),
      ("is_in_intro_offer_period", .bool(t.offer.map { $0.pricing != nil && !$0.isFreeTrial } ?? false)),
      ("is_upgraded", .bool(t.isUpgraded)),
      ("subscription_group", .str(t.subscriptionGroup)),
      ("web_order_line_item_id", .str(t.webOrderLineItemID)),
      ("promotional_offer_id", .str(t.offer?.kind == .promotional ? t.offer?.identifier : nil)),
      ("offer_code_ref_name", .str(t.offer?.kind == .offerCode ? t.offer?.identifier : nil)),
      ("sources", .array(t.sources.names.map(JSONValue.string))),
    ]
    if let type = t.revocation?.type { members.append(("revocation_type", .string(type))) }
    if let offer = t.offer, t.sources.contains(.signedTransaction) {
      members.append(
        ("offer", .object([("kind", .string(offerKind(offer.kind))), ("identifier", .str(offer.identifier))])))
    }
    if let signed = t.signedDate { members.append(("signed_date", date(signed))) }
    if let price = t.price { members.append(("price", priceJSON(price))) }
    if let billing = t.billing { members += billingMembers(billing) }
    if !t.carriedFields.isEmpty { members.append(("attributes", carried.json(of: t.carriedFields))) }
    if !t.statedFields.isEmpty { members.append(("fields", fields(t.statedFields))) }
    return .object(members)
  }

  /// The catalog's answers for the product of the transaction before: a history mostly repeats its products.
  struct ProductMemo {
    var productID: String?
    var product: CatalogProduct?
    var stated: ProductType?
    var hasExpiry = false
    var ownership: Ownership = .unknown
    var resolved: ResolvedProductType?
  }

  /// `transaction(_:catalog:carried:)` written straight into `w`: the same members, values and order.
  static func writeTransaction(
    _ t: PurchaseTransaction, catalog: Catalog, carried: inout CarriedJSON, memo: inout ProductMemo,
    to w: inout JSONStreamWriter
  ) {
    // The product type rests on the product and these three facts alone.
    let facts = (t.productType, t.expiresDate != nil, t.ownership)
    let newProduct = memo.productID != t.productID
    if newProduct { memo = ProductMemo(productID: t.productID, product: catalog.product(t.productID)) }
    if newProduct || (memo.stated, memo.hasExpiry, memo.ownership) != facts {
      memo.resolved = resolveProductType(of: t, catalog: catalog)
      (memo.stated, memo.hasExpiry, memo.ownership) = facts
    }
    let resolved = memo.resolved
    w.beginObject()
    w.key("transaction_id")
    w.string(t.transactionID)
    w.key("original_transaction_id")
    w.string(t.originalTransactionID)
    w.key("product_id")
    w.string(t.productID)
    w.key("product_type")
    w.string(resolved?.type.rawValue)
    w.key("product_type_basis")
    w.string(resolved?.basis.rawValue)
    if let product = memo.product {
      w.key("entitlements")
      w.beginArray()
      for entitlement in product.entitlements {
        w.element()
        w.string(entitlement)
      }
      w.endArray()
    }
    w.key("ownership")
    w.string(t.ownership.raw)
    w.key("ownership_assumed")
    w.bool(t.ownershipAssumed)
    w.key("quantity")
    w.int(t.quantity)
    w.key("purchase_date")
    w.date(t.purchaseDate)
    w.key("original_purchase_date")
    w.date(t.originalPurchaseDate)
    w.key("expires_date")
    w.date(t.expiresDate)
    w.key("cancellation_date")
    w.date(t.revocation?.date)
    w.key("cancellation_reason")
    w.string(t.revocation?.reason?.code)
    w.key("is_trial_period")
    w.bool(t.offer?.isFreeTrial == true)
    w.key("is_in_intro_offer_period")
    w.bool(t.offer.map { $0.pricing != nil && !$0.isFreeTrial } ?? false)
    w.key("is_upgraded")
    w.bool(t.isUpgraded)
    w.key("subscription_group")
    w.string(t.subscriptionGroup)
    w.key("web_order_line_item_id")
    w.string(t.webOrderLineItemID)
    w.key("promotional_offer_id")
    w.string(t.offer?.kind == .promotional ? t.offer?.identifier : nil)
    w.key("offer_code_ref_name")
    w.string(t.offer?.kind == .offerCode ? t.offer?.identifier : nil)
    w.key("sources")
    w.beginArray()
    for (source, name) in sourceNames where t.sources.contains(source) {
      w.element()
      w.string(name)
    }
    w.endArray()
    if let type = t.revocation?.type {
      w.key("revocation_type")
      w.string(type)
    }
    if let offer = t.offer, t.sources.contains(.signedTransaction) {
      w.key("offer")
      w.beginObject()
      w.key("kind")
      w.string(offerKind(offer.kind))
      w.key("identifier")
      w.string(offer.identifier)
      w.endObject()
    }
    if let signed = t.signedDate {
      w.key("signed_date")
      w.date(signed)
    }
    if let price = t.price {
      w.key("price")
      w.beginObject()
      w.key("amount")
      w.string(amountText(price))
      w.key("currency")
      w.string(price.currency)
      w.endObject()
    }
    if let billing = t.billing {
      for member in billingMembers(billing) {
        w.key(text: member.key)
        w.value(member.value)
      }
    }
    if !t.carriedFields.isEmpty {
      w.key("attributes")
      w.value(carried.json(of: t.carriedFields))
    }
    if !t.statedFields.isEmpty {
      w.key("fields")
      w.value(fields(t.statedFields))
    }
    w.endObject()
  }

  /// `TransactionSources.names`, each with its bit, in that order.
  private static let sourceNames: [(TransactionSources, String)] = [
    (.inApp, "in_app"), (.latestReceiptInfo, "latest_receipt_info"), (.legacyReceipt, "receipt"),
    (.latestExpiredReceiptInfo, "latest_expired_receipt_info"), (.signedTransaction, "signed_transaction"),
    (.appReceipt, "app_receipt"),
  ]

  /// A stated price in its currency's minor digits (signed data states milliunits: 9990 is 9.99 USD), or as
  /// stated when that would drop digits.
  static func amountText(_ price: StatedPrice) -> String {
    price.amountInMinorDigits
  }

  static func offerKind(_ kind: OfferUse.Kind) -> String {
    switch kind {
    case .introductory: "introductory"
    case .promotional: "promotional"
    case .offerCode: "offer_code"
    case .winBack: "win_back"
    case .unrecognized(let raw): raw
    }
  }

  /// A renewal's pending state (`pending_renewals` in the output).
  static func write<W: JSONOutput>(_ p: RenewalState, to w: inout W) {
    w.object { w in
      w.member("product_id", p.productID)
      w.member("auto_renew_product_id", p.autoRenewProductID)
      w.member("original_transaction_id", p.originalTransactionID)
      w.member("auto_renew_status", p.autoRenewStatus?.code)
      w.member("expiration_intent", p.expirationIntent?.code)
      w.key("is_in_billing_retry_period")
      w.flag(p.isInBillingRetryPeriod)
      w.member("grace_period_expires_date", date: p.gracePeriodExpiresDate)
      w.member("price_consent_status", p.priceConsentStatus)
      if let renewal = p.renewalDate { w.member("renewal_date", date: renewal) }
      if let status = p.storeStatus { w.member("apple_status") { w in writeMembers(status, to: &w) } }
      if let plan = p.billingPlan { w.member("renewal_billing_plan_type", plan.raw) }
      if let c = p.commitment {
        w.key("commitment")
        w.value(renewalCommitment(c))
      }
      if !p.statedFields.isEmpty {
        w.key("fields")
        w.value(fields(p.statedFields))
      }
    }
  }

  /// Writes the members of Apple's own status of a chain (Get All Subscription Statuses, a V2 notification's
  /// `data.status`) into the object being written.
  static func writeMembers<W: JSONOutput>(_ s: StoreSubscriptionStatus, to w: inout W) {
    w.member("code", int: s.code)
    w.member("meaning", s.meaning)
    w.member("as_of", date: s.asOf)
  }
}
