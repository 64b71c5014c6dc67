// Command gw-cluster runs embedded etcd and kube-apiserver in one process on loopback, for Gw's
// end-to-end tests (there is no container runtime on CI machines, so no kind). It writes an admin
// kubeconfig, prints one JSON ready line on stdout, and shuts down cleanly on SIGTERM / SIGINT.
//
//	gw-cluster --kubeconfig PATH [--address IP] [--port N] [--data-dir DIR] [--v N] [-- extra kube-apiserver flags]
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// version is set at build time: -ldflags "-X main.version=...".
var version = "dev"

type config struct {
	kubeconfig   string
	address      string
	port         int
	dataDir      string
	verbosity    int
	stopOnStdin  bool
	apiserverArg []string
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "gw-cluster:", err)
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "gw-cluster:", err)
		os.Exit(1)
	}
}

func parseFlags(argv []string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("gw-cluster", flag.ContinueOnError)
	fs.StringVar(&cfg.kubeconfig, "kubeconfig", "", "where to write the admin kubeconfig (required)")
	fs.StringVar(&cfg.address, "address", "127.0.0.1", "IP the API server listens on and advertises (a real node's pods reach it there); the serving certificate names it")
	fs.IntVar(&cfg.port, "port", 0, "API server port on --address; 0 picks a free one")
	fs.StringVar(&cfg.dataDir, "data-dir", "", "keep certificates and etcd data here across restarts; default: a temporary directory removed on exit")
	fs.IntVar(&cfg.verbosity, "v", 0, "kube-apiserver log verbosity")
	fs.BoolVar(&cfg.stopOnStdin, "stop-on-stdin-eof", false, "shut down when stdin closes, so a crashed parent leaves no server behind")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(argv); err != nil {
		return cfg, err
	}
	if *showVersion {
		fmt.Println("gw-cluster", version)
		os.Exit(0)
	}
	if cfg.kubeconfig == "" {
		return cfg, errors.New("--kubeconfig is required")
	}
	if net.ParseIP(cfg.address) == nil {
		return cfg, fmt.Errorf("--address %q is not an IP address", cfg.address)
	}
	cfg.apiserverArg = fs.Args()
	return cfg, nil
}

func run(cfg config) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if cfg.stopOnStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	dir := cfg.dataDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "gw-cluster-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	pkiDir, certDir := filepath.Join(dir, "pki"), filepath.Join(dir, "apiserver")
	for _, d := range []string{pkiDir, certDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	p, err := ensurePKI(pkiDir, net.ParseIP(cfg.address))
	if err != nil {
		return fmt.Errorf("certificates: %w", err)
	}

	etcd, etcdURL, err := startEtcd(filepath.Join(dir, "etcd"))
	if err != nil {
		return err
	}
	defer etcd.Close()

	hostPort := net.JoinHostPort(cfg.address, fmt.Sprint(cfg.port))
	ln, err := net.Listen("tcp", hostPort)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", hostPort, err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	server := "https://" + net.JoinHostPort(cfg.address, fmt.Sprint(port))

	done := make(chan error, 1)
	go func() {
		done <- runAPIServer(ctx, ln, apiserverArgs(p, certDir, etcdURL, cfg.address, port, cfg.verbosity, cfg.apiserverArg))
	}()

	if err := waitReady(ctx, server, p, done); err != nil {
		stop()
		return err
	}
	if err := writeKubeconfig(cfg.kubeconfig, server, p); err != nil {
		stop()
		<-done
		return fmt.Errorf("kubeconfig %s: %w", cfg.kubeconfig, err)
	}
	line, _ := json.Marshal(map[string]string{"event": "ready", "server": server, "kubeconfig": cfg.kubeconfig, "version": version})
	fmt.Println(string(line))

	err = <-done
	if ctx.Err() != nil {
		// A shutdown we asked for; the server reports how it ended, not an error of ours.
		return nil
	}
	if err == nil {
		err = errors.New("kube-apiserver stopped unexpectedly")
	}
	return err
}

// waitReady polls /readyz as the admin user until it answers 200, the server fails, or 3 minutes pass.
func waitReady(ctx context.Context, server string, p pki, done <-chan error) error {
	ca, err := os.ReadFile(p.CACert)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	admin, err := tls.LoadX509KeyPair(p.AdminCert, p.AdminKey)
	if err != nil {
		return err
	}
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{admin}}},
	}
	deadline := time.After(3 * time.Minute)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		select {
		case err := <-done:
			if err == nil {
				err = errors.New("kube-apiserver exited before it was ready")
			}
			return err
		case <-ctx.Done():
			return errors.New("interrupted before the API server was ready")
		case <-deadline:
			return fmt.Errorf("API server not ready after 3 minutes; last /readyz answer: %s", last)
		case <-tick.C:
			resp, err := client.Get(server + "/readyz")
			if err != nil {
				last = err.Error()
				continue
			}
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("%d %s", resp.StatusCode, body)
		}
	}
}
