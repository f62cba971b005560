#!/usr/bin/env python3
"""Re-sign the hand-written StoreKit 2 examples with the TEST chain made by make-test-chain.sh.

Development time only (Python 3 standard library and the OpenSSL command line); nothing at run time uses it.
Every compact JWS in the named files (default: examples/storekit2/*.jws and *.json) gets the header
{"alg":"ES256","x5c":[leaf, intermediate, root],"typ":"JWT"} and a real ES256 signature by test-leaf.key over
`header.payload`. Payloads keep their bytes, except that a JWS nested in a payload (a notification's
signedTransactionInfo/signedRenewalInfo) is re-signed first and its new text put in its place. The result
verifies with `receipt-tool --trust-root examples/storekit2/test-root.pem` and, without it, fails because the
root is not Apple's: nothing here is signed by Apple.

It also writes two examples from entitlements-expired.jws and entitlements-active.jws:
  storekit2/forged-entitlements-expired.jws  the expired subscription with its newest expiresDate moved a year on
                                             and the signature left as it was: a forgery (signature.mismatch)
  storekit2/test-signed-entitlements-active.jws  signed by a lone self-signed certificate (test-lone.pem), as Xcode
                                             StoreKit testing signs: test-signed
  storekit2/crit-entitlements-active.jws     the first transaction of entitlements-active.jws signed by the test
                                             chain under a header whose crit names an extension ("exp"): the
                                             signature holds, and the JWS is still rejected (RFC 7515 4.1.11)

Usage: Tests/ExampleSigning/sign-examples.py [file ...]
"""
import base64
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
TOKEN = re.compile(r"eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def der_of(pem_path: str) -> str:
    text = open(pem_path, encoding="ascii").read()
    body = text.split("-----BEGIN CERTIFICATE-----")[1].split("-----END CERTIFICATE-----")[0]
    return "".join(body.split())  # standard base64, as x5c holds it


X5C = [der_of(os.path.join(HERE, n)) for n in ("test-leaf.pem", "test-intermediate.pem", "test-root.pem")]
CHAIN = (b64url(json.dumps({"alg": "ES256", "x5c": X5C, "typ": "JWT"}, separators=(",", ":")).encode()), "test-leaf.key")
LONE = (
    b64url(json.dumps({"alg": "ES256", "x5c": [der_of(os.path.join(HERE, "test-lone.pem"))], "typ": "JWT"},
                      separators=(",", ":")).encode()),
    "test-lone.key")


def der_to_raw(sig: bytes) -> bytes:
    """ECDSA-Sig-Value (SEQUENCE of two INTEGERs) to r||s, 32 bytes each."""
    assert sig[0] == 0x30
    i = 2 if sig[1] < 0x80 else 2 + (sig[1] & 0x7F)
    out = b""
    for _ in range(2):
        assert sig[i] == 0x02
        n = sig[i + 1]
        value = sig[i + 2 : i + 2 + n].lstrip(b"\x00")
        out += value.rjust(32, b"\x00")
        i += 2 + n
    return out


def es256(signing_input: bytes, key: str) -> bytes:
    with tempfile.NamedTemporaryFile() as f:
        f.write(signing_input)
        f.flush()
        der = subprocess.run(
            ["openssl", "dgst", "-sha256", "-sign", os.path.join(HERE, key), f.name],
            check=True, capture_output=True).stdout
    return der_to_raw(der)


def resign(token: str, signer=CHAIN) -> str:
    header, key = signer
    _, payload, _ = token.split(".")
    text = unb64url(payload).decode("utf-8")
    nested = TOKEN.sub(lambda m: resign(m.group(0), signer), text)
    body = b64url(nested.encode("utf-8")) if nested != text else payload
    signing_input = f"{header}.{body}".encode("ascii")
    return f"{header}.{body}.{b64url(es256(signing_input, key))}"


def forge(text: str) -> str:
    """Moves the newest expiresDate a year on in its payload; header and signature stay as they were."""
    tokens = TOKEN.findall(text)
    dated = [(json.loads(unb64url(t.split(".")[1])).get("expiresDate") or 0, t) for t in tokens]
    _, token = max(dated)
    header, payload, signature = token.split(".")
    body = json.loads(unb64url(payload))
    body["expiresDate"] += 365 * 86_400_000
    forged = b64url(json.dumps(body, separators=(",", ":")).encode("utf-8"))
    return text.replace(token, f"{header}.{forged}.{signature}")


def critical(text: str) -> str:
    """The first token signed by the test chain under a header with crit ["exp"] (and exp itself)."""
    header = b64url(json.dumps({"alg": "ES256", "x5c": X5C, "typ": "JWT", "crit": ["exp"], "exp": 1893456000},
                               separators=(",", ":")).encode())
    token = TOKEN.findall(text)[0]
    return resign(token, (header, "test-leaf.key")) + "\n"


def main(argv) -> int:
    made = ("forged-entitlements-expired.jws", "test-signed-entitlements-active.jws", "crit-entitlements-active.jws")
    names = argv[1:] or sorted(
        n for n in glob.glob(os.path.join(ROOT, "examples/storekit2/*.jws"))
        + glob.glob(os.path.join(ROOT, "examples/storekit2/*.json")) if os.path.basename(n) not in made)
    for name in names:
        text = open(name, encoding="utf-8").read()
        signed = TOKEN.sub(lambda m: resign(m.group(0)), text)
        open(name, "w", encoding="utf-8").write(signed)
        print(f"signed {os.path.relpath(name, ROOT)}")
    if argv[1:]:
        return 0
    examples = os.path.join(ROOT, "examples/storekit2")
    expired = open(os.path.join(examples, "entitlements-expired.jws"), encoding="utf-8").read()
    open(os.path.join(examples, made[0]), "w", encoding="utf-8").write(forge(expired))
    active = open(os.path.join(examples, "entitlements-active.jws"), encoding="utf-8").read()
    lone = TOKEN.sub(lambda m: resign(m.group(0), LONE), active)
    open(os.path.join(examples, made[1]), "w", encoding="utf-8").write(lone)
    open(os.path.join(examples, made[2]), "w", encoding="utf-8").write(critical(active))
    print(f"wrote examples/storekit2/{made[0]}, {made[1]} and {made[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
