#!/bin/sh
# Makes the examples' SIGNED app receipt (development time only; nothing at run time uses OpenSSL):
# (in examples/)
#   app-receipt/test-receipt-root.pem           an RSA test root, "not Apple", for --trust-root
#   app-receipt/signed-entitlements-active.b64  entitlements-active.json's receipt, issued to device
#                                               3F2504E0-4F89-41D3-9A0C-0305E82C3301 (types 4 and 5), signed as
#                                               Apple signs receipts (SHA-256, no signed attributes) by a leaf
#                                               with Apple's receipt-signing marker under an intermediate with
#                                               the WWDR marker, under that root
#   backed-entitlements-active.json             entitlements-active.json with that receipt as latest_receipt
#   contradicted-entitlements-active.json       the same, forged: transaction 1000000803 expires a year later
#                                               (2025-07-03) than the signed receipt says
# Certificates valid 2015-01-01 to 2045-01-01 (receipts are checked at their creation date). The keys are made in
# a temporary directory and deleted. Run from anywhere: Tests/ExampleSigning/make-signed-receipt.sh
#
# With the argument `edits` it makes, under its own new root, only examples/backed-edits/: backed JSON edited
# in both directions against the signed receipt it carries (see examples/README.md), and leaves the files above
# as they are:
#   backed-edits/test-receipt-root.pem            the root those receipts are signed under, for --trust-root
#   backed-edits/trial-removed.json               entitlements-active.json without its intro trial 1000000801
#                                                 (same moment as the receipt)
#   backed-edits/trial-flag-changed.json          1000000801's is_trial_period "false" (a changed row)
#   backed-edits/row-added.json                   a purchase 1000000799 the receipt of the same moment lacks
#   backed-edits/older-receipt-newer-row.json     a JSON of 2024-07-05 with renewal 1000000804 (2024-07-03),
#                                                 carrying the receipt of 2024-06-15
#   backed-edits/family-shared.json               family-shared-active.json with its signed receipt
#   backed-edits/family-edited-to-purchased.json  the same, in_app_ownership_type FAMILY_SHARED -> PURCHASED
set -eu
mode=${1:-examples}
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
here="$examples/app-receipt"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

cat > ca.cnf <<'CNF'
[ ca ]
default_ca = test_ca
[ test_ca ]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any
unique_subject = no
copy_extensions = none
[ any ]
commonName = supplied
organizationName = optional
[ root ]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ intermediate ]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.2.1 = ASN1:NULL
[ leaf ]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
1.2.840.113635.100.6.11.1 = ASN1:NULL
CNF
: > index.txt
echo 2000 > serial

for name in root intermediate leaf; do
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$name.key" 2>/dev/null
done
subject() { printf '/CN=%s/O=receipt-tool examples (not Apple)' "$1"; }
openssl req -new -key root.key -subj "$(subject 'receipt-tool Examples Receipt Test Root')" -out root.csr
openssl ca -batch -config ca.cnf -selfsign -keyfile root.key -in root.csr -extensions root \
  -startdate 20150101000000Z -enddate 20450101000000Z -notext -out root.pem 2>/dev/null
openssl req -new -key intermediate.key -subj "$(subject 'receipt-tool Examples Receipt Test Intermediate')" \
  -out intermediate.csr
openssl ca -batch -config ca.cnf -cert root.pem -keyfile root.key -in intermediate.csr -extensions intermediate \
  -startdate 20150101000000Z -enddate 20450101000000Z -notext -out intermediate.pem 2>/dev/null
openssl req -new -key leaf.key -subj "$(subject 'receipt-tool Examples Receipt Signing')" -out leaf.csr
openssl ca -batch -config ca.cnf -cert intermediate.pem -keyfile intermediate.key -in leaf.csr -extensions leaf \
  -startdate 20150101000000Z -enddate 20450101000000Z -notext -out leaf.pem 2>/dev/null

sign() { # sign RESPONSE.json OUT.der: the receipt of RESPONSE.json, issued to the examples' device
  python3 "$here/make-receipt.py" --payload --device-id 3F2504E0-4F89-41D3-9A0C-0305E82C3301 "$1" > payload.der
  openssl cms -sign -binary -nodetach -nosmimecap -noattr -md sha256 -in payload.der -signer leaf.pem \
    -inkey leaf.key -certfile intermediate.pem -outform DER -out "$2"
}

