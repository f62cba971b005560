import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `entitlements --format json`: the documented schema, keys in a fixed order.
package enum EntitlementsJSONRenderer {
  package static func render(
    _ answer: EntitlementsAnswer, evaluation: EvaluationTime, input: InputDocument, explain: Bool,
    signature: SignatureCheck? = nil, page: ResponsePage? = nil
  ) -> JSONValue {
    let results = answer.results
    let appleStatuses = answer.appleStatuses
    let unreadStatuses = answer.unreadStatuses
    var members: [(key: String, value: JSONValue)] = [
      OutputSchemaVersion.member,
      ("as_of", .string(evaluation.time.iso8601)),
      ("as_of_source", .string(evaluation.source.name)),
      ("input", input.inputJSON),
      ("signature_check", signature.map(SignatureCheckRendering.json) ?? .null),
      (
        "entitlements",
        .array(
          results.enumerated().map { i, r in
            entitlement(r, explain: explain, apple: i < appleStatuses.count ? appleStatuses[i] : nil)
          })
      ),
    ]
    // Only for a paged response, so other documents keep their shape.
    if let page { members.append(("page", DecodeJSONRenderer.pageJSON(page))) }
    // Only when there are some, so other documents keep their shape.
    if !unreadStatuses.isEmpty {
      members.append(
        (
          "apple_statuses_without_transaction",
          .array(
            unreadStatuses.map { u in
              .object([
                ("original_transaction_id", .str(u.originalTransactionID)),
                ("product_id", .str(u.productID)),
                ("apple_status", .int(u.status.code)),
                ("apple_status_meaning", .string(u.status.meaning)),
                ("apple_status_as_of", date(u.status.asOf)),
                ("reason", .string(u.sentence)),
              ])
            })
        ))
    }
    return .object(members)
  }

  static func date(_ t: Timestamp?) -> JSONValue { .str(t?.iso8601) }

  package static func entitlement(
    _ r: EntitlementResult, explain: Bool, apple: StoreStatusComparison? = nil
  ) -> JSONValue {
    let t = r.deciding
    var members: [(key: String, value: JSONValue)] = [
      ("id", .string(r.id)),
      ("status", .string(r.state.rawValue)),
      ("active", .bool(r.isActive)),
      ("product_id", .str(t?.productID)),
      ("transaction_id", .str(t?.transactionID)),
      ("original_transaction_id", .str(t?.originalTransactionID)),
      ("ownership", .str(t?.ownership.raw)),
      ("purchase_date", date(t?.purchaseDate)),
      ("expires_date", date(r.expiresDate)),
      ("grace_period_expires_date", date(r.gracePeriodExpiresDate)),
      ("reason", .string(r.reason)),
    ]
    // Only when the data carries Apple's own status (App Store Server API, V2 notifications).
    if let apple {
      var status = DecodeJSONRenderer.appleStatus(apple.status)
      if case .object(var m) = status {
        m.append(("agrees", .bool(apple.agrees)))
        m.append(("difference", .str(apple.explanation)))
        status = .object(m)
      }
      members.append(("apple_status", status))
    }
    if explain {
      members.append(("transactions", .array(r.considered.map(considered))))
    }
    return .object(members)
  }

  static func considered(_ c: ConsideredTransaction) -> JSONValue {
    let t = c.transaction
    return .object([
      ("transaction_id", .string(t.transactionID)),
      ("original_transaction_id", .str(t.originalTransactionID)),
      ("product_id", .string(t.productID)),
      ("ownership", .string(t.ownership.raw)),
      ("ownership_assumed", .bool(t.ownershipAssumed)),
      ("purchase_date", date(t.purchaseDate)),
      ("expires_date", date(t.expiresDate)),
      ("cancellation_date", date(t.revocation?.date)),
      ("grants", .bool(c.grant.grantsAccess)),
      ("decision", .string(c.grant.code)),
      ("reason", .string(CommandLineHints.explanation(c))),
    ])
  }
}
