import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `intro-eligibility --format json`: `{"as_of", "as_of_source", "input", "products": [...]}`, the
/// same leading members as `entitlements`.
package enum IntroEligibilityJSONRenderer {
  package static func render(
    _ results: [IntroEligibilityResult], time: EvaluationTime, input: InputDocument, signature: SignatureCheck? = nil,
    page: ResponsePage? = nil
  ) -> JSONValue {
    var members: [(key: String, value: JSONValue)] = [
      OutputSchemaVersion.member,
      ("as_of", .string(time.time.iso8601)),
      ("as_of_source", .string(time.source.name)),
      ("input", input.inputJSON),
      ("signature_check", signature.map(SignatureCheckRendering.json) ?? .null),
      (
        "products",
        .array(
          results.map { r in
            .object([
              ("product_id", .string(r.productID)),
              ("subscription_group", .str(r.subscriptionGroup)),
              ("subscription_group_inferred_from", inferenceJSON(r.groupInference)),
              ("status", .string(r.status.rawValue)),
              ("reason", .string(r.reason)),
              ("transaction_id", .str(r.transactionID)),
              ("ownership", .str(r.ownership?.raw)),
            ])
          })
      ),
    ]
    // Only for a paged response, so other documents keep their shape.
    if let page { members.append(("page", DecodeJSONRenderer.pageJSON(page))) }
    return .object(members)
  }

  /// `{"original_transaction_ids": [...], "linked_product_ids": [...]}`, or null when an id placed the product.
  static func inferenceJSON(_ inference: GroupInference?) -> JSONValue {
    guard let inference else { return .null }
    return .object([
      ("original_transaction_ids", .array(inference.originalTransactionIDs.map { .string($0) })),
      ("linked_product_ids", .array(inference.linkedProductIDs.map { .string($0) })),
    ])
  }
}
