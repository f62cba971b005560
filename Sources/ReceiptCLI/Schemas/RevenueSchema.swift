import ReceiptFormats

/// `revenue --format json` (`RevenueReportCodec`) and `--format ledger | keyed-ledger` (`LedgerCodec`; a keyed
/// line is the key, a tab, then the line).
package enum RevenueSchema {
  typealias S = JSONSchema
  typealias Field = JSONSchema.Field

  package static let schema = S.document(
    command: "revenue", title: "receipt-tool revenue --format json | ledger | keyed-ledger",
    description:
      "--format json writes one report for all documents (report). --format ledger writes one line per transaction copy (ledger_record), one verdict line per document (ledger_verdict) and one line per input that could not be read (ledger_error); keyed-ledger prefixes each with a key and a tab.",
    root: [
      ("if", .object([("required", .array([.string("currencies")]))])),
      ("then", S.ref("report")),
      (
        "else",
        .object([
          ("if", .object([("required", .array([.string("id")]))])),
          ("then", S.ref("ledger_record")),
          (
            "else",
            .object([
              ("if", .object([("required", .array([.string("signature_check")]))])),
              ("then", S.ref("ledger_verdict")),
              (
                "else",
                .object([
                  ("if", .object([("required", .array([.string("error")]))])),
                  ("then", S.ref("ledger_error")),
                  ("else", S.ref("report")),
                ])
              ),
            ])
          ),
        ])
      ),
    ],
    definitions: [
      ("report", report), ("currency", currency), ("group", group), ("upgrade_proration", upgradeProration),
      ("counts", counts), ("money", money), ("report_signature_check", verdict(summaries: true)),
      ("report_backing", backing(summaries: true)), ("part", part), ("ledger_record", ledgerRecord),
      ("ledger_verdict", ledgerVerdict), ("ledger_signature_check", verdict(summaries: false)),
      ("ledger_backing", backing(summaries: false)), ("ledger_error", ledgerError),
      ("verdict", SharedSchemas.verdict), ("chain_certificate", SharedSchemas.chainCertificate),
      ("signature_failure", SharedSchemas.signatureFailure), ("money_backing", moneyBacking),
      ("backed_figures", backedFigures),
    ])

  static let money = S.string(
    "An exact amount as a decimal string with the currency's minor digits (\"74.90\", \"300\").",
    pattern: "^-?[0-9]+(\\.[0-9]+)?$")

  static let report = S.object(
    "The report over every document read.",
    [
      SharedSchemas.schemaVersion,
      .always(
        "currencies", S.array("One entry per currency; currencies are never added together.", of: S.ref("currency"))),
      .always("transactions", S.ref("counts")),
      .always(
        "unpriced",
        S.array(
          "Products whose transactions have no price: listed, never valued at zero.",
          of: S.object(
            "An unpriced product.",
            [
              .always("product_id", S.string("The product.")),
              .always("units", S.integer("Its units.")),
            ]))),
      .always(
        "errors",
        S.array(
          "Documents that could not be read; the rest are still summed.",
          of: S.object(
            "A document that could not be read.",
            [
              .always("input", S.string("The document's name.")),
              .always("message", S.string("Why.")),
            ]))),
      .always(
        "signature_check",
        S.nullable(
          S.ref("report_signature_check"),
          "when no document's verdict was read (no document, a reduce that got no verdict line, ledgers written before verdict lines)"
        )),
      .sometimes(
        "part", when: "except in a --merge of reports that carry none (written by receipt-tool before 1.1)",
        S.ref("part")),
    ])

  /// The amounts of a currency or a group, in order.
  static let amounts: [Field] = [
    .always("gross", S.ref("money", "What purchasers paid.")),
    .always("refunds", S.ref("money", "What was refunded.")),
    .sometimes("upgrade_proration", when: "where there is one", S.ref("upgrade_proration")),
    .always("net", S.ref("money", "Gross minus refunds and estimated proration refunds.")),
    .sometimes(
      "proceeds", when: "with --commission", S.ref("money", "An estimate of proceeds after Apple's commission.")),
  ]

  static let currency = S.object(
    "One currency's totals and groups.",
    [.always("currency", S.string("The ISO 4217 code."))] + amounts + [
      .always("backing", S.ref("money_backing")),
      .sometimes("commitments", when: "when a charge on a commitment plan was counted", commitments),
      .always("groups", S.array("The rows, as --by groups them.", of: S.ref("group"))),
    ])

  /// A currency's charges on commitment plans (`CommitmentTotals`): sums over distinct transactions.
  static let commitments = S.object(
    "Charges on commitment plans (commitmentInfo) and the commitments they started, as the data states them.",
    [
      .always("charges", S.integer("Sales that state commitmentInfo.")),
      .always("charges_gross", S.ref("money", "Their gross.")),
      .always("started", S.integer("Charges of billing period 1: the commitments that started.")),
      .always("committed", S.ref("money", "The commitmentPrice of those started, summed.")),
      .always(
        "started_without_price",
        S.integer(
          "Commitments started that state no commitmentPrice in the charge's currency (never valued at 0).")),
    ])

  /// How much of a currency's money rests on a signature (`MoneyBacking`).
  static let moneyBacking = S.object(
    "How much of the currency's money rests on a verified signature that covers both the amount and the ownership it was counted under (a signed transaction's own price, currency and inAppOwnershipType). Backed plus not backed is the currency's total.",
    [
      .always("backed", S.ref("backed_figures", "Money a verified signature backs, through any trusted root.")),
      .always(
        "backed_through_trust_root",
        S.ref("backed_figures", "The part of backed whose chain ends at a --trust-root, not Apple's root.")),
      .always(
        "not_backed",
        S.object(
          "Money no signature backs, and why.",
          backedFigureFields + [
            .always(
              "reasons",
              S.array(
                "Each reason with money, in this order; reasons with nothing are left out.",
                of: S.object(
                  "The money not backed for one reason.",
                  [
                    .always(
                      "reason",
                      S.enumeration(
                        "Why it is not backed.",
                        [
                          ("signature_invalid", "A signature of its document failed."),
                          ("unsigned", "Its document carries no signature."),
                          ("signature_not_checked", "Signatures were not checked (--skip-signature-check)."),
                          ("test_signed", "Test-signed: intact, but not Apple's."),
                          ("catalog_price", "Signed data that states no price: valued at the catalog's price."),
                          (
                            "ownership_not_signed",
                            "The ownership it was counted under is not the signed payload's own."
                          ),
                          (
                            "price_and_ownership_not_signed",
                            "A receipt or verifyReceipt row: a receipt states no price and no ownership."
                          ),
                          (
                            "not_recorded",
                            "Read from a ledger or part of an older receipt-tool that did not record it."
                          ),
                        ])),
                    .always("explanation", S.string("The reason in a few words a finance person can read out.")),
                  ] + backedFigureFields)))
          ])),
    ])

  static let backedFigureFields: [Field] = [
    .always("transactions", S.integer("Transactions counted.")),
    .always("gross", S.ref("money", "What purchasers paid.")),
    .always("refunds", S.ref("money", "What was refunded.")),
    .always("estimated_proration_refunds", S.ref("money", "Estimated upgrade proration refunds.")),
    .always("net", S.ref("money", "Gross minus refunds and estimated proration refunds.")),
    .sometimes(
      "proceeds", when: "with --commission", S.ref("money", "An estimate of proceeds after Apple's commission.")),
  ]

  static let backedFigures = S.object("Money and the transactions it comes from.", backedFigureFields)

  static let group = S.object(
    "One row.",
    [
      .always("key", S.string("The product id, the month (2024-03), the day (2024-03-01) or all, as --by says.")),
      .always("units", S.integer("Units sold.")),
      .always("trials", S.integer("Free-trial units.")),
      .always("refunded", S.integer("Refunded units.")),
    ] + amounts)

  static let upgradeProration = S.object(
    "An estimate of what upgrades refunded, from dates: never Apple's figure.",
    [
      .always("units", S.integer("Upgrades estimated.")),
      .always("refunds", S.ref("money", "The estimated refunds.")),
      .always("estimated", S.constant(.bool(true), "Always true: an estimate.")),
      .always("basis", S.constant(.string(RevenueReportCodec.prorationBasis), "How it was arrived at.")),
    ])

  static let counts = S.object(
    "Transaction counts.",
    [
      .always("counted", S.integer("Transactions counted as revenue.")),
      .always("family_shared_excluded", S.integer("FAMILY_SHARED copies, left out.")),
      .always("duplicates_merged", S.integer("Copies of a transaction merged by transaction_id.")),
      .always("refunded", S.integer("Refunded transactions.")),
      .always("trials", S.integer("Free-trial transactions.")),
      .always("unpriced", S.integer("Transactions without a price.")),
      .always("unrecognized_ownership_excluded", S.integer("Ownership values Apple does not document, left out.")),
      .always("undated_excluded", S.integer("Transactions without a purchase date, left out with --from or --to.")),
      .sometimes("upgrade_prorations", when: "when not 0", S.integer("Upgrade prorations estimated.")),
      .sometimes(
        "upgrades_not_estimated", when: "when not 0",
        S.integer("Upgrades without a price, dates or replacing purchase.")),
      .sometimes(
        "unknown_ownership_excluded", when: "when not 0",
        S.integer("Transactions whose data cannot say who bought them (an on-device receipt), left out.")),
      .sometimes(
        "priced_from_transaction", when: "when not 0",
        S.integer("Transactions priced from their own price and currency (signed data) rather than from a catalog.")),
      .sometimes(
        "partial_refunds", when: "when not 0",
        S.integer("Refunds of part of the price (revocationPercentage, or Advanced Commerce item refunds).")),
      .sometimes("refunds_reversed", when: "when not 0", S.integer("Refunds Apple reversed.")),
    ])

  /// A report's or a ledger verdict line's `signature_check` (`RevenueSignatureVerdict.write`): a ledger line
  /// leaves the summaries out.
  static func verdict(summaries: Bool) -> JSONValue {
    S.object(
      summaries
        ? "The weakest verdict of the documents the report was made from, with the counts of all their signed items, the chain and moment of the item that speaks for it, and at most 20 failures, each path led by its document's name."
        : "The document's verdict, as the report's signature_check without the summaries.",
      SharedSchemas.verdictFields.filter { summaries || $0.name != "summary" } + [
        .always(
          "backing",
          S.nullable(
            S.ref(summaries ? "report_backing" : "ledger_backing"), "when no document carries a latest_receipt")),
        .always(
          "checked_at_sources",
          S.array("Where the moments came from (signedDate, now), sorted.", of: S.string("A source."))),
      ])
  }

  /// The receipt backings of the verifyReceipt and notification v1 bodies, summed.
  static func backing(summaries: Bool) -> JSONValue {
    S.object(
      "The receipt backings of the documents, summed; each document's own output names the transactions.",
      [
        .always(
          "outcome",
          S.enumeration(
            "What the sums come to.",
            [
              ("backed", "Every transaction is backed."),
              ("partly-backed", "None contradicts a signed receipt, but some are not in one."),
              ("contradicted", "At least one transaction contradicts its signed receipt."),
              ("not-a-receipt", "No document's latest_receipt holds a receipt."),
            ]))
      ] + (summaries ? [.always("summary", S.string("The sums in one phrase."))] : []) + [
        .always("documents", S.integer("Documents carrying a latest_receipt.")),
        .always("not_a_receipt_documents", S.integer("Of those, whose latest_receipt is not a receipt.")),
        .always("not_signed_by_apple_documents", S.integer("Of the rest, whose receipt is not signed by Apple.")),
        .always("transactions", S.integer("Transactions compared.")),
        .always("backed_transactions", S.integer("Backed.")),
        .always("contradicted_transactions", S.integer("Contradicted.")),
        .always("not_in_receipt_transactions", S.integer("Not in the signed receipt.")),
        .always("only_in_receipt_transactions", S.integer("In the signed receipt only.")),
      ])
  }

  static let part = S.object(
    "The report's identity, for --merge.",
    [
      .always(
        "digest",
        S.string(
          "A sum of one digest per distinct transaction and per unreadable input, mixed with the options that change the numbers.",
          pattern: "^[0-9a-f]{16}$")),
      .always("by", S.string("--by.")),
      .always("commission", S.string("--commission.")),
      .always(
        "parts",
        S.array("The digests of what a merged report sums.", of: S.string("A digest.", pattern: "^[0-9a-f]{16}$"))),
      .sometimes("shard", when: "for a reduce's report", S.constant(.bool(true), "A shard of one shuffle.")),
    ])

  static let ledgerRecord = S.object(
    "One transaction as one document states it (--format ledger).",
    [
      SharedSchemas.schemaVersion,
      .always("id", S.string("The transaction id.")),
      .always("copy", S.string("The content digest of the document it came from.")),
      .always("product", S.string("The product id.")),
      .always(
        "ownership",
        S.enumeration(
          "Who owns it, in the ledger's own words.",
          [
            ("purchased", "PURCHASED."), ("family_shared", "FAMILY_SHARED."),
            ("unknown", "The format cannot say (an on-device receipt)."),
            ("unrecognized", "A value Apple does not document, in ownership_value."),
          ])),
      .sometimes(
        "ownership_value", when: "when ownership is unrecognized",
        S.string("The value, carried through from Apple's data as written.")),
      .always("quantity", S.integer("Units.")),
      .sometimes(
        "purchased_ms", when: "when the data has a purchase date",
        S.integer("Purchase date, milliseconds since 1970.", minimum: nil)),
      .sometimes(
        "refunded_ms", when: "when refunded", S.integer("Refund date, milliseconds since 1970.", minimum: nil)),
      .sometimes(
        "refund_share", when: "when signed data states a partial refund",
        .object([
          ("type", .string("integer")),
          ("description", .string("The refunded share in milliunits of a percent (50000 is 50%).")),
          ("minimum", .int(0)), ("maximum", .int(100_000)),
        ])),
      .sometimes(
        "refund_reversed_ms", when: "when Apple reversed the refund",
        S.integer("When, milliseconds since 1970.", minimum: nil)),
      .sometimes(
        "signed_ms", when: "for a signed copy", S.integer("Its signedDate, milliseconds since 1970.", minimum: nil)),
      .always(
        "value",
        S.enumeration(
          "What the transaction is worth.",
          [
            ("not_valued", "Not revenue (not purchased by this customer)."),
            ("unpriced", "No price in the catalog or the data."),
            ("trial", "A free trial, worth nothing."),
            ("paid", "Paid: currency, price and basis follow."),
          ])),
      .sometimes("currency", when: "when paid, or a trial whose currency is known", S.string("The ISO 4217 code.")),
      .sometimes("price", when: "when paid", S.ref("money", "The price times the quantity.")),
      .sometimes(
        "basis", when: "when paid",
        S.enumeration(
          "Where the price came from.",
          [
            ("catalog", "The catalog's price."), ("intro", "The catalog's introductory price."),
            ("transaction", "The transaction's own price (signed data)."),
          ])),
      .sometimes(
        "paid_service_before_ms", when: "for a subscription with paid service before it",
        S.integer("Paid service of its subscription before it (the commission year), milliseconds.", minimum: nil)),
      .sometimes(
        "upgrade", when: "for an upgraded transaction",
        S.enumeration(
          "Its upgrade proration.",
          [
            ("not_estimated", "Without a price, dates or replacing purchase."),
            ("nothing_to_refund", "No unused part."),
            ("estimated", "Estimated from dates: upgraded_ms and proration_refund follow."),
          ])),
      .sometimes(
        "upgraded_ms", when: "when estimated", S.integer("When it was upgraded, milliseconds since 1970.", minimum: nil)
      ),
      .sometimes("proration_refund", when: "when estimated", S.ref("money", "The estimated refund.")),
      .sometimes("duplicate_rows", when: "when not 0", S.integer("Rows of the document that repeat it.")),
      .sometimes(
        "commitment", when: "for a charge on a commitment plan",
        S.object(
          "What its commitmentInfo states, as the commitment totals read it.",
          [
            .sometimes("period", when: "when stated", S.integer("billingPeriodNumber, from 1.")),
            .sometimes("periods", when: "when stated", S.integer("totalBillingPeriods.")),
            .sometimes(
              "price", when: "when stated",
              S.string("commitmentPrice as a decimal amount in units of currency (not rounded).")),
            .sometimes("currency", when: "with price", S.string("The ISO 4217 code of price.")),
          ])),
      .sometimes(
        "item_refunds", when: "for an Advanced Commerce transaction with item refunds",
        S.array(
          "Its items' refunds (advancedCommerceInfo.items[].refunds[]), each booked on its own date.",
          of: S.object(
            "One item refund.",
            [
              .always("refunded_ms", S.integer("refundDate, milliseconds since 1970.")),
              .always("amount", S.string("refundAmount as a decimal amount in units of currency.")),
              .always("currency", S.string("The transaction's ISO 4217 currency.")),
            ]))),
      .sometimes(
        "signature", when: "on lines of this version (an older line's backing is not_recorded)",
        S.enumeration(
          "Its document's signature verdict.",
          [
            ("invalid", "A signature failed."), ("unsigned", "No signature."), ("not-checked", "Not checked."),
            ("test-signed", "Test-signed, not Apple's."), ("verified", "Verified through a trusted chain."),
          ])),
      .sometimes(
        "anchor", when: "exactly when signature is verified",
        S.enumeration(
          "The root the verified chain ends at.",
          [("apple", "A root compiled into receipt-tool (Apple's)."), ("trust-root", "A --trust-root, not Apple's.")])),
      .sometimes(
        "ownership_signed", when: "whenever signature is",
        S.boolean("Whether the ownership it is counted under is the signed payload's own.")),
    ])

  static let ledgerVerdict = S.object(
    "A document's signature verdict (--format ledger), after its transactions.",
    [
      SharedSchemas.schemaVersion,
      .always("input", S.string("The document's name, as its failures are named.")),
      .always("copy", S.string("The document's content digest, as its records' copy.")),
      .always("signature_check", S.ref("ledger_signature_check")),
    ])

  static let ledgerError = S.object(
    "An input the map step could not read (--format ledger).",
    [
      SharedSchemas.schemaVersion,
      .always("error", S.string("Why.")),
      .always("input", S.string("The input's name.")),
    ])
}
