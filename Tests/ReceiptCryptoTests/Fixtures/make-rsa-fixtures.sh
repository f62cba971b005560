#!/bin/bash
# Makes rsa-known-answers.txt: fresh RSA-2048 and RSA-4096 keys (e = 65537) made and used with the OpenSSL command
# line, a message signed with PKCS#1 v1.5 over SHA-1 and SHA-256. Only public data is written (modulus, exponent,
# message, signatures); the private keys live in a temporary directory and are deleted. Development time only:
# the tests read the committed text file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out="$here/rsa-known-answers.txt"
message="receipt-tool RSA known answer: the customer's receipt, as Apple signed it."
printf '%s' "$message" > "$work/message"
{
  echo "# bits hash modulus exponent message signature (hex); made by make-rsa-fixtures.sh with $(openssl version | cut -d' ' -f1-2)"
  for bits in 2048 4096; do
    openssl genpkey -algorithm RSA -pkeyopt "rsa_keygen_bits:$bits" -out "$work/key.pem" 2>/dev/null
    modulus=$(openssl rsa -in "$work/key.pem" -noout -modulus | sed 's/^Modulus=//' | tr 'A-F' 'a-f')
    for hash in sha1 sha256; do
      openssl dgst "-$hash" -sign "$work/key.pem" -out "$work/sig" "$work/message"
      echo "$bits $hash $modulus 010001 $(od -An -v -tx1 "$work/message" | tr -d ' \n') $(od -An -v -tx1 "$work/sig" | tr -d ' \n')"
    done
  done
} > "$out"
echo "wrote $out"
