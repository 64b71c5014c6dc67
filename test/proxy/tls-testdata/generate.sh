#!/bin/sh
# Regenerates the test-only CA and server certificates in this folder (no real keys: they exist only
# for the TLS tests and the translate golden cases). Valid for 100 years so tests never expire.
# Run from anywhere: sh test/proxy/tls-testdata/generate.sh (needs openssl).
set -eu
cd "$(dirname "$0")"
days=36500
ec() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key" 2>/dev/null; }
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ca.key 2>/dev/null
openssl req -x509 -new -key ca.key -sha256 -days $days -subj "/CN=Gw test CA" \
  -addext basicConstraints=critical,CA:true -addext keyUsage=critical,keyCertSign,cRLSign -out ca.crt
leaf() { # name cn san
  openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
  printf 'subjectAltName=%s\nbasicConstraints=CA:false\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days $days -sha256 -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
ec a; leaf a a.example.test DNS:a.example.test
ec a2; leaf a2 a.example.test DNS:a.example.test
ec b; leaf b b.example.test DNS:b.example.test
ec wildcard; leaf wildcard '*.example.test' 'DNS:*.example.test'
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out a-rsa.key 2>/dev/null
leaf a-rsa a.example.test DNS:a.example.test
rm -f ca.srl
# A client certificate (clientAuth) for the backend mTLS tests (test/proxy/upstream-tls*.test.ts).
ec client
openssl req -new -key client.key -subj "/CN=gw-proxy" -out client.csr
printf 'basicConstraints=CA:false\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n' > client.ext
openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days $days -sha256 -extfile client.ext -out client.crt 2>/dev/null
rm -f client.csr client.ext ca.srl
