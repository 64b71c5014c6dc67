//go:build tools

// The e2e harness installs Gateway API CRDs from this module's files in the Go module cache; the blank
// import keeps the requirement (and its go.sum lines) in go.mod through `go mod tidy`. The node components
// (kubelet, kube-controller-manager, kube-scheduler, kube-proxy) are built from this module's
// k8s.io/kubernetes by `make node`; their imports keep what they need in go.mod and go.sum too.
package main

import (
	_ "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	_ "k8s.io/kubernetes/cmd/kube-proxy/app"
	_ "k8s.io/kubernetes/cmd/kube-scheduler/app"
	_ "k8s.io/kubernetes/cmd/kubelet/app"
	_ "sigs.k8s.io/gateway-api/apis/v1"
)