if [ "$mode" = edits ]; then
  edits="$examples/backed-edits"
  mkdir -p "$edits"
  cp root.pem "$edits/test-receipt-root.pem"
  sign "$examples/entitlements-active.json" active.der
  sign "$examples/family-shared-active.json" family.der
  python3 - "$examples" "$edits" active.der family.der <<'PY'
import base64, copy, json, sys
examples, edits, active_der, family_der = sys.argv[1:]
def load(name):
    return json.load(open("%s/%s" % (examples, name)))
def carry(response, der, name):
    response["latest_receipt"] = base64.b64encode(open(der, "rb").read()).decode()
    open("%s/%s" % (edits, name), "w").write(json.dumps(response, indent=2) + "\n")
def rows(response):
    return response["receipt"]["in_app"] + response["latest_receipt_info"]
def renewal(row, tid, purchase_ms, expires_ms):
    out = copy.deepcopy(row)
    for key in [k for k in out if k.endswith("_pst") or k in ("purchase_date", "expires_date")]:
        del out[key]
    out.update(transaction_id=tid, purchase_date_ms=str(purchase_ms), expires_date_ms=str(expires_ms),
               web_order_line_item_id="23000" + tid)
    return out
active = load("entitlements-active.json")
r = copy.deepcopy(active)
for key in ("in_app",):
    r["receipt"][key] = [t for t in r["receipt"][key] if t["transaction_id"] != "1000000801"]
r["latest_receipt_info"] = [t for t in r["latest_receipt_info"] if t["transaction_id"] != "1000000801"]
carry(r, active_der, "trial-removed.json")
r = copy.deepcopy(active)
for t in rows(r):
    if t["transaction_id"] == "1000000801":
        t["is_trial_period"] = "false"
carry(r, active_der, "trial-flag-changed.json")
r = copy.deepcopy(active)
added = {"quantity": "1", "product_id": "com.acme.themes.pack", "transaction_id": "1000000799",
         "original_transaction_id": "1000000799", "purchase_date_ms": "1714000000000",
         "original_purchase_date_ms": "1714000000000", "is_trial_period": "false",
         "in_app_ownership_type": "PURCHASED"}
r["latest_receipt_info"].append(added)
carry(r, active_der, "row-added.json")
r = copy.deepcopy(active)
last = r["receipt"]["in_app"][-1]
newer = renewal(last, "1000000804", 1720022531000, 1722700931000)
r["receipt"]["in_app"].append(newer)
r["latest_receipt_info"].append(dict(newer, in_app_ownership_type="PURCHASED"))
for key in [k for k in r["receipt"] if k.startswith(("receipt_creation_date", "request_date"))]:
    del r["receipt"][key]
r["receipt"].update(receipt_creation_date_ms="1720137600000", request_date_ms="1720137600000")
carry(r, active_der, "older-receipt-newer-row.json")
family = load("family-shared-active.json")
carry(copy.deepcopy(family), family_der, "family-shared.json")
r = copy.deepcopy(family)
for t in rows(r):
    if t.get("in_app_ownership_type") == "FAMILY_SHARED":
        t["in_app_ownership_type"] = "PURCHASED"
carry(r, family_der, "family-edited-to-purchased.json")
PY
  echo "made $edits/"
  exit 0
fi

python3 "$here/make-receipt.py" --payload --device-id 3F2504E0-4F89-41D3-9A0C-0305E82C3301 \
  "$examples/entitlements-active.json" > payload.der
openssl cms -sign -binary -nodetach -nosmimecap -noattr -md sha256 -in payload.der -signer leaf.pem \
  -inkey leaf.key -certfile intermediate.pem -outform DER -out receipt.der
cp root.pem "$here/test-receipt-root.pem"
base64 -w 76 receipt.der > "$here/signed-entitlements-active.b64"
python3 - "$examples/entitlements-active.json" receipt.der "$examples/backed-entitlements-active.json" <<'PY'
import base64, re, sys
text = open(sys.argv[1]).read()
receipt = base64.b64encode(open(sys.argv[2], "rb").read()).decode()
text, n = re.subn(r'"latest_receipt": "[^"]*"', '"latest_receipt": "%s"' % receipt, text)
assert n == 1
open(sys.argv[3], "w").write(text)
forged = text.replace("1720022531000", "1751558531000").replace("2024-07-03", "2025-07-03")
open(sys.argv[3].replace("backed-", "contradicted-"), "w").write(forged)
PY
echo "made $here/test-receipt-root.pem, signed-entitlements-active.b64 and $examples/{backed,contradicted}-entitlements-active.json"
