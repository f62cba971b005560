import ReceiptFormats
import ReceiptModel

/// The objects several commands write, each defined once: `input`, `signature_check` and its parts, a failed
/// document's line, Apple's own subscription status, ownership.
package enum SharedSchemas {
  typealias S = JSONSchema
  typealias Field = JSONSchema.Field

  /// `"schema_version"`, the first member of every document and line.
  static let schemaVersion = Field.always(
    "schema_version",
    S.constant(
      .int(OutputSchemaVersion.current),
      "The major version of the schema this document follows (receipt-tool <command> --json-schema prints it). Within a major version changes are additive: new fields, and new values of the enums that say so."
    ))

  static let input = S.object(
    "Where the document was read.",
    [
      .always("file", S.string("The file as named on the command line; <stdin> for standard input.")),
      .always(
        "line", S.nullable(S.integer("The document's line in an NDJSON file.", minimum: 1), "for a whole-file document")
      ),
    ])

  /// `"error"` of a document that could not be read, in `--format ndjson`.
  static let failedDocument = S.object(
    "The line written in a document's place when it cannot be read (--format ndjson); the message is on standard error too, and the run exits with the first failure's status.",
    [
      schemaVersion,
      .always("input", S.ref("input")),
      .always(
        "error",
        S.object(
          "Why the document could not be read.",
          [
            .always(
              "exit_code",
              S.integer("The exit status this failure gives (sysexits: 65 bad data, 66 no input, 74 I/O, 70 internal).")
            ),
            .always("message", S.string("One line naming the file, line, column or JSON path, and the value.")),
          ])),
    ])

  static let verdict = S.enumeration(
    "The document's verdict: that of its weakest signed item.",
    [
      (
        "verified",
        "Every signature verifies through Apple's root, or through a --trust-root, which the verdict names as not Apple's."
      ),
      (
        "invalid",
        "A certificate or signature failed: the data may have been altered or made up. The first failure is named in one line with its place in the document and a stable code such as signature.mismatch, chain.untrustedRoot, chain.expired, chain.marker or jws.alg."
      ),
      (
        "test-signed",
        "Signed by a lone self-signed certificate whose key verifies the signature, as Xcode and local StoreKit testing sign: intact, but not from Apple."
      ),
      (
        "unsigned",
        "The file itself carries no signature and nothing in it backs it: a decoded payload, or verifyReceipt JSON and notification v1 bodies whose latest_receipt is not a receipt or does not back every transaction."
      ),
      (
        "not-checked",
        "Signed, but not checked: the run asked for --skip-signature-check, or a library caller lent no verifier. A verifyReceipt or notification v1 body whose latest_receipt is not empty is not-checked too, not unsigned: nobody looked at what it carries."
      ),
    ])

  /// The members every `signature_check` has (`SignatureCheckJSON.members`).
  static let verdictFields: [Field] = [
    .always("verdict", S.ref("verdict")),
    .always("summary", S.string("The verdict in one line a support person can read out.")),
    .always(
      "anchor",
      S.nullable(
        S.enumeration(
          "The root a verified chain ends at.",
          [
            ("apple", "A root compiled into receipt-tool (Apple's)."),
            ("trust-root", "A root named with --trust-root: not Apple's."),
          ]),
        "unless verified")),
    .always(
      "checked_at", S.nullable(S.date("The moment the certificates were checked at."), "when nothing was checked")),
    .always(
      "checked_at_source",
      S.nullable(
        S.string(
          "Where that moment came from: signedDate, receipt creation date, or now (a payload with none)."
        ),
        "when nothing was checked")),
    .always("revocation_checked", S.constant(.bool(false), "Always false: nothing is asked of the network.")),
    .always("signed_items", S.integer("Signed items checked (each JWS; nested ones count on their own).")),
    .always("verified_items", S.integer("Of those, how many verified (through any trusted root).")),
    .always("test_signed_items", S.integer("Of those, how many are test-signed.")),
    .always("failed_items", S.integer("How many items failed (failures lists at most 20).")),
    .always(
      "chain",
      S.array("The certificates, leaf first, of the item the verdict speaks for.", of: S.ref("chain_certificate"))),
    .always("failures", S.array("The failed items, in document order, at most 20.", of: S.ref("signature_failure"))),
    .always("note", S.nullable(S.string("Why, for unsigned and not-checked."), "when there is nothing to add")),
  ]

  static let chainCertificate = S.object(
    "A certificate of the chain.",
    [
      .always(
        "position",
        S.string(
          "Where the certificate was found: x5c[n] in a JWS header, certificates[n] in a PKCS#7 receipt, root for the anchor it was checked against."
        )),
      .always("common_name", S.nullable(S.string("The subject's common name."), "when it has none")),
      .always("organization", S.nullable(S.string("The subject's organisation."), "when it has none")),
      .always("not_before", S.nullable(S.date("Start of validity."), "when unreadable")),
      .always("not_after", S.nullable(S.date("End of validity."), "when unreadable")),
      .always("sha256", S.string("SHA-256 of the certificate's DER, lowercase hex.")),
    ])

  static let signatureFailure = S.object(
    "One failed item.",
    [
      .always(
        "path",
        S.string(
          "Where in the document (a JSON path, a line, or empty for the document itself); revenue leads it with the document's name."
        )),
      .always(
        "code",
        S.string(
          "A stable code such as signature.mismatch, chain.untrustedRoot, chain.expired, chain.marker, jws.alg or backing.contradicted; new codes may be added."
        )),
      .always(
        "certificate",
        S.nullable(
          S.string("Where the certificate that failed was found (x5c[1], certificates[0], root)."),
          "when the failure is not a certificate's"
        )),
      .always("reason", S.string("One line a support person can read out.")),
    ])

  /// A document's `signature_check` (decode, entitlements, intro-eligibility).
  static let documentSignatureCheck = S.object(
    "The document's signature verdict: whether its signatures show that it came from Apple.",
    verdictFields + [
      .always(
        "backing",
        S.nullable(
          S.ref("backing"),
          "unless the document is a verifyReceipt or notification v1 body whose latest_receipt was checked")),
      .always(
        "device_check", S.nullable(S.ref("device_check"), "for a document without a receipt, such as StoreKit 2 data")),
      .always("coverage", S.ref("coverage")),
    ])

  /// A page of a paged App Store Server API response.
  static let page = S.object(
    "Where a paged response stands: an answer from a page with more after it is partial (--require and --expect fail on it unless --allow-partial).",
    [
      .always("has_more", S.nullable(S.boolean("hasMore, as Apple states it."), "when absent")),
      .always(
        "continuation_field",
        S.enumeration(
          "The field that carries the continuation.",
          [("revision", "Transaction and refund history."), ("paginationToken", "Notification history.")])),
      .always("continuation", S.nullable(S.string("Its value, to ask for the next page."), "when absent")),
      .always("partial", S.boolean("Whether more pages hold purchases this answer does not see.")),
    ])

  /// A class of fields a signature may cover (`SignatureCoverage.FieldClass`).
  static let fieldClass = S.enumeration(
    "A class of fields, named for what it holds.",
    [
      ("ids", "transaction_id, original_transaction_id, web_order_line_item_id."),
      ("products", "product_id."),
      ("dates", "purchase_date, original_purchase_date, expires_date."),
      ("quantity", "quantity."),
      ("trial-and-intro-flags", "is_trial_period, is_in_intro_offer_period."),
      ("cancellation", "cancellation_date."),
      ("device-hash", "The receipt's device hash."),
      (
        "app-purchase",
        "The receipt's original_application_version and original_purchase_date (an AppTransaction's originalApplicationVersion, originalPurchaseDate)."
      ),
      ("ownership", "in_app_ownership_type (inAppOwnershipType)."),
      ("price", "price."),
      ("currency", "currency."),
    ])

  static let coverage = S.object(
    "What the verdict vouches for, by field class: a receipt covers ids, products, dates, quantity, trial and intro flags, cancellation, the device hash and the app's purchase, not ownership, price or currency (a verifyReceipt body's latest_receipt covers its transactions, not its receipt object's app purchase); a signed transaction covers every field it carries; unsigned data covers nothing. Only a verified or test-signed verdict covers anything.",
    [
      .always(
        "signature",
        S.enumeration(
          "The kind of signature the verdict rests on.",
          [
            ("app-receipt", "A PKCS#7 app receipt (on-device, or a JSON body's latest_receipt)."),
            ("signed-transaction", "StoreKit 2 signed data (JWS)."),
            ("none", "No signature covers the data."),
          ])),
      .always("covered", S.array("The field classes the signature covers.", of: S.ref("field_class"))),
      .always("not_covered", S.array("The field classes it does not cover.", of: S.ref("field_class"))),
      .always(
        "answer_uses_not_covered",
        S.array(
          "Of those not covered, the ones this command's answer relies on (--require-signature fails on any); always empty for decode and intro-eligibility.",
          of: S.ref("field_class"))),
    ])

  static let backing = S.object(
    "How far a JSON body's signed latest_receipt backs its transactions, compared by transaction id.",
    [
      .always(
        "outcome",
        S.enumeration(
          "What the comparison comes to.",
          [
            ("backed", "Every JSON transaction is in the signed receipt with the same facts."),
            ("partly-backed", "None contradicts the signed receipt, but some are not in it."),
            ("contradicted", "At least one transaction has the same id as a signed one but other facts."),
            (
              "not-a-receipt",
              "latest_receipt holds no receipt (a placeholder, a receipt cut short): nothing to compare, nothing forged."
            ),
          ])),
      .always("summary", S.string("The outcome in one phrase (backed by Apple's signature: 9 of 9 transactions).")),
      .always(
        "not_a_receipt_reason",
        S.nullable(S.string("What latest_receipt is instead, in a few words."), "unless not-a-receipt")),
      .always(
        "not_a_receipt_detail",
        S.nullable(S.string("Where reading it stopped."), "unless not-a-receipt or when there is no detail")),
      .always(
        "receipt_creation_date",
        S.nullable(S.date("The signed receipt's creation date."), "when there is no receipt or it states none")),
      .always(
        "same_moment",
        S.boolean(
          "Whether the JSON and the signed receipt describe the same moment (the same receipt_creation_date); the rules that depend on it are in the manual's Signatures section."
        )),
      .always("transactions", S.integer("The JSON's transactions compared.")),
      .always("backed_transactions", S.integer("Of those, how many are backed.")),
      .always(
        "not_backed",
        S.array("The JSON's transactions that are not backed, in document order.", of: S.ref("not_backed"))),
      .always(
        "only_in_receipt",
        S.array(
          "The signed receipt's transactions the JSON lacks.",
          of: S.object(
            "A signed transaction the JSON lacks.",
            [
              .always("transaction_id", S.string("Its transaction id.")),
              .always("product_id", S.string("Its product id.")),
            ]))),
    ])

  static let notBacked = S.object(
    "A JSON transaction the signed receipt does not back.",
    [
      .always("transaction_id", S.string("The transaction id.")),
      .always("product_id", S.string("The product id.")),
      .always(
        "standing",
        S.enumeration(
          "Why it is not backed.",
          [
            ("contradicted", "The signed receipt holds the same id with other facts (differences)."),
            ("not-in-receipt", "The signed receipt does not hold it (reason)."),
          ])),
      .sometimes(
        "differences", when: "when contradicted",
        S.array(
          "Each fact that differs.",
          of: S.object(
            "One differing fact.",
            [
              .always("field", S.string("The field, as the JSON names it (expires_date_ms).")),
              .always("json", S.string("The JSON's value, or absent.")),
              .always("receipt", S.string("The signed receipt's value, or absent.")),
            ]))),
      .sometimes(
        "reason", when: "when not-in-receipt",
        S.enumeration(
          "Why it may still be genuine.",
          [
            (
              "newer-than-receipt",
              "Bought after the signed receipt was made: latest_receipt_info may be newer than an older latest_receipt."
            ),
            (
              "may-be-finished-consumable",
              "No expiry date: a consumable leaves the receipt once the app finishes its transaction."
            ),
            ("unexplained", "Nothing explains it."),
          ])),
    ])

  static let deviceCheck = S.object(
    "A signed app receipt's device hash checked against --device-id.",
    [
      .always(
        "result",
        S.enumeration(
          "What the check comes to.",
          [
            ("match", "The hash matches: the receipt was issued to this device."),
            ("mismatch", "The hash differs: the receipt was issued to another device (or altered)."),
            ("cannot-check", "The receipt lacks what the hash needs, or latest_receipt holds no readable receipt."),
            ("not-checked", "No --device-id was given."),
          ])),
      .always("summary", S.string("The result in one line.")),
      .sometimes(
        "device_id", when: "when --device-id was given", S.string("The identifier checked against, as given.")),
      .sometimes("receipt_hash", when: "for a mismatch", S.string("The receipt's device hash, lowercase hex.")),
      .sometimes("computed_hash", when: "for a mismatch", S.string("The hash computed for device_id, lowercase hex.")),
    ])

  static let ownership = S.enumeration(
    "Who owns the transaction (in_app_ownership_type, inAppOwnershipType), as Apple spells it.",
    [
      ("PURCHASED", "The customer bought it."),
      ("FAMILY_SHARED", "A family member bought it and shares it with this customer."),
      ("unknown", "The format cannot say (an on-device receipt has no ownership field)."),
    ],
    carried:
      "an ownership value Apple did not document when this version was written, kept as written and flagged in warnings."
  )

  /// Apple's own status of a subscription chain (`DecodeJSONRenderer.appleStatus`).
  static let appleStatusFields: [Field] = [
    .always(
      "code",
      S.integer(
        "Apple's status code (App Store Server API, a V2 notification's data.status): 1 active, 2 expired, 3 billing retry, 4 billing grace period, 5 revoked; another number is carried through from Apple's data.",
        minimum: nil)),
    .always(
      "meaning",
      S.enumeration(
        "The code in the words entitlements uses for its own statuses.",
        [
          ("active", "1"), ("expired", "2"), ("billing_retry", "3"), ("grace_period", "4"), ("revoked", "5"),
        ],
        carried: "undocumented status <code>, for a code Apple did not document.")),
    .always(
      "as_of",
      S.nullable(S.date("When Apple said so: the newest signedDate of the data that came with it."), "when unknown")),
  ]

  static let appleStatus = S.object(
    "Apple's own status of the subscription chain, shown beside receipt-tool's answer and never used to make it.",
    appleStatusFields)

  /// The definitions every per-document command's schema holds.
  static let documentDefinitions: [(key: String, value: JSONValue)] = [
    ("input", input),
    ("failed_document", failedDocument),
    ("signature_check", documentSignatureCheck),
    ("verdict", verdict),
    ("chain_certificate", chainCertificate),
    ("signature_failure", signatureFailure),
    ("backing", backing),
    ("not_backed", notBacked),
    ("device_check", deviceCheck),
    ("coverage", coverage),
    ("page", page),
    ("field_class", fieldClass),
    ("ownership", ownership),
  ]
}
