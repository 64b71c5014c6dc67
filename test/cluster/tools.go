//go:build tools

// The e2e harness installs Gateway API CRDs from this module's files in the Go module cache; the blank
// import keeps the requirement (and its go.sum lines) in go.mod through `go mod tidy`.
package main

import _ "sigs.k8s.io/gateway-api/apis/v1"
