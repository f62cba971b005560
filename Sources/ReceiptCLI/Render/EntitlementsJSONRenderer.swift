import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `entitlements --format json`: the documented schema, keys in a fixed order, written straight to the output
/// (`JSONOutput`): a one-transaction document's answer is no tree built and freed.
package enum EntitlementsJSONRenderer {
  /// The answer as a tree (`write` into a `JSONTreeWriter`).
  package static func render(
    _ answer: EntitlementsAnswer, evaluation: EvaluationTime, input: InputDocument, explain: Bool,
    signature: SignatureCheck? = nil, page: ResponsePage? = nil
  ) -> JSONValue {
    JSONTreeWriter.tree {
      write(answer, evaluation: evaluation, input: input, explain: explain, signature: signature, page: page, to: &$0)
    }
  }

  /// Writes the answer at the writer's place.
  package static func write<W: JSONOutput>(
    _ answer: EntitlementsAnswer, evaluation: EvaluationTime, input: InputDocument, explain: Bool,
    signature: SignatureCheck? = nil, page: ResponsePage? = nil, to w: inout W
  ) {
    let appleStatuses = answer.appleStatuses
    w.object { w in
      writeLeadingMembers(evaluation: evaluation, input: input, signature: signature, to: &w)
      w.key("entitlements")
      w.array(answer.results.indices) { w, i in
        entitlement(
          answer.results[i], explain: explain, apple: i < appleStatuses.count ? appleStatuses[i] : nil, to: &w)
      }
      // Only for a paged response, so other documents keep their shape.
      if let page {
        w.key("page")
        DecodeJSONRenderer.write(page, to: &w)
      }
      // Only when there are some, so other documents keep their shape.
      if !answer.unreadStatuses.isEmpty {
        w.key("apple_statuses_without_transaction")
        w.array(answer.unreadStatuses) { w, u in
          w.object { w in
            w.member("original_transaction_id", u.originalTransactionID)
            w.member("product_id", u.productID)
            w.member("apple_status", int: u.status.code)
            w.member("apple_status_meaning", u.status.meaning)
            w.member("apple_status_as_of", date: u.status.asOf)
            w.member("reason", u.sentence)
          }
        }
      }
    }
  }

  /// The members an answer of `entitlements` and `intro-eligibility` begins with: the schema version, the moment
  /// answered for and where it came from, the input, and the signature verdict.
  static func writeLeadingMembers<W: JSONOutput>(
    evaluation: EvaluationTime, input: InputDocument, signature: SignatureCheck?, to w: inout W
  ) {
    OutputSchemaVersion.write(to: &w)
    w.member("as_of", date: evaluation.time)
    w.member("as_of_source", evaluation.source.name)
    w.key("input")
    input.writeInput(to: &w)
    w.key("signature_check")
    if let signature { SignatureCheckRendering.write(signature, to: &w) } else { w.null() }
  }

  /// One entitlement's answer.
  package static func entitlement<W: JSONOutput>(
    _ r: EntitlementResult, explain: Bool, apple: StoreStatusComparison? = nil, to w: inout W
  ) {
    // Read from the deciding row in place: no transaction is made to be shown.
    let t = r.decidingRow
    w.object { w in
      w.member("id", r.id)
      w.member("status", r.state.rawValue)
      w.member("active", bool: r.isActive)
      w.member("product_id", t?.productID)
      w.member("transaction_id", t?.transactionID)
      w.member("original_transaction_id", t?.originalTransactionID)
      w.member("ownership", t?.ownership.raw)
      w.member("purchase_date", date: t?.purchaseDate)
      w.member("expires_date", date: r.expiresDate)
      w.member("grace_period_expires_date", date: r.gracePeriodExpiresDate)
      w.member("reason", r.reason)
      // Only when the data carries Apple's own status (App Store Server API, V2 notifications).
      if let apple {
        w.key("apple_status")
        w.object { w in
          DecodeJSONRenderer.writeMembers(apple.status, to: &w)
          w.member("agrees", bool: apple.agrees)
          w.member("difference", apple.explanation)
        }
      }
      if explain {
        w.key("transactions")
        w.array(r.considered) { w, c in considered(c, to: &w) }
      }
    }
  }

  static func considered<W: JSONOutput>(_ c: ConsideredTransaction, to w: inout W) {
    let t = c.transaction
    w.object { w in
      w.member("transaction_id", t.transactionID)
      w.member("original_transaction_id", t.originalTransactionID)
      w.member("product_id", t.productID)
      w.member("ownership", t.ownership.raw)
      w.member("ownership_assumed", bool: t.ownershipAssumed)
      w.member("purchase_date", date: t.purchaseDate)
      w.member("expires_date", date: t.expiresDate)
      w.member("cancellation_date", date: t.revocation?.date)
      w.member("grants", bool: c.grant.grantsAccess)
      w.member("decision", c.grant.code)
      w.member("reason", CommandLineHints.explanation(c))
    }
  }
}
