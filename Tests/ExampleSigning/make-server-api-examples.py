#!/usr/bin/env python3
"""Write examples/storekit2/server-api/: App Store Server API responses and notifications built from the field
lists of Apple's models (apple/app-store-server-library-swift Tests/AppStoreServerLibraryTests/resources/models,
MIT), with this project's own values, then signed with the TEST chain by sign-examples.py. Nothing here is
Apple's data or signed by Apple.

Development time only (Python 3 standard library, OpenSSL). Usage: Tests/ExampleSigning/make-server-api-examples.py
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "examples", "storekit2", "server-api")
sys.path.insert(0, os.path.join(ROOT, "examples", "storekit2"))
make_jws = __import__("make-jws")

DAY = 86_400_000
START = 1717200000000  # 2024-06-01T00:00:00Z
BUNDLE = "com.acme.notes"


def transaction(tid, purchase, expires, reason, signed, **extra):
    t = {
        "transactionId": tid, "originalTransactionId": "2000000100", "webOrderLineItemId": "2300" + tid,
        "bundleId": BUNDLE, "productId": "com.acme.pro.monthly", "subscriptionGroupIdentifier": "21000111",
        "purchaseDate": purchase, "originalPurchaseDate": START, "expiresDate": expires, "quantity": 1,
        "type": "Auto-Renewable Subscription", "inAppOwnershipType": "PURCHASED", "signedDate": signed,
        "environment": "Sandbox", "transactionReason": reason, "storefront": "USA", "storefrontId": "143441",
        "price": 9990, "currency": "USD",
    }
    t.update(extra)
    return t


def renewal(signed, **extra):
    r = {
        "originalTransactionId": "2000000100", "autoRenewProductId": "com.acme.pro.monthly",
        "productId": "com.acme.pro.monthly", "autoRenewStatus": 1, "signedDate": signed, "environment": "Sandbox",
        "renewalDate": START + 60 * DAY, "recentSubscriptionStartDate": START,
    }
    r.update(extra)
    return r


def notification(kind, subtype, uuid, signed, data):
    n = {"notificationType": kind, "notificationUUID": uuid, "version": "2.0", "signedDate": signed}
    if subtype:
        n["subtype"] = subtype
    n.update(data)
    return n


def data(signed_transaction=None, signed_renewal=None, status=1):
    d = {"appAppleId": 1234567890, "bundleId": BUNDLE, "bundleVersion": "42", "environment": "Sandbox"}
    if status is not None:
        d["status"] = status
    if signed_transaction:
        d["signedTransactionInfo"] = signed_transaction
    if signed_renewal:
        d["signedRenewalInfo"] = signed_renewal
    return {"data": d}


APP_TRANSACTION = {
    "receiptType": "Sandbox", "appAppleId": 1234567890, "bundleId": BUNDLE, "applicationVersion": "42",
    "versionExternalIdentifier": 0, "receiptCreationDate": START + 40 * DAY, "originalPurchaseDate": START - 400 * DAY,
    "originalApplicationVersion": "1.0", "appTransactionId": "704289572311081234", "originalPlatform": "iOS",
}

first = transaction("2000000100", START, START + 30 * DAY, "PURCHASE", START + 1000)
renewed = transaction("2000000101", START + 30 * DAY, START + 60 * DAY, "RENEWAL", START + 30 * DAY + 1000)

EXAMPLES = {
    # Get Notification History (NotificationHistoryResponse): a first page, two notifications of one subscription.
    "notification-history.json": {
        "paginationToken": "5d0b4c5e-6f62-4c7c-9a0c-2f0b0c6f3a10",
        "hasMore": True,
        "notificationHistory": [
            {
                "sendAttempts": [{"attemptDate": START + 2000, "sendAttemptResult": "SUCCESS"}],
                "signedPayload": notification(
                    "SUBSCRIBED", "INITIAL_BUY", "7a1e0b7c-3f7e-4d0e-9a51-0f6c1d2b3a01", START + 1000,
                    data(first, renewal(START + 1000, renewalDate=START + 30 * DAY))),
            },
            {
                "sendAttempts": [
                    {"attemptDate": START + 30 * DAY + 2000, "sendAttemptResult": "TIMED_OUT"},
                    {"attemptDate": START + 30 * DAY + 3_602_000, "sendAttemptResult": "SUCCESS"},
                ],
                "signedPayload": notification(
                    "DID_RENEW", None, "7a1e0b7c-3f7e-4d0e-9a51-0f6c1d2b3a02", START + 30 * DAY + 1000,
                    data(renewed, renewal(START + 30 * DAY + 1000))),
            },
        ],
    },
    # Get Test Notification Status (CheckTestNotificationResponse).
    "test-notification-status.json": {
        "signedPayload": notification(
            "TEST", None, "0f4b5a3e-9a51-4c0e-8d1a-6b2c3d4e5f60", START + 1000,
            data(status=None)),
        "sendAttempts": [
            {"attemptDate": START + 2000, "sendAttemptResult": "NO_RESPONSE"},
            {"attemptDate": START + 62_000, "sendAttemptResult": "SUCCESS"},
        ],
    },
    # Get App Transaction Info (AppTransactionInfoResponse).
    "app-transaction-info.json": {"signedAppTransactionInfo": APP_TRANSACTION},
    # RESCIND_CONSENT, as Notifications V2 sends it: appData with the app transaction.
    "rescind-consent-notification.json": {
        "signedPayload": notification(
            "RESCIND_CONSENT", None, "3c9d2e1f-0a4b-4c5d-8e6f-7a8b9c0d1e2f", START + 41 * DAY,
            {"appData": {"appAppleId": 1234567890, "bundleId": BUNDLE, "environment": "Sandbox",
                         "signedAppTransactionInfo": APP_TRANSACTION}}),
    },
    # Look Up Order ID (OrderLookupResponse): a valid order, and an invalid order id.
    "order-lookup.json": {"status": 0, "signedTransactions": [first]},
    "order-lookup-invalid.json": {"status": 1, "signedTransactions": []},
    # Get Transaction History (HistoryResponse) page with more to come.
    "transaction-history-partial.json": {
        "revision": "1717200001000_2000000100", "hasMore": True, "bundleId": BUNDLE, "appAppleId": 1234567890,
        "environment": "Sandbox", "signedTransactions": [first],
    },
    # Get Transaction Info (TransactionInfoResponse) with a key no model has: named in a warning, never dropped.
    "transaction-info-unread-key.json": {"signedTransactionInfo": first, "futureField": {"since": "2027"}},
    # Advanced Commerce: Cancel a Subscription (SubscriptionCancelResponse).
    "advanced-commerce-cancel.json": {
        "signedTransactionInfo": renewed,
        "signedRenewalInfo": renewal(START + 35 * DAY, autoRenewStatus=0),
    },
}


def main() -> int:
    os.makedirs(OUT, exist_ok=True)
    names = []
    for name, body in EXAMPLES.items():
        path = os.path.join(OUT, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(make_jws.seal_nested(body), indent=2) + "\n")
        names.append(path)
    subprocess.run([sys.executable, os.path.join(HERE, "sign-examples.py")] + names, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
