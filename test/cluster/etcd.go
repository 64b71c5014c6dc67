package main

import (
	"fmt"
	"net"
	"net/url"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// startEtcd runs a single-member etcd on loopback; the returned URL is its client endpoint.
func startEtcd(dir string) (*embed.Etcd, string, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "gw-e2e"
	cfg.Dir = dir
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", clientPort)}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", peerPort)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.LogLevel = "error"
	// Test data is disposable; fsync on every write costs seconds over a suite on a shared disk.
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", fmt.Errorf("etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, client.String(), nil
	case err := <-e.Err():
		e.Close()
		return nil, "", fmt.Errorf("etcd: %w", err)
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", fmt.Errorf("etcd: not ready after 60s")
	}
}

// freePort asks the kernel for an unused loopback port. etcd binds its own listeners, so there is a
// short window in which another process could take the port; on loopback in tests that is acceptable.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
