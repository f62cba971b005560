import ReceiptFormats

/// `decode --format json | ndjson` (`DecodeJSONRenderer`).
package enum DecodeSchema {
  typealias S = JSONSchema

  package static let schema = S.document(
    command: "decode", title: "receipt-tool decode --format json | ndjson",
    description:
      "One document per input document: its metadata, status, every transaction and the pending renewal information. --format json writes the document, or an array of them for several inputs; --format ndjson writes one per line, and the failed_document line for a document that cannot be read.",
    root: S.documentsRoot("document"),
    definitions: [
      ("document", document), ("signature", signature), ("notification", notification), ("receipt", receipt),
      ("transaction", transaction), ("pending_renewal", pendingRenewal), ("carried_field", carriedField),
      ("source_fields", sourceFields), ("apple_status", SharedSchemas.appleStatus),
      ("auto_renew_status", autoRenewStatus), ("billing_plan_type", billingPlanType), ("stated_price", statedPrice),
    ] + SharedSchemas.documentDefinitions)

  /// `fields`: what the source states that no rule reads.
  static let sourceFields = S.sourceObject(
    "Fields the source states that no rule reads, under the source's own names, typed as given (strings, numbers, ISO 8601 dates, booleans, arrays, and objects such as advancedCommerceInfo carried as read). Carried through from Apple's data: which names appear is Apple's, not this schema's."
  )

  static let document = S.object(
    "One input document, decoded.",
    [
      SharedSchemas.schemaVersion,
      .always("input", S.ref("input")),
      .always(
        "kind",
        S.enumeration(
          "The input kind, recognised from the content.",
          [
            ("verify_receipt_response", "A verifyReceipt response body."),
            ("notification_v1", "An App Store Server Notification v1 body."),
            ("receipt", "A bare receipt object."),
            ("app_receipt", "An on-device app receipt (PKCS#7, base64 or DER, or a JSON body holding one)."),
            ("signed_jws", "One compact JWS."),
            ("signed_jws_lines", "JWS lines read as one history."),
            ("signed_payload_decoded", "A decoded signed payload."),
            ("transaction_history_response", "An App Store Server API transaction history page."),
            ("refund_history_response", "An App Store Server API refund history page."),
            ("subscription_statuses_response", "An App Store Server API Get All Subscription Statuses response."),
            ("transaction_info_response", "An App Store Server API transaction info response."),
            ("notification_v2_body", "An App Store Server Notifications V2 body."),
            (
              "notification_history_response",
              "An App Store Server API Get Notification History page: its notifications, each with its signed payload and send attempts."
            ),
            (
              "test_notification_status_response",
              "An App Store Server API Get Test Notification Status response, with its send attempts."
            ),
            ("app_transaction_info_response", "An App Store Server API Get App Transaction Info response."),
            ("app_data", "appData: a signed app transaction (RESCIND_CONSENT's, or on its own)."),
            ("order_lookup_response", "An App Store Server API Look Up Order ID response, with its status."),
            ("renewal_extension_response", "An App Store Server API renewal-date extension response."),
            (
              "advanced_commerce_response",
              "An Advanced Commerce API response: a transaction made through it and its renewal info."
            ),
            ("one_customer", "Every input merged as one customer's history (--one-customer)."),
          ])),
      .always(
        "status",
        S.nullable(
          S.integer("Apple's status code (0 valid; 21000-21010, 21100-21199 problems).", minimum: nil),
          "when the document has no status")),
      .always(
        "status_meaning", S.nullable(S.string("Apple's meaning of the status."), "when the document has no status")),
      .always("is_retryable", S.nullable(S.boolean("is-retryable / is_retryable as Apple states it."), "when absent")),
      .always(
        "environment",
        S.nullable(
          S.string("Carried through from Apple's data as written (Production, Sandbox, Xcode, LocalTesting, ...)."),
          "when absent")),
      .always("signature_check", S.ref("signature_check")),
      .sometimes(
        "response_status", when: "for a Look Up Order ID response",
        S.object(
          "The response's own status.",
          [
            .always("field", S.string("The field that holds it (status).")),
            .always("code", S.integer("Apple's code: 0 valid, 1 invalid order id.", minimum: nil)),
            .always("meaning", S.string("Apple's meaning of the code.")),
            .always("valid", S.boolean("Whether the response holds purchases; false fails every answer (exit 65).")),
          ])),
      .sometimes("page", when: "for a paged response that states hasMore or a continuation", S.ref("page")),
      .sometimes(
        "notifications", when: "for a notification history or test notification status response",
        S.array(
          "Each notification delivered, in response order.",
          of: S.object(
            "One notification and its send attempts.",
            [
              .always(
                "notification_type", S.nullable(S.string("notificationType, as Apple writes it."), "when absent")),
              .always("notification_uuid", S.nullable(S.string("notificationUUID."), "when absent")),
              .always("signed_date", S.nullable(S.date("signedDate."), "when absent")),
              .always(
                "problem",
                S.nullable(S.string("Why its signed payload could not be read."), "when it was read")),
              .always(
                "send_attempts",
                S.array(
                  "sendAttempts: each attempt to deliver it.",
                  of: S.object(
                    "One send attempt.",
                    [
                      .always("attempt_date", S.nullable(S.date("attemptDate."), "when absent")),
                      .always(
                        "result",
                        S.nullable(
                          S.string(
                            "sendAttemptResult, carried through from Apple's data as written (SUCCESS, TIMED_OUT, ...)."
                          ), "when absent")),
                    ]))),
            ]))),
      .sometimes("signature", when: "for signed data", S.ref("signature")),
      .sometimes("notification", when: "for a notification body", S.ref("notification")),
      .always("receipt", S.nullable(S.ref("receipt"), "when the document holds no receipt object")),
      .sometimes(
        "receipt_attributes", when: "for an app receipt with attributes it carries without a meaning",
        S.array(
          "An app receipt's attributes 1, 4, 5, 8 and 10 and the ones carried (the opaque value and the hash in hex).",
          of: S.ref("carried_field"))),
      .sometimes("fields", when: "when not empty", S.ref("source_fields")),
      .always("transactions", S.array("Every transaction, merged by transaction_id.", of: S.ref("transaction"))),
      .always("pending_renewals", S.array("The pending renewal information.", of: S.ref("pending_renewal"))),
      .always(
        "latest_receipt_length",
        S.nullable(
          S.integer("The length of the base64 latest_receipt (only --show-secrets prints it)."), "when there is none")),
      .sometimes(
        "latest_receipt", when: "with --show-secrets",
        S.string("The base64 latest_receipt in full: a customer credential.")),
      .always("duplicate_rows_merged", S.integer("Rows merged because they repeat a transaction.")),
      .always(
        "warnings",
        S.array(
          "Values carried through rather than understood, each at its path.",
          of: S.object(
            "One warning.",
            [
              .always("path", S.string("Where the value was (receipt.in_app[2].expires_date_ms).")),
              .always("message", S.string("What was carried through and why.")),
            ]))),
    ])

  static let signature = S.object(
    "What the header of signed data says (whether it verifies is signature_check).",
    [
      .always("algorithm", S.nullable(S.string("The header's alg, as written."), "when absent")),
      .always("key_id", S.nullable(S.string("The header's kid."), "when absent")),
      .always("certificates", S.integer("How many certificates x5c holds.")),
      .always("signed_by", S.nullable(S.string("The leaf certificate's subject."), "when unreadable")),
      .sometimes(
        "certificate_details", when: "when x5c holds certificates",
        S.array(
          "Each certificate, leaf first.",
          of: S.object(
            "One certificate.",
            [
              .always("subject", S.nullable(S.string("Subject."), "when unreadable")),
              .always("issuer", S.nullable(S.string("Issuer."), "when unreadable")),
              .always("not_before", S.nullable(S.date("Start of validity."), "when unreadable")),
              .always("not_after", S.nullable(S.date("End of validity."), "when unreadable")),
              .sometimes("problem", when: "when the certificate cannot be read", S.string("Why.")),
            ]))),
    ])

  static let notification = S.object(
    "A notification body's own facts.",
    [
      .always(
        "notification_type",
        S.nullable(
          S.string("Carried through from Apple's data as written (DID_RENEW, SUBSCRIBED, ...)."), "when absent")),
      .always("environment", S.nullable(S.string("Carried through from Apple's data as written."), "when absent")),
      .always("auto_renew_status", S.nullable(S.ref("auto_renew_status"), "when absent")),
      .always(
        "auto_renew_product_id", S.nullable(S.string("The product the subscription renews into."), "when absent")),
      .always("bundle_id", S.nullable(S.string("The app's bundle id."), "when absent")),
      .always("has_password", S.boolean("Whether the body carries the shared secret (password).")),
      .sometimes("password", when: "with --show-secrets", S.string("The shared secret: a credential.")),
      .sometimes("fields", when: "when not empty", S.ref("source_fields")),
    ])

  static let receipt = S.object(
    "The receipt object's metadata.",
    [
      .always("bundle_id", S.nullable(S.string("bundle_id."), "when absent")),
      .always("application_version", S.nullable(S.string("application_version."), "when absent")),
      .always("original_application_version", S.nullable(S.string("original_application_version."), "when absent")),
      .always(
        "receipt_type",
        S.nullable(
          S.string("Carried through from Apple's data as written (Production, ProductionSandbox, ...)."), "when absent")
      ),
      .always("receipt_creation_date", S.nullable(S.date("receipt_creation_date."), "when absent")),
      .always("request_date", S.nullable(S.date("request_date."), "when absent")),
      .always("original_purchase_date", S.nullable(S.date("original_purchase_date."), "when absent")),
      .sometimes(
        "original_platform", when: "in an AppTransaction",
        S.string(
          "originalPlatform, as written (iOS, macOS, tvOS, visionOS): which version original_application_version is.")),
      .sometimes("fields", when: "when not empty", S.ref("source_fields")),
    ])

  static let carriedField = S.object(
    "A field carried through without a meaning, with the format's own type number.",
    [
      .always("type", S.integer("The format's number for the field (an ASN.1 attribute type).", minimum: nil)),
      .always("name", S.nullable(S.string("The community's name for it."), "when there is none")),
      .always(
        "value",
        S.string("The value as text: strings as they are, integers in decimal, dates in ISO 8601, other bytes in hex.")),
      .always("encoding", S.string("How the value was encoded (utf8String, ia5String, integer, date, bytes).")),
    ])

  static let productType = S.enumeration(
    "The product's type.",
    [
      ("auto_renewable", "An auto-renewable subscription."),
      ("non_renewing", "A non-renewing subscription."),
      ("non_consumable", "A non-consumable."),
      ("consumable", "A consumable."),
    ])

  static let transaction = S.object(
    "One transaction.",
    [
      .always("transaction_id", S.string("transaction_id, kept as a string.")),
      .always("original_transaction_id", S.nullable(S.string("original_transaction_id."), "when absent")),
      .always("product_id", S.string("product_id.")),
      .always(
        "product_type", S.nullable(productType, "when it cannot be known (no catalog entry and no expires_date)")),
      .always(
        "product_type_basis",
        S.nullable(
          S.enumeration(
            "How product_type is known.",
            [
              ("catalog", "The catalog says so."),
              ("transaction", "The transaction itself says so (signed transactions' type)."),
              ("expires_date", "Only auto-renewable subscriptions carry expires_date."),
              (
                "family_shared",
                "Family-shared with no expiry date: only auto-renewable subscriptions and non-consumables can be shared."
              ),
            ]),
          "when product_type is")),
      .sometimes(
        "entitlements", when: "when the catalog lists the product",
        S.array("The catalog's entitlements of the product.", of: S.string("An entitlement name."))),
      .always("ownership", S.ref("ownership")),
      .always("ownership_assumed", S.boolean("True when the data has no ownership field and PURCHASED is assumed.")),
      .always("quantity", S.nullable(S.integer("quantity."), "when absent")),
      .always("purchase_date", S.nullable(S.date("purchase_date."), "when absent")),
      .always("original_purchase_date", S.nullable(S.date("original_purchase_date."), "when absent")),
      .always("expires_date", S.nullable(S.date("expires_date."), "when absent")),
      .always(
        "cancellation_date",
        S.nullable(
          S.date("cancellation_date or revocationDate: a refund or a Family Sharing revocation."), "when not cancelled")
      ),
      .always(
        "cancellation_reason",
        S.nullable(
          S.enumeration(
            "Apple's code for why it was refunded or revoked.",
            [("1", "The customer reported a problem with the app."), ("0", "Another reason.")],
            carried: "a code Apple does not document, kept as received."),
          "when the data states none")),
      .always("is_trial_period", S.boolean("A free-trial period.")),
      .always("is_in_intro_offer_period", S.boolean("An introductory-price period.")),
      .always("is_upgraded", S.boolean("Replaced by an upgrade.")),
      .always("subscription_group", S.nullable(S.string("subscription_group_identifier."), "when absent")),
      .always("web_order_line_item_id", S.nullable(S.string("web_order_line_item_id."), "when absent")),
      .always(
        "promotional_offer_id", S.nullable(S.string("The promotional offer's id."), "unless a promotional offer")),
      .always("offer_code_ref_name", S.nullable(S.string("The offer code's reference name."), "unless an offer code")),
      .always(
        "sources",
        S.array(
          "Which arrays or items it came from, in this order.",
          of: S.enumeration(
            "A source.",
            [
              ("in_app", "receipt.in_app."), ("latest_receipt_info", "latest_receipt_info."),
              ("receipt", "A notification v1's or an iOS 6 response's receipt."),
              ("latest_expired_receipt_info", "latest_expired_receipt_info."),
              ("signed_transaction", "A signed transaction (StoreKit 2, App Store Server API, V2 notification)."),
              ("app_receipt", "An on-device app receipt."),
            ]))),
      .sometimes(
        "revocation_type", when: "when signed data states one",
        S.string(
          "revocationType, carried through from Apple's data as written (REFUND_FULL, REFUND_PRORATED, FAMILY_REVOKE).")
      ),
      .sometimes(
        "offer", when: "for a signed transaction with an offer",
        S.object(
          "The offer used.",
          [
            .always(
              "kind",
              S.enumeration(
                "offerType.",
                [
                  ("introductory", "An introductory offer."), ("promotional", "A promotional offer."),
                  ("offer_code", "An offer code."), ("win_back", "A win-back offer."),
                ],
                carried: "an offerType Apple did not document when this version was written, kept as written.")),
            .always("identifier", S.nullable(S.string("offerIdentifier."), "when absent")),
          ])),
      .sometimes("signed_date", when: "for a signed transaction", S.date("signedDate.")),
      .sometimes(
        "price", when: "when the data states a price",
        S.object(
          "The price the data states.",
          [
            .always(
              "amount",
              S.string(
                "A decimal string in the currency's minor digits (signed data's milliunits converted), or as stated when that would drop digits.",
                pattern: "^-?[0-9]+(\\.[0-9]+)?$")),
            .always("currency", S.string("The ISO 4217 code, as stated.")),
          ])),
      .sometimes(
        "attributes", when: "for an app receipt's purchase with attributes carried without a meaning",
        S.array("Attributes carried through.", of: S.ref("carried_field"))),
      .sometimes(
        "billing_plan_type", when: "when the signed data states a billing plan or a commitment",
        S.nullable(S.ref("billing_plan_type"), "when only commitmentInfo is stated")),
      .sometimes(
        "commitment", when: "when the signed data states commitmentInfo",
        S.object(
          "commitmentInfo: where the charge stands in its commitment.",
          [
            .always(
              "billing_period_number",
              S.nullable(S.integer("billingPeriodNumber: which period this is."), "when absent")),
            .always(
              "total_billing_periods",
              S.nullable(S.integer("totalBillingPeriods: the periods of the commitment."), "when absent")),
            .always(
              "commitment_expires_date",
              S.nullable(S.date("commitmentExpiresDate: when the commitment ends."), "when absent")),
            .always(
              "commitment_price",
              S.nullable(S.ref("stated_price", "commitmentPrice: the whole commitment's price."), "when absent")),
          ])),
      .sometimes("fields", when: "when not empty", S.ref("source_fields")),
    ])

  static let pendingRenewal = S.object(
    "One pending renewal (pending_renewal_info, signed renewal info).",
    [
      .always("product_id", S.nullable(S.string("The product of the current period."), "when absent")),
      .always("auto_renew_product_id", S.nullable(S.string("The product it renews into."), "when absent")),
      .always("original_transaction_id", S.nullable(S.string("The subscription chain."), "when absent")),
      .always("auto_renew_status", S.nullable(S.ref("auto_renew_status"), "when absent")),
      .always(
        "expiration_intent",
        S.nullable(
          S.enumeration(
            "Apple's code for why the subscription expired.",
            [
              ("1", "The customer cancelled the subscription."), ("2", "A billing error."),
              ("3", "The customer did not consent to a price increase."), ("4", "The product was not available."),
              ("5", "Another reason."),
            ],
            carried: "a code Apple does not document, kept as received."),
          "when absent")),
      .always(
        "is_in_billing_retry_period",
        S.nullable(S.boolean("Whether Apple is still retrying the renewal."), "when absent")),
      .always("grace_period_expires_date", S.nullable(S.date("The end of the billing grace period."), "when absent")),
      .always(
        "price_consent_status", S.nullable(S.string("Carried through from Apple's data as written."), "when absent")),
      .sometimes("renewal_date", when: "when signed renewal info states one", S.date("renewalDate.")),
      .sometimes("apple_status", when: "when the data carries Apple's own status for the chain", S.ref("apple_status")),
      .sometimes(
        "renewal_billing_plan_type", when: "when signed renewal info states one",
        S.ref("billing_plan_type", "renewalBillingPlanType: the plan of the next renewal.")),
      .sometimes(
        "commitment", when: "when signed renewal info states commitmentInfo",
        S.object(
          "commitmentInfo: what the subscription renews into when the commitment ends.",
          [
            .always(
              "commitment_auto_renew_product_id",
              S.nullable(S.string("commitmentAutoRenewProductId."), "when absent")),
            .always(
              "commitment_auto_renew_status",
              S.nullable(S.ref("auto_renew_status", "commitmentAutoRenewStatus."), "when absent")),
            .always(
              "commitment_renewal_billing_plan_type",
              S.nullable(S.ref("billing_plan_type", "commitmentRenewalBillingPlanType."), "when absent")),
            .always("commitment_renewal_date", S.nullable(S.date("commitmentRenewalDate."), "when absent")),
            .always(
              "commitment_renewal_price",
              S.nullable(S.ref("stated_price", "commitmentRenewalPrice."), "when absent")),
          ])),
      .sometimes("fields", when: "when not empty", S.ref("source_fields")),
    ])

  static let billingPlanType = S.enumeration(
    "A billing plan (App Store Server API 1.21).",
    [
      ("BILLED_UPFRONT", "The whole period is charged at its start."),
      ("MONTHLY", "Charged monthly through a commitment."),
    ],
    carried: "a plan Apple does not document, kept as read and warned about.")

  static let statedPrice = S.object(
    "A price the signed data states.",
    [
      .always("amount", S.string("The amount in the currency's units (9.99).")),
      .always("currency", S.string("The ISO 4217 currency code.")),
    ])

  static let autoRenewStatus = S.enumeration(
    "Whether the subscription will renew, as Apple's code.",
    [("1", "It will renew."), ("0", "It will not.")],
    carried: "a code Apple does not document, kept as received.")
}
