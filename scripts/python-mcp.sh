#!/usr/bin/env bash
# Prints the path of a Python with the MCP Python SDK (PyPI `mcp`, pinned below) installed: a venv made once
# under .cache/python-mcp-<version> (scripts/python-venv.sh). Used by the tests that run the Python SDK as an
# MCP client and server (test/interop/python-sdk.test.ts).
set -euo pipefail
version=${MCP_PYTHON_SDK_VERSION:-2.3.0}
exec "$(dirname "$0")/python-venv.sh" "python-mcp-$version" "mcp==$version"
