# Two commands matter on a fresh machine: `make run` and `make test`. Everything else is a step of those.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
BIN := node_modules/.bin
STAMP := node_modules/.install-stamp
REPORTS := .cache/test-reports

.PHONY: deps build typecheck lint test test-unit test-e2e cluster go crds run run-standalone bench clean image

$(STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: $(STAMP)

build: deps
	$(BIN)/tsc -p tsconfig.build.json

typecheck: deps
	$(BIN)/tsc -p tsconfig.json

lint: deps
	$(BIN)/prettier --check --log-level warn .
	$(BIN)/eslint --max-warnings 0 .

crds: deps
	$(BIN)/tsx scripts/gen-crds.ts

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

test-e2e: cluster build
	@mkdir -p $(REPORTS)
	$(BIN)/vitest run test/e2e --reporter=default --reporter=json --outputFile.json=$(REPORTS)/e2e.json

test-unit: build
	@mkdir -p $(REPORTS)
	$(BIN)/vitest run --exclude 'test/e2e/**' --reporter=default --reporter=json --outputFile.json=$(REPORTS)/unit.json

# Runs every test; prints one closing line `tests: N passed, N failed` summed over all suites.
test: build typecheck lint
	@rm -rf $(REPORTS)
	@status=0; $(MAKE) --no-print-directory test-unit || status=$$?; \
	  $(MAKE) --no-print-directory test-e2e || status=$$?; \
	  node scripts/test-summary.mjs $(REPORTS); exit $$status

# The embedded default: controller (local mode) + one proxy over xDS on examples/local-mcp; see scripts/run-local.sh.
run: build
	scripts/run-local.sh

# The proxy alone on a standalone config file (no controller).
run-standalone: build
	@echo "gw proxy: MCP endpoint http://localhost:$${GW_EXAMPLE_PORT:-3000}/mcp (streamable HTTP)"
	@echo "  connect: npx @modelcontextprotocol/inspector  -> Streamable HTTP, URL above"
	@echo "  ready:   http://localhost:15021/healthz/ready   metrics: http://localhost:15020/metrics"
	GW_EXAMPLE_PORT=$${GW_EXAMPLE_PORT:-3000} node bin/gw.js proxy -f examples/standalone-mcp/config.yaml --log-format text

# The container image (controller and proxy) as an OCI archive, built without a daemon: scripts/image/build.sh.
image: build
	scripts/image/build.sh

bench: build
	@for f in bench/*/main.ts; do [ -e "$$f" ] || continue; echo "== $$f"; $(BIN)/tsx "$$f"; done

clean:
	rm -rf dist .cache
