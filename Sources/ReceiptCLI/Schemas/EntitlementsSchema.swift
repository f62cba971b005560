import ReceiptFormats

/// `entitlements --format json | ndjson` (`EntitlementsJSONRenderer`).
package enum EntitlementsSchema {
  typealias S = JSONSchema

  package static let schema = S.document(
    command: "entitlements", title: "receipt-tool entitlements --format json | ndjson",
    description:
      "One document per input document: which entitlements it grants at a moment, and why. --format json writes the document, or an array of them for several inputs; --format ndjson writes one per line, and the failed_document line for a document that cannot be read.",
    root: S.documentsRoot("document"),
    definitions: [
      ("document", document), ("entitlement", entitlement), ("considered_transaction", consideredTransaction),
      ("apple_status_without_transaction", appleStatusWithoutTransaction),
    ] + evaluationDefinitions + SharedSchemas.documentDefinitions)

  /// The moment an answer is given at, shared with intro-eligibility.
  static let evaluationFields: [JSONSchema.Field] = [
    SharedSchemas.schemaVersion,
    .always("as_of", S.date("The moment the answer is for.")),
    .always("as_of_source", S.ref("as_of_source")),
    .always("input", S.ref("input")),
    .always("signature_check", S.nullable(S.ref("signature_check"), "when signatures were not looked at")),
  ]

  static let evaluationDefinitions: [(key: String, value: JSONValue)] = [
    (
      "as_of_source",
      S.enumeration(
        "Where as_of came from: --as-of, the clock, or the data's own field.",
        [
          ("option", "--as-of gave it."),
          ("now", "The clock when receipt-tool ran."),
          ("request_date", "The verifyReceipt response's request_date."),
          ("signedDate", "The newest signedDate in signed data."),
          ("revocationDate", "The newest revocationDate in signed data, later than any signedDate."),
          ("receipt_creation_date", "An on-device app receipt's creation date."),
        ])
    )
  ]

  static let document = S.object(
    "One input document's entitlements.",
    evaluationFields + [
      .always("entitlements", S.array("Each entitlement, in catalog order, then by id.", of: S.ref("entitlement"))),
      .sometimes(
        "apple_statuses_without_transaction",
        when: "when Apple's data states a status for a chain none of whose transactions is in the data",
        S.array(
          "Apple's statuses that no transaction in the data belongs to.", of: S.ref("apple_status_without_transaction"))
      ),
      .sometimes("page", when: "for a paged App Store Server API response", S.ref("page")),
    ])

  static let status = S.enumeration(
    "The entitlement's status at as_of.",
    [
      ("active", "A transaction grants access."),
      (
        "grace_period",
        "The newest renewal failed and the pending renewal's grace_period_expires_date is later; still active."
      ),
      ("billing_retry", "The renewal failed, no grace period is in force, and Apple is still retrying; not active."),
      ("expired", "The subscription ended; the reason gives Apple's expiration_intent when known."),
      ("refunded", "The newest event is a refunded PURCHASED transaction."),
      ("revoked", "The newest event is a FAMILY_SHARED transaction revoked from Family Sharing."),
      ("upgraded", "The subscription was upgraded to a product outside this entitlement."),
      (
        "unknown",
        "The receipt cannot tell: no catalog type for a product without expires_date, or no duration for a non-renewing subscription."
      ),
      ("not_purchased", "No transaction of the entitlement's products at or before the moment."),
    ])

  static let entitlement = S.object(
    "One entitlement and the transaction that decides it.",
    [
      .always("id", S.string("The catalog's entitlement name, or without a catalog the product id.")),
      .always("status", status),
      .always("active", S.boolean("Whether the customer may use it: active or grace_period.")),
      .always("product_id", S.nullable(S.string("The deciding transaction's product."), "when no transaction decided")),
      .always("transaction_id", S.nullable(S.string("The deciding transaction."), "when no transaction decided")),
      .always(
        "original_transaction_id",
        S.nullable(S.string("Its subscription chain."), "when no transaction decided or it has none")),
      .always("ownership", S.nullable(S.ref("ownership"), "when no transaction decided")),
      .always("purchase_date", S.nullable(S.date("The deciding transaction's purchase date."), "when none")),
      .always(
        "expires_date", S.nullable(S.date("When access ends."), "for access that does not expire or when unknown")),
      .always("grace_period_expires_date", S.nullable(S.date("The end of the billing grace period."), "unless in one")),
      .always("reason", S.string("One sentence a support person can read out, in the source's own field names.")),
      .sometimes(
        "apple_status",
        when: "when the data carries Apple's own status for the chain (App Store Server API, V2 notifications)",
        S.object(
          "Apple's own status of the deciding chain, beside receipt-tool's.",
          SharedSchemas.appleStatusFields + [
            .always("agrees", S.boolean("Whether Apple's status means receipt-tool's.")),
            .always("difference", S.nullable(S.string("Why they differ."), "when they agree")),
          ])),
      .sometimes(
        "transactions", when: "with --explain",
        S.array(
          "Every transaction considered, and why it does or does not grant access.", of: S.ref("considered_transaction")
        )),
    ])

  static let consideredTransaction = S.object(
    "A transaction considered for the entitlement (--explain).",
    [
      .always("transaction_id", S.string("The transaction id.")),
      .always("original_transaction_id", S.nullable(S.string("Its subscription chain."), "when it has none")),
      .always("product_id", S.string("The product id.")),
      .always("ownership", S.ref("ownership")),
      .always("ownership_assumed", S.boolean("True when the data has no ownership field and PURCHASED is assumed.")),
      .always("purchase_date", S.nullable(S.date("Purchase date."), "when the data has none")),
      .always("expires_date", S.nullable(S.date("Expiry."), "when the data has none")),
      .always("cancellation_date", S.nullable(S.date("Refund or revocation date."), "when not refunded or revoked")),
      .always("grants", S.boolean("Whether it grants access at as_of.")),
      .always(
        "decision",
        S.enumeration(
          "Why it does or does not grant access.",
          [
            ("grants", "It grants access."),
            ("not_yet_purchased", "Bought after the moment asked about."),
            ("refunded", "Refunded at or before the moment."),
            ("revoked", "A FAMILY_SHARED copy taken away at or before the moment."),
            ("upgraded", "is_upgraded: replaced by another product of the subscription group."),
            ("expired", "An auto-renewable subscription whose expires_date is at or before the moment."),
            ("duration_ended", "A non-renewing subscription past its purchase plus the catalog's duration."),
            ("consumable", "Consumables never give lasting access."),
            ("unknown_product_type", "No catalog entry and no expiry date: the type cannot be told."),
            ("unknown_duration", "A non-renewing subscription the catalog gives no duration for."),
            ("missing_expires_date", "The catalog says auto-renewable, but the transaction has no expires_date."),
            ("missing_purchase_date", "No purchase date, so whether it was bought by the moment cannot be told."),
          ])),
      .always("reason", S.string("The decision in one sentence.")),
    ])

  static let appleStatusWithoutTransaction = S.object(
    "Apple's status of a chain no transaction in the data belongs to.",
    [
      .always(
        "original_transaction_id", S.nullable(S.string("The chain Apple names."), "when Apple's data names none")),
      .always("product_id", S.nullable(S.string("The product Apple names."), "when Apple's data names none")),
      .always("apple_status", S.integer("Apple's status code (see apple_status.code).", minimum: nil)),
      .always("apple_status_meaning", S.string("The code's meaning (see apple_status.meaning).")),
      .always("apple_status_as_of", S.nullable(S.date("When Apple said so."), "when unknown")),
      .always("reason", S.string("One sentence saying why it is listed apart.")),
    ])
}
