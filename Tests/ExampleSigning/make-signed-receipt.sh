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
set -eu
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
