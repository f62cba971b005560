#!/bin/bash
# Makes the PKCS#7 fixtures of AppleReceiptForgeryTests with the OpenSSL command line (development time only; the
# tests read the committed DER files). Each is an Apple-shaped receipt envelope over the same content: RSA-2048
# leaf with Apple's signing marker 1.2.840.113635.100.6.11.1 <- intermediate with the WWDR marker
# 1.2.840.113635.100.6.2.1 (CA, pathlen 0) <- a root of our own, pkcs7-test-root.der (given as a trust root in the
# tests). Private keys stay in a temporary directory that is deleted.
#   pkcs7-signed-attributes.der   SHA-256, with signed attributes (contentType, signingTime, messageDigest)
#   pkcs7-sha1-no-attributes.der  SHA-1, no signed attributes (the shape of Apple's receipts before 2023)
#   pkcs7-sha384.der              SHA-384: a valid signature with a digest Apple does not sign receipts with
#   pkcs7-leaf-without-marker.der the leaf lacks 1.2.840.113635.100.6.11.1
#   pkcs7-look-alike-root.der     the chain ends at a root whose name is byte-for-byte Apple Inc. Root's
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
printf 'receipt-tool PKCS#7 fixture content: stands in for a receipt payload.' > content

cat > openssl.cnf <<'CNF'
[req]
distinguished_name = dn
string_mask = default
prompt = no
[dn]
CN = unused
[root]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
1.2.840.113635.100.6.2.1 = ASN1:NULL
[leaf]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
1.2.840.113635.100.6.11.1 = ASN1:NULL
[leafWithoutMarker]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
CNF

key() { openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key" 2>/dev/null; }
root() { # name subject
  key "$1"
  openssl req -config openssl.cnf -new -x509 -days 7300 -sha256 -key "$1.key" -subj "$2" -extensions root \
    -out "$1.pem"
}
issue() { # name subject issuer extensions digest
  key "$1"
  openssl req -config openssl.cnf -new -key "$1.key" -subj "$2" -out "$1.csr"
  openssl x509 -req -in "$1.csr" -CA "$3.pem" -CAkey "$3.key" -set_serial "0x$(openssl rand -hex 8)" -days 3650 \
    "-$5" -extfile openssl.cnf -extensions "$4" -out "$1.pem" 2>/dev/null
}
sign() { # output leaf intermediate digest extra-options...
  local out=$1 leaf=$2 intermediate=$3 digest=$4
  shift 4
  openssl cms -sign -binary -nodetach -nosmimecap -in content -signer "$leaf.pem" -inkey "$leaf.key" \
    -certfile "$intermediate.pem" -md "$digest" -outform DER -out "$here/$out" "$@"
}

root testroot "/C=US/O=receipt-tool tests/CN=receipt-tool PKCS7 Test Root"
issue inter "/C=US/O=receipt-tool tests/OU=G5/CN=Test Worldwide Developer Relations CA" testroot intermediate sha256
issue leaf "/C=US/O=receipt-tool tests/CN=Test Receipt Signing" inter leaf sha256
issue bare "/C=US/O=receipt-tool tests/CN=Test Receipt Signing without marker" inter leafWithoutMarker sha256
openssl x509 -in testroot.pem -outform DER -out "$here/pkcs7-test-root.der"
sign pkcs7-signed-attributes.der leaf inter sha256
sign pkcs7-sha1-no-attributes.der leaf inter sha1 -noattr
sign pkcs7-sha384.der leaf inter sha384 -noattr
sign pkcs7-leaf-without-marker.der bare inter sha256 -noattr

# The look-alike: Apple Inc. Root's subject (PrintableStrings, same order), our key.
root fakeroot "/C=US/O=Apple Inc./OU=Apple Certification Authority/CN=Apple Root CA"
issue fakeinter "/C=US/O=Apple Inc./OU=G5/CN=Apple Worldwide Developer Relations Certification Authority" \
  fakeroot intermediate sha256
issue fakeleaf "/C=US/O=Apple Inc./CN=Apple Mac App Store and iTunes Store Receipt Signing" fakeinter leaf sha256
sign pkcs7-look-alike-root.der fakeleaf fakeinter sha256 -noattr
echo "wrote the pkcs7-*.der fixtures in $here"
