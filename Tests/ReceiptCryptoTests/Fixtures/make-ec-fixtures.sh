#!/bin/sh
# Makes ec-signatures.txt: ECDSA known answers for ECPublicKeyTests, signed by the OpenSSL command line at
# development time (nothing at test time depends on OpenSSL). Fresh keys each run, so re-running changes every value.
# Usage (from this directory): sh make-ec-fixtures.sh > ec-signatures.txt
# Each line: curve hash message-text public-key(04||X||Y hex) digest(hex) der-signature(hex) raw-r||s(hex)
set -eu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "# made by make-ec-fixtures.sh with $(openssl version | cut -d' ' -f1-2); fields: curve hash message x963 digest der raw"
sign() { # curve-name openssl-curve byte-count hash message
  openssl ecparam -name "$2" -genkey -noout -out "$work/key.pem" 2>/dev/null
  # The SPKI's last 1+2n bytes are the uncompressed point.
  point=$(openssl ec -in "$work/key.pem" -pubout -outform DER 2>/dev/null | od -An -v -tx1 | tr -d ' \n' |
    awk -v n="$3" '{ print substr($0, length($0) - (1 + 2 * n) * 2 + 1) }')
  printf '%s' "$5" > "$work/msg"
  digest=$(openssl dgst "-$4" -binary "$work/msg" | od -An -v -tx1 | tr -d ' \n')
  openssl dgst "-$4" -sign "$work/key.pem" -out "$work/sig.der" "$work/msg"
  der=$(od -An -v -tx1 "$work/sig.der" | tr -d ' \n')
  # r and s as asn1parse prints them (hex, minimal), left-padded to n bytes.
  raw=$(openssl asn1parse -inform DER -in "$work/sig.der" | awk -F: '/INTEGER/ { print $NF }' |
    awk -v n="$3" '{ v = tolower($0); while (length(v) < 2 * n) v = "0" v; printf "%s", v }')
  echo "$1 $4 $5 $point $digest $der $raw"
}
sign P-256 prime256v1 32 sha256 receipt-tool
sign P-256 prime256v1 32 sha256 signedTransactionInfo
sign P-256 prime256v1 32 sha384 truncated-digest
sign P-256 prime256v1 32 sha512 truncated-digest
sign P-384 secp384r1 48 sha384 receipt-tool
sign P-384 secp384r1 48 sha384 intermediate
sign P-384 secp384r1 48 sha256 short-digest
