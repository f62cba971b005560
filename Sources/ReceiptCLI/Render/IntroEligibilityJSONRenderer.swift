import ReceiptFormats
import ReceiptModel
import ReceiptRules

/// `intro-eligibility --format json`: `{"as_of", "as_of_source", "input", "products": [...]}`, the
/// same leading members as `entitlements`.
package enum IntroEligibilityJSONRenderer {
  package static func render(
    _ results: [IntroEligibilityResult], time: EvaluationTime, input: InputDocument, signature: SignatureCheck? = nil
  ) -> JSONValue {
    .object([
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
              ("status", .string(r.status.rawValue)),
              ("reason", .string(r.reason)),
              ("transaction_id", .str(r.transactionID)),
              ("ownership", .str(r.ownership?.raw)),
            ])
          })
      ),
    ])
  }
}
