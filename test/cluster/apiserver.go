package main

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/spf13/pflag"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/rest"
	basecompatibility "k8s.io/component-base/compatibility"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// serviceAccountIssuer is also the default audience, so a TokenRequest without audiences yields a token
// TokenReview accepts (as in a real cluster).
const serviceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

// apiserverArgs is the kube-apiserver command line; written as flags so it reads like a real deployment.
func apiserverArgs(p pki, certDir, etcdURL, address string, port int, verbosity int, extra []string) []string {
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=" + address,
		"--advertise-address=" + address,
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + certDir,
		"--tls-cert-file=" + p.ServingCert,
		"--tls-private-key-file=" + p.ServingKey,
		"--client-ca-file=" + p.CACert,
		"--service-account-issuer=" + serviceAccountIssuer,
		"--api-audiences=" + serviceAccountIssuer,
		"--service-account-key-file=" + p.SAKey,
		"--service-account-signing-key-file=" + p.SAKey,
		"--authorization-mode=Node,RBAC",
		"--service-cluster-ip-range=10.0.0.0/24",
		// The kubernetes Service's endpoints would be 127.0.0.1, which Endpoints validation rejects;
		// nothing here routes to it, so the reconciler would only log errors.
		"--endpoint-reconciler-type=none",
		fmt.Sprintf("--v=%d", verbosity),
	}
	return append(args, extra...)
}

// runAPIServer serves until ctx is done, then shuts down gracefully; ln is already bound so the
// port is known before the server starts.
func runAPIServer(ctx context.Context, ln net.Listener, args []string) error {
	s := options.NewServerRunOptions()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("kube-apiserver flags %s: %w", strings.Join(args, " "), err)
	}
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return err
	}
	featureGate := s.GenericServerRunOptions.ComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if err := logsapi.ValidateAndApply(s.Logs, featureGate); err != nil {
		return err
	}
	// The server's own loopback clients would otherwise log its deprecation warnings back to it.
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	s.SecureServing.Listener = ln
	s.SecureServing.BindPort = ln.Addr().(*net.TCPAddr).Port
	completed, err := s.Complete(ctx)
	if err != nil {
		return err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return utilerrors.NewAggregate(errs)
	}
	return app.Run(ctx, completed)
}
