#!/usr/bin/env bash
# Prints the entry point of the MCP conformance suite (@modelcontextprotocol/conformance) at version $1,
# installed once from npm into .cache/conformance-<version> (not package.json: the suite needs Node >= 22,
# which runs it, see scripts/node-binary.sh). Used by the conformance tests; idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
v=${1:?usage: mcp-conformance.sh VERSION}
dir=.cache/conformance-$v
entry=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
mkdir -p .cache
exec 9>.cache/conformance.lock
flock 9
if [ ! -f "$dir/installed" ]; then
  rm -rf "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel error "@modelcontextprotocol/conformance@$v" >&2
  touch "$dir/installed"
fi
echo "$PWD/$entry"
