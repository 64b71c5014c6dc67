#!/usr/bin/env bash
# `make run`: the embedded default. Three processes, all on loopback:
#   1. the MCP "everything" server over streamable HTTP on 127.0.0.1:3001 (the GwBackend's target),
#   2. `gw controller --manifests examples/local-mcp` (local mode: xDS on 9978, health 9093, metrics 9092),
#   3. one `gw proxy` subscribed to Gateway default/local over xDS, serving http://127.0.0.1:3000/mcp.
# Editing a file in the example folder changes what the proxy serves. Ctrl-C stops all three.
set -euo pipefail
cd "$(dirname "$0")/.."

EXAMPLE=${GW_EXAMPLE_DIR:-examples/local-mcp}
STATUS=${GW_EXAMPLE_STATUS_DIR:-.cache/local-status}
XDS_PORT=${GW_EXAMPLE_XDS_PORT:-9978}
HEALTH_PORT=${GW_EXAMPLE_HEALTH_PORT:-9093}
CONTROLLER_METRICS_PORT=${GW_EXAMPLE_CONTROLLER_METRICS_PORT:-9092}
READY=127.0.0.1:${GW_EXAMPLE_READY_PORT:-15021}
METRICS=127.0.0.1:${GW_EXAMPLE_METRICS_PORT:-15020}
GW=(node bin/gw.js)

pids=()
stop() {
  trap - INT TERM EXIT
  # Proxy first, so it never outlives the config source it would keep serving without.
  for ((i=${#pids[@]}-1; i>=0; i--)); do kill -TERM "${pids[i]}" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo "stopped"
}
trap stop INT TERM EXIT

mkdir -p "$STATUS"
node scripts/mcp-everything-http.mjs 3001 & pids+=($!)
"${GW[@]}" controller --manifests "$EXAMPLE" --status-dir "$STATUS" --xds-port "$XDS_PORT" \
  --health-port "$HEALTH_PORT" --metrics-port "$CONTROLLER_METRICS_PORT" --log-format text & pids+=($!)
# The proxy would retry with backoff anyway; waiting keeps the first screen free of reconnect warnings.
wait_for() { for _ in $(seq 1 150); do curl -fs -o /dev/null "$1" && return 0; sleep 0.2; done; return 1; }
wait_for http://127.0.0.1:$HEALTH_PORT/readyz || { echo "the controller did not become ready; see the logs above" >&2; exit 1; }
"${GW[@]}" proxy --xds-address "127.0.0.1:$XDS_PORT" --gateway default/local --pod-name make-run \
  --listen-address 127.0.0.1 --ready-address $READY --metrics-address $METRICS --log-format text & pids+=($!)

# Readiness: the proxy answers 200 only after its first complete snapshot from the controller.
wait_for http://$READY/healthz/ready || { echo "the proxy did not become ready; see the logs above" >&2; exit 1; }

cat <<EOF

  Gw is running (controller in local mode + one proxy over xDS).
  MCP endpoint:  http://127.0.0.1:3000/mcp   (streamable HTTP)
  Try:           curl -s http://127.0.0.1:3000/mcp -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
  Or:            npx @modelcontextprotocol/inspector  -> Streamable HTTP, URL above
  Edit:          $EXAMPLE/*.yaml (e.g. the route's path) and the proxy follows; statuses in $STATUS
  Ops:           controller http://127.0.0.1:$HEALTH_PORT/readyz  http://127.0.0.1:$CONTROLLER_METRICS_PORT/metrics
                 proxy      http://$READY/healthz/ready  http://$METRICS/metrics
  Ctrl-C stops everything.

EOF
wait -n "${pids[@]}" || true
