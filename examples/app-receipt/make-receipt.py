#!/usr/bin/env python3
"""Builds a hand-written on-device app receipt (PKCS#7 SignedData, base64) from a verifyReceipt JSON response.

Usage: make-receipt.py [--payload] [--device-id UUID] RESPONSE.json > receipt.b64

--payload writes the receipt payload alone (DER, the content a PKCS#7 signer signs; make-signed-receipt.sh signs
it). --device-id adds the opaque value (type 4, sixteen fixed bytes) and the device hash (type 5): SHA-1 over the
UUID's 16 bytes, the opaque value and the bundle id attribute's value bytes, as Apple's "validating receipts
locally" describes.

The receipt's attributes follow Apple's ASN.1 field table (app fields 0, 2, 3, 12, 19; in-app 1701-1706,
1708, 1711, 1712, 1713, 1719) with the types Apple's own receipts use (UTF8String, IA5String dates in
RFC 3339, INTEGER). The SignedData has no certificates and no SignerInfo: nothing it makes is signed by
Apple, and receipt-tool, which verifies no signature, reads it all the same.
"""
import base64
import hashlib
import uuid
import json
import sys
from datetime import datetime, timezone


def der(tag, body):
    n = len(body)
    if n < 0x80:
        length = bytes([n])
    else:
        digits = n.to_bytes((n.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(digits)]) + digits
    return bytes([tag]) + length + body


def integer(v):
    return der(0x02, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big", signed=True))


def oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    body = bytes([parts[0] * 40 + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.insert(0, 0x80 | (p & 0x7F))
            p >>= 7
        body += bytes(chunk)
    return der(0x06, body)


def utf8(s):
    return der(0x0C, s.encode())


def ia5(s):
    return der(0x16, s.encode())


def attribute(kind, value):
    return der(0x30, integer(kind) + integer(1) + der(0x04, value))


def rfc3339(ms):
    if not ms:
        return ""
    return datetime.fromtimestamp(int(ms) / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def flag(v):
    return integer(1 if v in ("true", "1", True) else 0)


def in_app(row):
    fields = [
        attribute(1701, integer(int(row.get("quantity", "1")))),
        attribute(1702, utf8(row["product_id"])),
        attribute(1703, utf8(row["transaction_id"])),
        attribute(1704, ia5(rfc3339(row.get("purchase_date_ms")))),
        attribute(1705, utf8(row.get("original_transaction_id", ""))),
        attribute(1706, ia5(rfc3339(row.get("original_purchase_date_ms")))),
        attribute(1708, ia5(rfc3339(row.get("expires_date_ms")))),
        attribute(1711, integer(int(row.get("web_order_line_item_id", "0")))),
        attribute(1712, ia5(rfc3339(row.get("cancellation_date_ms")))),
        attribute(1713, flag(row.get("is_trial_period"))),
        attribute(1719, flag(row.get("is_in_intro_offer_period"))),
    ]
    return der(0x31, b"".join(fields))


OPAQUE = bytes(range(0xA0, 0xB0))


def main():
    args = sys.argv[1:]
    payload_only = "--payload" in args
    args = [a for a in args if a != "--payload"]
    device = None
    if "--device-id" in args:
        i = args.index("--device-id")
        device = uuid.UUID(args[i + 1]).bytes
        del args[i : i + 2]
    response = json.load(open(args[0]))
    receipt = response["receipt"]
    bundle = utf8(receipt["bundle_id"])
    fields = [
        attribute(0, utf8(receipt.get("receipt_type", "Production"))),
        attribute(2, bundle),
        attribute(3, utf8(receipt["application_version"])),
        attribute(12, ia5(rfc3339(receipt.get("receipt_creation_date_ms")))),
        attribute(19, utf8(receipt.get("original_application_version", ""))),
    ]
    if device is not None:
        fields += [attribute(4, OPAQUE), attribute(5, hashlib.sha1(device + OPAQUE + bundle).digest())]
    fields += [attribute(17, in_app(row)) for row in receipt.get("in_app", [])]
    payload = der(0x31, b"".join(fields))
    if payload_only:
        sys.stdout.buffer.write(payload)
        return
    sha256 = der(0x30, oid("2.16.840.1.101.3.4.2.1") + der(0x05, b""))
    content = der(0x30, oid("1.2.840.113549.1.7.1") + der(0xA0, der(0x04, payload)))
    signed = der(0x30, integer(1) + der(0x31, sha256) + content + der(0x31, b""))
    info = der(0x30, oid("1.2.840.113549.1.7.2") + der(0xA0, signed))
    text = base64.b64encode(info).decode()
    # Wrapped at 76 columns, as a customer's mail client would.
    print("\n".join(text[i : i + 76] for i in range(0, len(text), 76)))


if __name__ == "__main__":
    main()
