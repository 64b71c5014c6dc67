#!/usr/bin/env bash
# `make run-standalone`: the proxy alone on examples/standalone-mcp/config.yaml (no controller), on loopback.
# Ports come from the environment so it runs beside `make run`: GW_EXAMPLE_PORT (MCP, default 3000),
# GW_EXAMPLE_READY_PORT (15021), GW_EXAMPLE_METRICS_PORT (15020). The banner is printed once this proxy
# (not another one on the port) is ready. Ctrl-C drains and stops it; a second Ctrl-C stops it at once.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/run-lib.sh

export GW_EXAMPLE_PORT=${GW_EXAMPLE_PORT:-3000}
READY=127.0.0.1:${GW_EXAMPLE_READY_PORT:-15021}
METRICS=127.0.0.1:${GW_EXAMPLE_METRICS_PORT:-15020}

node bin/gw.js proxy -f "${GW_EXAMPLE_CONFIG:-examples/standalone-mcp/config.yaml}" --log-format text \
  --ready-address "$READY" --metrics-address "$METRICS" &
pid=$!
trap 'on_signal $pid' INT TERM

if ! wait_ready "http://$READY/healthz/ready" "$pid" "the proxy"; then
  code=0; wait "$pid" 2>/dev/null || code=$?
  exit $(( code == 0 ? 1 : code ))
fi
cat <<BANNER

  gw proxy (standalone) is running: MCP endpoint http://127.0.0.1:$GW_EXAMPLE_PORT/mcp (streamable HTTP)
  Connect:  npx @modelcontextprotocol/inspector  -> Streamable HTTP, URL above
  Ops:      http://$READY/healthz/ready   http://$METRICS/metrics
  Ctrl-C drains and stops it; a second Ctrl-C stops it at once.

BANNER
run_until_stopped "$pid"
