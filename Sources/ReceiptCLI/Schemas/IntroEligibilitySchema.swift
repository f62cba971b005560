import ReceiptFormats

/// `intro-eligibility --format json | ndjson` (`IntroEligibilityJSONRenderer`).
package enum IntroEligibilitySchema {
  typealias S = JSONSchema

  package static let schema = S.document(
    command: "intro-eligibility", title: "receipt-tool intro-eligibility --format json | ndjson",
    description:
      "One document per input document: per product, whether the customer can still get its introductory offer. --format json writes the document, or an array of them for several inputs; --format ndjson writes one per line, and the failed_document line for a document that cannot be read.",
    root: S.documentsRoot("document"),
    definitions: [("document", document), ("product", product)] + EntitlementsSchema.evaluationDefinitions
      + SharedSchemas.documentDefinitions)

  static let document = S.object(
    "One input document's answers.",
    EntitlementsSchema.evaluationFields + [
      .always("products", S.array("One answer per product.", of: S.ref("product"))),
      .sometimes("page", when: "for a paged App Store Server API response", S.ref("page")),
    ])

  static let product = S.object(
    "One product's introductory-offer eligibility.",
    [
      .always("product_id", S.string("The product.")),
      .always("subscription_group", S.nullable(S.string("Its subscription group id."), "when no id names the group")),
      .always(
        "subscription_group_inferred_from",
        S.nullable(
          S.object(
            "The subscriptions that placed the product in its group, and the other products they continue in.",
            [
              .always(
                "original_transaction_ids", S.array("The subscriptions.", of: S.string("An original_transaction_id."))),
              .always("linked_product_ids", S.array("The products they continue in.", of: S.string("A product id."))),
            ]),
          "when an id in the data or the catalog places the product")),
      .always(
        "status",
        S.enumeration(
          "The answer.",
          [
            ("eligible", "Otherwise."),
            (
              "ineligible",
              "A transaction in the product's subscription group, of any ownership and refunded or not, was a free trial or in an introductory price period; or a subscription in the group is active at the evaluation time, or lapsed with its renewal in the billing grace period or billing retry (the customer is still a subscriber)."
            ),
            (
              "unknown",
              "The product is not an auto-renewable subscription, or its group cannot be determined, or another subscription that no group id tells apart may share its group and used an introductory offer or is active."
            ),
            ("no_intro_offer", "The catalog says the product has no introductory offer; this wins over the rest."),
          ])),
      .always(
        "reason",
        S.string("One sentence a support person can read out, naming the deciding transaction and its ownership.")),
      .always("transaction_id", S.nullable(S.string("The deciding transaction."), "when none decided")),
      .always("ownership", S.nullable(S.ref("ownership"), "when none decided")),
    ])
}
