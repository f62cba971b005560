#!/usr/bin/env bash
# Makes the forged and synthetic chains the crypto tests use (Tests/ReceiptCryptoTests/Fixtures/chains/), with
# the OpenSSL command line, at development time only: the outputs are committed, nothing at test time runs this.
# Every key is fresh and thrown away; only certificates (DER) and JWS tokens signed by those keys are kept.
# Usage: Tests/ReceiptCryptoTests/Fixtures/make-chains.sh   (OpenSSL 3; rewrites chains/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/chains"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
rm -f "$out"/*.der "$out"/*.jws

# A throwaway CA database for `openssl ca`, which can set exact validity dates (x509 -days cannot).
cd "$work"
touch index.txt
echo 1000 > serial
cat > ca.cnf <<'CNF'
[ca]
default_ca = test
[test]
dir = .
database = index.txt
serial = serial
new_certs_dir = .
default_md = sha384
policy = anything
unique_subject = no
copy_extensions = none
email_in_dn = no
preserve = yes
[anything]
commonName = optional
organizationalUnitName = optional
organizationName = optional
countryName = optional
[root]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[intermediate]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
1.2.840.113635.100.6.2.1 = DER:05:00
[intermediate_no_marker]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
[intermediate_not_ca]
basicConstraints = critical, CA:FALSE
keyUsage = critical, keyCertSign, cRLSign
1.2.840.113635.100.6.2.1 = DER:05:00
[root_pathlen0]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
[intermediate_no_certsign]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, digitalSignature
1.2.840.113635.100.6.2.1 = DER:05:00
[leaf]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature
1.2.840.113635.100.6.11.1 = DER:05:00
[leaf_no_marker]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature
[leaf_critical_unknown]
basicConstraints = CA:FALSE
keyUsage = critical, digitalSignature
1.2.840.113635.100.6.11.1 = DER:05:00
1.3.6.1.4.1.99999.1 = critical, DER:05:00
CNF

key() { openssl ecparam -name "$1" -genkey -noout -out "$2.key" 2>/dev/null; }
csr() { openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" 2>/dev/null; }
# sign NAME ISSUER EXT START END [MD]: certificate NAME.der for NAME.csr, issued by ISSUER (self when equal).
sign() {
  local name=$1 issuer=$2 ext=$3 start=$4 end=$5 md=${6:-sha384}
  if [ "$name" = "$issuer" ]; then
    openssl ca -batch -config ca.cnf -selfsign -keyfile "$name.key" -in "$name.csr" -out "$name.pem" \
      -extensions "$ext" -startdate "$start" -enddate "$end" -md "$md" -notext 2>/dev/null
  else
    openssl ca -batch -config ca.cnf -cert "$issuer.pem" -keyfile "$issuer.key" -in "$name.csr" -out "$name.pem" \
      -extensions "$ext" -startdate "$start" -enddate "$end" -md "$md" -notext 2>/dev/null
  fi
  openssl x509 -in "$name.pem" -outform DER -out "$name.der"
}

g3="/CN=Apple Root CA - G3/OU=Apple Certification Authority/O=Apple Inc./C=US"
root="/CN=receipt-tool Test Root/O=receipt-tool tests/C=US"
inter="/CN=receipt-tool Test Intermediate/O=receipt-tool tests/C=US"
leafname="/CN=receipt-tool Test Signing/O=receipt-tool tests/C=US"

# The test root (P-384, like Apple's G3) and a good chain under it: valid 2025-2027 for the leaf.
key secp384r1 root; csr root "$root"; sign root root root 20250101000000Z 20450101000000Z
key secp384r1 inter; csr inter "$inter"; sign inter root intermediate 20250101000000Z 20400101000000Z
key prime256v1 leaf; csr leaf "$leafname"; sign leaf inter leaf 20250601000000Z 20270601000000Z sha256
# Leaves and intermediates that break one rule each.
cp leaf.key leafnomarker.key; csr leafnomarker "$leafname"; sign leafnomarker inter leaf_no_marker 20250601000000Z 20270601000000Z sha256
cp leaf.key leafexpired.key; csr leafexpired "$leafname"; sign leafexpired inter leaf 20250101000000Z 20251231235959Z sha256
cp leaf.key leafcritical.key; csr leafcritical "$leafname"; sign leafcritical inter leaf_critical_unknown 20250601000000Z 20270601000000Z sha256
cp inter.key internomarker.key; csr internomarker "$inter"; sign internomarker root intermediate_no_marker 20250101000000Z 20400101000000Z
cp leaf.key leafundernomarker.key; csr leafundernomarker "$leafname"; sign leafundernomarker internomarker leaf 20250601000000Z 20270601000000Z sha256
cp inter.key internotca.key; csr internotca "$inter"; sign internotca root intermediate_not_ca 20250101000000Z 20400101000000Z
cp leaf.key leafundernotca.key; csr leafundernotca "$leafname"; sign leafundernotca internotca leaf 20250601000000Z 20270601000000Z sha256
# A root that allows no intermediate; an intermediate that may not sign certificates; a P-384 leaf (ES256 needs
# P-256); a leaf that names the intermediate but was signed by another key.
key secp384r1 rootpathlen0; csr rootpathlen0 "/CN=receipt-tool Test Root Without Intermediates/O=receipt-tool tests/C=US"
sign rootpathlen0 rootpathlen0 root_pathlen0 20250101000000Z 20450101000000Z
cp inter.key interunderpathlen0.key; csr interunderpathlen0 "$inter"; sign interunderpathlen0 rootpathlen0 intermediate 20250101000000Z 20400101000000Z
cp leaf.key leafunderpathlen0.key; csr leafunderpathlen0 "$leafname"; sign leafunderpathlen0 interunderpathlen0 leaf 20250601000000Z 20270601000000Z sha256
cp inter.key internocertsign.key; csr internocertsign "$inter"; sign internocertsign root intermediate_no_certsign 20250101000000Z 20400101000000Z
cp leaf.key leafundernocertsign.key; csr leafundernocertsign "$leafname"; sign leafundernocertsign internocertsign leaf 20250601000000Z 20270601000000Z sha256
key secp384r1 leafp384; csr leafp384 "$leafname"; sign leafp384 inter leaf 20250601000000Z 20270601000000Z sha256
key secp384r1 otherinter; csr otherinter "$inter"; sign otherinter root intermediate 20250101000000Z 20400101000000Z
cp leaf.key leafwrongkey.key; csr leafwrongkey "$leafname"; sign leafwrongkey otherinter leaf 20250601000000Z 20270601000000Z sha256
# A look-alike of Apple Root CA - G3: the same subject name bytes, another key.
key secp384r1 fakeg3; csr fakeg3 "$g3"; sign fakeg3 fakeg3 root 20250101000000Z 20450101000000Z
key secp384r1 fakeinter; csr fakeinter "$inter"; sign fakeinter fakeg3 intermediate 20250101000000Z 20400101000000Z
cp leaf.key fakeleaf.key; csr fakeleaf "$leafname"; sign fakeleaf fakeinter leaf 20250601000000Z 20270601000000Z sha256
# A lone self-signed P-256 certificate, like Xcode's StoreKit testing one.
key prime256v1 lone; csr lone "/CN=receipt-tool Test Lone Signer/O=receipt-tool tests"
sign lone lone leaf 20250101000000Z 20350101000000Z sha256

for c in rootpathlen0 interunderpathlen0 leafunderpathlen0 internocertsign leafundernocertsign leafp384 leafwrongkey root inter leaf leafnomarker leafexpired leafcritical internomarker leafundernomarker internotca leafundernotca fakeg3 fakeinter fakeleaf lone; do
  cp "$c.der" "$out/$c.der"
done

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
b64() { openssl base64 -A < "$1.der"; }
# jws NAME SIGNER ALG "CERT CERT ...": a compact JWS whose header names ALG and carries the certificates as x5c,
# signed with SIGNER's key (ES256: SHA-256, then the DER signature turned into 32-byte r || s).
jws() {
  local name=$1 signer=$2 alg=$3 certs=$4 x5c="" c
  for c in $certs; do x5c="$x5c${x5c:+,}\"$(b64 "$c")\""; done
  local header payload input
  header=$(printf '{"alg":"%s","x5c":[%s]}' "$alg" "$x5c" | b64url)
  payload=$(printf '{"bundleId":"com.example","signedDate":1767225600000,"transactionId":"%s"}' "$name" | b64url)
  input="$header.$payload"
  printf '%s' "$input" | openssl dgst -sha256 -sign "$signer.key" -out sig.der
  local r s
  r=$(openssl asn1parse -inform DER -in sig.der | awk -F: '/INTEGER/ {print $NF}' | sed -n 1p)
  s=$(openssl asn1parse -inform DER -in sig.der | awk -F: '/INTEGER/ {print $NF}' | sed -n 2p)
  pad() { local v=$1; while [ ${#v} -lt 64 ]; do v="0$v"; done; echo "${v: -64}"; }
  printf '%s%s' "$(pad "$r")" "$(pad "$s")" | xxd -r -p > sig.raw
  printf '%s.%s\n' "$input" "$(b64url < sig.raw)" > "$out/$name.jws"
}
# signedDate 2026-01-01T00:00:00Z: inside every good certificate's window, after leafexpired's.
jws good leaf ES256 "leaf inter root"
jws good-garbage-root leaf ES256 "leaf inter leaf"
jws no-leaf-marker leaf ES256 "leafnomarker inter root"
jws no-intermediate-marker leaf ES256 "leafundernomarker internomarker root"
jws intermediate-not-ca leaf ES256 "leafundernotca internotca root"
jws expired-leaf leaf ES256 "leafexpired inter root"
jws critical-extension leaf ES256 "leafcritical inter root"
jws root-path-length leaf ES256 "leafunderpathlen0 interunderpathlen0 rootpathlen0"
jws intermediate-without-certsign leaf ES256 "leafundernocertsign internocertsign root"
jws leaf-p384 leafp384 ES256 "leafp384 inter root"
jws leaf-signed-by-another-key leaf ES256 "leafwrongkey inter root"
jws look-alike-g3 leaf ES256 "fakeleaf fakeinter fakeg3"
jws four-certificates leaf ES256 "leaf inter root root"
jws two-certificates leaf ES256 "leaf inter"
jws alg-none leaf none "leaf inter root"
jws alg-hs256 leaf HS256 "leaf inter root"
jws lone lone ES256 "lone"
echo "wrote $(ls "$out" | wc -l) files to $out"
