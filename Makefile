# Two commands matter on a fresh machine: `make run` and `make test`. Everything else is a step of those.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
BIN := node_modules/.bin
STAMP := node_modules/.install-stamp
REPORTS := .cache/test-reports

.PHONY: deps build typecheck lint test test-unit test-e2e test-node-majors cluster node otelcol extproc opa forwardproxy zitadel-op ratelimit spire go crds gateway-api-schemas run run-llm run-standalone bench bench-anchor clean image

# `npm ci` deletes node_modules first: it runs only when node_modules does not already hold what the lock
# file names (scripts/deps-current.mjs compares npm's record of the installed tree with the lock file).
$(STAMP): package.json package-lock.json
	@if node scripts/deps-current.mjs; then echo "node_modules matches package-lock.json: not reinstalling"; \
	  else npm ci --no-audit --no-fund; fi
	@touch $@

deps: $(STAMP)

build: deps
	$(BIN)/tsc -p tsconfig.build.json
	node scripts/build-ui.mjs

typecheck: deps
	$(BIN)/tsc -p tsconfig.json
	$(BIN)/tsc -p tsconfig.ui.json

lint: deps
	$(BIN)/prettier --check --log-level warn .
	$(BIN)/eslint --max-warnings 0 .

crds: deps
	$(BIN)/tsx scripts/gen-crds.ts

# The Gateway API CRD schemas `gw validate` and the controller check those kinds against (src/api/gen/gateway-api),
# from the sigs.k8s.io/gateway-api release test/cluster/go.mod requires, read from Go's module cache.
gateway-api-schemas: deps go
	$(BIN)/tsx scripts/gen-gateway-api-schemas.ts

# The e2e suite's API server: embedded etcd + kube-apiserver from Go modules (test/cluster).
# The first build compiles Kubernetes (see docs/testing.md for times); the Go build cache makes later ones fast.
CLUSTER := test/cluster/bin/gw-cluster
K8S_VERSION = $(shell awk '$$1 == "k8s.io/kubernetes" { print $$2 }' test/cluster/go.mod)
K8S_MINOR = $(word 2,$(subst ., ,$(K8S_VERSION)))
CLUSTER_LDFLAGS = -X main.version=$(K8S_VERSION) \
  -X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) \
  -X k8s.io/component-base/version.gitMajor=1 \
  -X k8s.io/component-base/version.gitMinor=$(K8S_MINOR)

go:
	@command -v go >/dev/null || { echo 'error: Go (>= 1.25) is required to build the e2e API server (test/cluster); install it from https://go.dev/dl/' >&2; exit 1; }

cluster: go
	cd test/cluster && go build -trimpath -ldflags '$(CLUSTER_LDFLAGS)' -o bin/gw-cluster .

# The real-node suite's node components from the same k8s.io/kubernetes module as the API server, in one
# `go build` (the packages share most of their dependencies and the build cache), and the pod sandbox's
# pause program (static: the sandbox image holds nothing else). After `cluster`, not beside it: two go builds
# at once would both compile the packages they share. See docs/testing.md ("The real node").
NODE_CMDS = $(addprefix k8s.io/kubernetes/cmd/,kubelet kube-controller-manager kube-scheduler kube-proxy)
node: cluster
	cd test/cluster && go build -trimpath -ldflags '$(CLUSTER_LDFLAGS)' -o bin/ $(NODE_CMDS)
	cd test/cluster && CGO_ENABLED=0 go build -trimpath -o bin/pause ./pause

# The telemetry tests' OpenTelemetry Collector (OTLP receiver, file exporter) from Go modules (test/otelcol).
otelcol: go
	cd test/otelcol && go build -trimpath -o bin/gw-otelcol .

# The ext_proc tests' processor, on go-control-plane's Envoy types (test/extproc).
extproc: go
	cd test/extproc && go build -trimpath -o bin/gw-extproc .

# The gRPC ext_authz tests' policy server: Open Policy Agent's Rego engine behind Envoy's Authorization service
# (go-control-plane's types) from Go modules (test/opa).
opa: go
	cd test/opa && go build -trimpath -o bin/gw-opa .

# The upstream tunnel tests' HTTP forward proxy (elazarl/goproxy with a basic-auth check; test/forwardproxy).
forwardproxy: go
	cd test/forwardproxy && go build -trimpath -o bin/gw-forwardproxy .

