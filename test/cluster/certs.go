package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki names the files the API server and its clients read; all live in one directory.
type pki struct {
	CACert, ServingCert, ServingKey, AdminCert, AdminKey, SAKey string
}

func pkiIn(dir string) pki {
	j := func(n string) string { return filepath.Join(dir, n) }
	return pki{
		CACert: j("ca.crt"), ServingCert: j("apiserver.crt"), ServingKey: j("apiserver.key"),
		AdminCert: j("admin.crt"), AdminKey: j("admin.key"), SAKey: j("sa.key"),
	}
}

// ensurePKI generates the CA, the serving and admin certificates and the service-account signing key,
// unless a previous run left them in dir (a restart against a kept --data-dir keeps old kubeconfigs valid).
func ensurePKI(dir string, address net.IP) (pki, error) {
	p := pkiIn(dir)
	if _, err := os.Stat(p.SAKey); err == nil {
		return p, nil
	}
	caKey, err := newKey()
	if err != nil {
		return p, err
	}
	now := time.Now().Add(-time.Hour)
	caTmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "gw-e2e-ca"},
		NotBefore:             now,
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := sign(caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return p, fmt.Errorf("CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return p, err
	}
	// Names a client inside or outside the cluster might dial; 10.0.0.1 is the kubernetes Service IP, address
	// the one the server listens on (a real node's bridge address when pods must reach it).
	serving := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:   now,
		NotAfter:    ca.NotAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1"), net.ParseIP("10.0.0.1"), address},
	}
	// system:masters is bound to cluster-admin by the RBAC bootstrap policy.
	admin := &x509.Certificate{
		Subject:     pkix.Name{CommonName: "gw-e2e-admin", Organization: []string{"system:masters"}},
		NotBefore:   now,
		NotAfter:    ca.NotAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if err := writeCert(p.CACert, caDER); err != nil {
		return p, err
	}
	for _, leaf := range []struct {
		tmpl           *x509.Certificate
		certPath, keyP string
	}{{serving, p.ServingCert, p.ServingKey}, {admin, p.AdminCert, p.AdminKey}} {
		key, err := newKey()
		if err != nil {
			return p, err
		}
		der, err := sign(leaf.tmpl, ca, key.Public(), caKey)
		if err != nil {
			return p, fmt.Errorf("certificate %s: %w", leaf.tmpl.Subject.CommonName, err)
		}
		if err := writeCert(leaf.certPath, der); err != nil {
			return p, err
		}
		if err := writeKey(leaf.keyP, key); err != nil {
			return p, err
		}
	}
	saKey, err := newKey()
	if err != nil {
		return p, err
	}
	// Written last: its presence marks a complete set (see the check above).
	return p, writeKey(p.SAKey, saKey)
}

func newKey() (*ecdsa.PrivateKey, error) { return ecdsa.GenerateKey(elliptic.P256(), rand.Reader) }

func sign(tmpl, parent *x509.Certificate, pub crypto.PublicKey, signer crypto.Signer) ([]byte, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	tmpl.SerialNumber = serial
	return x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
}

func writeCert(path string, der []byte) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	// SEC 1 "EC PRIVATE KEY": kube-apiserver's --service-account-key-file reader does not take PKCS#8.
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}
