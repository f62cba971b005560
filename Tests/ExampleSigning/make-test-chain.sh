#!/bin/sh
# Makes the examples' TEST certificate chain (development time only; nothing at run time uses OpenSSL):
#   test-root.pem          self-signed root, shipped as examples/storekit2/test-root.pem for --trust-root
#   test-intermediate.pem  a CA carrying Apple's intermediate marker OID 1.2.840.113635.100.6.2.1
#   test-leaf.pem          the signer, carrying Apple's leaf marker OID 1.2.840.113635.100.6.11.1
#   test-lone.pem          a lone self-signed certificate, as Xcode's StoreKit testing signs with
# and their P-256 keys. Every name says "not Apple": these certificates are for the hand-written examples only.
# Valid 2015-01-01 to 2045-01-01, so every example's signedDate falls inside. Run from anywhere:
#   Tests/ExampleSigning/make-test-chain.sh && Tests/ExampleSigning/sign-examples.py
set -eu
here=$(cd "$(dirname "$0")" && pwd)
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
echo 1000 > serial

for name in root intermediate leaf; do
  openssl ecparam -name prime256v1 -genkey -noout -out "$name.key"
  openssl pkcs8 -topk8 -nocrypt -in "$name.key" -out "$name.p8"
done

subject() { printf '/CN=%s/O=receipt-tool examples (not Apple)' "$1"; }
openssl req -new -key root.p8 -subj "$(subject 'receipt-tool Examples Test Root')" -out root.csr
openssl ca -batch -config ca.cnf -selfsign -keyfile root.p8 -in root.csr -extensions root \
  -startdate 20150101000000Z -enddate 20450101000000Z -notext -out root.pem 2>/dev/null
openssl req -new -key intermediate.p8 -subj "$(subject 'receipt-tool Examples Test Intermediate')" -out intermediate.csr
openssl ca -batch -config ca.cnf -cert root.pem -keyfile root.p8 -in intermediate.csr -extensions intermediate \
  -startdate 20150101000000Z -enddate 20450101000000Z -notext -out intermediate.pem 2>/dev/null
openssl req -new -key leaf.p8 -subj "$(subject 'receipt-tool Examples Test Signing')" -out leaf.csr
openssl ca -batch -config ca.cnf -cert intermediate.pem -keyfile intermediate.p8 -in leaf.csr -extensions leaf \
  -startdate 20150101000000Z -enddate 20450101000000Z -notext -out leaf.pem 2>/dev/null

openssl ecparam -name prime256v1 -genkey -noout -out lone.key
openssl pkcs8 -topk8 -nocrypt -in lone.key -out lone.p8
openssl req -new -key lone.p8 -subj "$(subject 'receipt-tool Examples StoreKit Testing')" -out lone.csr
openssl ca -batch -config ca.cnf -selfsign -keyfile lone.p8 -in lone.csr -extensions root \
  -startdate 20150101000000Z -enddate 20450101000000Z -notext -out lone.pem 2>/dev/null

openssl verify -CAfile root.pem -untrusted intermediate.pem leaf.pem >/dev/null
cp root.pem "$here/test-root.pem"
cp intermediate.pem "$here/test-intermediate.pem"
cp leaf.pem "$here/test-leaf.pem"
cp leaf.p8 "$here/test-leaf.key"
cp lone.pem "$here/test-lone.pem"
cp lone.p8 "$here/test-lone.key"
cp root.pem "$here/../../examples/storekit2/test-root.pem"
echo "made $here/test-{root,intermediate,leaf}.pem, test-leaf.key and examples/storekit2/test-root.pem"
