#!/usr/bin/env python3
"""Turn a decoded StoreKit 2 payload (JSON) into a compact JWS for hand-written fixtures.

HAND-WRITTEN, UNSIGNED: the header is {"alg":"ES256","kid":"hand-written","x5c":[],"typ":"JWT"} and the
signature is 64 zero bytes. Nothing about it is signed by Apple or anyone; receipt-tool labels such data
"hand-written". Family Sharing cannot be produced in Sandbox or Xcode, which is why these exist.

Usage:
  make-jws.py payload.json            # prints one JWS line
  make-jws.py a.json b.json ...       # one JWS per line, in argument order
  make-jws.py - < payload.json        # payload from standard input
  make-jws.py --seal-only resp.json   # prints the JSON itself with only its signed* fields made JWS
                                      # (App Store Server API responses, {"signedPayload": {...}} bodies)

A payload may itself contain "signedTransactionInfo"/"signedRenewalInfo" (notifications) or
"signedTransactions" (history): pass those as decoded JSON objects and they are turned into nested JWS
strings too, so a whole notification or response can be written as readable JSON.

Python 3 standard library only.
"""
import base64
import json
import sys

HEADER = {"alg": "ES256", "kid": "hand-written", "x5c": [], "typ": "JWT"}
SIGNATURE = bytes(64)  # dummy: 64 zero bytes, the size of an ES256 signature
NESTED = ("signedTransactionInfo", "signedRenewalInfo", "signedPayload", "signedAppTransactionInfo")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def compact(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign(payload) -> str:
    """The compact JWS of `payload` (a dict), nested signed fields first."""
    return ".".join([b64url(compact(HEADER)), b64url(compact(seal_nested(payload))), b64url(SIGNATURE)])


def seal_nested(value):
    """Objects under the signed* keys become JWS strings; strings are left as they are."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in NESTED and isinstance(item, dict):
                out[key] = sign(item)
            elif key == "signedTransactions" and isinstance(item, list):
                out[key] = [sign(x) if isinstance(x, dict) else x for x in item]
            else:
                out[key] = seal_nested(item)
        return out
    if isinstance(value, list):
        return [seal_nested(x) for x in value]
    return value


def main(argv) -> int:
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 64
    seal_only = argv[1] == "--seal-only"
    names = argv[2:] if seal_only else argv[1:]
    for name in names:
        try:
            text = sys.stdin.read() if name == "-" else open(name, encoding="utf-8").read()
            payload = json.loads(text)
        except (OSError, ValueError) as error:
            print(f"make-jws.py: {name}: {error}", file=sys.stderr)
            return 65
        if not isinstance(payload, dict):
            print(f"make-jws.py: {name}: expected a JSON object", file=sys.stderr)
            return 65
        print(json.dumps(seal_nested(payload), indent=2, ensure_ascii=False) if seal_only else sign(payload))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
