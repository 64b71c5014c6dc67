package main

import (
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a self-contained kubeconfig (credentials embedded) for the admin user.
func writeKubeconfig(path, server string, p pki) error {
	ca, err := os.ReadFile(p.CACert)
	if err != nil {
		return err
	}
	cert, err := os.ReadFile(p.AdminCert)
	if err != nil {
		return err
	}
	key, err := os.ReadFile(p.AdminKey)
	if err != nil {
		return err
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["gw-e2e"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos["gw-e2e-admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
	cfg.Contexts["gw-e2e"] = &clientcmdapi.Context{Cluster: "gw-e2e", AuthInfo: "gw-e2e-admin", Namespace: "default"}
	cfg.CurrentContext = "gw-e2e"
	return clientcmd.WriteToFile(*cfg, path)
}