# The backend-identity tests' second RFC 8693 authorization server: zitadel/oidc's OpenID provider (test/zitadel-op).
zitadel-op: go
	cd test/zitadel-op && go build -trimpath -o bin/gw-zitadel-op .

# The global rate-limit tests' service: envoyproxy/ratelimit (Envoy's reference RateLimitService on Redis)
# from Go modules (test/ratelimit).
ratelimit: go
	cd test/ratelimit && go build -trimpath -o bin/gw-ratelimit .

# The workload-identity tests' SPIRE server and agent (github.com/spiffe/spire's own CLIs in one binary; test/spire).
spire: go
	cd test/spire && go build -trimpath -o bin/gw-spire .

# The Go-built servers the unit suite (and the Node-majors run) start.
GO_TOOLS := otelcol extproc opa forwardproxy zitadel-op ratelimit spire

# Each suite's command, shared by its own target and by `make test` (which builds everything once first).
UNIT_RUN = mkdir -p $(REPORTS) && $(BIN)/vitest run --exclude 'test/e2e/**' --reporter=default --reporter=json --outputFile.json=$(REPORTS)/unit.json
E2E_RUN = mkdir -p $(REPORTS) && $(BIN)/vitest run test/e2e --reporter=default --reporter=json --outputFile.json=$(REPORTS)/e2e.json
NODE_MAJORS_RUN = scripts/node-majors.sh $(REPORTS)

test-e2e: cluster node image
	$(E2E_RUN)

test-unit: build $(GO_TOOLS)
	$(UNIT_RUN)

# Node 22 and 24 (the users' LTS majors) run the runtime-facing part of the unit suite: scripts/node-majors.sh.
test-node-majors: build $(GO_TOOLS)
	$(NODE_MAJORS_RUN)

# Everything a suite needs, built once and two at a time (tsc and ESLint use one core each); then the three
# suites. Runs every test; prints one closing line `tests: N passed, N failed` summed over all suites.
test:
	@$(MAKE) --no-print-directory -j2 --output-sync=target build typecheck lint cluster node image $(GO_TOOLS)
	@rm -rf $(REPORTS)
	@status=0; \
	  echo '== unit'; $(UNIT_RUN) || status=$$?; \
	  echo '== e2e'; $(E2E_RUN) || status=$$?; \
	  echo '== Node majors'; $(NODE_MAJORS_RUN) || status=$$?; \
	  node scripts/test-summary.mjs $(REPORTS); exit $$status

# The embedded default: controller (local mode) + one proxy over xDS on examples/local-mcp; see scripts/run-local.sh.
run: build
	scripts/run-local.sh

# `make run` on examples/local-llm: an OpenAI-compatible route at http://127.0.0.1:3000/v1 in front of a fake OpenAI server.
run-llm: build
	GW_EXAMPLE=llm scripts/run-local.sh

# The proxy alone on a standalone config file (no controller), on loopback; see scripts/run-standalone.sh.
run-standalone: build
	scripts/run-standalone.sh

# The container image (controller and proxy) as an OCI archive, built without a daemon: scripts/image/build.sh.
image: build
	scripts/image/build.sh

bench: build extproc opa ratelimit
	@start=$$(date +%s); missed=; for f in bench/*/main.ts; do [ -e "$$f" ] || continue; t=$$(date +%s); \
	  echo "== $$f (load average $$(cut -d' ' -f1-3 /proc/loadavg))"; \
	  BENCH_FAILOVER=$${BENCH_FAILOVER:-short} BENCH_PAIRS=$${BENCH_PAIRS:-4} $(BIN)/tsx "$$f" || missed="$$missed $$f"; \
	  echo "== $$f took $$(( $$(date +%s) - t )) s"; done; \
	  echo "make bench: $$(( $$(date +%s) - start )) s in all (budget 180 s); exited non-zero (a target missed):$${missed:- none}"

# Gw side by side with agentgateway (the Rust anchor); not in `make bench` or CI. AGW_BIN or AGW_MIRROR:
# scripts/bench-anchor.sh, docs/performance.md "Issue 42".
bench-anchor: build
	scripts/bench-anchor.sh

clean:
	rm -rf dist .cache
