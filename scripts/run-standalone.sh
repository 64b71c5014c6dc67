#!/usr/bin/env bash
# `make run-standalone`: the proxy alone on examples/standalone-mcp/config.yaml (no controller), on loopback.
# Ports come from the environment so it runs beside `make run`: GW_EXAMPLE_PORT (MCP, default 3000),
# GW_EXAMPLE_READY_PORT (15021), GW_EXAMPLE_METRICS_PORT (15020). The banner is printed once the proxy is
# ready, never before a port fails to bind. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."

export GW_EXAMPLE_PORT=${GW_EXAMPLE_PORT:-3000}
READY=127.0.0.1:${GW_EXAMPLE_READY_PORT:-15021}
METRICS=127.0.0.1:${GW_EXAMPLE_METRICS_PORT:-15020}

node bin/gw.js proxy -f "${GW_EXAMPLE_CONFIG:-examples/standalone-mcp/config.yaml}" --log-format text \
  --ready-address "$READY" --metrics-address "$METRICS" &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' INT TERM EXIT

for _ in $(seq 1 150); do
  if curl -fs -o /dev/null "http://$READY/healthz/ready"; then
    cat <<BANNER

  gw proxy (standalone) is running: MCP endpoint http://127.0.0.1:$GW_EXAMPLE_PORT/mcp (streamable HTTP)
  Connect:  npx @modelcontextprotocol/inspector  -> Streamable HTTP, URL above
  Ops:      http://$READY/healthz/ready   http://$METRICS/metrics
  Ctrl-C stops it.

BANNER
    wait $pid
    exit $?
  fi
  kill -0 $pid 2>/dev/null || { wait $pid; exit $?; }
  sleep 0.2
done
echo "the proxy did not become ready in 30 s; see the logs above" >&2
exit 1
