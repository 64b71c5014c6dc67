#!/usr/bin/env bash
# Prints the path of a Python with the MCP Python SDK (PyPI `mcp`, pinned below) installed: a venv made once
# under .cache/python-mcp-<version> with `python3 -m venv` and pip, reused afterwards. Used by the tests that
# run the Python SDK as an MCP client and server (test/proxy/python-sdk.test.ts); needs python3 >= 3.10 with
# the venv module and, the first time, the PyPI registry.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${MCP_PYTHON_SDK_VERSION:-2.3.0}
dir=.cache/python-mcp-$version
mkdir -p .cache
exec 9>.cache/python-mcp.lock
flock 9
if [ ! -f "$dir/installed" ]; then
  rm -rf "$dir"
  python3 -m venv "$dir"
  "$dir/bin/pip" install --quiet --disable-pip-version-check "mcp==$version" >&2
  touch "$dir/installed"
fi
echo "$PWD/$dir/bin/python"
