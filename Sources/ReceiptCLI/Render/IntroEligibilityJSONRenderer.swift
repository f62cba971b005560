import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `intro-eligibility --format json`: `{"as_of", "as_of_source", "input", "products": [...]}`, the
/// same leading members as `entitlements`, written straight to the output (`JSONOutput`).
package enum IntroEligibilityJSONRenderer {
  /// The answer as a tree (`write` into a `JSONTreeWriter`).
  package static func render(
    _ results: [IntroEligibilityResult], time: EvaluationTime, input: InputDocument, signature: SignatureCheck? = nil,
    page: ResponsePage? = nil
  ) -> JSONValue {
    JSONTreeWriter.tree { write(results, time: time, input: input, signature: signature, page: page, to: &$0) }
  }

  /// Writes the answer at the writer's place.
  package static func write<W: JSONOutput>(
    _ results: [IntroEligibilityResult], time: EvaluationTime, input: InputDocument, signature: SignatureCheck? = nil,
    page: ResponsePage? = nil, to w: inout W
  ) {
    w.object { w in
      EntitlementsJSONRenderer.writeLeadingMembers(evaluation: time, input: input, signature: signature, to: &w)
      w.key("products")
      w.array(results) { w, r in
        w.object { w in
          w.member("product_id", r.productID)
          w.member("subscription_group", r.subscriptionGroup)
          w.key("subscription_group_inferred_from")
          writeInference(r.groupInference, to: &w)
          w.member("status", r.status.rawValue)
          w.member("reason", r.reason)
          w.member("transaction_id", r.transactionID)
          w.member("ownership", r.ownership?.raw)
        }
      }
      // Only for a paged response, so other documents keep their shape.
      if let page {
        w.key("page")
        DecodeJSONRenderer.write(page, to: &w)
      }
    }
  }

  /// `{"original_transaction_ids": [...], "linked_product_ids": [...]}`, or null when an id placed the product.
  static func writeInference<W: JSONOutput>(_ inference: GroupInference?, to w: inout W) {
    guard let inference else { return w.null() }
    w.object { w in
      w.key("original_transaction_ids")
      w.array(strings: inference.originalTransactionIDs)
      w.key("linked_product_ids")
      w.array(strings: inference.linkedProductIDs)
    }
  }
}
