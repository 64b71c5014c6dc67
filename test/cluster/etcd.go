package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// Ports for etcd come from below the kernel's ephemeral range (32768+ on Linux): a port taken from
// there is often reused as the source port of one of the many outgoing connections a test suite
// makes in the moment between our probe and etcd's own bind, and etcd then fails to start.
const (
	etcdPortLow    = 20000
	etcdPortHigh   = 32000
	etcdStartTries = 8
)

// startEtcd runs a single-member etcd on loopback; the returned URL is its client endpoint. Several
// servers start side by side in one test run, so a port collision is retried with other ports.
func startEtcd(dir string) (*embed.Etcd, string, error) {
	var lastErr error
	for try := 0; try < etcdStartTries; try++ {
		e, client, err := startEtcdOnce(dir)
		if err == nil {
			return e, client, nil
		}
		lastErr = err
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, "", err
		}
	}
	return nil, "", fmt.Errorf("no free port pair after %d tries: %w", etcdStartTries, lastErr)
}

func startEtcdOnce(dir string) (*embed.Etcd, string, error) {
	clientPort, peerPort, err := probePortPair()
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
		return nil, "", fmt.Errorf("etcd on ports %d/%d: %w", clientPort, peerPort, err)
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, client.String(), nil
	case err := <-e.Err():
		e.Close()
		return nil, "", fmt.Errorf("etcd: %w", err)
	case <-time.After(150 * time.Second):
		e.Close()
		return nil, "", fmt.Errorf("etcd: not ready after 150s")
	}
}

// probePortPair finds two distinct loopback ports that are free now, holding both while it looks so
// the second probe cannot return the first.
func probePortPair() (int, int, error) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			l.Close()
		}
	}()
	var ports []int
	for attempts := 0; len(ports) < 2 && attempts < 200; attempts++ {
		port := etcdPortLow + rand.IntN(etcdPortHigh-etcdPortLow)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		held = append(held, l)
		ports = append(ports, port)
	}
	if len(ports) < 2 {
		return 0, 0, fmt.Errorf("etcd: no two free loopback ports in %d-%d", etcdPortLow, etcdPortHigh)
	}
	return ports[0], ports[1], nil
}
