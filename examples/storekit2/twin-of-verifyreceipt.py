#!/usr/bin/env python3
"""Write the StoreKit 2 twin of a hand-written verifyReceipt example (HAND-WRITTEN, UNSIGNED).

Usage:
  twin-of-verifyreceipt.py [--catalog catalog.json ...] example.json > twin.jws    # JWS lines
  twin-of-verifyreceipt.py --notification [--catalog ...] notification-v1.json > twin.json

A verifyReceipt response becomes one history: one signed transaction per transaction (latest_receipt_info
over in_app), then one signed renewal info per pending_renewal_info entry, one JWS per line, each signed
at the response's request_date (so both formats are evaluated at the same moment). A notification v1 body
becomes a Notifications V2 body ({"signedPayload": ...}) carrying its newest transaction and that chain's
renewal info; REVOKE and DID_RENEW keep their names.

Field by field: in_app_ownership_type -> inAppOwnershipType; cancellation_date/_reason -> revocationDate/
revocationReason; is_trial_period -> offerType 1 + FREE_TRIAL; is_in_intro_offer_period -> offerType 1 + the
catalog's intro payment mode; the product's catalog type -> type (an expires_date alone means
Auto-Renewable); the catalog price x quantity -> price (milliunits) + currency, 0 in a free trial, the intro
price in an intro period; no price when the catalog has none (as in transactions older than Apple's price
field). Headers and signatures are make-jws.py's: kid "hand-written", 64 zero bytes.

Python 3 standard library only.
"""
import importlib.util
import json
import os
import sys
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("make_jws", os.path.join(HERE, "make-jws.py"))
make_jws = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_jws)

TYPES = {
    "auto_renewable": "Auto-Renewable Subscription",
    "non_renewing": "Non-Renewing Subscription",
    "non_consumable": "Non-Consumable",
    "consumable": "Consumable",
}
MODES = {"free_trial": "FREE_TRIAL", "pay_as_you_go": "PAY_AS_YOU_GO", "pay_up_front": "PAY_UP_FRONT"}


def ms(row, key):
    value = row.get(key + "_ms")
    return int(value) if value is not None else None


def flag(row, key):
    return str(row.get(key, "false")).lower() in ("true", "1")


def transaction(row, catalog, bundle, environment, signed):
    product = catalog.get(row["product_id"], {})
    quantity = int(row.get("quantity", "1"))
    out = {
        "transactionId": row["transaction_id"],
        "originalTransactionId": row.get("original_transaction_id", row["transaction_id"]),
        "webOrderLineItemId": row.get("web_order_line_item_id"),
        "bundleId": bundle,
        "productId": row["product_id"],
        "subscriptionGroupIdentifier": row.get("subscription_group_identifier"),
        "purchaseDate": ms(row, "purchase_date"),
        "originalPurchaseDate": ms(row, "original_purchase_date"),
        "expiresDate": ms(row, "expires_date"),
        "quantity": quantity,
        "inAppOwnershipType": row.get("in_app_ownership_type", "PURCHASED"),
        "signedDate": signed,
        "environment": environment,
        "transactionReason": "PURCHASE",
        "storefront": "USA",
    }
    kind = product.get("type") or ("auto_renewable" if out["expiresDate"] is not None else None)
    if kind:
        out["type"] = TYPES[kind]
    price = product.get("price")
    if flag(row, "is_trial_period"):
        out.update(offerType=1, offerDiscountType="FREE_TRIAL")
        price = "0"
    elif flag(row, "is_in_intro_offer_period"):
        intro = product.get("intro_offer", {})
        out.update(offerType=1, offerDiscountType=MODES.get(intro.get("payment_mode"), "PAY_AS_YOU_GO"))
        price = "0" if intro.get("payment_mode") == "free_trial" else intro.get("price")
    if row.get("promotional_offer_id"):
        out.update(offerType=2, offerIdentifier=row["promotional_offer_id"])
    if row.get("offer_code_ref_name"):
        out.update(offerType=3, offerIdentifier=row["offer_code_ref_name"])
    if price is not None and product.get("currency"):
        out["price"] = int(Decimal(price) * 1000) * quantity
        out["currency"] = product["currency"]
    if ms(row, "cancellation_date") is not None:
        out["revocationDate"] = ms(row, "cancellation_date")
        out["revocationReason"] = int(row.get("cancellation_reason", "0"))
        shared = out["inAppOwnershipType"] == "FAMILY_SHARED"
        out["revocationType"] = "FAMILY_REVOKE" if shared else "REFUND_FULL"
    if flag(row, "is_upgraded"):
        out["isUpgraded"] = True
    return {k: v for k, v in out.items() if v is not None}


def renewal(row, environment, signed):
    out = {
        "originalTransactionId": row.get("original_transaction_id"),
        "productId": row.get("product_id"),
        "autoRenewProductId": row.get("auto_renew_product_id"),
        "autoRenewStatus": int(row["auto_renew_status"]) if "auto_renew_status" in row else None,
        "expirationIntent": int(row["expiration_intent"]) if "expiration_intent" in row else None,
        "isInBillingRetryPeriod": flag(row, "is_in_billing_retry_period") if "is_in_billing_retry_period" in row else None,
        "gracePeriodExpiresDate": ms(row, "grace_period_expires_date"),
        "signedDate": signed,
        "environment": environment,
    }
    return {k: v for k, v in out.items() if v is not None}


def rows(body):
    """Transactions in first-seen order, latest_receipt_info's copy winning, as receipt-tool merges them."""
    receipt = body.get("receipt", {})
    unified = body.get("unified_receipt", {})
    merged = {}
    for row in receipt.get("in_app", []):
        merged.setdefault(row["transaction_id"], {}).update(row)
    for row in body.get("latest_receipt_info", []) + unified.get("latest_receipt_info", []):
        merged.setdefault(row["transaction_id"], {}).update(row)
    return list(merged.values()), body.get("pending_renewal_info", []) + unified.get("pending_renewal_info", [])


def main(argv):
    args = argv[1:]
    catalog, notification = {}, False
    while args and args[0].startswith("--"):
        option = args.pop(0)
        if option == "--notification":
            notification = True
        elif option == "--catalog":
            for p in json.load(open(args.pop(0), encoding="utf-8"))["products"]:
                catalog[p["product_id"]] = p
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 64
    if len(args) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 64
    body = json.load(open(args[0], encoding="utf-8"))
    receipt = body.get("receipt", {})
    environment = {"PROD": "Production"}.get(body.get("environment"), body.get("environment", "Production"))
    bundle = receipt.get("bundle_id") or body.get("bid")
    transactions, renewals = rows(body)
    if notification:
        newest = max(transactions, key=lambda r: int(r["purchase_date_ms"]))
        signed = max(ms(r, "cancellation_date") or ms(r, "purchase_date") for r in transactions)
        chain = newest.get("original_transaction_id")
        data = {"bundleId": bundle, "environment": environment,
                "signedTransactionInfo": transaction(newest, catalog, bundle, environment, signed)}
        for r in renewals:
            if r.get("original_transaction_id") == chain:
                data["signedRenewalInfo"] = renewal(r, environment, signed)
        payload = {"notificationType": body["notification_type"], "notificationUUID": "hand-written-" + chain,
                   "version": "2.0", "signedDate": signed, "data": data}
        print(json.dumps({"signedPayload": make_jws.sign(payload)}, indent=2))
        return 0
    signed = ms(receipt, "request_date")
    for row in transactions:
        print(make_jws.sign(transaction(row, catalog, bundle, environment, signed)))
    for row in renewals:
        print(make_jws.sign(renewal(row, environment, signed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
