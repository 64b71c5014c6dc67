#!/usr/bin/env bash
# `make run` (and `make run-llm`, GW_EXAMPLE=llm): the embedded default. Three processes, all on loopback:
#   1. the upstream: the MCP "everything" server over streamable HTTP on 127.0.0.1:3001 (examples/local-mcp),
#      or with GW_EXAMPLE=llm a fake OpenAI server on 127.0.0.1:3002 (scripts/fake-openai.mjs, examples/local-llm),
#   2. `gw controller --manifests <example>` (local mode: xDS on 9978, health 9093, metrics 9092, and the
#      fleet UI on http://127.0.0.1:9094: gateways, their proxies, versions applied, NACKs; docs/ui.md),
#   3. one `gw proxy` subscribed to Gateway default/local over xDS, serving http://127.0.0.1:3000, with the web
#      UI on http://127.0.0.1:15000 (docs/ui.md).
# Editing a file in the example folder changes what the proxy serves. Ctrl-C stops all three: the proxy
# drains first (a second Ctrl-C skips the drain), then the controller and the upstream stop.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/run-lib.sh

KIND=${GW_EXAMPLE:-mcp}
case "$KIND" in
  mcp) DEFAULT_DIR=examples/local-mcp; UPSTREAM=(node scripts/mcp-everything-http.mjs "${GW_EXAMPLE_UPSTREAM_PORT:-3001}") ;;
  llm) DEFAULT_DIR=examples/local-llm; UPSTREAM=(node scripts/fake-openai.mjs "${GW_EXAMPLE_UPSTREAM_PORT:-3002}") ;;
  *) echo "GW_EXAMPLE must be mcp or llm, got $KIND" >&2; exit 2 ;;
esac
EXAMPLE=${GW_EXAMPLE_DIR:-$DEFAULT_DIR}
STATUS=${GW_EXAMPLE_STATUS_DIR:-.cache/local-status}
XDS_PORT=${GW_EXAMPLE_XDS_PORT:-9978}
HEALTH_PORT=${GW_EXAMPLE_HEALTH_PORT:-9093}
CONTROLLER_METRICS_PORT=${GW_EXAMPLE_CONTROLLER_METRICS_PORT:-9092}
READY=127.0.0.1:${GW_EXAMPLE_READY_PORT:-15021}
METRICS=127.0.0.1:${GW_EXAMPLE_METRICS_PORT:-15020}
ADMIN=127.0.0.1:${GW_EXAMPLE_ADMIN_PORT:-15000}
CONTROLLER_ADMIN=127.0.0.1:${GW_EXAMPLE_CONTROLLER_ADMIN_PORT:-9094}
GW=(node bin/gw.js)

mkdir -p "$STATUS"
"${UPSTREAM[@]}" & upstream=$!
"${GW[@]}" controller --manifests "$EXAMPLE" --status-dir "$STATUS" --xds-port "$XDS_PORT" \
  --health-port "$HEALTH_PORT" --metrics-port "$CONTROLLER_METRICS_PORT" --admin-address "$CONTROLLER_ADMIN" --log-format text & controller=$!
trap 'on_signal $controller' INT TERM
# The proxy would retry with backoff anyway; waiting keeps the first screen free of reconnect warnings.
if ! wait_ready "http://127.0.0.1:$HEALTH_PORT/readyz" "$controller" "the controller"; then
  stopping=1; current=; run_until_stopped "$controller" "$upstream" || true
  exit 1
fi
"${GW[@]}" proxy --xds-address "127.0.0.1:$XDS_PORT" --gateway default/local --pod-name make-run \
  --listen-address 127.0.0.1 --ready-address $READY --metrics-address $METRICS --admin-address $ADMIN --log-format text & proxy=$!
trap 'on_signal $proxy' INT TERM

# Readiness: the proxy answers 200 only after its first complete snapshot from the controller.
if ! wait_ready "http://$READY/healthz/ready" "$proxy" "the proxy"; then
  stopping=1; current=; run_until_stopped "$proxy" "$controller" "$upstream" || true
  exit 1
fi

if [ "$KIND" = llm ]; then
  cat <<EOF

  Gw is running (controller in local mode + one proxy over xDS) in front of a fake OpenAI server.
  OpenAI-compatible base URL:  http://127.0.0.1:3000/v1   (model gpt-4o-mini; the gateway holds the key)
  Try:    curl -s http://127.0.0.1:3000/v1/chat/completions -H 'content-type: application/json' -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'
  Python: OpenAI(base_url="http://127.0.0.1:3000/v1", api_key="unused").chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Hello"}])
  Edit:   $EXAMPLE/*.yaml (the real vendor: see backend.yaml and secret.yaml); statuses in $STATUS
  Web UI: http://$ADMIN/   (routes, live charts, and an LLM playground that chats through the route; docs/ui.md)
  Fleet:  http://$CONTROLLER_ADMIN/   (the controller: gateways, their proxies, versions applied, NACKs)
  Ops:    controller http://127.0.0.1:$HEALTH_PORT/readyz   proxy http://$READY/healthz/ready  http://$METRICS/metrics
  Ctrl-C drains and stops everything; a second Ctrl-C stops at once.

EOF
else
  cat <<EOF

  Gw is running (controller in local mode + one proxy over xDS).
  MCP endpoint:  http://127.0.0.1:3000/mcp   (streamable HTTP)
  Try:           curl -s http://127.0.0.1:3000/mcp -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'
  Web UI:        http://$ADMIN/   (routes, policies, targets, live charts, and MCP, LLM and CEL playgrounds; docs/ui.md)
  Fleet UI:      http://$CONTROLLER_ADMIN/   (the controller: gateways, their proxies, versions applied, NACKs)
  Or:            npx @modelcontextprotocol/inspector  -> Streamable HTTP, URL above
  Edit:          $EXAMPLE/*.yaml (e.g. the route's path) and the proxy follows; statuses in $STATUS
  Ops:           controller http://127.0.0.1:$HEALTH_PORT/readyz  http://127.0.0.1:$CONTROLLER_METRICS_PORT/metrics
                 proxy      http://$READY/healthz/ready  http://$METRICS/metrics
  Ctrl-C drains and stops everything; a second Ctrl-C stops at once.

EOF
fi
run_until_stopped "$proxy" "$controller" "$upstream"
echo "stopped"
